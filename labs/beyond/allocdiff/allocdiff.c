/* allocdiff.c -- lab allocdiff: write the functions allocdiff.h declares,
 * and define struct allocdiff_snapshot.  Each stub stops the program with
 * a line naming itself.  kernel.h (for LAB_TODO) makes this file one of
 * the library's, whose own allocations are not tagged; you may drop it
 * with the stubs. */
#include "kernel.h"
#include "allocdiff.h"

struct allocdiff_snapshot *allocdiff_parse(const char *text)
{
	(void)text;
	LAB_TODO("allocdiff", "allocdiff_parse");
}

struct allocdiff_snapshot *allocdiff_snapshot(void)
{
	LAB_TODO("allocdiff", "allocdiff_snapshot");
}

size_t allocdiff_sites(const struct allocdiff_snapshot *snap)
{
	(void)snap;
	LAB_TODO("allocdiff", "allocdiff_sites");
}

ssize_t allocdiff_report(const struct allocdiff_snapshot *before,
			 const struct allocdiff_snapshot *after,
			 char *buf, size_t len, unsigned int top)
{
	(void)before, (void)after, (void)buf, (void)len, (void)top;
	LAB_TODO("allocdiff", "allocdiff_report");
}

void allocdiff_free(struct allocdiff_snapshot *snap)
{
	(void)snap;
	LAB_TODO("allocdiff", "allocdiff_free");
}
