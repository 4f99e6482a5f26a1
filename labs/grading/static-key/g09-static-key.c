/* g09-static-key.c -- lab static-key's grading test (kept back from
 * students): counts that nest, refusals, keys switched from many threads,
 * and the bytes of each site before and after every change. */
#include "test.h"
#include <limits.h>
#include <pthread.h>
#include <sys/mman.h>
#include "slub.h"
#include "jump_label.h"

static DEFINE_STATIC_KEY_FALSE(counted);	/* two sites: unlikely and likely */
static DEFINE_STATIC_KEY_TRUE(on_key);		/* two sites */
static DEFINE_STATIC_KEY_FALSE(shared);		/* flipped by the threads */
static DEFINE_STATIC_KEY_FALSE(spoiled);	/* its site is overwritten; never run */

static noinline int counted_u(void) { return static_branch_unlikely(&counted) ? 1 : 0; }
static noinline int counted_l(void) { return static_branch_likely(&counted) ? 1 : 0; }
static noinline int on_u(void) { return static_branch_unlikely(&on_key) ? 1 : 0; }
static noinline int on_l(void) { return static_branch_likely(&on_key) ? 1 : 0; }
static noinline int shared_u(void) { return static_branch_unlikely(&shared) ? 1 : 0; }
static noinline int shared_l(void) { return static_branch_likely(&shared) ? 1 : 0; }
static __attribute__((__used__)) noinline int spoiled_u(void)
{
	return static_branch_unlikely(&spoiled) ? 1 : 0;
}

#ifdef CONFIG_JUMP_LABEL
static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/* The instruction a site must hold: the kernel's rule, spelt out in bytes. */
static void expected_bytes(const struct jump_entry *e, bool on, unsigned char *want)
{
	int32_t rel = (int32_t)(jump_entry_target(e) - (jump_entry_code(e) + 5));

	if (on == jump_entry_is_branch(e)) {
		memcpy(want, nop5, 5);
		return;
	}
	want[0] = 0xe9;
	memcpy(want + 1, &rel, 4);
}

/* Every site of KEY holds exactly its bytes for ON; returns how many sites it has. */
static int sites_hold(struct static_key *key, bool on)
{
	int n = 0;

	for (const struct jump_entry *e = __start___jump_table; e < __stop___jump_table; e++) {
		unsigned char want[5];

		if (jump_entry_key(e) != key)
			continue;
		n++;
		expected_bytes(e, on, want);
		if (memcmp((const void *)jump_entry_code(e), want, 5)) {
			const unsigned char *b = (const unsigned char *)jump_entry_code(e);

			printf("    site %d of the key holds %02x %02x %02x %02x %02x, not %02x %02x ...\n",
			       n, b[0], b[1], b[2], b[3], b[4], want[0], want[1]);
			return -1;
		}
	}
	return n;
}
#define SITES_ARE(k, on) CHECK_EQ(sites_hold(&(k)->key, on), 2)
#else
#define SITES_ARE(k, on) ((void)(k), (void)(on))
#endif

static char *capture_of(void (*fn)(void))
{
	test_capture_begin();
	fn();
	return test_capture_end();
}

static void counts_nest_and_only_the_first_and_last_patch(void)
{
	SITES_ARE(&counted, false);
	for (int i = 1; i <= 5; i++) {
		static_branch_inc(&counted);
		CHECK_EQ(static_key_count(&counted.key), i);
		CHECK_EQ(counted_u() + counted_l(), 2);
		SITES_ARE(&counted, true);
	}
	for (int i = 4; i >= 0; i--) {
		static_branch_dec(&counted);
		CHECK_EQ(static_key_count(&counted.key), i);
		CHECK_EQ(counted_u() + counted_l(), i ? 2 : 0);
		SITES_ARE(&counted, i > 0);
	}
}

static void a_true_key_counts_down_to_off_and_back(void)
{
	SITES_ARE(&on_key, true);
	CHECK_EQ(static_key_count(&on_key.key), 1);
	CHECK_EQ(on_u() + on_l(), 2);
	static_branch_inc(&on_key);
	CHECK_EQ(static_key_count(&on_key.key), 2);
	static_branch_dec(&on_key);
	static_branch_dec(&on_key);
	CHECK_EQ(static_key_count(&on_key.key), 0);
	CHECK_EQ(on_u() + on_l(), 0);
	SITES_ARE(&on_key, false);
	static_branch_enable(&on_key);
	CHECK_EQ(static_key_count(&on_key.key), 1);
	CHECK_EQ(on_u() + on_l(), 2);
	SITES_ARE(&on_key, true);
}

