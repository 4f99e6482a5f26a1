/* g16-sheaves.c -- lab sheaves' grading test (kept back from students).
 * One thread, pinned to CPU 0, drives a cache with sheaves of 12 into each
 * state that alloc_from_pcs, __pcs_replace_empty_main and free_to_pcs must
 * handle, and checks what each leaves behind: which sheaf is main, the
 * spare, the barn's counts, the statistics, that the CPU's lock is free
 * and (with restartable sequences) main published again, and that every
 * sheaf allocated is somewhere (main, spare, barn) or was freed.  States
 * the public calls cannot reach directly are made by putting sheaves in
 * the barn by hand.  Run with slub_rseq=0 and under memcheck, where every
 * operation takes the locked paths, and natively with the sequences, where
 * the locked paths run whenever a sequence gives up. */
#include "test.h"
#include "slab.h"

enum { CAP = 12 };

static struct kmem_cache *sheaf_cache(const char *name, unsigned int size, void (*ctor)(void *))
{
	struct kmem_cache_args args = { .sheaf_capacity = CAP, .ctor = ctor };

	return kmem_cache_create(name, size, &args, 0);
}

static struct slub_percpu_sheaves *pcs0(struct kmem_cache *s)
{
	return &s->cpu_sheaves[0];
}

static long objects_in_use(struct kmem_cache *s)
{
	struct kmem_cache_node *n = get_node(s, 0);
	struct slab *slab;
	long free = 0;

	kmem_cache_shrink(s);
	pthread_mutex_lock(&n->list_lock);
	list_for_each_entry(slab, &n->partial, slab_list)
		for (void *p = slab->freelist; p; p = get_freepointer(s, p))
			free++;
	pthread_mutex_unlock(&n->list_lock);
	return (long)n->total_objects - free;
}

#ifdef CONFIG_SLUB_STATS
static long sstat(struct kmem_cache *s, enum sheaf_stat_item si)
{
	long sum = 0;

	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
		sum += s->cpu_sheaves[cpu].stat[si];
	return sum;
}

static long cstat(struct kmem_cache *s, enum stat_item si)
{
	long sum = 0;

	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
		sum += s->cpu_slab[cpu].stat[si];
	return sum;
}
#define STAT_CHECK_EQ(a, b)	CHECK_EQ(a, b)
#else
#define sstat(s, si)		0L
#define cstat(s, si)		0L
#define STAT_CHECK_EQ(a, b)	((void)(a), (void)(b))
#endif

/* What must hold between any two operations: every CPU's lock free, main
 * published for the sequences (or never, without them), the barn within
 * its bounds, and every sheaf allocated and not freed held somewhere. */
static void check_invariants(struct kmem_cache *s, int line)
{
	struct node_barn *barn = get_barn(s);
	long held = barn->nr_full + barn->nr_empty;
	int bad = 0;

	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[cpu];

		if (__atomic_load_n(&pcs->lock.locked, __ATOMIC_RELAXED)) {
			printf("    line %d: CPU %u's sheaves are still locked\n", line, cpu);
			bad++;
		}
		if (pcs->rseq_main != (slub_percpu_rseq ? pcs->main : NULL)) {
			printf("    line %d: CPU %u's rseq_main is not its main: was it unlocked "
			       "with pcs_unlock?\n", line, cpu);
			bad++;
		}
		if (pcs->main && pcs->main->size > s->sheaf_capacity) {
			printf("    line %d: CPU %u's main holds %u objects\n", line, cpu,
			       pcs->main->size);
			bad++;
		}
		held += !!pcs->main + !!pcs->spare;
	}
	if (barn->nr_full > MAX_FULL_SHEAVES || barn->nr_empty > MAX_EMPTY_SHEAVES) {
		printf("    line %d: the barn holds %u full and %u empty sheaves\n", line,
		       barn->nr_full, barn->nr_empty);
		bad++;
	}
#ifdef CONFIG_SLUB_STATS
	if (held != sstat(s, SHEAF_ALLOC) - sstat(s, SHEAF_FREE)) {
		printf("    line %d: %ld sheaves allocated and not freed, %ld held: a sheaf "
		       "set aside was lost (or freed twice)\n", line,
		       sstat(s, SHEAF_ALLOC) - sstat(s, SHEAF_FREE), held);
		bad++;
	}
