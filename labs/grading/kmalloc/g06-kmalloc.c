/* g06-kmalloc.c -- lab kmalloc's grading test (kept back from students). */
#include "test.h"
#include "slab.h"

static size_t class_of(size_t size)	/* the kernel's classes, worked out apart */
{
	size_t c = 8;

	if (size > 64 && size <= 96)
		return 96;
	if (size > 128 && size <= 192)
		return 192;
	while (c < size)
		c <<= 1;
	return c;
}

static void every_size_gets_its_class(void)
{
	for (size_t size = 1; size <= KMALLOC_MAX_CACHE_SIZE; size++) {
		void *p = kmalloc(size, GFP_KERNEL);
		struct kmem_cache *s;

		CHECK(p != NULL);
		if (!p)
			return;
		s = virt_to_slab(p)->slab_cache;
		if (s->object_size != class_of(size)) {
			printf("    size %zu: %s, want kmalloc-%zu\n", size, s->name, class_of(size));
			CHECK_EQ(s->object_size, class_of(size));
			kfree(p);
			return;
		}
		kfree(p);
	}
}

static void krealloc_keeps_what_fits_and_moves_what_does_not(void)
{
	char *p = kmalloc(40, GFP_KERNEL), *q;

	CHECK(p != NULL);
	if (!p)
		return;
	memset(p, 'a', 40);
	q = krealloc(p, 64, GFP_KERNEL);		/* fits kmalloc-64 */
	CHECK(q == p);
	q = krealloc(p, 16, GFP_KERNEL);		/* shrinking never moves */
	CHECK(q == p);
	q = krealloc(p, 100, GFP_KERNEL);		/* kmalloc-128: moves */
	CHECK(q != NULL && q != p);
	if (!q)
		return;
	for (int i = 0; i < 40; i++)
		CHECK_EQ(q[i], 'a');
	CHECK(virt_to_slab(q)->slab_cache->object_size == 128);
	p = krealloc(q, 3 * PAGE_SIZE, GFP_KERNEL);	/* to a large block */
	CHECK(p != NULL && p != q);
	if (!p)
		return;
	for (int i = 0; i < 40; i++)
		CHECK_EQ(p[i], 'a');
	kfree(p);
}

static void krealloc_edge_cases(void)
{
	char *p = krealloc(NULL, 24, GFP_KERNEL), *q;

	CHECK(p != NULL && ksize(p) == 32);
	q = krealloc(p, 0, GFP_KERNEL);			/* frees */
	CHECK(q == ZERO_SIZE_PTR);
	p = kmalloc(32, GFP_KERNEL);
	CHECK(p != NULL);
	if (!p)
		return;
	strcpy(p, "still here");
	test_capture_begin();
	q = krealloc(p, (size_t)1 << 40, GFP_KERNEL | __GFP_NOWARN);	/* cannot move */
	free(test_capture_end());
	CHECK(q == NULL);
	CHECK(!strcmp(p, "still here"));		/* the old object is kept */
	kfree(p);
}

static void zeroing_in_place_clears_what_lies_beyond(void)
{
	unsigned char *p = kzalloc(40, GFP_KERNEL), *q;

	CHECK(p != NULL);
	if (!p)
		return;
	memset(p, 0xab, 64);				/* the caller scribbles the whole object */
	q = krealloc(p, 48, GFP_KERNEL | __GFP_ZERO);	/* in place */
	CHECK(q == p);
	for (int i = 0; i < 48; i++)
		CHECK_EQ(p[i], 0xab);			/* kept: the caller's bytes */
	for (int i = 48; i < 64; i++)
		CHECK_EQ(p[i], 0);			/* beyond the new size: zeroed */
	kfree(p);
}

int main(void)
{
	RUN(every_size_gets_its_class);
	RUN(krealloc_keeps_what_fits_and_moves_what_does_not);
	RUN(krealloc_edge_cases);
	RUN(zeroing_in_place_clears_what_lies_beyond);
	return test_main_result();
}
