/* g18-batches.c -- lab rcu's grading test of kvfree_call_rcu's batches
 * (kept back from students).  One thread, pinned to CPU 0, frees objects
 * that take the batches whatever the boot line says: objects of a cache
 * that never has sheaves (SLAB_NOLEAKTRACE), large kmalloc blocks and
 * vmalloc blocks.  It reads the counters of /sys/kernel/slab/.kfree_rcu
 * after each step.  Nothing waits on a timer: the monitor's delay is an
 * hour unless a case sets it to nothing, and a case that needs the
 * callback thread to have looked at the deadlines queues a callback of its
 * own and waits for it (the thread runs a due monitor before it takes the
 * queue). */
#include "g18-rcu.h"

#define HOUR		"3600000"

/* The pointers a batch's page holds. */
#define BATCH	((PAGE_SIZE - sizeof(struct rcu_head) - sizeof(unsigned long)) / sizeof(void *))

static struct kmem_cache *cache;

static struct obj *object(void)
{
	struct obj *o = kmem_cache_alloc(cache, GFP_KERNEL);

	for (int i = 0; i < 6; i++)
		o->word[i] = 0x600dULL + (unsigned long)i;
	return o;
}

static void ignore_head(struct rcu_head *head)
{
	(void)head;
}

/* Lets the callback thread run once: it hands over every batch whose
 * monitor is due before it takes this callback from its queue. */
static void let_the_thread_look(void)
{
	struct rcu_head head;

	slab_call_rcu(&head, ignore_head);
	slab_rcu_barrier();
}

/* Every case starts with nothing pending and the CPU's batch gone. */
static void start(void)
{
	test_pin_to_cpu(0);
	kvfree_rcu_barrier();
	CHECK_EQ(counter("pending"), 0);
}

static void many_objects_wait_in_one_batch(void)
{
	unsigned long batches, fallbacks;

	start();
	batches = counter("batches");
	fallbacks = counter("fallbacks");
	for (int i = 0; i < 10; i++)
		kfree_rcu(object(), rcu);
	printf("    10 objects freed with kfree_rcu\n");
	CHECK_EQ(counter("pending"), 10);
	CHECK_EQ(counter("fallbacks"), fallbacks);
	CHECK_EQ(counter("batches"), batches);
	let_the_thread_look();
	printf("    after a grace period, with the monitor an hour away\n");
	CHECK_EQ(counter("pending"), 10);
	CHECK_EQ(counter("batches"), batches);
	kvfree_rcu_barrier();
	printf("    after kvfree_rcu_barrier\n");
	CHECK_EQ(counter("pending"), 0);
	CHECK_EQ(counter("batches"), batches + 1);
	CHECK_EQ(counter("fallbacks"), fallbacks);
}

static void a_full_batch_leaves_at_once(void)
{
	unsigned long batches, fallbacks;

	start();
	batches = counter("batches");
	fallbacks = counter("fallbacks");
	for (unsigned long i = 0; i + 1 < BATCH; i++)
		kfree_rcu(object(), rcu);
	printf("    %lu objects, one short of a full batch\n", (unsigned long)BATCH - 1);
	CHECK_EQ(counter("batches"), batches);
	CHECK_EQ(counter("pending"), BATCH - 1);
	kfree_rcu(object(), rcu);
	printf("    the object that fills the batch\n");
	CHECK_EQ(counter("batches"), batches + 1);
	slab_rcu_barrier();
	printf("    after the grace period of the full batch\n");
	CHECK_EQ(counter("pending"), 0);
	kfree_rcu(object(), rcu);
	printf("    one more object, in a new batch\n");
	CHECK_EQ(counter("pending"), 1);
	CHECK_EQ(counter("batches"), batches + 1);
	kvfree_rcu_barrier();
	CHECK_EQ(counter("pending"), 0);
	CHECK_EQ(counter("batches"), batches + 2);
	CHECK_EQ(counter("fallbacks"), fallbacks);
}

/* An armed monitor keeps its deadline: the second object, freed with the
 * delay set to nothing, must not arm it again.  A batch's first object
 * arms it with the delay of the moment. */
static void the_monitor_is_armed_once_a_batch(void)
{
	unsigned long batches;

	start();
	batches = counter("batches");
	kfree_rcu(object(), rcu);
	CHECK_EQ(slub_ctl_write(DRAIN_FILE, "0"), 0);
	kfree_rcu(object(), rcu);
	let_the_thread_look();
	printf("    a batch armed for an hour, a second object freed with no delay\n");
	CHECK_EQ(counter("batches"), batches);
	CHECK_EQ(counter("pending"), 2);
	kvfree_rcu_barrier();
	CHECK_EQ(counter("pending"), 0);
	CHECK_EQ(counter("batches"), batches + 1);
	kfree_rcu(object(), rcu);
	let_the_thread_look();
	printf("    a new batch's first object, freed with no delay\n");
	CHECK_EQ(counter("batches"), batches + 2);
	slab_rcu_barrier();
	CHECK_EQ(counter("pending"), 0);
	CHECK_EQ(slub_ctl_write(DRAIN_FILE, HOUR), 0);
	kfree_rcu(object(), rcu);
	CHECK_EQ(slub_ctl_write(DRAIN_FILE, "0"), 0);
	for (unsigned long i = 1; i < BATCH; i++)
		kfree_rcu(object(), rcu);
	printf("    a batch armed for an hour, then filled with no delay\n");
	CHECK_EQ(counter("batches"), batches + 3);
	kfree_rcu(object(), rcu);
	let_the_thread_look();
	printf("    the next batch's first object, freed with no delay\n");
	CHECK_EQ(counter("batches"), batches + 4);
	CHECK_EQ(slub_ctl_write(DRAIN_FILE, HOUR), 0);
	kvfree_rcu_barrier();
	CHECK_EQ(counter("pending"), 0);
}

