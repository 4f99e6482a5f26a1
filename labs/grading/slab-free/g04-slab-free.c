/* g04-slab-free.c -- lab slab-free's grading test (kept back from students):
 * the node's partial list after each of __slab_free's three cases. */
#include "test.h"
#include "slab.h"

static struct kmem_cache *s;
static struct kmem_cache_node *n;
static unsigned int per_slab;

static unsigned long nr_partial(void)
{
	return __atomic_load_n(&n->nr_partial, __ATOMIC_RELAXED);
}

static void setup(void)
{
	s = kmem_cache_create("g-slab-free", 256, 0, SLAB_NO_MERGE, NULL);
	CHECK(s != NULL);
	if (!s)
		exit(1);
	n = get_node(s, 0);
	per_slab = oo_objects(s->oo);
	CHECK(per_slab >= 4);
}

static void full_slab_goes_back_on_the_list(void)
{
	void *p[64];

	CHECK(per_slab <= 64);
	for (unsigned int i = 0; i < per_slab; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	CHECK_EQ(nr_partial(), 0);		/* a full slab is on no list */
	kmem_cache_free(s, p[0]);		/* case 2: full -> partial */
	CHECK_EQ(nr_partial(), 1);
	for (unsigned int i = 1; i + 1 < per_slab; i++)
		kmem_cache_free(s, p[i]);	/* case 1: stays partial */
	CHECK_EQ(nr_partial(), 1);
	kmem_cache_free(s, p[per_slab - 1]);	/* case 3, below min_partial: kept */
	CHECK_EQ(nr_partial(), 1);
}

static void empty_slabs_beyond_min_partial_are_discarded(void)
{
	unsigned int slabs = (unsigned int)s->min_partial + 3, total = slabs * per_slab;
	void **p = calloc(total, sizeof(*p));

	CHECK(p != NULL);
	if (!p)
		return;
	for (unsigned int i = 0; i < total; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	CHECK_EQ(nr_partial(), 0);
	for (unsigned int i = 0; i < total; i++)
		kmem_cache_free(s, p[i]);
	/* Each slab is on the list when it empties, and counts itself: the
	 * node keeps min_partial - 1 empty slabs, as the kernel's test does. */
	CHECK_EQ(nr_partial(), s->min_partial - 1);
	free(p);
}

static void a_slab_of_one_object_is_kept_when_it_empties(void)
{
	struct kmem_cache *big = kmem_cache_create("g-one", 40000, 0, SLAB_NO_MERGE, NULL);
	struct kmem_cache_node *bn;
	void *o;

	CHECK(big != NULL);
	if (!big)
		return;
	bn = get_node(big, 0);
	CHECK_EQ(oo_objects(big->oo), 1);
	o = kmem_cache_alloc(big, GFP_KERNEL);
	CHECK(o != NULL);
	CHECK_EQ(bn->nr_partial, 0);
	kmem_cache_free(big, o);		/* full and empty at once: added */
	CHECK_EQ(bn->nr_partial, 1);
	kmem_cache_destroy(big);
}

int main(void)
{
	setup();
	RUN(full_slab_goes_back_on_the_list);
	RUN(empty_slabs_beyond_min_partial_are_discarded);
	RUN(a_slab_of_one_object_is_kept_when_it_empties);
	kmem_cache_destroy(s);
	return test_main_result();
}
