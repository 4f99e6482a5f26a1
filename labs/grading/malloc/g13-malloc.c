/* g13-malloc.c -- lab malloc's grading test (kept back from students).
 * Linked with libslub-malloc.so like t13-malloc-malloc (its name ends in
 * -malloc: mk/code.mk's rule), so every malloc here is the student's.
 * It checks the contracts the lab writes: realloc between every pair of
 * tiers (kmalloc objects, page blocks, vmalloc blocks), growing and
 * shrinking, and its failures; the aligned allocations over alignments
 * 2^5 .. 2^23 and their EINVAL and ENOMEM cases; calloc's overflow check.
 * The compilers know these functions and fold what they can prove about
 * them (Chapter 13, "Compilers know the allocation functions"), so every
 * call goes through a volatile pointer, and the failing sizes are volatile. */
#include "test.h"
#include <errno.h>
#include <malloc.h>
#include "slub.h"

static volatile size_t too_large = SIZE_MAX - 4096;
static volatile size_t wraps_to_16 = SIZE_MAX / 16 + 2;	/* times 16: 16, modulo 2^64 */
static void (*volatile free_fn)(void *) = free;
static void *(*volatile malloc_fn)(size_t) = malloc;
static void *(*volatile calloc_fn)(size_t, size_t) = calloc;
static void *(*volatile realloc_fn)(void *, size_t) = realloc;
static void *(*volatile memalign_fn)(size_t, size_t) = memalign;
static int (*volatile posix_memalign_fn)(void **, size_t, size_t) = posix_memalign;
static void *(*volatile aligned_alloc_fn)(size_t, size_t) = aligned_alloc;
static void *(*volatile valloc_fn)(size_t) = valloc;
static void *(*volatile pvalloc_fn)(size_t) = pvalloc;
static size_t (*volatile usable_fn)(void *) = malloc_usable_size;

/* One size of each tier and each border: kmalloc-16 .. kmalloc-8k, page
 * blocks up to the largest (4 MiB), vmalloc blocks above it. */
static const size_t tiers[] = {
	1, 24, 200, 3000, 8192, 9000, 70000, 1 << 20, (4 << 20) - 1, 4 << 20,
	(4 << 20) + 1, 6 << 20, 20 << 20,
};
#define NTIERS (sizeof(tiers) / sizeof(tiers[0]))

static unsigned char pattern(size_t k, size_t seed)
{
	return (unsigned char)(k * 131 + seed * 7 + 1);
}

static void fill(unsigned char *p, size_t n, size_t seed)
{
	for (size_t k = 0; k < n; k++)
		p[k] = pattern(k, seed);
}

static size_t damaged(const unsigned char *p, size_t n, size_t seed)
{
	size_t bad = 0;

	for (size_t k = 0; k < n; k++)
		bad += p[k] != pattern(k, seed);
	return bad;
}

/* /proc/vmallocinfo has a line for the block at p. */
static bool listed(const void *p)
{
	static char text[1 << 16];
	char addr[40];

	snprintf(addr, sizeof(addr), "0x%016lx-", (unsigned long)p);
	if (slub_ctl_read("/proc/vmallocinfo", text, sizeof(text)) < 0)
		return false;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, addr, strlen(addr)))
			return true;
	return false;
}

/* Every pair of tiers, both ways: the contents up to the smaller size
 * survive, the new block holds the new size, and a vmalloc block that
 * moved is gone from /proc/vmallocinfo. */