/* A registered reader inside its section holds the batch back: the batch
 * is handed over full, and a barrier in another thread does not return
 * until the reader leaves.  The object keeps its words until then. */
static void a_reader_holds_its_batch_back(void)
{
	struct reader r = { .obj = object() };
	pthread_t reader, waiter;
	bool intact = true;

	start();
	sem_init(&r.inside, 0, 0);
	sem_init(&r.leave, 0, 0);
	pthread_create(&reader, NULL, hold, &r);
	sem_wait(&r.inside);
	kfree_rcu(r.obj, rcu);
	for (unsigned long i = 1; i < BATCH; i++)
		kfree_rcu(object(), rcu);
	pthread_create(&waiter, NULL, barrier, &r);
	printf("    a full batch handed over while a reader holds its first object\n");
	for (int i = 0; i < 6; i++)
		intact &= r.obj->word[i] == 0x600dULL + (unsigned long)i;
	CHECK(intact);
	CHECK_EQ(counter("pending"), BATCH);
	CHECK_EQ(__atomic_load_n(&r.barrier_done, __ATOMIC_ACQUIRE), 0);
	sem_post(&r.leave);
	pthread_join(reader, NULL);
	pthread_join(waiter, NULL);
	printf("    after the reader left\n");
	CHECK_EQ(counter("pending"), 0);
}

/* kfree_rcu(ptr) without a head joins the batch like any other: it waits
 * for a grace period itself only when no batch can be had. */
static void a_headless_object_joins_the_batch(void)
{
	unsigned long fallbacks, batches;

	start();
	fallbacks = counter("fallbacks");
	batches = counter("batches");
	kfree_rcu_mightsleep(object());
	kvfree_rcu_mightsleep(vmalloc(2 * PAGE_SIZE));
	kfree_rcu(object(), rcu);
	printf("    two objects without a head and one with\n");
	CHECK_EQ(counter("fallbacks"), fallbacks);
	CHECK_EQ(counter("pending"), 3);
	kvfree_rcu_barrier();
	CHECK_EQ(counter("pending"), 0);
	CHECK_EQ(counter("batches"), batches + 1);
}

/* Large kmalloc blocks and vmalloc blocks share the batch with slab
 * objects, and are freed one by one after the grace period. */
static void large_and_vmalloc_blocks_share_the_batch(void)
{
	unsigned long batches;

	start();
	batches = counter("batches");
	for (int i = 0; i < 5; i++) {
		struct obj *big = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
		struct obj *v = vmalloc(3 * PAGE_SIZE);

		kfree_rcu(big, rcu);
		kvfree_rcu(v, rcu);
		kfree_rcu(object(), rcu);
	}
	CHECK_EQ(counter("pending"), 15);
	kvfree_rcu_barrier();
	CHECK_EQ(counter("pending"), 0);
	CHECK_EQ(counter("batches"), batches + 1);
}

/* The batch's page is allocated only when the CPU has no batch: with the
 * next slab allocation made to fail, an object added to an existing batch
 * takes no fallback.  After a failed allocation the next object tries
 * again and gets a batch. */
static void a_page_only_when_the_cpu_has_no_batch(void)
{
#ifdef CONFIG_FAILSLAB
	struct obj *a = object(), *b = object(), *c = object(), *d = object();
	unsigned long fallbacks, batches;

	start();
	fallbacks = counter("fallbacks");
	batches = counter("batches");
	slub_ctl_write("/sys/kernel/debug/failslab/verbose", "0");
	kfree_rcu(a, rcu);
	slub_ctl_write("/proc/thread-self/fail-nth", "1");
	kfree_rcu(b, rcu);
	slub_ctl_write("/proc/thread-self/fail-nth", "0");
	printf("    a second object, with the next allocation failing\n");
	CHECK_EQ(counter("fallbacks"), fallbacks);
	kvfree_rcu_barrier();
	CHECK_EQ(counter("batches"), batches + 1);
	slub_ctl_write("/proc/thread-self/fail-nth", "1");
	kfree_rcu(c, rcu);
	slub_ctl_write("/proc/thread-self/fail-nth", "0");
	printf("    a first object, with its batch's allocation failing\n");
	CHECK_EQ(counter("fallbacks"), fallbacks + 1);
	kfree_rcu(d, rcu);
	printf("    the next object, with nothing failing\n");
	CHECK_EQ(counter("fallbacks"), fallbacks + 1);
	kvfree_rcu_barrier();
	CHECK_EQ(counter("batches"), batches + 2);
	CHECK_EQ(counter("pending"), 0);
#endif
}

int main(void)
{
	CHECK_EQ(slub_ctl_write(DRAIN_FILE, HOUR), 0);
	cache = kmem_cache_create("g18-batches", sizeof(struct obj), 0, SLAB_NOLEAKTRACE, NULL);
	CHECK(cache && !cache_has_sheaves(cache));
	RUN(many_objects_wait_in_one_batch);
	RUN(a_full_batch_leaves_at_once);
	RUN(the_monitor_is_armed_once_a_batch);
	RUN(a_reader_holds_its_batch_back);
	RUN(a_headless_object_joins_the_batch);
	RUN(large_and_vmalloc_blocks_share_the_batch);
	RUN(a_page_only_when_the_cpu_has_no_batch);
	kvfree_rcu_barrier();
	kmem_cache_destroy(cache);
	return test_main_result();
}
