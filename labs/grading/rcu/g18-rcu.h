/* g18-rcu.h -- what lab rcu's two grading tests share (kept back from
 * students): the object they free, the counters of
 * /sys/kernel/slab/.kfree_rcu, and a registered reader that stays inside
 * its read-side section until told to leave, beside a thread that waits
 * in slab_rcu_barrier. */
#ifndef G18_RCU_H
#define G18_RCU_H

#include "test.h"
#include "slab.h"
#include <semaphore.h>

#define DRAIN_FILE	"/sys/kernel/slab/.kfree_rcu_drain_ms"

struct obj {
	struct rcu_head rcu;
	unsigned long word[6];
};

static unsigned long counter(const char *name)
{
	char buf[256], *p;

	if (slub_ctl_read("/sys/kernel/slab/.kfree_rcu", buf, sizeof(buf)) <= 0)
		return ~0UL;
	p = strstr(buf, name);
	return p ? strtoul(p + strlen(name) + 1, NULL, 10) : ~0UL;
}

struct reader {
	sem_t inside, leave;
	struct obj *obj;
	int barrier_done;
};

static void *hold(void *arg)
{
	struct reader *r = arg;

	rcu_register_thread();
	rcu_read_lock();
	(void)rcu_dereference(r->obj);
	sem_post(&r->inside);
	sem_wait(&r->leave);
	rcu_read_unlock();
	rcu_unregister_thread();
	return NULL;
}

static void *barrier(void *arg)
{
	struct reader *r = arg;

	slab_rcu_barrier();
	__atomic_store_n(&r->barrier_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

#endif