#else
	(void)held;
#endif
	CHECK(bad == 0);
}
#define INVARIANTS(s)	check_invariants(s, __LINE__)

/* Puts a sheaf in the barn by hand, full or empty. */
static void barn_add(struct kmem_cache *s, struct slab_sheaf *sheaf)
{
	struct node_barn *barn = get_barn(s);

	pthread_mutex_lock(&barn->lock);
	if (sheaf->size) {
		list_add(&sheaf->barn_list, &barn->sheaves_full);
		barn->nr_full++;
	} else {
		list_add(&sheaf->barn_list, &barn->sheaves_empty);
		barn->nr_empty++;
	}
	pthread_mutex_unlock(&barn->lock);
}

/* A new sheaf, empty (it is no CPU's: call it when the CPU has no spare
 * and the barn is empty, or prefill takes theirs). */
static struct slab_sheaf *new_empty_sheaf(struct kmem_cache *s)
{
	struct slab_sheaf *sheaf = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 0);

	CHECK(sheaf && sheaf->size == 0);
	return sheaf;
}

/* The objects a case holds, freed at its end. */
static void *held[4096];
static int nheld;

static void *take(struct kmem_cache *s, gfp_t gfp)
{
	void *p = kmem_cache_alloc(s, gfp);

	CHECK(p != NULL);
	if (p && nheld < 4096)
		held[nheld++] = p;
	return p;
}

static void give_all_back(struct kmem_cache *s)
{
	while (nheld)
		kmem_cache_free(s, held[--nheld]);
}

/* From a new cache: main installed and empty, no spare, the barn empty.
 * False if the sheaves were not used at all (the stubs). */
static bool main_empty(struct kmem_cache *s)
{
	take(s, GFP_KERNEL);
	CHECK(pcs0(s)->main != NULL);
	if (!pcs0(s)->main)
		return false;
	CHECK_EQ(pcs0(s)->main->size, CAP - 1);
	while (pcs0(s)->main->size)
		take(s, GFP_KERNEL);
	CHECK(pcs0(s)->spare == NULL);
	CHECK_EQ(get_barn(s)->nr_full + get_barn(s)->nr_empty, 0);
	INVARIANTS(s);
	return true;
}

static void finish(struct kmem_cache *s)
{
	give_all_back(s);
	INVARIANTS(s);
	CHECK_EQ(objects_in_use(s), 0);
	kmem_cache_destroy(s);
}

/* The pop takes the top of main, the push puts the object on top, each
 * counted once as a fast-path event. */
static void alloc_pops_and_free_pushes_on_main(void)
{
	struct kmem_cache *s = sheaf_cache("g16-pop", 64, NULL);
	struct slub_percpu_sheaves *pcs = pcs0(s);
	void *p[5];

	take(s, GFP_KERNEL);
	CHECK(pcs->main != NULL);
	if (!pcs->main)
		goto out;
	CHECK_EQ(pcs->main->size, CAP - 1);
	INVARIANTS(s);
	long af = cstat(s, ALLOC_FASTPATH), ff = cstat(s, FREE_FASTPATH);
	for (int i = 0; i < 5; i++) {
		void *top = pcs->main->objects[pcs->main->size - 1];

		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		CHECK(p[i] == top);
		CHECK_EQ(pcs->main->size, CAP - 2 - i);
		INVARIANTS(s);
	}
	STAT_CHECK_EQ(cstat(s, ALLOC_FASTPATH) - af, 5);
	for (int i = 0; i < 5; i++) {
		kmem_cache_free(s, p[i]);
		CHECK_EQ(pcs->main->size, CAP - 5 + i);
		CHECK(pcs->main->objects[pcs->main->size - 1] == p[i]);
		INVARIANTS(s);
	}
	STAT_CHECK_EQ(cstat(s, FREE_FASTPATH) - ff, 5);
	CHECK(pcs->spare == NULL);
out:
	finish(s);
}

/* An empty main and a spare with objects (a caller's sheaf returned part
 * used): the two are swapped, and nothing else happens. */
