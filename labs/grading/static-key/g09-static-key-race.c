/* g09-static-key-race.c -- lab static-key's grading test (kept back from
 * students), run natively only: the races of counting a key, forced.
 *
 * A key alone on its page is counted up or down in one thread while every
 * access the code under test makes to that page is trapped: the page is
 * PROT_NONE, the access faults, the handler lets it through and single-steps
 * it with the trap flag.  After the k-th access another user comes or goes
 * as the fast path of another thread would, between those two instructions:
 * it counts in when the count is above 0 (and its sites must then be on),
 * and out when the count is above 1; at 0, -1 or 1 it would wait on the
 * mutex instead, which here means after the call.  Every k is tried in turn,
 * so every point at which one other user may come or go is tried once, in
 * one thread, the same way in every run: a user lost by a plain store, a
 * count published before the sites are written, an increment that is not a
 * compare-and-swap, fail every run, and a right solution passes every run.
 * Then threads count a second key in and out as a stress test. */
#include "test.h"
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <ucontext.h>
#include <sys/mman.h>
#include "slub.h"
#include "jump_label.h"

#define PAGE		4096
#define TRAP_FLAG	0x100L		/* EFLAGS.TF: a trap after the next instruction */
#define MAX_ACCESSES	400		/* more, and the code under test is looping */

static union {				/* the key, and nothing else on its page */
	struct static_key_false k;
	char page[PAGE];
} lone __attribute__((__aligned__(PAGE))) = { .k = { .key = STATIC_KEY_INIT_FALSE } };

static __attribute__((__used__)) noinline int lone_u(void)
{
	return static_branch_unlikely(&lone.k) ? 1 : 0;
}

static __attribute__((__used__)) noinline int lone_l(void)
{
	return static_branch_likely(&lone.k) ? 1 : 0;
}

/* Every site of the key holds the instruction for ON (the kernel's rule):
 * read as bytes, since a site may be half written while a handler looks. */
static bool sites_are(bool on)
{
#ifdef CONFIG_JUMP_LABEL
	static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	int n = 0;

	for (const struct jump_entry *e = __start___jump_table; e < __stop___jump_table; e++) {
		const unsigned char *b = (const unsigned char *)jump_entry_code(e);
		int32_t rel = (int32_t)(jump_entry_target(e) - (jump_entry_code(e) + 5));

		if (jump_entry_key(e) != &lone.k.key)
			continue;
		n++;
		if (on == jump_entry_is_branch(e) ? memcmp(b, nop5, 5) != 0 :
		    b[0] != 0xe9 || memcmp(b + 1, &rel, 4) != 0)
			return false;
	}
	return n == 2;
#else
	return (lone_u() + lone_l() == 2) == on;
#endif
}

static struct {
	int inject_at;			/* the access after which the other user moves */
	int other;			/* +1 counts in, -1 counts out */
	int accesses;			/* trapped so far in this call */
	bool armed, stepping, moved, off_while_counted;
} race;
static struct sigaction old_segv, old_trap;

static void chain(const struct sigaction *old, int sig, siginfo_t *info, void *context)
{
	if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
		old->sa_sigaction(sig, info, context);
	} else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
	} else {
		signal(sig, SIG_DFL);
		raise(sig);
	}
}

static void on_segv(int sig, siginfo_t *info, void *context)
{
	ucontext_t *uc = context;
	char *at = info->si_addr;

	if (!race.armed || at < lone.page || at >= lone.page + PAGE) {
		chain(&old_segv, sig, info, context);
		return;
	}
	mprotect(lone.page, PAGE, PROT_READ | PROT_WRITE);
	uc->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG;
	race.stepping = true;
}

/* The other user, between two instructions of the code under test. */
static void other_user_moves(void)
{
	int *count = &lone.k.key.enabled, v = __atomic_load_n(count, __ATOMIC_RELAXED);

	if (race.other > 0 && v > 0 && v < INT_MAX) {
		__atomic_store_n(count, v + 1, __ATOMIC_SEQ_CST);
		race.moved = true;
		race.off_while_counted = !sites_are(true);
	} else if (race.other < 0 && v > 1) {
		__atomic_store_n(count, v - 1, __ATOMIC_SEQ_CST);
		race.moved = true;
	}
}

static void on_trap(int sig, siginfo_t *info, void *context)
{
	ucontext_t *uc = context;

	if (!race.stepping) {			/* a breakpoint: the library's */
		chain(&old_trap, sig, info, context);
		return;
	}
	uc->uc_mcontext.gregs[REG_EFL] &= ~TRAP_FLAG;
	race.stepping = false;
	if (++race.accesses == race.inject_at)
		other_user_moves();
	if (race.moved || race.accesses >= MAX_ACCESSES)
		race.armed = false;		/* the page stays open */
	else
		mprotect(lone.page, PAGE, PROT_NONE);
}

static bool install(void)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &old_segv))
		return false;
	sa.sa_sigaction = on_trap;
	return sigaction(SIGTRAP, &sa, &old_trap) == 0;
}

static void uninstall(void)
{
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGTRAP, &old_trap, NULL);
}

/* Bring the key from its count to 0 again, untrapped. */
static void count_out_all(void)
{
	int n = __atomic_load_n(&lone.k.key.enabled, __ATOMIC_RELAXED);

	while (n-- > 0)
		static_branch_dec(&lone.k);
}

/* One call (+1 an increment, -1 a decrement) from START users, with the
 * other user moving after access K.  False when the call made fewer than K
 * accesses (nothing left to try), or when it went wrong (said). */