static void realloc_moves_between_every_pair_of_tiers(void)
{
	unsigned int lost = 0, small = 0, failed = 0, kept = 0;

	for (size_t i = 0; i < NTIERS; i++)
		for (size_t j = 0; j < NTIERS; j++) {
			size_t from = tiers[i], to = tiers[j], keep = from < to ? from : to;
			unsigned char *p = malloc_fn(from), *q;
			bool vmalloc_block;

			if (!p) {
				failed++;
				continue;
			}
			fill(p, from, i * NTIERS + j);
			vmalloc_block = is_vmalloc_addr(p);
			q = realloc_fn(p, to);
			if (!q) {
				failed++;
				free_fn(p);
				continue;
			}
			kept += vmalloc_block && q != p && listed(p);
			lost += damaged(q, keep, i * NTIERS + j) != 0;
			small += usable_fn(q) < to;
			memset(q, 0xa5, to);		/* all of it is the caller's */
			free_fn(q);
		}
	CHECK_EQ(failed, 0);
	CHECK_EQ(lost, 0);
	CHECK_EQ(small, 0);
	CHECK_EQ(kept, 0);
}

/* One block through the tiers and back, as a growing buffer does. */
static void realloc_grows_a_buffer_step_by_step(void)
{
	unsigned char *p = NULL, *q;
	size_t n = 0, bad = 0;

	for (size_t to = 1; to <= (12 << 20); to += to / 3 + 1) {
		q = realloc_fn(p, to);
		CHECK(q != NULL);
		if (!q)
			break;
		bad += damaged(q, n, 3) != 0;
		fill(q, to, 3);
		p = q;
		n = to;
	}
	for (size_t to = n; p && to > 8; to /= 3) {
		q = realloc_fn(p, to);
		CHECK(q != NULL);
		if (!q)
			break;
		bad += damaged(q, to, 3) != 0;
		p = q;
	}
	CHECK_EQ(bad, 0);
	free_fn(p);
}

/* A kmalloc block that still fits its object stays where it is (krealloc),
 * and so does a vmalloc block that fits its pages (as vrealloc keeps it). */
static void realloc_within_the_object_stays_in_place(void)
{
	static const size_t pairs[][2] = {
		{ 100, 120 }, { 100, 65 }, { 1000, 1024 }, { 700, 513 }, { 5000, 8000 },
		{ 20 << 20, 6 << 20 }, { (6 << 20) + 1, 6 << 20 }, { (5 << 20) + 100, (5 << 20) + 4000 },
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		unsigned char *p = malloc_fn(pairs[i][0]), *q;

		CHECK(p != NULL);
		if (!p)
			continue;
		fill(p, pairs[i][0], i);
		q = realloc_fn(p, pairs[i][1]);
		CHECK(q == p);
		if (q)
			CHECK_EQ(damaged(q, pairs[i][0] < pairs[i][1] ? pairs[i][0] : pairs[i][1], i),
				 0);
		free_fn(q ? q : p);
	}
}

/* NULL is malloc; a zero size frees (a vmalloc block leaves
 * /proc/vmallocinfo) and returns NULL; a failure sets ENOMEM and leaves
 * the block as it was, in every tier. */
static void realloc_corner_cases_and_failures(void)
{
	for (size_t i = 0; i < NTIERS; i++) {
		unsigned char *p = realloc_fn(NULL, tiers[i]), *q;
		uintptr_t addr = (uintptr_t)p;
		bool vmalloc_block = p && is_vmalloc_addr(p);

		CHECK(p && usable_fn(p) >= tiers[i]);
		if (!p)
			continue;
		fill(p, tiers[i], i);
		errno = 0;
		q = realloc_fn(p, too_large);
		CHECK(q == NULL && errno == ENOMEM);
		CHECK_EQ(damaged(p, tiers[i], i), 0);
		if (vmalloc_block)
			CHECK(listed(p));
		errno = 0;
		CHECK(realloc_fn(p, 0) == NULL);
		if (vmalloc_block)
			CHECK(!listed((void *)addr));
	}
	{
		void *a = realloc_fn(NULL, 0), *b = realloc_fn(NULL, 0);

		CHECK(a && b && a != b);
		free_fn(a);
		free_fn(b);
	}
}

/* Every alignment from 32 to 8 MiB, from each of the five functions, for
 * sizes below, at and above the alignment: aligned, as large as asked,
 * writable, freed. */
