/* g09-static-key-refuse.c -- lab static-key's grading test (kept back
 * from students), run with SLUB_TEST_MPROTECT_FAILS=2: start-up writes one
 * site, fails at the second, and must put the first back to its test.
 * Every key must then work, and no site be written again.  (The races of
 * counting are g09-static-key-race's: the counting is the same code.) */
#include "test.h"
#include "slub.h"
#include "slab.h"
#include "jump_label.h"

static DEFINE_STATIC_KEY_FALSE(off_key);
static DEFINE_STATIC_KEY_TRUE(on_key);
DECLARE_STATIC_KEY_FALSE(slub_debug_enabled);
static char *startup;

__attribute__((__constructor__(101))) static void capture_startup(void)
{
	test_capture_begin();
}

static noinline int off_u(void) { return static_branch_unlikely(&off_key) ? 1 : 0; }
static noinline int off_l(void) { return static_branch_likely(&off_key) ? 1 : 0; }
static noinline int on_u(void) { return static_branch_unlikely(&on_key) ? 1 : 0; }
static noinline int on_l(void) { return static_branch_likely(&on_key) ? 1 : 0; }

static int count(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void the_refusal_is_noticed_once(void)
{
	const char *notice = "jump_label: cannot write the program's text (mprotect: "
			     "Permission denied); static keys test their flags instead\n";

#ifdef CONFIG_JUMP_LABEL
	CHECK_EQ(count(startup, notice), 1);
#else
	CHECK_EQ(count(startup, notice), 0);
#endif
	CHECK_EQ(count(startup, "static branches go back"), 0);
	CHECK_EQ(count(startup, "unexpected op"), 0);
}

#ifdef CONFIG_JUMP_LABEL
/* A site is its test: a jmp, but neither to its label nor a NOP. */
static bool is_test(const struct jump_entry *e)
{
	const unsigned char *b = (const unsigned char *)jump_entry_code(e);
	int32_t rel;

	memcpy(&rel, b + 1, 4);
	return b[0] == 0xe9 && jump_entry_code(e) + 5 + rel != jump_entry_target(e);
}

static unsigned char *snapshot(void)
{
	size_t n = __stop___jump_table - __start___jump_table;
	unsigned char *bytes = malloc(n * 5 + 1);

	for (size_t i = 0; bytes && i < n; i++)
		memcpy(bytes + 5 * i, (const void *)jump_entry_code(&__start___jump_table[i]), 5);
	return bytes;
}

static void every_site_is_its_test_even_the_one_written(void)
{
	long tests = 0, n = __stop___jump_table - __start___jump_table;

	for (const struct jump_entry *e = __start___jump_table; e < __stop___jump_table; e++)
		tests += is_test(e);
	CHECK(n >= 6);
	CHECK_EQ(tests, n);
}
#endif

static void keys_work_and_nothing_is_written_again(void)
{
#ifdef CONFIG_JUMP_LABEL
	unsigned char *before = snapshot();
#endif
	char *text;

	test_capture_begin();
	CHECK_EQ(off_u() + off_l(), 0);
	CHECK_EQ(on_u() + on_l(), 2);
	for (int i = 1; i <= 3; i++) {
		static_branch_inc(&off_key);
		CHECK_EQ(static_key_count(&off_key.key), i);
		CHECK_EQ(off_u() + off_l(), 2);
	}
	for (int i = 2; i >= 0; i--) {
		static_branch_dec(&off_key);
		CHECK_EQ(off_u() + off_l(), i ? 2 : 0);
	}
	static_branch_disable(&on_key);
	CHECK_EQ(on_u() + on_l(), 0);
	static_branch_enable(&off_key);
	CHECK_EQ(off_u() + off_l(), 2);
	static_branch_enable(&on_key);
	static_branch_disable(&off_key);
	CHECK_EQ(on_u() + on_l(), 2);
	CHECK_EQ(off_u() + off_l(), 0);
	text = test_capture_end();
	CHECK_EQ(count(text, "jump_label:"), 0);
	free(text);
#ifdef CONFIG_JUMP_LABEL
	unsigned char *after = snapshot();
	size_t n = __stop___jump_table - __start___jump_table;

	CHECK(before != NULL && after != NULL);
	if (before && after)
		CHECK(!memcmp(before, after, 5 * n));
	free(before);
	free(after);
#endif
}

static void a_debug_cache_still_catches_a_double_free(void)
{
	struct kmem_cache *s = kmem_cache_create("g09-refuse", 64, 0, SLAB_CONSISTENCY_CHECKS,
						 NULL);
	char *text;
	void *p;

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(static_key_enabled(&slub_debug_enabled));
	p = kmem_cache_alloc(s, 0);
	CHECK(p != NULL);
	kmem_cache_free(s, p);
	test_capture_begin();
	kmem_cache_free(s, p);
	text = test_capture_end();
	CHECK(strstr(text, "BUG g09-refuse") != NULL);
	kmem_cache_destroy(s);
	free(text);
}

int main(void)
{
	startup = test_capture_end();
	RUN(the_refusal_is_noticed_once);
#ifdef CONFIG_JUMP_LABEL
	RUN(every_site_is_its_test_even_the_one_written);
#endif
	RUN(keys_work_and_nothing_is_written_again);
	RUN(a_debug_cache_still_catches_a_double_free);
	free(startup);
	return test_main_result();
}
