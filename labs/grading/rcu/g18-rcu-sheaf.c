/* g18-rcu-sheaf.c -- lab rcu's grading test of __kfree_rcu_sheaf (kept
 * back from students).  One thread, pinned to CPU 0, frees the objects of
 * caches whose sheaves hold 4 with kfree_rcu, and checks after each step
 * CPU 0's rcu_free sheaf, the barn, the counters of
 * /sys/kernel/slab/.kfree_rcu and the cache's statistics, that the CPU's
 * lock is free and main published again for the restartable sequences,
 * and, once nothing is pending, that every sheaf allocated and not freed
 * is held somewhere.  A reader inside its section holds a full sheaf back;
 * the test itself holds the CPU's lock to send an object to the batches. */
#include "g18-rcu.h"


static struct kmem_cache *sheaf_cache(const char *name)
{
	struct kmem_cache_args args = { .sheaf_capacity = 4 };
	struct kmem_cache *s = kmem_cache_create(name, sizeof(struct obj), &args, 0);

	CHECK(s && cache_has_sheaves(s) && s->sheaf_capacity >= 2);
	return s;
}

static struct slub_percpu_sheaves *pcs0(struct kmem_cache *s)
{
	return &s->cpu_sheaves[0];
}

static unsigned int rcu_free_size(struct kmem_cache *s)
{
	return pcs0(s)->rcu_free ? pcs0(s)->rcu_free->size : 0;
}

#ifdef CONFIG_SLUB_STATS
static long sstat(struct kmem_cache *s, enum sheaf_stat_item si)
{
	long sum = 0;

	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
		sum += s->cpu_sheaves[cpu].stat[si];
	return sum;
}
#define STAT_CHECK_EQ(a, b)	CHECK_EQ(a, b)
#else
#define sstat(s, si)		0L
#define STAT_CHECK_EQ(a, b)	((void)(a), (void)(b))
#endif

/* Between any two calls: the lock free, main published again (with the
 * sequences), and, when no sheaf waits for a grace period, every sheaf
 * allocated and not freed held by a CPU or the barn. */
static void check_invariants(struct kmem_cache *s, bool settled, int line)
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
		if (pcs->rcu_free && pcs->rcu_free->size >= s->sheaf_capacity) {
			printf("    line %d: CPU %u's rcu_free sheaf is full and still there\n",
			       line, cpu);
			bad++;
		}
		held += !!pcs->main + !!pcs->spare + !!pcs->rcu_free;
	}
#ifdef CONFIG_SLUB_STATS
	if (settled && held != sstat(s, SHEAF_ALLOC) - sstat(s, SHEAF_FREE)) {
		printf("    line %d: %ld sheaves allocated and not freed, %ld held: a sheaf "
		       "was lost (or freed twice)\n", line,
		       sstat(s, SHEAF_ALLOC) - sstat(s, SHEAF_FREE), held);
		bad++;
	}
#else
	(void)held, (void)settled;
#endif
	CHECK(bad == 0);
}
#define INVARIANTS(s)	check_invariants(s, false, __LINE__)
#define SETTLED(s)	check_invariants(s, true, __LINE__)

static void start(void)
{
	test_pin_to_cpu(0);
	kvfree_rcu_barrier();
	CHECK_EQ(counter("pending"), 0);
}

/* The sheaf fills one object at a time, leaves the CPU when full, and is
 * in the barn after its grace period; no batch is used on the way. */