static void an_empty_main_takes_a_spare_with_objects(void)
{
	struct kmem_cache *s = sheaf_cache("g16-spare", 64, NULL);
	struct slub_percpu_sheaves *pcs = pcs0(s);
	struct slab_sheaf *old_main, *sheaf;

	if (!main_empty(s))
		goto out;
	sheaf = kmem_cache_prefill_sheaf(s, GFP_KERNEL, CAP);
	CHECK(sheaf != NULL);
	if (!sheaf)
		goto out;
	while (kmem_cache_sheaf_size(sheaf) > 5)
		held[nheld++] = kmem_cache_alloc_from_sheaf(s, GFP_KERNEL, sheaf);
	kmem_cache_return_sheaf(s, GFP_KERNEL, sheaf);
	CHECK(pcs->spare == sheaf);
	old_main = pcs->main;
	long refill = sstat(s, SHEAF_REFILL), get = sstat(s, BARN_GET);
	long fail = sstat(s, BARN_GET_FAIL);
	void *top = sheaf->objects[4];
	CHECK(take(s, GFP_KERNEL) == top);
	CHECK(pcs->main == sheaf);
	CHECK(pcs->spare == old_main);
	CHECK_EQ(sheaf->size, 4);
	STAT_CHECK_EQ(sstat(s, SHEAF_REFILL), refill);
	STAT_CHECK_EQ(sstat(s, BARN_GET), get);
	STAT_CHECK_EQ(sstat(s, BARN_GET_FAIL), fail);
	INVARIANTS(s);
out:
	finish(s);
}

/* An empty main and an empty spare: the spare is not swapped in (it has
 * nothing), it is the sheaf refilled, and the old main goes to the barn. */
static void an_empty_spare_is_refilled_not_swapped(void)
{
	struct kmem_cache *s = sheaf_cache("g16-empty-spare", 64, NULL);
	struct slub_percpu_sheaves *pcs = pcs0(s);
	struct slab_sheaf *old_main, *spare;

	if (!main_empty(s))
		goto out;
	spare = new_empty_sheaf(s);
	kmem_cache_return_sheaf(s, GFP_KERNEL, spare);
	CHECK(pcs->spare == spare);
	old_main = pcs->main;
	long alloc = sstat(s, SHEAF_ALLOC), refill = sstat(s, SHEAF_REFILL);
	long fail = sstat(s, BARN_GET_FAIL);
	take(s, GFP_KERNEL);
	CHECK(pcs->main == spare);
	CHECK_EQ(pcs->main->size, CAP - 1);
	CHECK(pcs->spare == NULL);
	CHECK_EQ(get_barn(s)->nr_empty, 1);
	CHECK(get_barn(s)->nr_empty == 1 &&
	      list_first_entry(&get_barn(s)->sheaves_empty, struct slab_sheaf, barn_list) == old_main);
	STAT_CHECK_EQ(sstat(s, SHEAF_ALLOC), alloc);
	STAT_CHECK_EQ(sstat(s, SHEAF_REFILL), refill + CAP);
	STAT_CHECK_EQ(sstat(s, BARN_GET_FAIL), fail + 1);
	INVARIANTS(s);
	/* Main empty again, no spare, one empty sheaf in the barn: that one
	 * is refilled, not a new one. */
	while (pcs->main->size)
		take(s, GFP_KERNEL);
	old_main = pcs->main;
	take(s, GFP_KERNEL);
	CHECK(pcs->main != old_main && pcs->main->size == CAP - 1);
	CHECK_EQ(get_barn(s)->nr_empty, 1);
	STAT_CHECK_EQ(sstat(s, SHEAF_ALLOC), alloc);
	INVARIANTS(s);
out:
	finish(s);
}

/* Main and spare empty, a full sheaf in the barn: the barn trades it for
 * the empty main, with no refill. */
