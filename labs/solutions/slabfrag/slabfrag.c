/* slabfrag.c -- lab slabfrag's reference solution (instructor's tree only):
 * the caches' files read into struct slab_frag, sorted by waste. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "slabfrag.h"

static int frag_file(const char *cache, const char *file, unsigned long *value)
{
	char path[320], buf[128];
	ssize_t n;

	if (snprintf(path, sizeof(path), "/sys/kernel/slab/%s/%s", cache, file) >=
	    (int)sizeof(path))
		return -ENOENT;
	n = slub_ctl_read(path, buf, sizeof(buf) - 1);
	if (n < 0)
		return -ENOENT;
	buf[n < (ssize_t)sizeof(buf) ? n : (ssize_t)sizeof(buf) - 1] = '\0';
	*value = strtoul(buf, NULL, 10);
	return 0;
}

int slab_frag_get(const char *cache, struct slab_frag *f)
{
	unsigned long per_slab = 0, order = 0, size = 0, in_partial = 0;

	memset(f, 0, sizeof(*f));
	if (frag_file(cache, "slabs", &f->slabs))
		return -ENOENT;
	frag_file(cache, "objects", &f->objects);
	frag_file(cache, "objs_per_slab", &per_slab);
	frag_file(cache, "order", &order);
	frag_file(cache, "object_size", &size);
	frag_file(cache, "partial", &f->partial);
	frag_file(cache, "objects_partial", &in_partial);
	f->slab_bytes = f->slabs * (PAGE_SIZE << order);
	f->used_bytes = f->objects * size;
	f->waste = f->slab_bytes - f->used_bytes;
	f->partial_free = f->partial * per_slab - in_partial;
	f->fill = f->slab_bytes ? (unsigned int)(f->used_bytes * 100 / f->slab_bytes) : 100;
	return 0;
}

int slab_frag_settle(const char *cache)
{
	char path[320];

	if (snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", cache) >=
	    (int)sizeof(path))
		return -ENOENT;
	return slub_ctl_write(path, "1") < 0 ? -ENOENT : 0;
}

struct frag_row {
	char name[64];
	struct slab_frag f;
};

static int frag_row_cmp(const void *a, const void *b)
{
	const struct frag_row *x = a, *y = b;

	if (x->f.waste != y->f.waste)
		return x->f.waste > y->f.waste ? -1 : 1;
	return strcmp(x->name, y->name);
}

static char *frag_read_dir(void)
{
	size_t size = 1024;

	for (;;) {
		char *buf = malloc(size);
		ssize_t n;

		if (!buf)
			return NULL;
		n = slub_ctl_read("/sys/kernel/slab", buf, size);
		if (n >= 0 && (size_t)n < size) {
			buf[n] = '\0';
			return buf;
		}
		free(buf);
		if (n < 0)
			return NULL;
		size = (size_t)n + 1024;
	}
}

/* A line to fd with write: glibc's dprintf leaks its buffer when the
 * write fails. */
static int frag_printf(int fd, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line))
		return -EINVAL;
	return write(fd, line, (size_t)n) == n ? 0 : -EIO;
}

int slab_frag_report(int fd, unsigned int below)
{
	char *dir = frag_read_dir(), *name, *save = NULL;
	struct frag_row *rows = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	if (!dir)
		return -ENOENT;
	for (name = strtok_r(dir, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
		struct slab_frag f;

		if (name[0] == ':' || strlen(name) >= sizeof(rows[0].name) ||
		    slab_frag_get(name, &f) || !f.slabs || f.fill >= below)
			continue;
		if (n == cap) {
			struct frag_row *more = realloc(rows, (cap = cap ? 2 * cap : 16) * sizeof(*rows));

			if (!more) {
				ret = -ENOMEM;
				goto out;
			}
			rows = more;
		}
		strcpy(rows[n].name, name);
		rows[n++].f = f;
	}
	qsort(rows, n, sizeof(*rows), frag_row_cmp);
	if (frag_printf(fd, "%-24s %8s %10s %12s %5s %8s\n", "cache", "slabs", "objects",
			"waste", "fill", "free")) {
		ret = -EIO;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct slab_frag *f = &rows[i].f;

		if (frag_printf(fd, "%-24s %8lu %10lu %12lu %4u%% %8lu\n", rows[i].name,
				f->slabs, f->objects, f->waste, f->fill, f->partial_free)) {
			ret = -EIO;
			goto out;
		}
	}
	ret = (int)n;
out:
	free(rows);
	free(dir);
	return ret;
}
