/* quarantine.c -- lab quarantine: write the functions quarantine.h
 * declares.  Each stub stops the program with a line naming itself. */
#include "quarantine.h"

struct quarantine *quarantine_create(unsigned int capacity)
{
	(void)capacity;
	LAB_TODO("quarantine", "quarantine_create");
}

void quarantine_free(struct quarantine *q, struct kmem_cache *s, void *object)
{
	(void)q, (void)s, (void)object;
	LAB_TODO("quarantine", "quarantine_free");
}

unsigned int quarantine_drain(struct quarantine *q)
{
	(void)q;
	LAB_TODO("quarantine", "quarantine_drain");
}

unsigned int quarantine_count(struct quarantine *q)
{
	(void)q;
	LAB_TODO("quarantine", "quarantine_count");
}

unsigned long quarantine_reports(struct quarantine *q)
{
	(void)q;
	LAB_TODO("quarantine", "quarantine_reports");
}

void quarantine_destroy(struct quarantine *q)
{
	(void)q;
	LAB_TODO("quarantine", "quarantine_destroy");
}