static bool one_interleaving(int start, int op, int other, int k, bool *went_wrong)
{
	int want, got;
	char *text;

	for (int i = 0; i < start; i++)
		static_branch_inc(&lone.k);
	race = (__typeof__(race)){ .inject_at = k, .other = other };
	test_capture_begin();
	race.armed = true;
	mprotect(lone.page, PAGE, PROT_NONE);
	if (op > 0)
		static_branch_inc(&lone.k);
	else
		static_branch_dec(&lone.k);
	race.armed = false;
	mprotect(lone.page, PAGE, PROT_READ | PROT_WRITE);
	text = test_capture_end();
	want = start + op + (race.moved ? other : 0);
	got = __atomic_load_n(&lone.k.key.enabled, __ATOMIC_RELAXED);
	if (got != want || !sites_are(want > 0) || race.off_while_counted || *text ||
	    race.accesses >= MAX_ACCESSES) {
		printf("    %s with the count at %d, another user counting %s after access %d of the key\n",
		       op > 0 ? "static_branch_inc" : "static_branch_dec", start,
		       other > 0 ? "in" : "out", k);
		CHECK_EQ(got, want);
		CHECK(!race.off_while_counted);		/* its sites were off when it counted in */
		CHECK(sites_are(want > 0));
		CHECK(race.accesses < MAX_ACCESSES);	/* the call kept reading the key */
		CHECK_EQ(strlen(text), 0);
		if (*text)
			printf("    it printed: %s", text);
		*went_wrong = true;
	}
	free(text);
	if (*went_wrong) {
		__atomic_store_n(&lone.k.key.enabled, got > 0 ? got : 0, __ATOMIC_RELAXED);
		count_out_all();
		return false;
	}
	count_out_all();
	return race.moved || race.accesses >= k;
}

static void every_interleaving_of_one_other_user(void)
{
	static const struct { int start, op; } calls[] = {
		{ 0, +1 }, { 1, +1 }, { 2, +1 }, { 1, -1 }, { 2, -1 }, { 3, -1 },
	};
	bool went_wrong = false;
	int tried = 0, moved = 0;

	if (RUNNING_ON_VALGRIND) {		/* no trap flag under Valgrind */
		printf("    natively only: Valgrind does not single-step\n");
		return;
	}
	CHECK_EQ(sysconf(_SC_PAGESIZE), PAGE);
	CHECK(sites_are(false));
	CHECK(install());
	for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]) && !went_wrong; c++)
		for (int other = -1; other <= 1 && !went_wrong; other += 2)
			for (int k = 1; k < MAX_ACCESSES; k++) {
				bool more = one_interleaving(calls[c].start, calls[c].op, other, k,
							     &went_wrong);

				tried++;
				moved += race.moved;
				if (!more)
					break;
			}
	uninstall();
	CHECK(went_wrong || moved >= 6);	/* the other user moved, in most kinds of call */
	CHECK_EQ(static_key_count(&lone.k.key), 0);
	CHECK(sites_are(false));
	if (went_wrong || moved < 6)
		printf("    (%d interleavings tried, %d with the other user moving)\n", tried, moved);
}

/* Threads: while a thread holds a count, the key is on for it, at its
 * sites.  Nobody else holds a count, so the threads' counts go through
 * every path; a race lost here may show only in some runs, which is why
 * the case above forces them. */
#define NR_THREADS 8
static DEFINE_STATIC_KEY_FALSE(shared);
static pthread_barrier_t barrier;
static unsigned long not_on;

static noinline int shared_u(void) { return static_branch_unlikely(&shared) ? 1 : 0; }
static noinline int shared_l(void) { return static_branch_likely(&shared) ? 1 : 0; }

static void *count_in_and_out(void *arg)
{
	unsigned long rounds = test_scaled(20000), bad = 0;

	(void)arg;
	pthread_barrier_wait(&barrier);		/* all start together */
	for (unsigned long r = 0; r < rounds; r++) {
		static_branch_inc(&shared);
		bad += shared_u() != 1 || shared_l() != 1 || !static_key_enabled(&shared);
		static_branch_dec(&shared);
	}
	__atomic_add_fetch(&not_on, bad, __ATOMIC_RELAXED);
	return NULL;
}

static void many_threads_count_a_key_in_and_out(void)
{
	pthread_t t[NR_THREADS];
	char *text;

	CHECK_EQ(pthread_barrier_init(&barrier, NULL, NR_THREADS), 0);
	test_capture_begin();
	for (int i = 0; i < NR_THREADS; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, count_in_and_out, NULL), 0);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(t[i], NULL);
	text = test_capture_end();
	pthread_barrier_destroy(&barrier);
	CHECK_EQ(not_on, 0);
	CHECK_EQ(strlen(text), 0);
	if (*text)
		printf("    the threads printed: %s", text);
	CHECK_EQ(static_key_count(&shared.key), 0);
	CHECK_EQ(shared_u() + shared_l(), 0);
	free(text);
}

/* G09_FORCED_ONLY=1 runs the forced case alone: make test runs it again
 * and again to show that it gives the same verdict every time, and the
 * threads' case, whose code patching is nearly all of a run's time, is not
 * what is forced. */
int main(void)
{
	RUN(every_interleaving_of_one_other_user);
	if (!getenv("G09_FORCED_ONLY"))
		RUN(many_threads_count_a_key_in_and_out);
	return test_main_result();
}
