/* l07-slabfrag.c -- lab slabfrag's visible tests: one cache's numbers, and
 * the report. */
#include "test.h"
#include <errno.h>
#include "slab.h"
#include "slabfrag.h"

static char *report(unsigned int below, int *ret)
{
	FILE *f = tmpfile();
	long n;
	char *text;

	fflush(stdout);
	*ret = slab_frag_report(fileno(f), below);
	n = ftell(f) > 0 ? ftell(f) : lseek(fileno(f), 0, SEEK_END);
	text = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
	if (n > 0 && pread(fileno(f), text, (size_t)n, 0) != n)
		text[0] = '\0';
	fclose(f);
	return text;
}

static unsigned long file(const char *cache, const char *name)
{
	char path[200], buf[64] = "";

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/%s", cache, name);
	CHECK(slub_ctl_read(path, buf, sizeof(buf) - 1) > 0);
	return strtoul(buf, NULL, 10);
}

static void no_such_cache(void)
{
	struct slab_frag f;

	CHECK_EQ(slab_frag_get("lf-there-is-no-such-cache", &f), -ENOENT);
	CHECK_EQ(slab_frag_settle("lf-there-is-no-such-cache"), -ENOENT);
}

static void a_cache_without_slabs_is_full(void)
{
	struct kmem_cache *s = kmem_cache_create("lf-empty", 312, 0, 0, NULL);
	struct slab_frag f;

	CHECK_EQ(slab_frag_get("lf-empty", &f), 0);
	CHECK_EQ(f.slabs, 0);
	CHECK_EQ(f.objects, 0);
	CHECK_EQ(f.waste, 0);
	CHECK_EQ(f.fill, 100);
	kmem_cache_destroy(s);
}

static void half_of_five_slabs_settled(void)
{
	struct kmem_cache *s = kmem_cache_create("lf-half", 200, 0, 0, NULL);
	void *p[100];
	struct slab_frag f;

	for (int i = 0; i < 100; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (int i = 0; i < 100; i += 2)
		kmem_cache_free(s, p[i]);
	CHECK_EQ(slab_frag_settle("lf-half"), 0);
	CHECK_EQ(slab_frag_get("lf-half", &f), 0);
	CHECK_EQ(f.slabs, 5);			/* 20 objects of 200 bytes a page */
	CHECK_EQ(f.objects, 50);
	CHECK_EQ(f.slab_bytes, 5 * PAGE_SIZE);
	CHECK_EQ(f.used_bytes, 50 * 200);
	CHECK_EQ(f.waste, 5 * PAGE_SIZE - 50 * 200);
	CHECK_EQ(f.partial, 5);
	CHECK_EQ(f.partial_free, 50);
	CHECK_EQ(f.fill, 48);
	for (int i = 1; i < 100; i += 2)
		kmem_cache_free(s, p[i]);
	kmem_cache_destroy(s);
}

static void the_report_lists_a_wasteful_cache(void)
{
	struct kmem_cache *s = kmem_cache_create("lf-report", 1000, 0, 0, NULL);
	void *p[16];
	char *out, want[200];
	int n;

	for (int i = 0; i < 16; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (int i = 1; i < 16; i++)
		kmem_cache_free(s, p[i]);
	slab_frag_settle("lf-report");
	out = report(101, &n);
	CHECK(n >= 1);
	CHECK(strncmp(out, "cache                       slabs    objects        waste  fill     free\n",
		      72) == 0);
	/* one slab of 2^order pages, one object in use, the others free */
	snprintf(want, sizeof(want), "\n%-24s %8s %10s %12lu %4u%% %8lu\n", "lf-report", "1", "1",
		 (PAGE_SIZE << file("lf-report", "order")) - 1000,
		 (unsigned int)(1000 * 100 / (PAGE_SIZE << file("lf-report", "order"))),
		 file("lf-report", "objs_per_slab") - 1);
	CHECK(strstr(out, want) != NULL);
	if (!strstr(out, want))
		printf("    wanted: %s    printed:\n%s", want + 1, out);
	free(out);
	kmem_cache_free(s, p[0]);
	kmem_cache_destroy(s);
}

int main(void)
{
	RUN(no_such_cache);
	RUN(a_cache_without_slabs_is_full);
	RUN(half_of_five_slabs_settled);
	RUN(the_report_lists_a_wasteful_cache);
	return test_main_result();
}
