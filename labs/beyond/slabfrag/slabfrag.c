/* slabfrag.c -- lab slabfrag: write the functions slabfrag.h declares.
 * Each stub stops the program with a line naming itself. */
#include "slabfrag.h"

int slab_frag_get(const char *cache, struct slab_frag *f)
{
	(void)cache, (void)f;
	LAB_TODO("slabfrag", "slab_frag_get");
}

int slab_frag_settle(const char *cache)
{
	(void)cache;
	LAB_TODO("slabfrag", "slab_frag_settle");
}

int slab_frag_report(int fd, unsigned int below)
{
	(void)fd, (void)below;
	LAB_TODO("slabfrag", "slab_frag_report");
}
