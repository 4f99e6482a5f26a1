/* allocdiff.c -- lab allocdiff's reference solution (instructor's tree
 * only): a snapshot is its sites sorted by tag, a report merges two. */
#define _GNU_SOURCE
#include "kernel.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "allocdiff.h"

struct allocdiff_site {
	char *tag;
	long long bytes, calls;
};

struct allocdiff_snapshot {
	struct allocdiff_site *site;	/* sorted by tag, each tag once */
	size_t nr;
};

static int allocdiff_site_by_tag(const void *a, const void *b)
{
	return strcmp(((const struct allocdiff_site *)a)->tag,
		      ((const struct allocdiff_site *)b)->tag);
}

/* One line of the text, [p, end): true and *site (its tag malloc'ed) if it
 * is a site's line; false if not, or with *nomem if its tag got no memory. */
static bool allocdiff_read_line(const char *p, const char *end, struct allocdiff_site *site,
				bool *nomem)
{
	char *num_end;
	const char *tag;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p == '#')
		return false;
	site->bytes = strtoll(p, &num_end, 10);
	if (num_end == p || num_end >= end || (*num_end != ' ' && *num_end != '\t'))
		return false;
	for (p = num_end; p < end && (*p == ' ' || *p == '\t'); p++)
		;
	if (p == end || *p == '+' || *p == '-' || *p < '0' || *p > '9')
		return false;
	site->calls = strtoll(p, &num_end, 10);
	if (num_end >= end || (*num_end != ' ' && *num_end != '\t'))
		return false;
	for (tag = num_end; tag < end && (*tag == ' ' || *tag == '\t'); tag++)
		;
	while (end > tag && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	if (end == tag)
		return false;
	site->tag = strndup(tag, (size_t)(end - tag));
	*nomem = !site->tag;
	return site->tag != NULL;
}

void allocdiff_free(struct allocdiff_snapshot *snap)
{
	if (!snap)
		return;
	for (size_t i = 0; i < snap->nr; i++)
		free(snap->site[i].tag);
	free(snap->site);
	free(snap);
}

struct allocdiff_snapshot *allocdiff_parse(const char *text)
{
	struct allocdiff_snapshot *snap;
	size_t cap = 0, kept = 0;

	if (!text) {
		errno = EINVAL;
		return NULL;
	}
	snap = calloc(1, sizeof(*snap));
	if (!snap)
		goto nomem;
	for (const char *p = text; *p;) {
		const char *end = strchrnul(p, '\n');
		struct allocdiff_site site;
		bool nomem = false;

		if (allocdiff_read_line(p, end, &site, &nomem)) {
			if (snap->nr == cap) {
				struct allocdiff_site *more;

				cap = cap ? 2 * cap : 64;
				more = realloc(snap->site, cap * sizeof(*more));
				if (!more) {
					free(site.tag);
					goto nomem;
				}
				snap->site = more;
			}
			snap->site[snap->nr++] = site;
		} else if (nomem) {
			goto nomem;
		}
		p = *end ? end + 1 : end;
	}
	/* One site per tag: the lines of one tag are added up. */
	if (snap->nr)
		qsort(snap->site, snap->nr, sizeof(*snap->site), allocdiff_site_by_tag);
	for (size_t i = 0; i < snap->nr; i++) {
		if (kept && !strcmp(snap->site[kept - 1].tag, snap->site[i].tag)) {
			snap->site[kept - 1].bytes += snap->site[i].bytes;
			snap->site[kept - 1].calls += snap->site[i].calls;
			free(snap->site[i].tag);
		} else {
			snap->site[kept++] = snap->site[i];
		}
	}
	snap->nr = kept;
	return snap;
nomem:
	allocdiff_free(snap);
	errno = ENOMEM;
	return NULL;
}

struct allocdiff_snapshot *allocdiff_snapshot(void)
{
	ssize_t len = slub_ctl_read("/proc/allocinfo", NULL, 0);

	while (len >= 0) {
		size_t size = (size_t)len + 4096;	/* room for a few new sites */
		char *text = malloc(size);
		struct allocdiff_snapshot *snap;

		if (!text) {
			errno = ENOMEM;
			return NULL;
		}
		len = slub_ctl_read("/proc/allocinfo", text, size);
		if (len >= 0 && (size_t)len < size) {
			snap = allocdiff_parse(text);
			free(text);
			return snap;
		}
		free(text);		/* it grew past the room: again */
	}
	errno = (int)-len;
	return NULL;
}

size_t allocdiff_sites(const struct allocdiff_snapshot *snap)
{
	return snap ? snap->nr : 0;
}

struct allocdiff_change {
	const char *tag;
	long long bytes, calls;
};

static int allocdiff_change_cmp(const void *a, const void *b)
{
	const struct allocdiff_change *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->tag, y->tag);
}

ssize_t allocdiff_report(const struct allocdiff_snapshot *before,
			 const struct allocdiff_snapshot *after,
			 char *buf, size_t len, unsigned int top)
{
	struct allocdiff_change *change;
	size_t i = 0, j = 0, nr = 0, count = 0;

	if (!before || !after)
		return -EINVAL;
	change = malloc((before->nr + after->nr + 1) * sizeof(*change));
	if (!change)
		return -ENOMEM;
	/* Both are sorted by tag: walk them side by side. */
	while (i < before->nr || j < after->nr) {
		const struct allocdiff_site *b = i < before->nr ? &before->site[i] : NULL;
		const struct allocdiff_site *a = j < after->nr ? &after->site[j] : NULL;
		int cmp = !b ? 1 : !a ? -1 : strcmp(b->tag, a->tag);
		struct allocdiff_change c;

		if (cmp < 0) {		/* gone */
			c = (struct allocdiff_change){ b->tag, -b->bytes, -b->calls };
			i++;
		} else if (cmp > 0) {	/* new */
			c = (struct allocdiff_change){ a->tag, a->bytes, a->calls };
			j++;
		} else {
			c = (struct allocdiff_change){ a->tag, a->bytes - b->bytes, a->calls - b->calls };
			i++, j++;
		}
		if (c.bytes)
			change[nr++] = c;
	}
	qsort(change, nr, sizeof(*change), allocdiff_change_cmp);
	if (top && nr > top)
		nr = top;
	if (len)
		buf[0] = '\0';
	for (size_t k = 0; k < nr; k++) {
		size_t room = count < len ? len - count : 0;
		int n = snprintf(room ? buf + count : NULL, room, "%+12lli %+8lli %s\n",
				 change[k].bytes, change[k].calls, change[k].tag);

		if (n > 0)
			count += (size_t)n;
	}
	free(change);
	return (ssize_t)count;
}