static void the_barn_trades_a_full_sheaf_for_the_empty_main(void)
{
	struct kmem_cache *s = sheaf_cache("g16-trade", 64, NULL);
	struct slub_percpu_sheaves *pcs = pcs0(s);
	struct slab_sheaf *old_main, *spare, *full;

	if (!main_empty(s))
		goto out;
	spare = new_empty_sheaf(s);
	full = kmem_cache_prefill_sheaf(s, GFP_KERNEL, CAP);
	CHECK(full && full->size == CAP);
	if (!full)
		goto out;
	barn_add(s, full);
	kmem_cache_return_sheaf(s, GFP_KERNEL, spare);
	CHECK(pcs->spare == spare);
	old_main = pcs->main;
	long refill = sstat(s, SHEAF_REFILL), get = sstat(s, BARN_GET);
	void *top = full->objects[CAP - 1];
	INVARIANTS(s);
	CHECK(take(s, GFP_KERNEL) == top);
	CHECK(pcs->main == full);
	CHECK_EQ(full->size, CAP - 1);
	CHECK(pcs->spare == spare);
	CHECK_EQ(get_barn(s)->nr_full, 0);
	CHECK(get_barn(s)->nr_empty == 1 &&
	      list_first_entry(&get_barn(s)->sheaves_empty, struct slab_sheaf, barn_list) == old_main);
	STAT_CHECK_EQ(sstat(s, SHEAF_REFILL), refill);
	STAT_CHECK_EQ(sstat(s, BARN_GET), get + 1);
	INVARIANTS(s);
out:
	finish(s);
}

/* The same trade with ten empty sheaves in the barn: the empty main comes
 * back through dispose and must be freed, not lost. */
static void an_empty_main_the_barn_has_no_room_for_is_freed(void)
{
	struct kmem_cache *s = sheaf_cache("g16-no-room", 64, NULL);
	struct slub_percpu_sheaves *pcs = pcs0(s);
	struct slab_sheaf *empty[MAX_EMPTY_SHEAVES], *full, *extra;

	if (!main_empty(s))
		goto out;
	for (int i = 0; i < MAX_EMPTY_SHEAVES; i++)
		empty[i] = new_empty_sheaf(s);
	extra = new_empty_sheaf(s);
	full = kmem_cache_prefill_sheaf(s, GFP_KERNEL, CAP);
	CHECK(full && full->size == CAP);
	if (!full)
		goto out;
	for (int i = 0; i < MAX_EMPTY_SHEAVES; i++)
		if (empty[i])
			barn_add(s, empty[i]);
	barn_add(s, full);
	kmem_cache_return_sheaf(s, GFP_KERNEL, extra);
	CHECK(pcs->spare == extra);
	INVARIANTS(s);
	long freed = sstat(s, SHEAF_FREE);
	take(s, GFP_KERNEL);
	CHECK(pcs->main == full && pcs->spare == extra);
	CHECK_EQ(get_barn(s)->nr_full, 0);
	CHECK_EQ(get_barn(s)->nr_empty, MAX_EMPTY_SHEAVES);
	STAT_CHECK_EQ(sstat(s, SHEAF_FREE), freed + 1);
	INVARIANTS(s);
	/* Main empty, the spare empty, the barn full of empty sheaves: the
	 * spare is refilled and the old main freed. */
	while (pcs->main->size)
		take(s, GFP_KERNEL);
	freed = sstat(s, SHEAF_FREE);
	take(s, GFP_KERNEL);
	CHECK(pcs->main == extra && pcs->spare == NULL);
	STAT_CHECK_EQ(sstat(s, SHEAF_FREE), freed + 1);
	INVARIANTS(s);
out:
	finish(s);
}

/* An allocation that may not wait, when only a refill would do, takes the
 * classic path and changes nothing; the spare and the barn it may still
 * use. */