static bool good(void *p, size_t align, size_t size)
{
	if (!p || (uintptr_t)p % align || usable_fn(p) < size)
		return false;
	memset(p, 0x3c, size);
	free_fn(p);
	return true;
}

static void every_alignment_from_32_to_8m(void)
{
	for (size_t a = 32; a <= (8UL << 20); a <<= 1) {
		const size_t sizes[] = { 1, a / 2 + 1, a, a + 1 };
		unsigned int bad = 0;

		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t n = sizes[i];
			void *p = NULL;

			bad += !good(memalign_fn(a, n), a, n);
			bad += posix_memalign_fn(&p, a, n) != 0 || !good(p, a, n);
			bad += !good(aligned_alloc_fn(a, n), a, n);
		}
		if (bad)
			printf("    alignment %zu: %u bad blocks\n", a, bad);
		CHECK_EQ(bad, 0);
	}
}

/* The small alignments are malloc's own 16; an alignment that is not a
 * power of two is rounded up by memalign, as glibc does (which only
 * shows above the largest page block: below it, the size is rounded). */
static void small_and_odd_alignments(void)
{
	static const size_t odd[][2] = { { 24, 32 }, { 48, 64 }, { 100, 128 },
					 { 3 * 4096, 16384 }, { (1 << 20) + 1, 2 << 20 },
					 { 5 << 20, 8 << 20 }, { (4 << 20) + 4096, 8 << 20 } };
	void *p = NULL;

	for (size_t a = 0; a <= 16; a++)
		CHECK(good(memalign_fn(a, 40), 16, 40));
	for (size_t a = 1; a <= 16; a <<= 1)
		CHECK(good(aligned_alloc_fn(a, 40), 16, 40));
	CHECK(posix_memalign_fn(&p, 8, 40) == 0 && good(p, 16, 40));
	CHECK(posix_memalign_fn(&p, 16, 40) == 0 && good(p, 16, 40));
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		CHECK(good(memalign_fn(odd[i][0], 100), odd[i][1], 100));
	CHECK(posix_memalign_fn(&p, 1 << 20, 0) == 0 && good(p, 1 << 20, 0));
}

/* posix_memalign returns its error and leaves *out alone; aligned_alloc
 * sets errno; each of the five fails a request nothing can hold. */
static void the_error_contracts(void)
{
	static const size_t bad_align[] = { 0, 1, 2, 4, 12, 24, 48, 96, 4095 };
	void *p, *const mark = &p;

	for (size_t i = 0; i < sizeof(bad_align) / sizeof(bad_align[0]); i++) {
		p = mark;
		CHECK_EQ(posix_memalign_fn(&p, bad_align[i], 10), EINVAL);
		CHECK(p == mark);
	}
	errno = 0;
	CHECK(!aligned_alloc_fn(0, 16) && errno == EINVAL);
	errno = 0;
	CHECK(!aligned_alloc_fn(24, 48) && errno == EINVAL);
	errno = 0;
	CHECK(!aligned_alloc_fn(3 * 4096, 3 * 4096) && errno == EINVAL);
	p = mark;
	CHECK_EQ(posix_memalign_fn(&p, 64, too_large), ENOMEM);
	CHECK(p == mark || p == NULL);
	p = mark;
	CHECK_EQ(posix_memalign_fn(&p, 8 << 20, too_large), ENOMEM);
	CHECK(p == mark || p == NULL);
	errno = 0;
	CHECK(!memalign_fn(SIZE_MAX / 2 + 2, 10) && errno == EINVAL);	/* above 2^63 */
	errno = 0;
	CHECK(!memalign_fn(SIZE_MAX, 10) && errno == EINVAL);
	errno = 0;
	CHECK(!memalign_fn(64, too_large) && errno == ENOMEM);
	errno = 0;
	CHECK(!memalign_fn(4 << 20, too_large) && errno == ENOMEM);
	errno = 0;
	CHECK(!aligned_alloc_fn(4096, too_large) && errno == ENOMEM);
	errno = 0;
	CHECK(!valloc_fn(too_large) && errno == ENOMEM);
	errno = 0;
	CHECK(!pvalloc_fn(too_large) && errno == ENOMEM);
	errno = 0;
	CHECK(!pvalloc_fn(SIZE_MAX - 10) && errno == ENOMEM);	/* rounding up wraps */
	errno = 0;
	CHECK(!pvalloc_fn(SIZE_MAX) && errno == ENOMEM);
}

