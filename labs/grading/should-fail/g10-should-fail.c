/* g10-should-fail.c -- lab should-fail's grading test (kept back from
 * students): the decision's order, on an attribute of the test's own. */
#include "test.h"
#include "slab.h"

#ifdef CONFIG_FAULT_INJECTION
static struct fault_attr attr = FAULT_ATTR_INITIALIZER;

static void reset(unsigned long probability, int times, int space, unsigned long interval)
{
	attr.probability = probability;
	attr.times.counter = times;
	attr.space.counter = space;
	attr.interval = interval;
	attr.count = 0;
	attr.verbose = 0;
	attr.task_filter = false;
}

static void no_times_left_takes_no_space(void)
{
	reset(100, 0, 100, 1);
	CHECK(!should_fail(&attr, 10));
	CHECK_EQ(attr.space.counter, 100);
}

static void space_is_taken_while_more_is_left_than_asked(void)
{
	reset(100, 5, 25, 1);
	CHECK(!should_fail(&attr, 10));
	CHECK(!should_fail(&attr, 10));
	CHECK_EQ(attr.space.counter, 5);
	CHECK(should_fail(&attr, 10));		/* 5 left is not more than 10 */
	CHECK_EQ(attr.space.counter, 5);
	CHECK_EQ(attr.times.counter, 4);
}

static void the_interval_counts_only_calls_that_reach_it(void)
{
	reset(100, 0, 0, 3);
	for (int i = 0; i < 5; i++)
		CHECK(!should_fail(&attr, 1));	/* times 0: stopped before */
	CHECK_EQ(attr.count, 0);
	reset(100, -1, 0, 3);
	CHECK(!should_fail(&attr, 1));
	CHECK(!should_fail(&attr, 1));
	CHECK(should_fail(&attr, 1));
	CHECK(!should_fail(&attr, 1));
	CHECK_EQ(attr.count, 4);
	CHECK_EQ(attr.times.counter, -1);
}

static void fail_nth_overrides_probability_zero(void)
{
	char buf[16];

	reset(0, 1, 0, 1);
	CHECK_EQ(slub_ctl_write("/proc/thread-self/fail-nth", "3"), 0);
	CHECK(!should_fail(&attr, 1));
	CHECK(!should_fail(&attr, 1));
	CHECK(should_fail(&attr, 1));
	CHECK(!should_fail(&attr, 1));		/* only once */
	CHECK(slub_ctl_read("/proc/thread-self/fail-nth", buf, sizeof(buf)) > 0);
	CHECK_EQ(atoi(buf), 0);
	CHECK_EQ(attr.times.counter, 0);	/* the failure used up one of times */
}

static void the_task_filter_passes_unmarked_threads(void)
{
	reset(100, 2, 0, 1);
	attr.task_filter = true;
	CHECK(!should_fail(&attr, 1));
	CHECK_EQ(attr.times.counter, 2);
	CHECK_EQ(slub_ctl_write("/proc/thread-self/make-it-fail", "1"), 0);
	CHECK(should_fail(&attr, 1));
	CHECK_EQ(slub_ctl_write("/proc/thread-self/make-it-fail", "0"), 0);
	CHECK_EQ(attr.times.counter, 1);
}

static void nowarn_is_silent_and_verbose_is_not(void)
{
	char *out;

	reset(100, -1, 0, 1);
	attr.verbose = 1;
	test_capture_begin();
	CHECK(should_fail_ex(&attr, 1, FAULT_NOWARN));
	out = test_capture_end();
	CHECK_EQ(strlen(out), 0);
	free(out);
	test_capture_begin();
	CHECK(should_fail_ex(&attr, 1, 0));
	out = test_capture_end();
	CHECK(strstr(out, "FAULT_INJECTION: forcing a failure.") != NULL);
	free(out);
}
#endif

int main(void)
{
#ifdef CONFIG_FAULT_INJECTION
	RUN(no_times_left_takes_no_space);
	RUN(space_is_taken_while_more_is_left_than_asked);
	RUN(the_interval_counts_only_calls_that_reach_it);
	RUN(fail_nth_overrides_probability_zero);
	RUN(the_task_filter_passes_unmarked_threads);
	RUN(nowarn_is_silent_and_verbose_is_not);
#endif
	return test_main_result();
}
