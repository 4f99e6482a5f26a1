/* g08-quarantine.c -- lab quarantine's grading test (kept back from
 * students): first in first out, the report's range, the last byte's
 * poison, double frees, several caches, several threads. */
#include "test.h"
#include <pthread.h>
#include "slab.h"
#include "quarantine.h"

static char *freeing(struct quarantine *q, struct kmem_cache *s, void *p)
{
	test_capture_begin();
	quarantine_free(q, s, p);
	return test_capture_end();
}

static void the_oldest_leaves_first(void)
{
	struct kmem_cache *s = kmem_cache_create("gq-fifo", 24, 0, 0, NULL);
	struct quarantine *q = quarantine_create(3);
	unsigned char *o[3];
	char *out;

	for (int i = 0; i < 3; i++) {
		o[i] = kmem_cache_alloc(s, GFP_KERNEL);
		quarantine_free(q, s, o[i]);
	}
	o[1][0] = 0;				/* the second is written */
	out = freeing(q, s, kmem_cache_alloc(s, GFP_KERNEL));	/* the first leaves */
	CHECK_EQ(strlen(out), 0);
	free(out);
	out = freeing(q, s, kmem_cache_alloc(s, GFP_KERNEL));	/* the second leaves */
	CHECK(strstr(out, "BUG gq-fifo: Poison overwritten in quarantine") != NULL);
	free(out);
	CHECK_EQ(quarantine_reports(q), 1);
	quarantine_destroy(q);
	kmem_cache_destroy(s);
}

static void the_report_spans_the_written_bytes(void)
{
	struct kmem_cache *s = kmem_cache_create("gq-range", 100, 0, 0, NULL);
	struct quarantine *q = quarantine_create(1);
	unsigned char *a = kmem_cache_alloc(s, GFP_KERNEL);
	char *out, want[160];

	quarantine_free(q, s, a);
	a[17] = 0x01;
	a[18] = POISON_FREE;			/* poison again: inside the range */
	a[60] = 0xff;
	out = freeing(q, s, kmem_cache_alloc(s, GFP_KERNEL));
	snprintf(want, sizeof(want), "[Object overwritten] 0x%lx-0x%lx @offset=17. "
		 "First byte 0x1 instead of 0x6b\n", (unsigned long)(a + 17), (unsigned long)(a + 60));
	CHECK(strstr(out, want) != NULL);
	if (!strstr(out, want))
		printf("    wanted: %s    printed: %s", want, out);
	free(out);
	quarantine_destroy(q);
	kmem_cache_destroy(s);
}

static void the_last_byte_must_hold_poison_end(void)
{
	struct kmem_cache *s = kmem_cache_create("gq-end", 16, 0, 0, NULL);
	struct quarantine *q = quarantine_create(1);
	unsigned char *a = kmem_cache_alloc(s, GFP_KERNEL);
	char *out, want[160];

	quarantine_free(q, s, a);
	CHECK_EQ(a[15], POISON_END);
	a[15] = POISON_FREE;
	out = freeing(q, s, kmem_cache_alloc(s, GFP_KERNEL));
	snprintf(want, sizeof(want), "0x%lx-0x%lx @offset=15. First byte 0x6b instead of 0xa5\n",
		 (unsigned long)(a + 15), (unsigned long)(a + 15));
	CHECK(strstr(out, want) != NULL);
	free(out);
	CHECK_EQ(quarantine_reports(q), 1);
	quarantine_destroy(q);
	kmem_cache_destroy(s);
}

static void a_double_free_is_reported_and_held_once(void)
{
	struct kmem_cache *s = kmem_cache_create("gq-double", 32, 0, 0, NULL);
	struct quarantine *q = quarantine_create(8);
	void *a = kmem_cache_alloc(s, GFP_KERNEL), *b = kmem_cache_alloc(s, GFP_KERNEL);
	char *out;

	quarantine_free(q, s, a);
	quarantine_free(q, s, b);
	out = freeing(q, s, a);
	CHECK(strstr(out, "BUG gq-double: Object already free in quarantine") != NULL);
	CHECK(strstr(out, "Poison overwritten") == NULL);
	free(out);
	CHECK_EQ(quarantine_count(q), 2);
	CHECK_EQ(quarantine_reports(q), 1);
	test_capture_begin();
	CHECK_EQ(quarantine_drain(q), 2);
	kmem_cache_destroy(s);			/* nothing left in it, nothing freed twice */
	out = test_capture_end();
	CHECK_EQ(strlen(out), 0);
	if (*out)
		printf("    printed: %s", out);
	free(out);
	quarantine_destroy(q);
}

static void objects_go_back_to_their_own_caches(void)
{
	struct kmem_cache *s = kmem_cache_create("gq-small", 8, 0, 0, NULL);
	struct kmem_cache *t = kmem_cache_create("gq-large", 1000, 0, 0, NULL);
	struct quarantine *q = quarantine_create(5);
	char *out;

	for (int i = 0; i < 12; i++) {
		struct kmem_cache *c = i % 3 ? s : t;

		quarantine_free(q, c, kmem_cache_alloc(c, GFP_KERNEL));
	}
	CHECK_EQ(quarantine_count(q), 5);
	test_capture_begin();
	quarantine_destroy(q);			/* drains */
	kmem_cache_destroy(s);
	kmem_cache_destroy(t);
	out = test_capture_end();
	CHECK_EQ(strlen(out), 0);
	if (*out)
		printf("    printed: %s", out);
	free(out);
	quarantine_destroy(NULL);
}

static struct quarantine *shared;
static struct kmem_cache *shared_cache;

static void *thread_fn(void *arg)
{
	unsigned long n = test_scaled(20000);

	(void)arg;
	for (unsigned long i = 0; i < n; i++) {
		unsigned char *p = kmem_cache_alloc(shared_cache, GFP_KERNEL);

		if (!p)
			break;
		memset(p, 0x5a, 64);		/* a write before the free, not after */
		quarantine_free(shared, shared_cache, p);
		if (i % 1000 == 999)
			(void)quarantine_count(shared);
	}
	return NULL;
}

static void threads_share_one_quarantine(void)
{
	pthread_t th[4];
	char *out;

	shared_cache = kmem_cache_create("gq-threads", 64, 0, 0, NULL);
	shared = quarantine_create(16);
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, thread_fn, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ(quarantine_count(shared), 16);
	CHECK_EQ(quarantine_reports(shared), 0);
	test_capture_begin();
	CHECK_EQ(quarantine_drain(shared), 16);
	kmem_cache_destroy(shared_cache);
	out = test_capture_end();
	CHECK_EQ(strlen(out), 0);
	free(out);
	quarantine_destroy(shared);
}

int main(void)
{
	RUN(the_oldest_leaves_first);
	RUN(the_report_spans_the_written_bytes);
	RUN(the_last_byte_must_hold_poison_end);
	RUN(a_double_free_is_reported_and_held_once);
	RUN(objects_go_back_to_their_own_caches);
	RUN(threads_share_one_quarantine);
	return test_main_result();
}
