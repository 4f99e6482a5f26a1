/* g05-fastpath.c -- lab fastpath's grading test (kept back from students).
 * With nr_cpus=1 every thread uses CPU slot 0, so the slot's free list and
 * tid can be followed exactly.  Zeroing allocations and bulk frees skip
 * the fronts and reach slab_alloc_fast and do_slab_free themselves. */
#include "test.h"
#include "slab.h"

static struct kmem_cache *s;
static struct kmem_cache_cpu *c;

static void *zalloc(void)
{
	return kmem_cache_alloc(s, GFP_KERNEL | __GFP_ZERO);
}

static void free_chain(void **p, size_t n)
{
	kmem_cache_free_bulk(s, n, p);
}

static void pop_takes_the_head_and_advances_the_tid(void)
{
	void *first = zalloc(), *head, *next, *p;
	unsigned long tid;

	CHECK(first != NULL);
	head = cpu_freelist(c);
	CHECK(head != NULL);
	if (!head)
		return;
	next = get_freepointer(s, head);
	tid = cpu_tid(c);
	p = zalloc();
	CHECK(p == head);
	CHECK(cpu_freelist(c) == next);
	CHECK_EQ(cpu_tid(c), tid + TID_STEP);
	free_chain(&p, 1);
	free_chain(&first, 1);
}

static void push_puts_the_object_first_and_advances_the_tid(void)
{
	void *p = zalloc(), *head = cpu_freelist(c);
	unsigned long tid = cpu_tid(c);

	free_chain(&p, 1);
	CHECK(cpu_freelist(c) == p);
	CHECK(get_freepointer(s, p) == head);
	CHECK_EQ(cpu_tid(c), tid + TID_STEP);
}

static void a_chain_is_pushed_with_one_swap(void)
{
	void *p[3] = { zalloc(), zalloc(), zalloc() };
	void *head = cpu_freelist(c);
	unsigned long tid = cpu_tid(c);

	CHECK(p[0] && p[1] && p[2]);
	free_chain(p, 3);
	CHECK_EQ(cpu_tid(c), tid + TID_STEP);
	CHECK(cpu_freelist(c) == p[0] || cpu_freelist(c) == p[2]);
	for (int i = 0; i < 3; i++)			/* all three are on the list */
		CHECK((p[i] = zalloc()) != NULL);
	CHECK(cpu_freelist(c) == head);
	free_chain(p, 3);
}

static void a_naive_double_free_changes_nothing(void)
{
	void *p = zalloc(), *again;
	unsigned long tid;
	char *report;

	free_chain(&p, 1);
	tid = cpu_tid(c);
	again = p;
	test_capture_begin();
	free_chain(&again, 1);
	report = test_capture_end();
	CHECK(report && strstr(report, "double free") != NULL);
	free(report);
	CHECK(cpu_freelist(c) == p);
	CHECK_EQ(cpu_tid(c), tid);
	again = zalloc();
	CHECK(again == p);
	free_chain(&again, 1);
}

static void an_object_of_another_slab_goes_to_its_slab(void)
{
	unsigned int per_slab = oo_objects(s->oo), n = 0;
	void **p = calloc(2 * per_slab + 2, sizeof(*p));
	struct slab *first;

	CHECK(p != NULL);
	if (!p)
		return;
	p[n++] = zalloc();
	first = cpu_slab_of(c);
	while (cpu_slab_of(c) == first && n < 2 * per_slab + 2)
		p[n++] = zalloc();
	CHECK(cpu_slab_of(c) != first);		/* a new CPU slab now */
	{
		void *head = cpu_freelist(c);
		unsigned long tid = cpu_tid(c);

		free_chain(&p[0], 1);			/* p[0] is in the old slab */
		CHECK(cpu_freelist(c) == head);
		CHECK_EQ(cpu_tid(c), tid);
	}
	free_chain(&p[1], n - 1);
	free(p);
}

int main(void)
{
	s = kmem_cache_create("g-fastpath", 64, 0, SLAB_NO_MERGE, NULL);
	if (!s)
		return 1;
	c = per_cpu_ptr(s, 0);
	RUN(pop_takes_the_head_and_advances_the_tid);
	RUN(push_puts_the_object_first_and_advances_the_tid);
	RUN(a_chain_is_pushed_with_one_swap);
	RUN(a_naive_double_free_changes_nothing);
	RUN(an_object_of_another_slab_goes_to_its_slab);
	kmem_cache_destroy(s);
	return test_main_result();
}
