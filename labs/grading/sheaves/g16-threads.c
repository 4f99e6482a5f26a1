/* g16-threads.c -- lab sheaves' grading test (kept back from students).
 * Four threads, not pinned, allocate objects (one in four without waiting),
 * mark them with their owner, hand half of them to another thread and
 * free the rest, while a fifth thread shrinks the cache, which flushes
 * every CPU's sheaves under their locks.  An object handed out twice is
 * found marked; at the end every CPU's lock is free, the sheaves were
 * used, every sheaf is accounted for (none leaked: the sheaves' kmalloc
 * cache holds no more objects than before), and every slab comes back. */
#include "test.h"
#include "slab.h"

enum { THREADS = 4, ROUNDS = 400000, BOX = 64 };

static struct kmem_cache *cache;
static void *box[THREADS][BOX];
static int stop, bad, nowait_null;

static void take(long *obj, long me)
{
	if (__atomic_exchange_n(obj, me, __ATOMIC_RELAXED) != 0)
		__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
}

static void give_back(long *obj, long me)
{
	if (__atomic_exchange_n(obj, 0, __ATOMIC_RELAXED) != me)
		__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
	kmem_cache_free(cache, obj);
}

static void *worker(void *arg)
{
	long me = (long)arg + 1, next = (long)arg % THREADS;
	uint64_t rng = test_seed() ^ (uint64_t)me * 0x7f4a7c15;

	for (unsigned long i = 0; i < test_scaled(ROUNDS); i++) {
		uint64_t r = test_rand(&rng);
		long *obj = kmem_cache_alloc(cache, (r & 3) ? GFP_KERNEL : GFP_NOWAIT);
		unsigned int slot = (unsigned int)((r >> 8) % BOX);
		void *old;

		if (!obj) {
			__atomic_add_fetch(&nowait_null, 1, __ATOMIC_RELAXED);
			continue;
		}
		take(obj, me);
		if (r & 4) {
			give_back(obj, me);
			continue;
		}
		__atomic_store_n(obj, 0, __ATOMIC_RELAXED);	/* anyone's now */
		old = __atomic_exchange_n(&box[(next + 1) % THREADS][slot], obj, __ATOMIC_ACQ_REL);
		if (old) {
			take(old, me);
			give_back(old, me);
		}
	}
	return NULL;
}

static void clear_mark(void *obj)
{
	*(long *)obj = 0;
}

static void *shrinker(void *unused)
{
	(void)unused;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		kmem_cache_shrink(cache);
		usleep(RUNNING_ON_VALGRIND ? 10000 : 200);
	}
	return NULL;
}

static long kmalloc_in_use(struct kmem_cache *s)
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

static void four_threads_conserve_objects_and_sheaves(void)
{
	pthread_t t[THREADS], sh;
	struct kmem_cache_args args = { .sheaf_capacity = 12, .ctor = clear_mark };
	struct kmem_cache *k128;
	long before;
	int mains = 0, locked = 0;

	kfree(kmalloc(128, GFP_KERNEL));	/* the kmalloc caches are made */
	k128 = kmalloc_caches[kmalloc_index(128)];
	before = kmalloc_in_use(k128);

	cache = kmem_cache_create("g16-threads", 64, &args, 0);
	CHECK(cache && cache->sheaf_capacity == 12);
	if (!cache)
		return;
	pthread_create(&sh, NULL, shrinker, NULL);
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(sh, NULL);
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct slub_percpu_sheaves *pcs = &cache->cpu_sheaves[cpu];

		locked += pcs->lock.locked;
		mains += pcs->main != NULL;
		CHECK(!pcs->main || pcs->main->size <= 12);
		CHECK(pcs->rseq_main == (slub_percpu_rseq ? pcs->main : NULL));
	}
	CHECK_EQ(locked, 0);
	CHECK(mains > 0);			/* the sheaves were used */
	CHECK_EQ(nowait_null, 0);
	for (int i = 0; i < THREADS; i++)
		for (int j = 0; j < BOX; j++)
			if (box[i][j])
				kmem_cache_free(cache, box[i][j]);
	CHECK_EQ(bad, 0);
	kmem_cache_shrink(cache);
	CHECK_EQ(get_node(cache, 0)->nr_slabs, 0);
	kmem_cache_destroy(cache);
	/* Every sheaf held at the end was freed with the cache; none was lost
	 * on the way. */
	CHECK_EQ(kmalloc_in_use(k128), before);
}

int main(void)
{
	RUN(four_threads_conserve_objects_and_sheaves);
	return test_main_result();
}
