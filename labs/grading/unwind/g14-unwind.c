/* g14-unwind.c -- lab unwind's grading test (kept back from students).
 *
 * The unwinder against glibc's backtrace from places the visible test
 * does not reach: callbacks called by the C library's and the loader's own
 * code (qsort, twalk, dl_iterate_phdr, pthread_once), whose frame
 * information uses DW_CFA_remember_state and DW_CFA_restore_state, frames
 * in rbp and frames too large to be remembered (more than 32 KiB), the
 * limit of the caller's array, and a second walk through remembered rules.
 */
#include "test.h"
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <search.h>
#include <setjmp.h>
#include "slab.h"

#define MAX_FRAMES 64

struct two_traces {
	void *ours[MAX_FRAMES], *glibc[MAX_FRAMES];
	int n_ours, n_glibc;
};

static struct two_traces last;
static int disagreements, walks;

static noinline void take_both(int size)
{
	last.n_ours = unwind_stack(last.ours, size);
	last.n_glibc = backtrace(last.glibc, size);
}

/* The first frames differ (two call sites); in a sanitizer's build its interceptor of
 * backtrace adds one frame to glibc's trace. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BACKTRACE_INTERCEPTED	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define BACKTRACE_INTERCEPTED	1
#endif
#endif
#ifndef BACKTRACE_INTERCEPTED
#define BACKTRACE_INTERCEPTED	0
#endif

static bool agree(const struct two_traces *t)
{
	int skip = 0;

	while (BACKTRACE_INTERCEPTED && skip < 2 && t->n_glibc > skip + 1 &&
	       t->glibc[skip + 1] != t->ours[1])
		skip++;
	if (t->n_ours < 2 || t->n_ours != t->n_glibc - skip)
		return false;
	for (int i = 1; i < t->n_ours; i++)
		if (t->ours[i] != t->glibc[i + skip])
			return false;
	return true;
}

static void walk_here(void)
{
	take_both(MAX_FRAMES);
	walks++;
	if (!agree(&last)) {
		disagreements++;
		printf("    ours %d frames, backtrace %d\n", last.n_ours, last.n_glibc);
	}
}

static int compare_ints(const void *a, const void *b)
{
	static int calls;
	int x = *(const int *)a, y = *(const int *)b;

	if (++calls % 50 == 0)
		walk_here();
	return (x > y) - (x < y);
}

static void inside_qsort(void)
{
	int v[300];

	for (int i = 0; i < 300; i++)
		v[i] = (i * 7919) % 300;
	walks = disagreements = 0;
	qsort(v, 300, sizeof(v[0]), compare_ints);
	CHECK(walks > 0);
	CHECK_EQ(disagreements, 0);
}

static void visit(const void *node, VISIT which, int depth)
{
	(void)node, (void)depth;
	if (which == leaf)
		walk_here();
}

static int compare_ptrs(const void *a, const void *b)
{
	return (a > b) - (a < b);
}

static void inside_twalk(void)
{
	void *root = NULL;
	static char keys[64];

	for (int i = 0; i < 64; i++)
		CHECK(tsearch(&keys[(i * 37) % 64], &root, compare_ptrs) != NULL);
	walks = disagreements = 0;
	twalk(root, visit);
	CHECK(walks > 0);
	CHECK_EQ(disagreements, 0);
	for (int i = 0; i < 64; i++)
		tdelete(&keys[i], &root, compare_ptrs);
}

static int each_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info, (void)size, (void)data;
	walk_here();
	return 0;
}

static void inside_dl_iterate_phdr(void)
{
	walks = disagreements = 0;
	dl_iterate_phdr(each_object, NULL);
	CHECK(walks > 1);
	CHECK_EQ(disagreements, 0);
}

static void once(void)
{
	walk_here();
}

static void inside_pthread_once(void)
{
	static pthread_once_t control = PTHREAD_ONCE_INIT;

	walks = disagreements = 0;
	CHECK(pthread_once(&control, once) == 0);
	CHECK_EQ(walks, 1);
	CHECK_EQ(disagreements, 0);
}

/* 40 KiB of locals: a CFA offset that needs three bytes of LEB128 and is
 * too large for a remembered rule, so it is read every time. */
static noinline int huge_frame(int depth)
{
	volatile char big[40 * 1024];

	big[depth] = (char)depth;
	if (depth == 0)
		walk_here();
	else
		huge_frame(depth - 1);
	return big[depth];
}

/* Frames whose CFA is rbp: a variable-length array each. */
static noinline int rbp_frames(int depth)
{
	volatile char vla[depth * 24 + 8];

	vla[0] = 1;
	if (depth == 0)
		walk_here();
	else
		rbp_frames(depth - 1);
	return vla[0];
}

static void large_and_rbp_frames(void)
{
	walks = disagreements = 0;
	for (int round = 0; round < 3; round++) {	/* the 2nd and 3rd from the table */
		huge_frame(3);
		rbp_frames(6);
	}
	CHECK_EQ(walks, 6);
	CHECK_EQ(disagreements, 0);
}

static noinline int deep(int depth, int size)
{
	volatile int here = depth;	/* read after the call: no loop made of it */

	if (depth == 0)
		take_both(size);
	else
		deep(depth - 1, size);
	return here;
}

/* A walk stops at the caller's array's end, as backtrace does. */
static void the_array_s_size_is_kept(void)
{
	for (int size = 1; size <= 40; size += 13) {
		deep(50, size);
		CHECK_EQ(last.n_ours, size);
		CHECK(size < 2 || agree(&last));
	}
	deep(80, MAX_FRAMES);
	CHECK_EQ(last.n_ours, MAX_FRAMES);
	CHECK(agree(&last));
}

/* A call to a function that does not return is often a function's last
 * instruction: its return address is the first byte of whatever follows,
 * and only the address one byte back is inside the caller. */
static jmp_buf back;

static noinline __attribute__((noreturn)) void walk_and_leave(void)
{
	walk_here();
	longjmp(back, 1);
}

static noinline int ends_in_a_call(volatile int *x)
{
	if (*x)
		walk_and_leave();
	return *x + 1;
}

static void a_call_that_does_not_return(void)
{
	volatile int one = 1, i;

	walks = disagreements = 0;
	for (i = 0; i < 3; i++)
		if (!setjmp(back))
			ends_in_a_call(&one);
	CHECK_EQ(walks, 3);
	CHECK_EQ(disagreements, 0);
}

static void *in_thread(void *arg)
{
	(void)arg;
	walks = disagreements = 0;
	rbp_frames(2);
	huge_frame(1);
	return NULL;
}

static void a_thread_s_walk_ends_where_backtrace_s_does(void)
{
	pthread_t t;

	CHECK(pthread_create(&t, NULL, in_thread, NULL) == 0);
	CHECK(pthread_join(t, NULL) == 0);
	CHECK_EQ(walks, 2);
	CHECK_EQ(disagreements, 0);
}

int main(void)
{
	RUN(inside_qsort);
	RUN(inside_twalk);
	RUN(inside_dl_iterate_phdr);
	RUN(inside_pthread_once);
	RUN(large_and_rbp_frames);
	RUN(the_array_s_size_is_kept);
	RUN(a_call_that_does_not_return);
	RUN(a_thread_s_walk_ends_where_backtrace_s_does);
	return test_main_result();
}
