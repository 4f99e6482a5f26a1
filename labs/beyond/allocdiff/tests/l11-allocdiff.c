/* l11-allocdiff.c -- lab allocdiff's visible tests: the sites of this file
 * that grew and shrank between two snapshots, and the report of two texts. */
#include "test.h"
#include <errno.h>
#include "allocdiff.h"

static void profiling(const char *on)
{
	CHECK_EQ(slub_ctl_write("/proc/sys/vm/mem_profiling", on), 0);
}

/* The bytes an object of the cache is charged: its slab_size. */
static long long stride(const char *cache)
{
	char path[128], buf[32] = "";

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/slab_size", cache);
	CHECK(slub_ctl_read(path, buf, sizeof(buf) - 1) > 0);
	return strtoll(buf, NULL, 10);
}

/* The whole report, in a buffer of the size the report asked for. */
static char *report(const struct allocdiff_snapshot *before,
		    const struct allocdiff_snapshot *after, unsigned int top)
{
	ssize_t n = allocdiff_report(before, after, NULL, 0, top);
	char *text = calloc(1, n > 0 ? (size_t)n + 1 : 1);

	CHECK(n >= 0);
	if (n > 0) {
		CHECK_EQ(allocdiff_report(before, after, text, (size_t)n + 1, top), n);
		CHECK_EQ(strlen(text), n);
	}
	return text;
}

/* Where the report has this file's site (func, line), with these
 * differences, as a whole line; NULL if it has not. */
static const char *find(const char *out, long long bytes, long long calls, const char *func,
			int line)
{
	char want[256];
	const char *at;

	snprintf(want, sizeof(want), "%+12lli %+8lli %s:%d func:%s\n", bytes, calls, __FILE__,
		 line, func);
	for (at = strstr(out, want); at; at = strstr(at + 1, want))
		if (at == out || at[-1] == '\n')
			return at;
	printf("    wanted: %s", want);
	printf("    in the report:\n%s", out);
	return NULL;
}

static void a_site_that_allocated_grows(void)
{
	struct kmem_cache *s = kmem_cache_create("la-grow", 200, 0, 0, NULL);
	struct allocdiff_snapshot *before, *after;
	void *p[3];
	char *out;
	int l = 0;

	profiling("1");
	before = allocdiff_snapshot();
	CHECK(before != NULL);
	for (int i = 0; i < 3; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL), l = __LINE__;
	after = allocdiff_snapshot();
	CHECK(after != NULL);
	CHECK(allocdiff_sites(after) > 0);
	out = report(before, after, 0);
	CHECK(find(out, 3 * stride("la-grow"), 3, __func__, l) != NULL);
	free(out);
	out = report(after, before, 0);		/* backwards: it shrank */
	CHECK(find(out, -3 * stride("la-grow"), -3, __func__, l) != NULL);
	free(out);
	allocdiff_free(before);
	allocdiff_free(after);
	for (int i = 0; i < 3; i++)
		kmem_cache_free(s, p[i]);
	kmem_cache_destroy(s);
	profiling("0");
}

static void a_site_that_freed_shrinks(void)
{
	struct kmem_cache *s = kmem_cache_create("la-shrink", 96, 0, 0, NULL);
	struct allocdiff_snapshot *before, *after;
	void *p[4];
	char *out;
	int l = 0;

	profiling("1");
	for (int i = 0; i < 4; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL), l = __LINE__;
	before = allocdiff_snapshot();
	kmem_cache_free(s, p[0]);
	kmem_cache_free(s, p[1]);
	after = allocdiff_snapshot();
	CHECK(before && after);
	out = report(before, after, 0);
	CHECK(find(out, -2 * stride("la-shrink"), -2, __func__, l) != NULL);
	free(out);
	allocdiff_free(before);
	allocdiff_free(after);
	kmem_cache_free(s, p[2]);
	kmem_cache_free(s, p[3]);
	kmem_cache_destroy(s);
	profiling("0");
}