/* valloc aligns to a page; pvalloc rounds the size up to whole pages. */
static void page_aligned_allocations(void)
{
	static const size_t sizes[] = { 0, 1, 4095, 4096, 4097, 100000, 5 << 20 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i], whole = n ? (n + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1) : PAGE_SIZE;

		CHECK(good(valloc_fn(n), PAGE_SIZE, n));
		CHECK(good(pvalloc_fn(n), PAGE_SIZE, whole));
	}
}

/* A product that wraps is refused, whichever factor is large, and whatever
 * small number it wraps to; a zero product is a block, as malloc(0). */
static void calloc_refuses_a_product_that_overflows(void)
{
	void *a, *b;

	errno = 0;
	CHECK(!calloc_fn(wraps_to_16, 16) && errno == ENOMEM);
	errno = 0;
	CHECK(!calloc_fn(16, wraps_to_16) && errno == ENOMEM);
	errno = 0;
	CHECK(!calloc_fn((size_t)1 << 32, ((size_t)1 << 32) + 1) && errno == ENOMEM);
	errno = 0;
	CHECK(!calloc_fn(SIZE_MAX, SIZE_MAX) && errno == ENOMEM);
	errno = 0;
	CHECK(!calloc_fn(too_large, 1) && errno == ENOMEM);
	a = calloc_fn(0, SIZE_MAX);
	b = calloc_fn(SIZE_MAX, 0);
	CHECK(a && b && a != b);
	free_fn(a);
	free_fn(b);
}

/* calloc zeroes in every tier, also memory that was just dirtied. */
static void calloc_zeroes_every_tier(void)
{
	unsigned int nonzero = 0;

	for (size_t i = 0; i < NTIERS; i++) {
		unsigned char *p = malloc_fn(tiers[i]), *q;

		if (p)
			memset(p, 0xff, tiers[i]);
		free_fn(p);
		q = calloc_fn(1, tiers[i]);
		CHECK(q != NULL);
		for (size_t k = 0; q && k < tiers[i]; k++)
			nonzero += q[k] != 0;
		free_fn(q);
	}
	CHECK_EQ(nonzero, 0);
}

/* A vmalloc block made by memalign is a vmalloc block like malloc's:
 * listed, and gone when freed. */
static void large_aligned_blocks_are_vmalloc_blocks(void)
{
	void *p = memalign_fn(8 << 20, 5 << 20);
	uintptr_t addr = (uintptr_t)p;

	CHECK(p && addr % (8 << 20) == 0 && is_vmalloc_addr(p) && listed(p));
	if (!p)
		return;
	memset(p, 1, 5 << 20);
	free_fn(p);
	CHECK(!listed((void *)addr));
}

int main(void)
{
	RUN(realloc_moves_between_every_pair_of_tiers);
	RUN(realloc_grows_a_buffer_step_by_step);
	RUN(realloc_within_the_object_stays_in_place);
	RUN(realloc_corner_cases_and_failures);
	RUN(every_alignment_from_32_to_8m);
	RUN(small_and_odd_alignments);
	RUN(the_error_contracts);
	RUN(page_aligned_allocations);
	RUN(calloc_refuses_a_product_that_overflows);
	RUN(calloc_zeroes_every_tier);
	RUN(large_aligned_blocks_are_vmalloc_blocks);
	return test_main_result();
}
