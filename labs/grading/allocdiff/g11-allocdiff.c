/* g11-allocdiff.c -- lab allocdiff's grading test (kept back from
 * students): no profiling support, the lines a text may hold, one tag on
 * two lines, sites new and gone, ties, top, short buffers, many sites with
 * long tags, a snapshot that outlives its text. */
#include "test.h"
#include <errno.h>
#include "allocdiff.h"

static void profiling(const char *on)
{
	CHECK_EQ(slub_ctl_write("/proc/sys/vm/mem_profiling", on), 0);
}

static long long stride(const char *cache)
{
	char path[128], buf[32] = "";

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/slab_size", cache);
	CHECK(slub_ctl_read(path, buf, sizeof(buf) - 1) > 0);
	return strtoll(buf, NULL, 10);
}

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

static int occurrences(const char *text, const char *needle)
{
	int n = 0;

	for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
		n++;
	return n;
}

static void check_report(const char *before_text, const char *after_text, unsigned int top,
			 const char *want)
{
	struct allocdiff_snapshot *before = allocdiff_parse(before_text);
	struct allocdiff_snapshot *after = allocdiff_parse(after_text);
	char *out;

	CHECK(before && after);
	out = report(before, after, top);
	CHECK(!strcmp(out, want));
	if (strcmp(out, want))
		printf("    wanted:\n%s    the report:\n%s", want, out);
	free(out);
	allocdiff_free(before);
	allocdiff_free(after);
}

static int snapshot_without_support(void)
{
	struct allocdiff_snapshot *snap;

	setenv("SLUB_CMDLINE", "sysctl.vm.mem_profiling=never", 1);
	errno = 0;
	snap = allocdiff_snapshot();
	if (snap || errno != ENOENT) {
		printf("    allocdiff_snapshot() under never: %p, errno %d (wanted NULL, ENOENT)\n",
		       (void *)snap, errno);
		allocdiff_free(snap);
		return 1;
	}
	return 0;
}

/* First: the library has not started yet, so the child's boot line holds. */
static void no_profiling_support_no_snapshot(void)
{
	CHECK_EQ(test_in_child(snapshot_without_support), 0);
}