static void the_sheaf_fills_and_goes_to_the_barn(void)
{
	struct kmem_cache *s = sheaf_cache("g18-fill");
	unsigned int cap = s->sheaf_capacity;
	struct obj *o[64] = { NULL };
	unsigned long batches, fallbacks;
	unsigned int full;

	start();
	for (unsigned int i = 0; i < cap && i < 64; i++)
		o[i] = kmem_cache_alloc(s, GFP_KERNEL);
	batches = counter("batches");
	fallbacks = counter("fallbacks");
	full = get_barn(s)->nr_full;
	for (unsigned int i = 0; i + 1 < cap && i < 64; i++) {
		kfree_rcu(o[i], rcu);
		printf("    kfree_rcu of object %u of %u\n", i + 1, cap);
		CHECK_EQ(rcu_free_size(s), i + 1);
		CHECK(pcs0(s)->rcu_free && pcs0(s)->rcu_free->objects[i] == (void *)o[i]);
		CHECK_EQ(counter("pending"), i + 1);
		STAT_CHECK_EQ(sstat(s, FREE_RCU_SHEAF), (long)i + 1);
		INVARIANTS(s);
	}
	kfree_rcu(o[cap - 1], rcu);
	printf("    kfree_rcu of the object that fills the sheaf\n");
	CHECK(pcs0(s)->rcu_free == NULL);
	STAT_CHECK_EQ(sstat(s, FREE_RCU_SHEAF), (long)cap);
	STAT_CHECK_EQ(sstat(s, FREE_RCU_SHEAF_FAIL), 0L);
	INVARIANTS(s);
	slab_rcu_barrier();
	printf("    after its grace period\n");
	CHECK_EQ(counter("pending"), 0);
	CHECK_EQ(get_barn(s)->nr_full, full + 1);
	CHECK_EQ(counter("batches"), batches);
	CHECK_EQ(counter("fallbacks"), fallbacks);
	SETTLED(s);
	kmem_cache_destroy(s);
}

/* A registered reader inside its section holds a full sheaf back: a
 * barrier in another thread does not return, and the sheaf is not in the
 * barn, until the reader leaves. */
static void a_reader_holds_the_sheaf_back(void)
{
	struct kmem_cache *s = sheaf_cache("g18-reader");
	unsigned int cap = s->sheaf_capacity, full;
	struct reader r;
	struct obj *o[64] = { NULL };
	pthread_t reader, waiter;

	start();
	for (unsigned int i = 0; i < cap && i < 64; i++)
		o[i] = kmem_cache_alloc(s, GFP_KERNEL);
	full = get_barn(s)->nr_full;
	r = (struct reader){ .obj = o[0] };
	sem_init(&r.inside, 0, 0);
	sem_init(&r.leave, 0, 0);
	pthread_create(&reader, NULL, hold, &r);
	sem_wait(&r.inside);
	for (unsigned int i = 0; i < cap && i < 64; i++)
		kfree_rcu(o[i], rcu);
	pthread_create(&waiter, NULL, barrier, &r);
	printf("    a full sheaf handed over while a reader holds its first object\n");
	CHECK(pcs0(s)->rcu_free == NULL);
	CHECK_EQ(counter("pending"), cap);
	CHECK_EQ(get_barn(s)->nr_full, full);
	CHECK_EQ(__atomic_load_n(&r.barrier_done, __ATOMIC_ACQUIRE), 0);
	sem_post(&r.leave);
	pthread_join(reader, NULL);
	pthread_join(waiter, NULL);
	printf("    after the reader left\n");
	CHECK_EQ(counter("pending"), 0);
	CHECK_EQ(get_barn(s)->nr_full, full + 1);
	SETTLED(s);
	kmem_cache_destroy(s);
}

/* With the CPU's sheaves locked (as an interrupted holder would leave
 * them), kfree_rcu must neither wait nor touch the sheaves: the object
 * takes the batches.  An alarm ends a wait that would never end. */
static void a_taken_lock_sends_the_object_to_the_batches(void)
{
	struct kmem_cache *s = sheaf_cache("g18-locked");
	struct obj *a = kmem_cache_alloc(s, GFP_KERNEL), *b = kmem_cache_alloc(s, GFP_KERNEL);
	unsigned long batches;

	start();
	batches = counter("batches");
	kfree_rcu(a, rcu);
	CHECK_EQ(rcu_free_size(s), 1);
	CHECK(local_trylock(&pcs0(s)->lock));
	alarm(30);
	kfree_rcu(b, rcu);
	alarm(0);
	printf("    kfree_rcu with CPU 0's sheaves locked\n");
	CHECK_EQ(rcu_free_size(s), 1);
	CHECK_EQ(counter("pending"), 2);
	STAT_CHECK_EQ(sstat(s, FREE_RCU_SHEAF), 1L);
	STAT_CHECK_EQ(sstat(s, FREE_RCU_SHEAF_FAIL), 1L);
	local_unlock(&pcs0(s)->lock);
	kvfree_rcu_barrier();
	printf("    after kvfree_rcu_barrier\n");
	CHECK_EQ(counter("pending"), 0);
	CHECK_EQ(counter("batches"), batches + 1);
	SETTLED(s);
	kmem_cache_destroy(s);
}

/* A barrier flushes a sheaf that is not full: its objects wait for their
 * grace period, then go back to their slabs, not to the barn. */
