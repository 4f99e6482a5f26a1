/* l08-quarantine.c -- lab quarantine's visible tests: objects held back,
 * poisoned, and checked when they leave. */
#include "test.h"
#include "slab.h"
#include "quarantine.h"

static struct kmem_cache *cache(const char *name, unsigned int size)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, 0, NULL);

	CHECK(s != NULL);
	return s;
}

static void no_quarantine_of_capacity_zero(void)
{
	struct quarantine *q = quarantine_create(0);

	CHECK(q == NULL);
	q = quarantine_create(1);
	CHECK(q != NULL);
	CHECK_EQ(quarantine_count(q), 0);
	CHECK_EQ(quarantine_reports(q), 0);
	quarantine_destroy(q);
}

static void a_held_object_holds_the_poison(void)
{
	struct kmem_cache *s = cache("lq-poison", 40);
	struct quarantine *q = quarantine_create(8);
	unsigned char *p = kmem_cache_alloc(s, GFP_KERNEL);
	unsigned int bad = 0;

	memset(p, 0x11, 40);
	quarantine_free(q, s, p);
	CHECK_EQ(quarantine_count(q), 1);
	for (unsigned int i = 0; i < 39; i++)
		bad += p[i] != POISON_FREE;	/* still allocated for SLUB: readable */
	CHECK_EQ(bad, 0);
	CHECK_EQ(p[39], POISON_END);
	CHECK_EQ(quarantine_drain(q), 1);
	CHECK_EQ(quarantine_count(q), 0);
	quarantine_destroy(q);
	kmem_cache_destroy(s);
}

static void a_held_object_is_not_handed_out_again(void)
{
	struct kmem_cache *s = cache("lq-reuse", 64);
	struct quarantine *q = quarantine_create(100);
	void *p = kmem_cache_alloc(s, GFP_KERNEL), *got[50];
	int again = 0;

	quarantine_free(q, s, p);
	for (int i = 0; i < 50; i++) {
		got[i] = kmem_cache_alloc(s, GFP_KERNEL);
		again += got[i] == p;
	}
	CHECK_EQ(again, 0);
	for (int i = 0; i < 50; i++)
		quarantine_free(q, s, got[i]);
	CHECK_EQ(quarantine_count(q), 51);
	quarantine_destroy(q);
	kmem_cache_destroy(s);
}

static void a_full_quarantine_lets_one_out(void)
{
	struct kmem_cache *s = cache("lq-full", 32);
	struct quarantine *q = quarantine_create(4);

	for (int i = 0; i < 10; i++)
		quarantine_free(q, s, kmem_cache_alloc(s, GFP_KERNEL));
	CHECK_EQ(quarantine_count(q), 4);
	CHECK_EQ(quarantine_drain(q), 4);
	CHECK_EQ(quarantine_reports(q), 0);
	quarantine_destroy(q);
	kmem_cache_destroy(s);
}

static void a_write_after_free_is_reported_when_the_object_leaves(void)
{
	struct kmem_cache *s = cache("lq-write", 48);
	struct quarantine *q = quarantine_create(2);
	unsigned char *a = kmem_cache_alloc(s, GFP_KERNEL);
	char *out, want[160];

	quarantine_free(q, s, a);
	a[3] = 0x42;				/* a use after free */
	test_capture_begin();
	quarantine_free(q, s, kmem_cache_alloc(s, GFP_KERNEL));
	out = test_capture_end();
	CHECK_EQ(strlen(out), 0);		/* a has not left yet */
	free(out);
	test_capture_begin();
	quarantine_free(q, s, kmem_cache_alloc(s, GFP_KERNEL));
	out = test_capture_end();
	CHECK(strstr(out, "BUG lq-write: Poison overwritten in quarantine\n") != NULL);
	snprintf(want, sizeof(want), "[Object overwritten] 0x%lx-0x%lx @offset=3. "
		 "First byte 0x42 instead of 0x6b\n", (unsigned long)(a + 3), (unsigned long)(a + 3));
	CHECK(strstr(out, want) != NULL);
	if (!strstr(out, want))
		printf("    wanted: %s    printed: %s", want, out);
	free(out);
	CHECK_EQ(quarantine_reports(q), 1);
	CHECK_EQ(quarantine_count(q), 2);
	quarantine_destroy(q);
	kmem_cache_destroy(s);
}

int main(void)
{
	RUN(no_quarantine_of_capacity_zero);
	RUN(a_held_object_holds_the_poison);
	RUN(a_held_object_is_not_handed_out_again);
	RUN(a_full_quarantine_lets_one_out);
	RUN(a_write_after_free_is_reported_when_the_object_leaves);
	return test_main_result();
}