static void nowait_takes_the_classic_path_when_a_refill_is_needed(void)
{
	static const gfp_t flags[] = { GFP_NOWAIT, GFP_ATOMIC };
	struct kmem_cache *s = sheaf_cache("g16-nowait", 64, NULL);
	struct slub_percpu_sheaves *pcs = pcs0(s);
	struct slab_sheaf *old_main, *spare, *full;

	if (!main_empty(s))
		goto out;
	spare = new_empty_sheaf(s);
	kmem_cache_return_sheaf(s, GFP_KERNEL, spare);
	old_main = pcs->main;
	for (int i = 0; i < 2; i++) {
		long alloc = sstat(s, SHEAF_ALLOC), refill = sstat(s, SHEAF_REFILL);

		CHECK(take(s, flags[i]) != NULL);
		CHECK(pcs->main == old_main && old_main->size == 0);
		CHECK(pcs->spare == spare);
		CHECK_EQ(get_barn(s)->nr_full + get_barn(s)->nr_empty, 0);
		STAT_CHECK_EQ(sstat(s, SHEAF_ALLOC), alloc);
		STAT_CHECK_EQ(sstat(s, SHEAF_REFILL), refill);
		INVARIANTS(s);
	}
	/* A full sheaf in the barn: the trade needs no waiting. */
	full = kmem_cache_prefill_sheaf(s, GFP_KERNEL, CAP);	/* takes the spare */
	CHECK(full == spare && pcs->spare == NULL);
	if (!full)
		goto out;
	barn_add(s, full);
	CHECK(take(s, GFP_NOWAIT) != NULL);
	CHECK(pcs->main == full && full->size == CAP - 1);
	INVARIANTS(s);
	/* A spare with objects: swapped in, with GFP_ATOMIC too. */
	while (pcs->main->size)
		take(s, GFP_KERNEL);
	full = kmem_cache_prefill_sheaf(s, GFP_KERNEL, CAP);
	CHECK(full != NULL);
	if (!full)
		goto out;
	kmem_cache_return_sheaf(s, GFP_KERNEL, full);
	CHECK(pcs->spare == full);
	CHECK(take(s, GFP_ATOMIC) != NULL);
	CHECK(pcs->main == full && full->size == CAP - 1);
	INVARIANTS(s);
	/* And the lock was left free: a GFP_KERNEL allocation refills. */
	while (pcs->main->size)
		take(s, GFP_KERNEL);
	long refill = sstat(s, SHEAF_REFILL);
	take(s, GFP_KERNEL);
	CHECK_EQ(pcs->main->size, CAP - 1);
	STAT_CHECK_EQ(sstat(s, SHEAF_REFILL), refill + CAP);
	INVARIANTS(s);
out:
	finish(s);
}

/* The refill runs with the lock dropped: a constructor, called when the
 * refill makes a new slab, sees the CPU's sheaves unlocked and frees an
 * object to them, as another thread on the CPU could.  The object lands on
 * the empty main, so the refilled sheaf becomes the spare and the
 * allocation returns the object freed meanwhile. */
static struct kmem_cache *ctor_cache;
static void *ctor_free;
static int ctor_armed, ctor_fired, ctor_locked;

static void ctor(void *object)
{
	struct slub_percpu_sheaves *pcs;

	*(long *)object = 0;
	if (!ctor_armed)
		return;
	ctor_armed = 0;
	ctor_fired = 1;
	pcs = pcs0(ctor_cache);
	if (__atomic_load_n(&pcs->lock.locked, __ATOMIC_RELAXED)) {
		ctor_locked = 1;	/* freeing now would not reach the sheaves */
		return;
	}
	kmem_cache_free(ctor_cache, ctor_free);
}

static void the_refill_runs_unlocked_and_keeps_what_was_freed_meanwhile(void)
{
	struct kmem_cache *s = ctor_cache = sheaf_cache("g16-refill", 64, ctor);
	struct slub_percpu_sheaves *pcs = pcs0(s);
	int rounds;

	if (!main_empty(s))
		goto out;
	for (rounds = 0; rounds < 100 && !ctor_fired; rounds++) {
		void *p;

		while (pcs->main->size)
			take(s, GFP_KERNEL);
		CHECK(pcs->spare == NULL);
		ctor_free = held[--nheld];
		ctor_armed = 1;
		p = kmem_cache_alloc(s, GFP_KERNEL);
		ctor_armed = 0;
		held[nheld++] = p;
		if (!ctor_fired) {
			held[nheld++] = ctor_free;
			continue;
		}
		CHECK(!ctor_locked);
		if (ctor_locked) {
			held[nheld++] = ctor_free;
			break;
		}
		CHECK(p == ctor_free);
		CHECK_EQ(pcs->main->size, 0);
		CHECK(pcs->spare != NULL && pcs->spare->size == CAP);
	}
	CHECK(ctor_fired);
	INVARIANTS(s);
out:
	finish(s);
}

