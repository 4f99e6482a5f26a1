/* g08-checks.c -- lab checks' grading test (kept back from students):
 * corruptions the KUnit cases do not make, with the errors validation must
 * count (each report and each fix is one).  Corrupts memory on purpose:
 * runs natively only. */
#include "test.h"
#include "slab.h"

#define NOUSER SLAB_NO_USER_FLAGS

static int errors_of_validation(struct kmem_cache *s)
{
	slab_errors_count_start();
	validate_slab_cache(s);
	return slab_errors_count_stop();
}

static void left_red_zone_of_an_allocated_object(void)
{
	struct kmem_cache *s = kmem_cache_create("G_left_rz", 64, 0, SLAB_RED_ZONE | NOUSER, NULL);
	unsigned char *p = kmem_cache_alloc(s, GFP_KERNEL);

	p[-1] = 0x33;
	CHECK_EQ(errors_of_validation(s), 2);		/* overwritten, and restored */
	CHECK_EQ(errors_of_validation(s), 0);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}

static void end_poison_of_a_free_object(void)
{
	struct kmem_cache *s = kmem_cache_create("G_end_poison", 64, 0, SLAB_POISON | NOUSER, NULL);
	unsigned char *p = kmem_cache_alloc(s, GFP_KERNEL);

	kmem_cache_free(s, p);
	p[63] = 0x6b;					/* POISON_FREE where POISON_END belongs */
	CHECK_EQ(errors_of_validation(s), 2);
	CHECK_EQ(errors_of_validation(s), 0);
	kmem_cache_destroy(s);
}

static void a_free_list_that_loops(void)
{
	struct kmem_cache *s = kmem_cache_create("G_cycle", 64, 0, SLAB_POISON | NOUSER, NULL);
	void *a = kmem_cache_alloc(s, GFP_KERNEL), *b = kmem_cache_alloc(s, GFP_KERNEL);
	struct slab *slab = virt_to_slab(a);

	CHECK(virt_to_slab(b) == slab);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);				/* the list: b, a, the rest */
	CHECK(slab->freelist == b);
	set_freepointer(s, a, b);			/* b -> a -> b -> ... */
	CHECK_EQ(errors_of_validation(s), 2);		/* cycle, and isolated */
	CHECK(slab->freelist == NULL && slab->inuse == slab->objects);
	kmem_cache_destroy(s);				/* its objects are "in use" now */
}

static void a_bad_free_list_head(void)
{
	struct kmem_cache *s = kmem_cache_create("G_bad_head", 64, 0, SLAB_POISON | NOUSER, NULL);
	void *a = kmem_cache_alloc(s, GFP_KERNEL);
	struct slab *slab = virt_to_slab(a);

	kmem_cache_free(s, a);
	slab->freelist = (char *)slab_address(slab) + 3;	/* inside, but no object */
	CHECK_EQ(errors_of_validation(s), 2);		/* corrupt, and cleared */
	CHECK(slab->freelist == NULL && slab->inuse == slab->objects);
	kmem_cache_destroy(s);
}

static void a_double_free_is_found_on_the_list(void)
{
	struct kmem_cache *s = kmem_cache_create("G_double", 64, 0,
						 SLAB_CONSISTENCY_CHECKS | SLAB_POISON | NOUSER, NULL);
	void *a = kmem_cache_alloc(s, GFP_KERNEL), *b = kmem_cache_alloc(s, GFP_KERNEL);
	void *c = kmem_cache_alloc(s, GFP_KERNEL);	/* keeps the slab's count above 0 */
	struct slab *slab = virt_to_slab(a);
	unsigned int inuse;
	char *out;

	kmem_cache_free(s, a);
	kmem_cache_free(s, b);				/* a is no longer the head */
	inuse = slab->inuse;
	test_capture_begin();
	kmem_cache_free(s, a);
	out = test_capture_end();
	CHECK(strstr(out, "Object already free") != NULL);
	CHECK_EQ(slab->inuse, inuse);			/* the second free did nothing */
	free(out);
	CHECK_EQ(errors_of_validation(s), 0);
	kmem_cache_free(s, c);
	kmem_cache_destroy(s);
}

int main(void)
{
	test_pin_to_cpu(0);
	RUN(left_red_zone_of_an_allocated_object);
	RUN(end_poison_of_a_free_object);
	RUN(a_free_list_that_loops);
	RUN(a_bad_free_list_head);
	RUN(a_double_free_is_found_on_the_list);
	return test_main_result();
}