static void what_is_not_a_site_is_skipped(void)
{
	static const char text[] =
		"allocinfo - version: 1.0\n"
		"#     <size>  <calls> <tag info>\n"
		"\n"
		"# 4096 1 mm/comment.c:1 func:not_a_site\n"
		"garbage 12 mm/g.c:1 func:g\n"
		"          64        1 \n"			/* no tag */
		"          64 \n"
		"          64     many mm/calls.c:1 func:no_calls\n"
		"\t 128\t 2\t mm/tabs.c:7 func:tabs \t \n"
		"         -64        1 mm/neg.c:3 func:neg \n"
		"          32        1 mm/last.c:9 [mod] func:last";	/* no newline */
	static const char want[] =
		"        +128       +2 mm/tabs.c:7 func:tabs\n"
		"         +32       +1 mm/last.c:9 [mod] func:last\n"
		"         -64       +1 mm/neg.c:3 func:neg\n";
	struct allocdiff_snapshot *snap = allocdiff_parse(text), *empty = allocdiff_parse("");

	CHECK(snap && empty);
	CHECK_EQ(allocdiff_sites(snap), 3);
	CHECK_EQ(allocdiff_sites(empty), 0);
	allocdiff_free(snap);
	allocdiff_free(empty);
	check_report("", text, 0, want);
	errno = 0;
	CHECK(allocdiff_parse(NULL) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(allocdiff_sites(NULL), 0);
	allocdiff_free(NULL);
}

static void one_tag_on_two_lines_is_one_site(void)
{
	check_report("         100        1 mm/x.c:5 func:twice \n"
		     "           8        1 mm/y.c:1 func:once \n"
		     "          20        2 mm/x.c:5 func:twice \n",
		     "          50        1 mm/x.c:5 func:twice \n"
		     "         200        3 mm/x.c:5 func:twice \n"
		     "           8        1 mm/y.c:1 func:once \n",
		     0, "        +130       +1 mm/x.c:5 func:twice\n");
}

static void two_calls_on_one_line_are_one_site(void)
{
	struct kmem_cache *s = kmem_cache_create("ga-twice", 120, 0, 0, NULL);
	struct allocdiff_snapshot *before, *after;
	char *out, want[256];
	void *p, *q;
	int l;

	profiling("1");
	before = allocdiff_snapshot();
	p = kmem_cache_alloc(s, GFP_KERNEL), q = kmem_cache_alloc(s, GFP_KERNEL), l = __LINE__;
	after = allocdiff_snapshot();
	CHECK(before && after);
	CHECK_EQ(allocdiff_sites(after), allocdiff_sites(before));
	out = report(before, after, 0);
	snprintf(want, sizeof(want), "%+12lli %+8lli %s:%d func:%s\n", 2 * stride("ga-twice"), 2LL,
		 __FILE__, l, __func__);
	CHECK(strstr(out, want) != NULL);
	if (!strstr(out, want))
		printf("    wanted: %s    the report:\n%s", want, out);
	snprintf(want, sizeof(want), " %s:%d func:%s\n", __FILE__, l, __func__);
	CHECK_EQ(occurrences(out, want), 1);		/* one line for the two tags */
	free(out);
	allocdiff_free(before);
	allocdiff_free(after);
	kmem_cache_free(s, p);
	kmem_cache_free(s, q);
	kmem_cache_destroy(s);
	profiling("0");
}

static void sites_new_and_gone(void)
{
	check_report("        4096        2 mm/gone.c:1 [old] func:gone \n"
		     "         640       10 mm/same.c:2 func:same_bytes \n"
		     "           0        0 mm/zero.c:3 func:zero \n",
		     "         640        5 mm/same.c:2 func:same_bytes \n"
		     "           0        0 mm/newzero.c:4 func:new_zero \n"
		     "          64        1 mm/new.c:5 [new] func:new \n",
		     0, "         +64       +1 mm/new.c:5 [new] func:new\n"
			"       -4096       -2 mm/gone.c:1 [old] func:gone\n");
}

static const char ties_before[] =
	"         100        1 mm/a.c:20 func:f \n"
	"         100        1 mm/a.c:100 func:f \n"
	"         100        1 mm/a.c:3 func:f \n"
	"         100        1 mm/b.c:1 func:b \n"
	"         100        1 mm/c.c:1 func:c \n"
	"         100        1 mm/a.c:20 [m] func:f \n";
static const char ties_after[] =
	"         300        3 mm/a.c:20 func:f \n"
	"         300        3 mm/a.c:100 func:f \n"
	"         300        3 mm/a.c:3 func:f \n"
	"           0        0 mm/b.c:1 func:b \n"
	"           0        0 mm/c.c:1 func:c \n"
	"         300        3 mm/a.c:20 [m] func:f \n";
static const char ties_report[] =		/* by tag in strcmp order, not by line number */
	"        +200       +2 mm/a.c:100 func:f\n"
	"        +200       +2 mm/a.c:20 [m] func:f\n"
	"        +200       +2 mm/a.c:20 func:f\n"
	"        +200       +2 mm/a.c:3 func:f\n"
	"        -100       -1 mm/b.c:1 func:b\n"
	"        -100       -1 mm/c.c:1 func:c\n";

static void ties_go_by_tag(void)
{
	check_report(ties_before, ties_after, 0, ties_report);
	check_report(ties_after, ties_before, 0,
		     "        +100       +1 mm/b.c:1 func:b\n"
		     "        +100       +1 mm/c.c:1 func:c\n"
		     "        -200       -2 mm/a.c:100 func:f\n"
		     "        -200       -2 mm/a.c:20 [m] func:f\n"
		     "        -200       -2 mm/a.c:20 func:f\n"
		     "        -200       -2 mm/a.c:3 func:f\n");
}

static void top_limits_the_lines(void)
{
	size_t line = strlen("        +200       +2 mm/a.c:100 func:f\n"), all = strlen(ties_report);

	check_report(ties_before, ties_after, 1, "        +200       +2 mm/a.c:100 func:f\n");
	check_report(ties_before, ties_after, 5, "        +200       +2 mm/a.c:100 func:f\n"
						  "        +200       +2 mm/a.c:20 [m] func:f\n"
						  "        +200       +2 mm/a.c:20 func:f\n"
						  "        +200       +2 mm/a.c:3 func:f\n"
						  "        -100       -1 mm/b.c:1 func:b\n");
	check_report(ties_before, ties_after, 6, ties_report);
	check_report(ties_before, ties_after, 1000, ties_report);
	{
		struct allocdiff_snapshot *b = allocdiff_parse(ties_before);
		struct allocdiff_snapshot *a = allocdiff_parse(ties_after);
		char buf[8];

		CHECK(a && b);
		CHECK_EQ(allocdiff_report(b, a, buf, sizeof(buf), 1), line);
		CHECK(!strcmp(buf, "       "));
		CHECK_EQ(allocdiff_report(b, a, NULL, 0, 0), all);
		allocdiff_free(a);
		allocdiff_free(b);
	}
}

static void a_short_buffer_gets_what_fits(void)
{
	struct allocdiff_snapshot *b = allocdiff_parse(ties_before);
	struct allocdiff_snapshot *a = allocdiff_parse(ties_after);
	size_t all = strlen(ties_report);
	char *buf = malloc(all + 2);

	CHECK(a && b && buf);
	memset(buf, 'x', all + 2);
	CHECK_EQ(allocdiff_report(b, a, buf, 1, 0), all);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(buf[1], 'x');
	memset(buf, 'x', all + 2);
	CHECK_EQ(allocdiff_report(b, a, buf, all, 0), all);	/* one byte short */
	CHECK(!strncmp(buf, ties_report, all - 1));
	CHECK_EQ(buf[all - 1], '\0');
	CHECK_EQ(buf[all], 'x');
	memset(buf, 'x', all + 2);
	CHECK_EQ(allocdiff_report(b, a, buf, all + 1, 0), all);
	CHECK(!strcmp(buf, ties_report));
	CHECK_EQ(buf[all + 1], 'x');
	memset(buf, 'x', all + 2);
	CHECK_EQ(allocdiff_report(a, a, buf, all + 2, 0), 0);	/* nothing changed */
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(allocdiff_report(a, NULL, buf, all + 2, 0), -EINVAL);
	CHECK_EQ(allocdiff_report(NULL, NULL, NULL, 0, 0), -EINVAL);
	free(buf);
	allocdiff_free(a);
	allocdiff_free(b);
}

/* 3000 sites with tags of some 300 characters, in a text freed before the
 * report: the snapshot keeps its own copy of every tag. */
static char *many_sites(int after)
{
	char pad[281];
	size_t size = 3000 * 340 + 1, at = 0;
	char *text = malloc(size);

	memset(pad, 'p', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	for (int i = 0; i < 3000 && text; i++)
		at += (size_t)snprintf(text + at, size - at, "%12d %8d dir/%s/f%04d.c:%d func:f \n",
				       after ? (i % 7) * 1000 : 0, after ? i % 7 : 0, pad,
				       (i * 1237) % 3000, i);
	return text;
}

static void many_sites_with_long_tags(void)
{
	char *t0 = many_sites(0), *t1 = many_sites(1), *out, *p;
	struct allocdiff_snapshot *before = allocdiff_parse(t0), *after = allocdiff_parse(t1);
	long long last = 1LL << 40;
	int lines = 0, sorted = 1;
	char prev[400] = "";

	free(t0);
	free(t1);
	CHECK(before && after);
	CHECK_EQ(allocdiff_sites(before), 3000);
	CHECK_EQ(allocdiff_sites(after), 3000);
	out = report(before, after, 0);
	for (p = out; *p; lines++) {
		char *end = strchr(p, '\n');
		long long bytes = strtoll(p, NULL, 10);

		if (!end)
			break;
		*end = '\0';
		if (bytes > last || (bytes == last && strcmp(prev, p + 22) >= 0))
			sorted = 0;
		last = bytes;
		snprintf(prev, sizeof(prev), "%s", p + 22);
		p = end + 1;
	}
	CHECK_EQ(lines, 3000 - 3000 / 7 - 1);	/* i % 7 == 0 did not change */
	CHECK(sorted);
	CHECK(!strncmp(out, "       +6000       +6 dir/", 26));
	free(out);
	out = report(before, after, 3);
	CHECK_EQ(occurrences(out, "\n"), 3);
	CHECK_EQ(occurrences(out, "       +6000       +6 dir/"), 3);
	free(out);
	allocdiff_free(before);
	allocdiff_free(after);
}

int main(void)
{
	RUN(no_profiling_support_no_snapshot);
	RUN(what_is_not_a_site_is_skipped);
	RUN(one_tag_on_two_lines_is_one_site);
	RUN(two_calls_on_one_line_are_one_site);
	RUN(sites_new_and_gone);
	RUN(ties_go_by_tag);
	RUN(top_limits_the_lines);
	RUN(a_short_buffer_gets_what_fits);
	RUN(many_sites_with_long_tags);
	return test_main_result();
}
