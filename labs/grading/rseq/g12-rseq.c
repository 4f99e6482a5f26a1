/* g12-rseq.c -- lab rseq's grading test (kept back from students).
 * One thread, pinned to the CPU it is on, calls the two sequences directly
 * on a cache's slot and checks what each leaves there, and that each ran
 * as a registered restartable sequence: the thread's rseq area must point
 * at a descriptor of the __rseq_cs section whose abort handler follows the
 * signature and lies outside the sequence. */
#include "test.h"
#include <sys/rseq.h>
#include "slab.h"

static struct kmem_cache *s;
static struct kmem_cache_cpu *c;

static struct rseq *area(void)
{
	return (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
}

static void check_descriptor_used(void)
{
	const struct rseq_cs *cs = (const struct rseq_cs *)(uintptr_t)area()->rseq_cs;

	CHECK(cs != NULL);
	if (!cs)
		return;
	CHECK_EQ(cs->version, 0);
	CHECK(cs->post_commit_offset > 0 && cs->post_commit_offset < 256);
	CHECK(cs->abort_ip < cs->start_ip || cs->abort_ip >= cs->start_ip + cs->post_commit_offset);
	CHECK_EQ(*(const uint32_t *)(uintptr_t)(cs->abort_ip - 4), RSEQ_SIG);
}

static enum rseq_result pop(void **o)
{
	enum rseq_result r;

	area()->rseq_cs = 0;
	while ((r = rseq_pop(s, s->cpu_slab, o)) == RSEQ_ABORTED)
		;
	return r;
}

static enum rseq_result push(void *head, void *tail)
{
	enum rseq_result r;

	area()->rseq_cs = 0;
	while ((r = rseq_push(s, s->cpu_slab, head, tail)) == RSEQ_ABORTED)
		;
	return r;
}

static void pop_takes_the_head_and_installs_its_next(void)
{
	for (int i = 0; i < 10; i++) {
		void *head = c->freelist, *next, *o = NULL;

		CHECK(head != NULL);
		if (!head)
			return;
		next = get_freepointer(s, head);
		CHECK_EQ(pop(&o), RSEQ_DONE);
		check_descriptor_used();
		CHECK(o == head);
		CHECK(c->freelist == next);
		if (o != head)
			return;
		CHECK_EQ(push(o, o), RSEQ_DONE);
		check_descriptor_used();
		CHECK(c->freelist == o);
		CHECK(get_freepointer(s, o) == next);
	}
}

static void pop_gives_up_on_a_stopped_slot_and_an_empty_list(void)
{
	void *taken[512], *head = c->freelist, *o;
	int n = 0;

	c->slab_mask = 0;			/* what a stop stores */
	CHECK_EQ(pop(&o), RSEQ_GIVE_UP);
	CHECK(c->freelist == head);
	set_cpu_slab(c, c->slab);		/* what letting it run again stores */
	while (n < 512 && pop(&taken[n]) == RSEQ_DONE)
		n++;
	CHECK(n > 0 && n < 512);
	CHECK(c->freelist == NULL);
	CHECK_EQ(pop(&o), RSEQ_GIVE_UP);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			CHECK(taken[i] != taken[j]);
	while (n-- > 0)
		CHECK_EQ(push(taken[n], taken[n]), RSEQ_DONE);
	CHECK(c->freelist == head);
}

static void push_checks_the_slab_and_the_head_and_takes_chains(void)
{
	struct kmem_cache *other = kmem_cache_create("g12-other", 64, 0, SLAB_NO_MERGE, NULL);
	void *stranger = kmem_cache_alloc(other, GFP_KERNEL), *head = c->freelist;
	void *a = NULL, *b = NULL, *d = NULL;
	unsigned long mask = c->slab_mask;

	CHECK_EQ(push(stranger, stranger), RSEQ_GIVE_UP);	/* not in this CPU slab */
	CHECK(c->freelist == head);
	CHECK_EQ(push(head, head), RSEQ_SAME);			/* the naive double free */
	CHECK(c->freelist == head && get_freepointer(s, head) != head);
	CHECK_EQ(pop(&a), RSEQ_DONE);
	CHECK_EQ(pop(&b), RSEQ_DONE);
	CHECK_EQ(pop(&d), RSEQ_DONE);
	if (!a || !b || !d)
		goto out;
	head = c->freelist;
	set_freepointer(s, a, b);
	set_freepointer(s, b, d);
	CHECK_EQ(push(a, d), RSEQ_DONE);			/* a chain a -> b -> d */
	CHECK(c->freelist == a);
	CHECK(get_freepointer(s, a) == b && get_freepointer(s, b) == d);
	CHECK(get_freepointer(s, d) == head);
	c->slab_mask = 0;
	CHECK_EQ(push(head, head), RSEQ_GIVE_UP);		/* a stopped slot */
	c->slab_mask = mask;
out:
	kmem_cache_free(other, stranger);
	kmem_cache_destroy(other);
}

int main(void)
{
	cpu_set_t one;
	void *first;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	CHECK(!sched_setaffinity(0, sizeof(one), &one));
	s = kmem_cache_create("g12-rseq", 64, 0, SLAB_NO_MERGE, NULL);
	first = kmem_cache_alloc(s, GFP_KERNEL);	/* the slot gets a CPU slab */
	c = raw_cpu_ptr(s);
	if (!slub_percpu_rseq) {
		printf("    no restartable fast path on this machine: cannot grade lab rseq\n");
		printf("restartable_sequences_available: FAIL\n");
		return 1;
	}
	RUN(pop_takes_the_head_and_installs_its_next);
	RUN(pop_gives_up_on_a_stopped_slot_and_an_empty_list);
	RUN(push_checks_the_slab_and_the_head_and_takes_chains);
	kmem_cache_free(s, first);
	kmem_cache_destroy(s);
	return test_main_result();
}