static void enable_and_disable_are_switches(void)
{
	for (int round = 0; round < 2; round++) {
		static_branch_enable(&counted);
		static_branch_enable(&counted);
		CHECK_EQ(static_key_count(&counted.key), 1);
		SITES_ARE(&counted, true);
		static_branch_dec(&counted);		/* an enabled key is counted once */
		CHECK_EQ(static_key_count(&counted.key), 0);
		SITES_ARE(&counted, false);
		static_branch_inc(&counted);
		static_branch_disable(&counted);
		static_branch_disable(&counted);
		CHECK_EQ(static_key_count(&counted.key), 0);
		CHECK_EQ(counted_u() + counted_l(), 0);
		SITES_ARE(&counted, false);
	}
}

static void enable_counted(void) { static_branch_enable(&counted); }
static void disable_counted(void) { static_branch_disable(&counted); }
static void dec_counted(void) { static_branch_dec(&counted); }

static void a_counted_key_refuses_enable_and_disable_warning_once(void)
{
	char *text;

	for (int i = 0; i < 3; i++)
		static_branch_inc(&counted);
	text = capture_of(enable_counted);
	CHECK(strstr(text, "WARNING: static_key_enable on a key counted to 3, not 0 or 1") != NULL);
	free(text);
	text = capture_of(disable_counted);
	CHECK(strstr(text, "WARNING: static_key_disable on a key counted to 3, not 0 or 1") != NULL);
	free(text);
	CHECK_EQ(static_key_count(&counted.key), 3);
	SITES_ARE(&counted, true);
	static_branch_dec(&counted);
	text = capture_of(enable_counted);
	CHECK_EQ(strlen(text), 0);			/* once per function */
	free(text);
	text = capture_of(disable_counted);
	CHECK_EQ(strlen(text), 0);
	free(text);
	CHECK_EQ(static_key_count(&counted.key), 2);
	static_branch_dec(&counted);
	static_branch_disable(&counted);		/* a count of 1 may be disabled */
	CHECK_EQ(static_key_count(&counted.key), 0);
	CHECK_EQ(counted_u(), 0);
	SITES_ARE(&counted, false);
}

static void a_zero_count_refuses_dec_warning_once(void)
{
	char *text = capture_of(dec_counted), *again = capture_of(dec_counted);

	CHECK(strstr(text, "WARNING: static_key_slow_dec on a key counted to 0") != NULL);
	CHECK_EQ(strlen(again), 0);
	CHECK_EQ(static_key_count(&counted.key), 0);
	CHECK(!static_key_enabled(&counted));
	SITES_ARE(&counted, false);
	static_branch_inc(&counted);			/* one inc turns it on again */
	CHECK_EQ(static_key_count(&counted.key), 1);
	CHECK_EQ(counted_u() + counted_l(), 2);
	SITES_ARE(&counted, true);
	static_branch_dec(&counted);
	CHECK_EQ(counted_u() + counted_l(), 0);
	SITES_ARE(&counted, false);
	free(text);
	free(again);
}

static void inc_counted(void) { static_branch_inc(&counted); }

static void int_max_refuses_inc_and_keeps_the_sites(void)
{
	char *text;

	static_branch_inc(&counted);
	__atomic_store_n(&counted.key.enabled, INT_MAX - 1, __ATOMIC_RELAXED);
	static_branch_inc(&counted);			/* to INT_MAX: still counted */
	CHECK_EQ(static_key_count(&counted.key), INT_MAX);
	text = capture_of(inc_counted);
	CHECK(strstr(text, "WARNING: static_key_slow_inc on a key counted to 2147483647") != NULL);
	CHECK_EQ(static_key_count(&counted.key), INT_MAX);
	CHECK_EQ(counted_u() + counted_l(), 2);
	SITES_ARE(&counted, true);
	free(text);
	__atomic_store_n(&counted.key.enabled, 1, __ATOMIC_RELAXED);
	static_branch_dec(&counted);
	CHECK_EQ(counted_u() + counted_l(), 0);
	SITES_ARE(&counted, false);
}

/* Threads switching a key together.  Threads counting a key in and out,
 * and the races of counting forced one interleaving at a time, are
 * g09-static-key-race's (natively only). */
#define NR_THREADS 8
static pthread_barrier_t barrier;
static unsigned long not_on;

static void *switch_on_together(void *arg)
{
	unsigned long rounds = test_scaled(200), bad = 0;

	(void)arg;
	for (unsigned long r = 0; r < rounds; r++) {
		static_branch_enable(&shared);
		bad += shared_u() != 1 || shared_l() != 1;
		pthread_barrier_wait(&barrier);		/* nobody disables before all saw it on */
		static_branch_disable(&shared);
		pthread_barrier_wait(&barrier);
		bad += shared_u() != 0 || shared_l() != 0;
		pthread_barrier_wait(&barrier);
	}
	__atomic_add_fetch(&not_on, bad, __ATOMIC_RELAXED);
	return NULL;
}

static void run_threads(void *(*fn)(void *))
{
	pthread_t t[NR_THREADS];

	not_on = 0;
	CHECK_EQ(pthread_barrier_init(&barrier, NULL, NR_THREADS), 0);
	for (int i = 0; i < NR_THREADS; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, fn, NULL), 0);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&barrier);
	CHECK_EQ(not_on, 0);
	CHECK_EQ(static_key_count(&shared.key), 0);
	CHECK_EQ(shared_u() + shared_l(), 0);
	SITES_ARE(&shared, false);
}