static void the_largest_growth_comes_first(void)
{
	struct kmem_cache *big = kmem_cache_create("la-big", 2000, 0, 0, NULL);
	struct kmem_cache *small = kmem_cache_create("la-small", 64, 0, 0, NULL);
	struct allocdiff_snapshot *before, *after;
	void *a, *b[2], *c;
	const char *la, *lb;
	char *out, unchanged[128];
	int l1, l2 = 0, l3;

	profiling("1");
	c = kmem_cache_alloc(small, GFP_KERNEL), l3 = __LINE__;
	before = allocdiff_snapshot();
	for (int i = 0; i < 2; i++)
		b[i] = kmem_cache_alloc(small, GFP_KERNEL), l2 = __LINE__;
	a = kmem_cache_alloc(big, GFP_KERNEL), l1 = __LINE__;
	after = allocdiff_snapshot();
	CHECK(before && after);
	out = report(before, after, 0);
	la = find(out, stride("la-big"), 1, __func__, l1);
	lb = find(out, 2 * stride("la-small"), 2, __func__, l2);
	CHECK(la && lb && la < lb);
	snprintf(unchanged, sizeof(unchanged), "%s:%d func:%s\n", __FILE__, l3, __func__);
	CHECK(strstr(out, unchanged) == NULL);	/* its bytes did not change */
	free(out);
	allocdiff_free(before);
	allocdiff_free(after);
	kmem_cache_free(big, a);
	kmem_cache_free(small, b[0]);
	kmem_cache_free(small, b[1]);
	kmem_cache_free(small, c);
	kmem_cache_destroy(big);
	kmem_cache_destroy(small);
	profiling("0");
}

#define HEADER "allocinfo - version: 1.0\n#     <size>  <calls> <tag info>\n"

static const char before_text[] = HEADER
	"        4096        1 mm/a.c:10 func:alpha \n"
	"         512        8 mm/b.c:20 func:beta \n"
	"        1024        2 mm/c.c:30 func:gamma \n"
	"           0        0 mm/d.c:40 func:delta \n";
static const char after_text[] = HEADER
	"        4096        1 mm/a.c:10 func:alpha \n"
	"        1536       10 mm/b.c:20 func:beta \n"
	"           0        0 mm/c.c:30 func:gamma \n"
	"        1024        1 mm/d.c:40 func:delta \n"
	"        8192        2 mm/e.c:50 [mod] func:epsilon \n";

/* New, grown (a tie, by tag), shrunk; mm/a.c did not change. */
static const char the_report[] =
	"       +8192       +2 mm/e.c:50 [mod] func:epsilon\n"
	"       +1024       +2 mm/b.c:20 func:beta\n"
	"       +1024       +1 mm/d.c:40 func:delta\n"
	"       -1024       -2 mm/c.c:30 func:gamma\n";

static void the_report_of_two_texts(void)
{
	struct allocdiff_snapshot *before = allocdiff_parse(before_text);
	struct allocdiff_snapshot *after = allocdiff_parse(after_text);
	char *out;

	CHECK(before && after);
	CHECK_EQ(allocdiff_sites(before), 4);
	CHECK_EQ(allocdiff_sites(after), 5);
	out = report(before, after, 0);
	CHECK(!strcmp(out, the_report));
	if (strcmp(out, the_report))
		printf("    wanted:\n%s    the report:\n%s", the_report, out);
	free(out);
	out = report(before, after, 2);
	CHECK(!strcmp(out, "       +8192       +2 mm/e.c:50 [mod] func:epsilon\n"
			   "       +1024       +2 mm/b.c:20 func:beta\n"));
	free(out);
	out = report(after, after, 0);
	CHECK(!strcmp(out, ""));
	free(out);
	allocdiff_free(before);
	allocdiff_free(after);
}

static void a_short_buffer_learns_the_length(void)
{
	struct allocdiff_snapshot *before = allocdiff_parse(before_text);
	struct allocdiff_snapshot *after = allocdiff_parse(after_text);
	char buf[16];

	CHECK(before && after);
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ(allocdiff_report(before, after, buf, 13, 1), 51);	/* the first line's length */
	CHECK(!strcmp(buf, "       +8192"));
	CHECK_EQ(buf[13], 'x');
	CHECK_EQ(allocdiff_report(before, after, NULL, 0, 0), strlen(the_report));
	CHECK_EQ(allocdiff_report(NULL, after, buf, sizeof(buf), 0), -EINVAL);
	allocdiff_free(before);
	allocdiff_free(after);
}

static void what_profiling_off_does_not_count_is_not_listed(void)
{
	struct allocdiff_snapshot *before, *after;
	char *out, mine[128];
	void *p;
	int l;

	profiling("0");
	before = allocdiff_snapshot();
	p = kmalloc(64, GFP_KERNEL), l = __LINE__;
	after = allocdiff_snapshot();
	CHECK(before && after);		/* the file is there, profiling on or off */
	out = report(before, after, 0);
	snprintf(mine, sizeof(mine), "%s:%d func:%s\n", __FILE__, l, __func__);
	CHECK(strstr(out, mine) == NULL);
	free(out);
	allocdiff_free(before);
	allocdiff_free(after);
	kfree(p);
}

int main(void)
{
	RUN(a_site_that_allocated_grows);
	RUN(a_site_that_freed_shrinks);
	RUN(the_largest_growth_comes_first);
	RUN(the_report_of_two_texts);
	RUN(a_short_buffer_learns_the_length);
	RUN(what_profiling_off_does_not_count_is_not_listed);
	return test_main_result();
}