static void a_barrier_empties_a_partial_sheaf(void)
{
	struct kmem_cache *s = sheaf_cache("g18-partial");
	unsigned int cap = s->sheaf_capacity, full;
	struct obj *o[64] = { NULL };

	start();
	for (unsigned int i = 0; i + 1 < cap && i < 64; i++)
		o[i] = kmem_cache_alloc(s, GFP_KERNEL);
	full = get_barn(s)->nr_full;
	for (unsigned int i = 0; i + 1 < cap && i < 64; i++)
		kfree_rcu(o[i], rcu);
	CHECK_EQ(rcu_free_size(s), cap - 1);
	CHECK_EQ(counter("pending"), cap - 1);
	kvfree_rcu_barrier();
	printf("    after kvfree_rcu_barrier\n");
	CHECK_EQ(counter("pending"), 0);
	CHECK(pcs0(s)->rcu_free == NULL);
	CHECK_EQ(get_barn(s)->nr_full, full);
	SETTLED(s);
	kmem_cache_shrink(s);
	CHECK_EQ(get_node(s, 0)->nr_slabs, 0);
	kmem_cache_destroy(s);
}

/* Many sheaves' worth, some of them filled while others wait: every
 * object is freed once, and every sheaf ends in the barn or freed. */
static void many_sheaves(void)
{
	struct kmem_cache *s = sheaf_cache("g18-many");
	unsigned int cap = s->sheaf_capacity, n = 7 * cap + 1;
	struct obj **o = calloc(n, sizeof(*o));
	unsigned long batches;
	unsigned int full;

	start();
	for (unsigned int i = 0; i < n; i++)
		o[i] = kmem_cache_alloc(s, GFP_KERNEL);
	batches = counter("batches");
	full = get_barn(s)->nr_full;
	for (unsigned int i = 0; i < n; i++) {
		kfree_rcu(o[i], rcu);
		if (i % (2 * cap) == 0)
			slab_rcu_barrier();
	}
	CHECK_EQ(rcu_free_size(s), 1);
	STAT_CHECK_EQ(sstat(s, FREE_RCU_SHEAF), (long)n);
	slab_rcu_barrier();
	CHECK_EQ(counter("pending"), 1);
	CHECK_EQ(get_barn(s)->nr_full, min(full + 7, (unsigned int)MAX_FULL_SHEAVES));
	kvfree_rcu_barrier();
	CHECK_EQ(counter("pending"), 0);
	CHECK_EQ(counter("batches"), batches);
	SETTLED(s);
	for (unsigned int i = 0; i < n; i++)
		o[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(s, o[i]);
	free(o);
	kmem_cache_destroy(s);
}

/* With sheaves for every cache, a kmalloc object takes its cache's
 * rcu_free sheaf; without, the batches. */
static void a_kmalloc_object_takes_its_caches_sheaf(void)
{
	struct obj *p = kmalloc(sizeof(*p), GFP_KERNEL);
	struct kmem_cache *k = virt_to_slab(p)->slab_cache;
	unsigned int before;

	start();
	if (!cache_has_sheaves(k)) {
		unsigned long batches = counter("batches");

		kfree_rcu(p, rcu);
		kvfree_rcu_barrier();
		CHECK_EQ(counter("batches"), batches + 1);
		CHECK_EQ(counter("pending"), 0);
		return;
	}
	before = rcu_free_size(k);
	kfree_rcu(p, rcu);
	printf("    kfree_rcu of a %s object\n", k->name);
	if (before + 1 < k->sheaf_capacity)
		CHECK_EQ(rcu_free_size(k), before + 1);
	else
		CHECK(pcs0(k)->rcu_free == NULL);
	INVARIANTS(k);
	kvfree_rcu_barrier();
	CHECK_EQ(counter("pending"), 0);
	CHECK(pcs0(k)->rcu_free == NULL);
}

int main(void)
{
	CHECK_EQ(slub_ctl_write(DRAIN_FILE, "3600000"), 0);
	RUN(the_sheaf_fills_and_goes_to_the_barn);
	RUN(a_reader_holds_the_sheaf_back);
	RUN(a_taken_lock_sends_the_object_to_the_batches);
	RUN(a_barrier_empties_a_partial_sheaf);
	RUN(many_sheaves);
	RUN(a_kmalloc_object_takes_its_caches_sheaf);
	kvfree_rcu_barrier();
	return test_main_result();
}
