/* g11-alloc-tag.c -- lab alloc-tag's grading test (kept back from
 * students): bytes and calls per call site after sequences the chapter's
 * tests do not make, read back from /proc/allocinfo. */
#include "test.h"
#include <pthread.h>
#include "slub.h"

#ifdef CONFIG_MEM_ALLOC_PROFILING
struct counts { long long bytes, calls; };

static struct counts at_line(int line)
{
	struct counts c = { -1, -1 };
	ssize_t len = slub_ctl_read("/proc/allocinfo", NULL, 0);
	char *text = len > 0 ? malloc((size_t)len + 1) : NULL, needle[300], *at;

	if (!text)
		return c;
	if (slub_ctl_read("/proc/allocinfo", text, (size_t)len + 1) == len) {
		snprintf(needle, sizeof(needle), " %s:%d ", __FILE__, line);
		at = strstr(text, needle);
		if (at) {
			while (at > text && at[-1] != '\n')
				at--;
			if (sscanf(at, "%lld %lld", &c.bytes, &c.calls) != 2)
				c.bytes = c.calls = -1;
		}
	}
	free(text);
	return c;
}

#define CHECK_AT(line, b, n) do {					\
	struct counts c_ = at_line(line);				\
	CHECK_EQ(c_.bytes, (b));					\
	CHECK_EQ(c_.calls, (n));					\
} while (0)

static long stride(const char *cache)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/slab_size", cache);
	return slub_ctl_read(path, buf, sizeof(buf)) > 0 ? strtol(buf, NULL, 10) : -1;
}

static struct kmem_cache *s;
static void *shared[8];

static void *free_them(void *arg)
{
	(void)arg;
	for (int i = 0; i < 8; i++)
		kmem_cache_free(s, shared[i]);
	return NULL;
}

static void frees_anywhere_give_back_what_was_charged(void)
{
	long size = stride("g11-a");
	pthread_t t;
	int l = 0;

	for (int i = 0; i < 8; i++)
		shared[i] = kmem_cache_alloc(s, GFP_KERNEL), l = __LINE__;
	CHECK_AT(l, 8 * size, 8);
	CHECK(pthread_create(&t, NULL, free_them, NULL) == 0);
	pthread_join(t, NULL);
	CHECK_AT(l, 0, 0);
}

static void an_object_from_while_off_subtracts_nothing(void)
{
	long size = stride("g11-a");
	void *off, *on;
	int l1, l2;

	CHECK_EQ(slub_ctl_write("/proc/sys/vm/mem_profiling", "0"), 0);
	off = kmem_cache_alloc(s, GFP_KERNEL), l1 = __LINE__;
	CHECK_EQ(slub_ctl_write("/proc/sys/vm/mem_profiling", "1"), 0);
	on = kmem_cache_alloc(s, GFP_KERNEL), l2 = __LINE__;
	CHECK_AT(l1, 0, 0);
	CHECK_AT(l2, size, 1);
	kmem_cache_free(s, off);
	CHECK_AT(l1, 0, 0);
	CHECK_AT(l2, size, 1);		/* the other site is untouched */
	kmem_cache_free(s, on);
	CHECK_AT(l2, 0, 0);
}

static void bulk_and_kfree_bulk_give_back_each_object(void)
{
	long size = stride("g11-a");
	void *p[10], *q[6];
	int l1, l2 = 0, n;

	n = kmem_cache_alloc_bulk(s, GFP_KERNEL, 10, p), l1 = __LINE__;
	CHECK_EQ(n, 10);
	for (int i = 0; i < 6; i++)
		q[i] = kmalloc(24, GFP_KERNEL), l2 = __LINE__;
	CHECK_AT(l1, 10 * size, 10);
	CHECK_AT(l2, 6 * stride("kmalloc-32"), 6);
	kmem_cache_free_bulk(s, 4, p);
	CHECK_AT(l1, 6 * size, 6);
	kfree_bulk(6, q);
	CHECK_AT(l2, 0, 0);
	kmem_cache_free_bulk(s, 6, p + 4);
	CHECK_AT(l1, 0, 0);
}

static void a_moving_krealloc_recharges_the_object(void)
{
	char *p, *q;
	int l1, l2;

	p = kmalloc(40, GFP_KERNEL), l1 = __LINE__;
	CHECK_AT(l1, stride("kmalloc-64"), 1);
	q = krealloc(p, 3000, GFP_KERNEL), l2 = __LINE__;
	CHECK(q != NULL && q != p);
	CHECK_AT(l1, 0, 0);
	CHECK_AT(l2, stride("kmalloc-4k"), 1);
	kfree(q);
	CHECK_AT(l2, 0, 0);
}
#endif

int main(void)
{
#ifdef CONFIG_MEM_ALLOC_PROFILING
	s = kmem_cache_create("g11-a", 72, 0, SLAB_NO_MERGE, NULL);
	if (!s)
		return 1;
	RUN(frees_anywhere_give_back_what_was_charged);
	RUN(an_object_from_while_off_subtracts_nothing);
	RUN(bulk_and_kfree_bulk_give_back_each_object);
	RUN(a_moving_krealloc_recharges_the_object);
	kmem_cache_destroy(s);
#endif
	return test_main_result();
}
