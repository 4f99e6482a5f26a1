/* allocdiff.h -- lab allocdiff: which call sites grew between two readings
 * of /proc/allocinfo, the leak hunter's first question.  The interface is
 * given; write lab/allocdiff.c.
 *
 * A snapshot holds the bytes and calls of every call site of a text in
 * /proc/allocinfo's format (chapter 11): after the header, one line per
 * site, "%12lli %8llu <tag> \n", where <tag> is the site as the kernel's
 * codetag_to_text writes it: "file:line func:name", or "file:line [module]
 * func:name" for a module's site (a program linked against libslub.so).
 *
 * Reading a text: a line is a site's if it begins, after blanks (spaces,
 * tabs), with an integer (the bytes, a minus sign allowed), then blanks,
 * an integer (the calls), then blanks and a tag that is not empty.  The tag
 * is the rest of the line, without the blanks at its end.  Every other line
 * is skipped: the header's two lines, any line beginning with '#', a blank
 * line, a line of numbers with no tag.  The last line need not end in a
 * newline.  Two lines with the same tag are one site (two calls on one line
 * of a file have two tags that print alike), whose bytes and calls are the
 * lines' sums.
 *
 * A report compares two snapshots, before and after.  A site missing from
 * one of them has 0 bytes and 0 calls there (a site only in after is new;
 * one only in before has gone, a module unloaded).  The report lists every
 * site whose bytes differ, one line each, exactly this format:
 *
 *   "%+12lli %+8lli %s\n", after's bytes - before's, after's calls - before's, tag
 *
 * that is, /proc/allocinfo's line with signed differences for the counters
 * and no blank before the newline:
 *
 *   "       +4096       +1 lab/tests/l11-allocdiff.c:42 func:main\n"
 *
 * Order: the larger difference of bytes first (growth first, the sites that
 * shrank most last); equal differences by tag, in strcmp order.  A site
 * whose bytes did not change is not listed, even if its calls did.
 *
 * Memory: a snapshot, and whatever a report needs while it runs, come from
 * the C library's malloc, never from the allocator being measured, so that
 * taking a snapshot does not change what the next one reads.  Nothing is
 * kept between calls: a report allocates nothing that outlives it.
 */
#ifndef SLUB_LAB_ALLOCDIFF_H
#define SLUB_LAB_ALLOCDIFF_H
#include <stddef.h>
#include <sys/types.h>
#include "slub.h"

struct allocdiff_snapshot;	/* yours to define, in lab/allocdiff.c */

/* A snapshot of `text`, in /proc/allocinfo's format (ours, or a kernel's
 * file read elsewhere).  A text with no site gives an empty snapshot, not an
 * error.  NULL with errno EINVAL if text is NULL, ENOMEM if there is no
 * memory. */
struct allocdiff_snapshot *allocdiff_parse(const char *text);

/* A snapshot of /proc/allocinfo as it is now, read whole with
 * slub_ctl_read (ask its length with a NULL buffer, then read; if the file
 * grew in between, read again with a larger buffer).  NULL with errno set
 * to the read's error if the file cannot be read: ENOENT when there is no
 * profiling support (the boot parameter sysctl.vm.mem_profiling=never).
 * With profiling merely off (/proc/sys/vm/mem_profiling reads 0) the file is
 * there and the snapshot is taken: its counters just do not move while
 * profiling is off.  NULL with errno ENOMEM if there is no memory. */
struct allocdiff_snapshot *allocdiff_snapshot(void);

/* The number of sites in a snapshot (lines with one tag count once);
 * 0 for NULL. */
size_t allocdiff_sites(const struct allocdiff_snapshot *snap);

/* The report from before to after, into buf: its first `top` lines in the
 * order above, or all of them if top is 0.  As snprintf and slub_ctl_read
 * do, buf receives what fits of the report, terminated with a '\0' (if len
 * is not 0), and the return value is the length of the whole report (the
 * lines top lets through) without the '\0': a caller whose buffer was too
 * short (a return of len or more) learns the size to ask for.  buf may be
 * NULL if len is 0.  No change: "" and 0.  -EINVAL if before or after is
 * NULL, -ENOMEM if there is no memory. */
ssize_t allocdiff_report(const struct allocdiff_snapshot *before,
			 const struct allocdiff_snapshot *after,
			 char *buf, size_t len, unsigned int top);

/* Free a snapshot.  NULL is allowed. */
void allocdiff_free(struct allocdiff_snapshot *snap);

#endif /* SLUB_LAB_ALLOCDIFF_H */
