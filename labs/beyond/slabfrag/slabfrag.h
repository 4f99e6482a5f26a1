/* slabfrag.h -- lab slabfrag: a fragmentation report over the caches'
 * files.  The interface is given; write lab/slabfrag.c.
 *
 * Like chapter 7's slabinfo, the report knows nothing of the library's
 * structures: it reads every number with slub_ctl_read, from a cache's
 * directory /sys/kernel/slab/<name>/ (the leading number of a file is its
 * value; the per-node part after it is ignored).  The files it needs:
 * slabs, objects, objs_per_slab, order, object_size, partial and
 * objects_partial.
 */
#ifndef SLUB_LAB_SLABFRAG_H
#define SLUB_LAB_SLABFRAG_H
#include "slab.h"

struct slab_frag {
	unsigned long slabs;		/* the file slabs */
	unsigned long objects;		/* the file objects: objects in use */
	unsigned long slab_bytes;	/* the slabs' memory: slabs * (PAGE_SIZE << order) */
	unsigned long used_bytes;	/* objects * object_size */
	unsigned long waste;		/* slab_bytes - used_bytes */
	unsigned long partial;		/* the file partial: slabs on the nodes' partial lists */
	unsigned long partial_free;	/* free slots on those: partial * objs_per_slab
					   - objects_partial */
	unsigned int fill;		/* used_bytes * 100 / slab_bytes, rounded down;
					   100 for a cache without slabs */
};

/* Fill *f for the cache named `cache`: 0, or -ENOENT if there is no such
 * cache (its directory's slabs file cannot be read). */
int slab_frag_get(const char *cache, struct slab_frag *f);

/* Shrink the cache (write "1" to its shrink file), so that its CPU's slabs
 * are back on the lists and empty slabs are freed and the files count what
 * is really in use: 0, or -ENOENT. */
int slab_frag_settle(const char *cache);

/* Write to fd the caches whose fill is below `below` percent and which have
 * at least one slab, the most wasteful first (by waste, larger first; equal
 * waste by name, in strcmp order).  The caches are the names in the
 * directory /sys/kernel/slab (read whole with slub_ctl_read: one name a
 * line) that do not begin with ':'.  First a header, then one line per
 * cache, exactly these formats:
 *
 *   "%-24s %8s %10s %12s %5s %8s\n", "cache", "slabs", "objects", "waste", "fill", "free"
 *   "%-24s %8lu %10lu %12lu %4u%% %8lu\n", name, slabs, objects, waste, fill, partial_free
 *
 * Returns the number of caches written (0: the header alone), or a negative
 * errno if the directory cannot be read or a write fails. */
int slab_frag_report(int fd, unsigned int below);

#endif /* SLUB_LAB_SLABFRAG_H */