/* An object freed twice in a row is the top of main the second time: the
 * second free is reported and refused. */
static void a_naive_double_free_on_main_is_reported(void)
{
	struct kmem_cache *s = sheaf_cache("g16-df", 64, NULL);
	struct slub_percpu_sheaves *pcs = pcs0(s);
	void *x = take(s, GFP_KERNEL), *y;
	unsigned int size;
	char *out;

	take(s, GFP_KERNEL);		/* main has room for x and one more */
	CHECK(pcs->main != NULL);
	if (!pcs->main || !x)
		goto out;
	held[0] = held[--nheld];	/* x is not held any more */
	kmem_cache_free(s, x);
	size = pcs->main->size;
	CHECK(size == CAP - 1 && pcs->main->objects[size - 1] == x);
	long ff = cstat(s, FREE_FASTPATH);
	test_capture_begin();
	kmem_cache_free(s, x);
	out = test_capture_end();
	CHECK(strstr(out, "g16-df: double free of object") != NULL);
	free(out);
	CHECK_EQ(pcs->main->size, size);
	if (pcs->main->size == size + 1 && pcs->main->objects[size] == x)
		pcs->main->size--;	/* pushed twice: undone, or x would be handed out twice */
	STAT_CHECK_EQ(cstat(s, FREE_FASTPATH), ff);
	INVARIANTS(s);
	x = kmem_cache_alloc(s, GFP_KERNEL);
	y = kmem_cache_alloc(s, GFP_KERNEL);
	CHECK(x != y);
	kmem_cache_free(s, y);
	kmem_cache_free(s, x);
	INVARIANTS(s);
out:
	finish(s);
}

/* A scripted run on a new cache, counted: 72 allocations, 72 frees, 72
 * allocations and one more.  Sheaves of 12: six refills (the first two
 * into new sheaves, then into the empty sheaf the barn kept), four full
 * sheaves to the barn, four trades back, and the last refill into the
 * empty spare. */
static void a_scripted_run_counts_as_the_kernel_counts(void)
{
	struct kmem_cache *s = sheaf_cache("g16-stats", 64, NULL);
	struct slub_percpu_sheaves *pcs = pcs0(s);
	static void *p[72];

	for (int i = 0; i < 72; i++)
		CHECK((p[i] = held[nheld++] = kmem_cache_alloc(s, GFP_KERNEL)) != NULL);
	CHECK(pcs->main != NULL);
	if (!pcs->main)
		goto out;
	nheld = 0;
	STAT_CHECK_EQ(sstat(s, BARN_GET_FAIL), 6);
	STAT_CHECK_EQ(sstat(s, SHEAF_ALLOC), 2);
	STAT_CHECK_EQ(sstat(s, SHEAF_REFILL), 72);
	CHECK_EQ(get_barn(s)->nr_empty, 1);
	INVARIANTS(s);
	long ff = cstat(s, FREE_FASTPATH);
	for (int i = 0; i < 72; i++)
		kmem_cache_free(s, p[i]);
	STAT_CHECK_EQ(cstat(s, FREE_FASTPATH) - ff, 72);
	STAT_CHECK_EQ(sstat(s, BARN_PUT), 4);
	STAT_CHECK_EQ(sstat(s, SHEAF_ALLOC), 6);
	CHECK_EQ(get_barn(s)->nr_full, 4);
	CHECK(pcs->main->size == CAP && pcs->spare && pcs->spare->size == CAP);
	INVARIANTS(s);
	long af = cstat(s, ALLOC_FASTPATH);
	for (int i = 0; i < 72; i++)
		CHECK((p[i] = kmem_cache_alloc(s, GFP_KERNEL)) != NULL);
	STAT_CHECK_EQ(cstat(s, ALLOC_FASTPATH) - af, 72);
	STAT_CHECK_EQ(sstat(s, BARN_GET), 4);
	STAT_CHECK_EQ(sstat(s, BARN_GET_FAIL), 6);
	STAT_CHECK_EQ(sstat(s, SHEAF_REFILL), 72);
	CHECK_EQ(get_barn(s)->nr_full, 0);
	CHECK_EQ(get_barn(s)->nr_empty, 4);
	INVARIANTS(s);
	struct slab_sheaf *spare = pcs->spare;
	void *q = kmem_cache_alloc(s, GFP_KERNEL);
	CHECK(pcs->main == spare && pcs->spare == NULL);
	STAT_CHECK_EQ(sstat(s, BARN_GET_FAIL), 7);
	STAT_CHECK_EQ(sstat(s, SHEAF_ALLOC), 6);
	STAT_CHECK_EQ(sstat(s, SHEAF_REFILL), 84);
	CHECK_EQ(get_barn(s)->nr_empty, 5);
	STAT_CHECK_EQ(sstat(s, BARN_PUT_FAIL), 0);
	INVARIANTS(s);
	kmem_cache_free(s, q);
	for (int i = 0; i < 72; i++)
		kmem_cache_free(s, p[i]);
out:
	finish(s);
}

