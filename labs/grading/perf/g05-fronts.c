/* g05-fronts.c -- lab perf's grading gate (kept back from students): the
 * fronts must stay correct however few instructions they take.  With
 * nr_cpus=1 every thread uses slot 0. */
#include "test.h"
#include "slab.h"

static struct kmem_cache *s;

static void zeroing_allocations_are_zero(void)
{
	for (int i = 0; i < 200; i++) {
		unsigned char *p = kmem_cache_alloc(s, GFP_KERNEL);

		CHECK(p != NULL);
		memset(p, 0xee, 48);
		kmem_cache_free(s, p);
		p = kmem_cache_alloc(s, GFP_KERNEL | __GFP_ZERO);
		CHECK(p != NULL);
		for (int j = 0; j < 48; j++)
			CHECK_EQ(p[j], 0);
		kmem_cache_free(s, p);
	}
}

static void no_object_is_handed_out_twice(void)
{
	enum { N = 3000 };
	static unsigned char *live[N];
	uint64_t rng = test_seed();

	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < N; i++) {
			live[i] = kmem_cache_alloc(s, GFP_KERNEL);
			CHECK(live[i] != NULL);
			if (!live[i])
				return;
			live[i][0] = (unsigned char)i;
			live[i][47] = (unsigned char)(i >> 8);
		}
		for (int i = 0; i < N; i++) {
			int j = (int)(test_rand(&rng) % N);
			unsigned char *t = live[i];

			live[i] = live[j];
			live[j] = t;
		}
		for (int i = 0; i < N; i++) {
			CHECK(live[i] != NULL);
			kmem_cache_free(s, live[i]);
		}
	}
	for (int i = 0; i < N; i++)		/* all distinct once more */
		live[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (int i = 0; i < N; i++)
		live[i][0] = 0;
	for (int i = 0; i < N; i++)
		live[i][0]++;
	for (int i = 0; i < N; i++) {
		CHECK_EQ(live[i][0], 1);
		kmem_cache_free(s, live[i]);
	}
}

static void bad_frees_still_reach_the_checks(void)
{
	void *x = kmem_cache_alloc(s, GFP_KERNEL), *head;
	char *out;

	test_capture_begin();
	kmem_cache_free(NULL, x);		/* freed to its own cache, with a warning */
	out = test_capture_end();
	CHECK(strstr(out, "Wrong slab cache") != NULL);
	free(out);
	head = per_cpu_ptr(s, 0)->freelist;
	CHECK(head == x);
	test_capture_begin();
	kmem_cache_free(s, x);			/* the naive double free */
	out = test_capture_end();
	CHECK(strstr(out, "double free") != NULL);
	free(out);
	CHECK(per_cpu_ptr(s, 0)->freelist == head);
}

int main(void)
{
	s = kmem_cache_create("g-fronts", 48, 0, SLAB_NO_MERGE, NULL);
	if (!s)
		return 1;
	RUN(zeroing_allocations_are_zero);
	RUN(no_object_is_handed_out_twice);
	RUN(bad_frees_still_reach_the_checks);
	kmem_cache_destroy(s);
	return test_main_result();
}