static void many_threads_switch_a_key_together(void) { run_threads(switch_on_together); }

#ifdef CONFIG_JUMP_LABEL
static const struct jump_entry *spoiled_site(void)
{
	for (const struct jump_entry *e = __start___jump_table; e < __stop___jump_table; e++)
		if (jump_entry_key(e) == &spoiled.key)
			return e;
	return NULL;
}

static void write_bytes(const struct jump_entry *e, const unsigned char *bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	char *start = (char *)(jump_entry_code(e) & ~(unsigned long)(page - 1));

	CHECK(mprotect(start, page, PROT_READ | PROT_WRITE | PROT_EXEC) == 0);
	memcpy((void *)jump_entry_code(e), bytes, 5);
	CHECK(mprotect(start, page, PROT_READ | PROT_EXEC) == 0);
}

static void enable_spoiled(void) { static_branch_enable(&spoiled); }
static void disable_spoiled(void) { static_branch_disable(&spoiled); }

/* Bytes a site may not hold, written over a site whose key is ON (or off):
 * changing the key must report them, with the type asked for, and leave
 * them.  Then the site is repaired, and the key changed back. */
static void spoil(const unsigned char *bytes, bool on, const char *report)
{
	const struct jump_entry *e = spoiled_site();
	unsigned char right[5];
	char *text;

	CHECK(e != NULL);
	if (!e)
		return;
	if (on)
		static_branch_enable(&spoiled);
	CHECK_EQ(sites_hold(&spoiled.key, on), 1);
	write_bytes(e, bytes);
	text = capture_of(on ? disable_spoiled : enable_spoiled);
	CHECK(strstr(text, "jump_label: Fatal kernel bug, unexpected op at") != NULL);
	CHECK(strstr(text, report) != NULL);
	CHECK(!memcmp((const void *)jump_entry_code(e), bytes, 5));
	CHECK_EQ(static_key_enabled(&spoiled), !on);
	free(text);
	expected_bytes(e, !on, right);
	write_bytes(e, right);
	text = capture_of(on ? enable_spoiled : disable_spoiled);
	CHECK_EQ(strlen(text), 0);
	CHECK_EQ(static_key_enabled(&spoiled), on);
	CHECK_EQ(sites_hold(&spoiled.key, on), 1);
	free(text);
	static_branch_disable(&spoiled);
	CHECK_EQ(sites_hold(&spoiled.key, false), 1);
}

static void bytes_a_site_may_not_hold_are_reported_and_left_alone(void)
{
	static const unsigned char int3s[5] = { 0xcc, 0xcc, 0xcc, 0xcc, 0xcc };
	const struct jump_entry *e = spoiled_site();
	unsigned char near[5];
	char report[64];
	int32_t rel;

	CHECK(e != NULL);
	if (!e)
		return;
	spoil(int3s, false, "(cc cc cc cc cc) size:5 type:1");
	spoil(int3s, true, "(cc cc cc cc cc) size:5 type:0");
	/* a jmp one byte past the label is not the jmp the site may hold */
	rel = (int32_t)(jump_entry_target(e) + 1 - (jump_entry_code(e) + 5));
	near[0] = 0xe9;
	memcpy(near + 1, &rel, 4);
	snprintf(report, sizeof(report), "(e9 %02x %02x %02x %02x) size:5 type:0",
		 near[1], near[2], near[3], near[4]);
	spoil(near, true, report);
}

static void keys_point_to_their_first_entry_and_keep_their_type(void)
{
	const struct jump_entry *first = NULL;

	for (const struct jump_entry *e = __start___jump_table; e < __stop___jump_table; e++)
		if (jump_entry_key(e) == &on_key.key && !first)
			first = e;
	CHECK(first != NULL);
	CHECK_EQ(on_key.key.type & ~JUMP_TYPE_MASK, (unsigned long)first);
	CHECK_EQ(on_key.key.type & JUMP_TYPE_MASK, JUMP_TYPE_TRUE);
	CHECK_EQ(counted.key.type & JUMP_TYPE_MASK, JUMP_TYPE_FALSE);
}
#endif

int main(void)
{
	RUN(counts_nest_and_only_the_first_and_last_patch);
	RUN(a_true_key_counts_down_to_off_and_back);
	RUN(enable_and_disable_are_switches);
	RUN(many_threads_switch_a_key_together);
	RUN(a_counted_key_refuses_enable_and_disable_warning_once);
	RUN(a_zero_count_refuses_dec_warning_once);
	RUN(int_max_refuses_inc_and_keeps_the_sites);
#ifdef CONFIG_JUMP_LABEL
	RUN(bytes_a_site_may_not_hold_are_reported_and_left_alone);
	RUN(keys_point_to_their_first_entry_and_keep_their_type);
#endif
	return test_main_result();
}