/* Caller-owned sheaves beside the CPU's: an oversize sheaf's objects freed
 * to the sheaves, a partly used sheaf returned as the spare, and every
 * object back in its slab at the end. */
static void prefilled_and_oversize_sheaves_mix_with_the_cpus(void)
{
	struct kmem_cache *s = sheaf_cache("g16-mix", 64, NULL);
	struct slub_percpu_sheaves *pcs = pcs0(s);
	struct slab_sheaf *big, *small;
	static void *p[100];

	take(s, GFP_KERNEL);
	CHECK(pcs->main != NULL);
	if (!pcs->main)
		goto out;
	big = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 100);
	CHECK(big && kmem_cache_sheaf_size(big) == 100);
	if (!big)
		goto out;
	for (int i = 0; i < 100; i++)
		p[i] = kmem_cache_alloc_from_sheaf(s, GFP_KERNEL, big);
	kmem_cache_return_sheaf(s, GFP_KERNEL, big);
	CHECK_EQ(pcs->main->size, CAP - 1);
	INVARIANTS(s);
	long ff = cstat(s, FREE_FASTPATH);
	for (int i = 0; i < 100; i++) {
		kmem_cache_free(s, p[i]);
		if (i % 10 == 0)
			INVARIANTS(s);
	}
	STAT_CHECK_EQ(cstat(s, FREE_FASTPATH) - ff, 100);
	small = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 3);	/* the full spare */
	CHECK(small != NULL && pcs->spare == NULL);
	if (!small)
		goto out;
	for (int i = 0; i < 3; i++)
		held[nheld++] = kmem_cache_alloc_from_sheaf(s, GFP_KERNEL, small);
	kmem_cache_return_sheaf(s, GFP_KERNEL, small);
	CHECK(pcs->spare == small);
	long af = cstat(s, ALLOC_FASTPATH), refill = sstat(s, SHEAF_REFILL);
	int n = (int)pcs->main->size + (int)small->size;
	for (int i = 0; i < n; i++)
		take(s, GFP_KERNEL);
	STAT_CHECK_EQ(cstat(s, ALLOC_FASTPATH) - af, n);
	STAT_CHECK_EQ(sstat(s, SHEAF_REFILL), refill);
	CHECK(pcs->main == small && small->size == 0);
	INVARIANTS(s);
out:
	finish(s);
}

int main(void)
{
	test_pin_to_cpu(0);
	RUN(alloc_pops_and_free_pushes_on_main);
	RUN(an_empty_main_takes_a_spare_with_objects);
	RUN(an_empty_spare_is_refilled_not_swapped);
	RUN(the_barn_trades_a_full_sheaf_for_the_empty_main);
	RUN(an_empty_main_the_barn_has_no_room_for_is_freed);
	RUN(nowait_takes_the_classic_path_when_a_refill_is_needed);
	RUN(the_refill_runs_unlocked_and_keeps_what_was_freed_meanwhile);
	RUN(a_naive_double_free_on_main_is_reported);
	RUN(a_scripted_run_counts_as_the_kernel_counts);
	RUN(prefilled_and_oversize_sheaves_mix_with_the_cpus);
	return test_main_result();
}
