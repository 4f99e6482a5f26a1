/* g07-slabfrag.c -- lab slabfrag's grading test (kept back from students):
 * the numbers follow the files unsettled too, larger orders, the report's
 * order, ties and threshold, ids left out, errors. */
#include "test.h"
#include <errno.h>
#include <fcntl.h>
#include "slab.h"
#include "slabfrag.h"

static unsigned long file(const char *cache, const char *name)
{
	char path[200], buf[64] = "";

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/%s", cache, name);
	CHECK(slub_ctl_read(path, buf, sizeof(buf) - 1) > 0);
	return strtoul(buf, NULL, 10);
}

static char *report(unsigned int below, int *ret)
{
	FILE *f = tmpfile();
	off_t n;
	char *text;

	*ret = slab_frag_report(fileno(f), below);
	n = lseek(fileno(f), 0, SEEK_END);
	text = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
	if (n > 0 && pread(fileno(f), text, (size_t)n, 0) != n)
		text[0] = '\0';
	fclose(f);
	return text;
}

static int lines(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* Every field from the files, as they stand (the CPU's slabs not settled). */
static void check_against_files(const char *cache)
{
	struct slab_frag f;
	unsigned long slabs = file(cache, "slabs"), objects = file(cache, "objects");
	unsigned long bytes = slabs * (PAGE_SIZE << file(cache, "order"));
	unsigned long used = objects * file(cache, "object_size");

	CHECK_EQ(slab_frag_get(cache, &f), 0);
	CHECK_EQ(f.slabs, slabs);
	CHECK_EQ(f.objects, objects);
	CHECK_EQ(f.slab_bytes, bytes);
	CHECK_EQ(f.used_bytes, used);
	CHECK_EQ(f.waste, bytes - used);
	CHECK_EQ(f.partial, file(cache, "partial"));
	CHECK_EQ(f.partial_free, file(cache, "partial") * file(cache, "objs_per_slab") -
		 file(cache, "objects_partial"));
	CHECK_EQ(f.fill, bytes ? used * 100 / bytes : 100);
}

static void the_numbers_are_the_files_unsettled_and_settled(void)
{
	struct kmem_cache *s = kmem_cache_create("gf-files", 3000, 0, 0, NULL);
	void *p[90];

	for (int i = 0; i < 90; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (int i = 0; i < 90; i += 3)
		kmem_cache_free(s, p[i]);
	check_against_files("gf-files");
	CHECK_EQ(slab_frag_settle("gf-files"), 0);
	check_against_files("gf-files");
	CHECK(file("gf-files", "order") > 0);
	for (int i = 0; i < 90; i++)
		if (i % 3)
			kmem_cache_free(s, p[i]);
	CHECK_EQ(slab_frag_settle("gf-files"), 0);
	check_against_files("gf-files");
	kmem_cache_destroy(s);
}

static const char *find_line(const char *out, const char *name)
{
	char key[80];
	const char *at;

	snprintf(key, sizeof(key), "\n%-24s ", name);
	at = strstr(out, key);
	return at ? at + 1 : NULL;
}

static void the_report_is_sorted_by_waste_then_name(void)
{
	struct kmem_cache *a = kmem_cache_create("gf-b-twin", 256, 0, 0, NULL);
	struct kmem_cache *b = kmem_cache_create("gf-a-twin", 256, 0, 0, NULL);
	struct kmem_cache *c = kmem_cache_create("gf-big", 2048, 0, 0, NULL);
	void *pa = kmem_cache_alloc(a, GFP_KERNEL), *pb = kmem_cache_alloc(b, GFP_KERNEL);
	void *pc = kmem_cache_alloc(c, GFP_KERNEL);
	const char *la, *lb, *lc;
	char *out;
	int n;

	slab_frag_settle("gf-b-twin");
	slab_frag_settle("gf-a-twin");
	slab_frag_settle("gf-big");
	out = report(100, &n);
	CHECK_EQ(lines(out), n + 1);
	la = find_line(out, "gf-a-twin");
	lb = find_line(out, "gf-b-twin");
	lc = find_line(out, "gf-big");
	CHECK(la && lb && lc);
	if (la && lb && lc) {
		struct slab_frag fa, fc;

		slab_frag_get("gf-a-twin", &fa);
		slab_frag_get("gf-big", &fc);
		CHECK((fc.waste > fa.waste) == (lc < la));
		CHECK(la < lb);		/* equal waste (twins, or one merged cache): by name */
	}
	CHECK(strstr(out, "\n:") == NULL);	/* unique ids are not names */
	free(out);
	kmem_cache_free(a, pa);
	kmem_cache_free(b, pb);
	kmem_cache_free(c, pc);
	kmem_cache_destroy(a);
	kmem_cache_destroy(b);
	kmem_cache_destroy(c);
}

static void only_caches_below_the_fill_are_listed(void)
{
	struct kmem_cache *s = kmem_cache_create("gf-fill", 2000, 0, 0, NULL);
	void *p[64];
	struct slab_frag f;
	char *out;
	int n, per;

	per = (int)file("gf-fill", "objs_per_slab");
	CHECK(per > 1 && per <= 64);
	for (int i = 0; i < per; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	slab_frag_settle("gf-fill");
	CHECK_EQ(slab_frag_get("gf-fill", &f), 0);
	CHECK_EQ(f.slabs, 1);
	out = report(f.fill, &n);		/* fill == below: not listed */
	CHECK(find_line(out, "gf-fill") == NULL);
	CHECK_EQ(lines(out), n + 1);
	free(out);
	out = report(f.fill + 1, &n);
	CHECK(find_line(out, "gf-fill") != NULL);
	CHECK_EQ(lines(out), n + 1);
	free(out);
	out = report(0, &n);			/* nothing is below 0% */
	CHECK_EQ(n, 0);
	CHECK_EQ(lines(out), 1);
	free(out);
	for (int i = 0; i < per; i++)
		kmem_cache_free(s, p[i]);
	slab_frag_settle("gf-fill");
	out = report(101, &n);			/* no slab: never listed */
	CHECK(find_line(out, "gf-fill") == NULL);
	free(out);
	kmem_cache_destroy(s);
}

static void a_write_that_fails_is_an_error(void)
{
	int fd = open("/dev/null", O_RDONLY);

	CHECK(fd >= 0);
	CHECK(slab_frag_report(fd, 101) < 0);
	close(fd);
	CHECK(slab_frag_report(-1, 101) < 0);
}

int main(void)
{
	RUN(the_numbers_are_the_files_unsettled_and_settled);
	RUN(the_report_is_sorted_by_waste_then_name);
	RUN(only_caches_below_the_fill_are_listed);
	RUN(a_write_that_fails_is_an_error);
	return test_main_result();
}
