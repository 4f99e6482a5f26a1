/* quarantine.h -- lab quarantine: freed objects held back before they are
 * reused, and checked when they are.  The interface is given; write
 * lab/quarantine.c.
 *
 * A quarantine sits in front of kmem_cache_free.  quarantine_free(q, s, p)
 * takes an object p of cache s that the caller is done with, fills its
 * s->object_size bytes with the free poison (POISON_FREE, the last byte
 * POISON_END, as slab_debug=P poisons a free object) and holds it, so that
 * the allocator cannot hand p out again for a while.  A quarantine holds at
 * most `capacity` objects: the object that would be one too many makes the
 * oldest leave first (first in, first out).  An object leaves by being
 * checked and then freed with kmem_cache_free.  The check: every byte must
 * still be the poison; if one is not, the object was written after it was
 * freed, and the quarantine prints a report to standard error (pr_err),
 * two lines:
 *
 *   BUG <cache name>: Poison overwritten in quarantine
 *   [Object overwritten] 0x<first>-0x<last> @offset=<off>. First byte 0x<b> instead of 0x<p>
 *
 * <first> and <last> are the addresses of the first and the last byte that
 * are not the poison, <off> the first's offset in the object (decimal), <b>
 * its value and <p> the poison it should have held (both in lowercase hex, as
 * "%x" prints them).  The object is freed all the same.
 *
 * Freeing an object that is already in the quarantine is a double free: the
 * quarantine prints
 *
 *   BUG <cache name>: Object already free in quarantine
 *
 * and leaves the quarantine as it was (the object is not held twice).
 *
 * Every function may be called from several threads at once on the same
 * quarantine.  The quarantine's own memory comes from malloc.
 */
#ifndef SLUB_LAB_QUARANTINE_H
#define SLUB_LAB_QUARANTINE_H
#include "slab.h"

struct quarantine;

/* A quarantine for at most `capacity` objects (of any caches), or NULL if
 * capacity is 0 or there is no memory. */
struct quarantine *quarantine_create(unsigned int capacity);

/* Poison `object` (of cache s) and hold it; if the quarantine was full,
 * the oldest object leaves first (checked, then freed). */
void quarantine_free(struct quarantine *q, struct kmem_cache *s, void *object);

/* Every object leaves, oldest first (checked, then freed); returns how
 * many left. */
unsigned int quarantine_drain(struct quarantine *q);

/* The number of objects the quarantine holds. */
unsigned int quarantine_count(struct quarantine *q);

/* The number of reports printed so far (poison overwritten, double frees). */
unsigned long quarantine_reports(struct quarantine *q);

/* Drain the quarantine and free it.  NULL is allowed. */
void quarantine_destroy(struct quarantine *q);

#endif /* SLUB_LAB_QUARANTINE_H */
