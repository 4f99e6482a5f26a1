/* quarantine.c -- lab quarantine's reference solution (instructor's tree
 * only): a ring of held objects under a mutex. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "quarantine.h"

struct quarantine_entry {
	struct kmem_cache *cache;
	unsigned char *object;
};

struct quarantine {
	pthread_mutex_t lock;
	unsigned int capacity, head, count;	/* the oldest is ring[head] */
	unsigned long reports;
	struct quarantine_entry ring[];
};

struct quarantine *quarantine_create(unsigned int capacity)
{
	struct quarantine *q;

	if (!capacity)
		return NULL;
	q = calloc(1, sizeof(*q) + (size_t)capacity * sizeof(q->ring[0]));
	if (!q)
		return NULL;
	pthread_mutex_init(&q->lock, NULL);
	q->capacity = capacity;
	return q;
}

static unsigned char poison_at(unsigned int i, unsigned int size)
{
	return i == size - 1 ? POISON_END : POISON_FREE;
}

/* Check the oldest entry's poison, report a write, and free it; the
 * caller holds the lock. */
static void quarantine_release_oldest(struct quarantine *q)
{
	struct quarantine_entry e = q->ring[q->head];
	unsigned int size = e.cache->object_size, first, last;

	q->head = (q->head + 1) % q->capacity;
	q->count--;
	for (first = 0; first < size && e.object[first] == poison_at(first, size); first++)
		;
	if (first < size) {
		for (last = size - 1; e.object[last] == poison_at(last, size); last--)
			;
		pr_err("BUG %s: Poison overwritten in quarantine\n", e.cache->name);
		pr_err("[Object overwritten] 0x%lx-0x%lx @offset=%u. First byte 0x%x instead of 0x%x\n",
		       (unsigned long)(e.object + first), (unsigned long)(e.object + last), first,
		       e.object[first], poison_at(first, size));
		q->reports++;
	}
	kmem_cache_free(e.cache, e.object);
}

void quarantine_free(struct quarantine *q, struct kmem_cache *s, void *object)
{
	unsigned int i;

	pthread_mutex_lock(&q->lock);
	for (i = 0; i < q->count; i++) {
		if (q->ring[(q->head + i) % q->capacity].object == object) {
			pr_err("BUG %s: Object already free in quarantine\n", s->name);
			q->reports++;
			pthread_mutex_unlock(&q->lock);
			return;
		}
	}
	if (q->count == q->capacity)
		quarantine_release_oldest(q);
	memset(object, POISON_FREE, s->object_size);
	((unsigned char *)object)[s->object_size - 1] = POISON_END;
	q->ring[(q->head + q->count) % q->capacity] = (struct quarantine_entry){ s, object };
	q->count++;
	pthread_mutex_unlock(&q->lock);
}

unsigned int quarantine_drain(struct quarantine *q)
{
	unsigned int n = 0;

	pthread_mutex_lock(&q->lock);
	while (q->count) {
		quarantine_release_oldest(q);
		n++;
	}
	pthread_mutex_unlock(&q->lock);
	return n;
}

unsigned int quarantine_count(struct quarantine *q)
{
	unsigned int n;

	pthread_mutex_lock(&q->lock);
	n = q->count;
	pthread_mutex_unlock(&q->lock);
	return n;
}

unsigned long quarantine_reports(struct quarantine *q)
{
	unsigned long n;

	pthread_mutex_lock(&q->lock);
	n = q->reports;
	pthread_mutex_unlock(&q->lock);
	return n;
}

void quarantine_destroy(struct quarantine *q)
{
	if (!q)
		return;
	quarantine_drain(q);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
