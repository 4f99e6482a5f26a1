/* g03-sizes.c -- lab sizes' grading test (kept back from students):
 * layouts and orders the chapter's own tables do not list. */
#include "test.h"
#include "slab.h"

static void ctor(void *p) { (void)p; }

static const struct {
	unsigned int size, align;
	slab_flags_t flags;
	bool ctor;
	unsigned int want_size, want_inuse, want_offset, want_left, want_align;
} rows[] = {
	{   1,  0, SLAB_RED_ZONE,                     false,  32,   8,  8,  8,  8 },
	{  24,  0, SLAB_RED_ZONE,                     false,  48,  32,  8,  8,  8 },
	{  20,  0, SLAB_HWCACHE_ALIGN,                false,  32,  24,  8,  0, 32 },
	{ 200,  0, SLAB_HWCACHE_ALIGN | SLAB_RED_ZONE, false, 320, 208, 96, 64, 64 },
	{  48,  0, 0,                                 true,   56,  48, 48,  0,  8 },
	{  48,  0, SLAB_STORE_USER,                   true,  120,  48, 48,  0,  8 },
	{  16,  0, SLAB_RED_ZONE | SLAB_STORE_USER | SLAB_KMALLOC,
	                                              false, 120,  24, 24,  8,  8 },
	{   8,  0, SLAB_STORE_USER | SLAB_KMALLOC,    false,  80,   8,  0,  0,  8 },
	{   8,  0, SLAB_POISON,                       false,  16,   8,  8,  0,  8 },
	{  72, 64, SLAB_RED_ZONE,                     false, 192,  80, 32, 64, 64 },
	{  33,  0, SLAB_POISON | SLAB_RED_ZONE,       false,  64,  40, 40,  8,  8 },
};

static void more_layouts(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct kmem_cache s = { .object_size = rows[i].size, .flags = rows[i].flags,
					.ctor = rows[i].ctor ? ctor : NULL };

		s.align = calculate_alignment(rows[i].flags, rows[i].align, rows[i].size);
		CHECK(kmem_cache_layout(&s) == 0);
		if (s.size != rows[i].want_size || s.inuse != rows[i].want_inuse ||
		    s.offset != rows[i].want_offset || s.red_left_pad != rows[i].want_left)
			printf("    row %zu: size %u inuse %u offset %u left %u\n",
			       i, s.size, s.inuse, s.offset, s.red_left_pad);
		CHECK_EQ(s.size, rows[i].want_size);
		CHECK_EQ(s.inuse, rows[i].want_inuse);
		CHECK_EQ(s.offset, rows[i].want_offset);
		CHECK_EQ(s.red_left_pad, rows[i].want_left);
		CHECK_EQ(s.align, rows[i].want_align);
	}
}

static void more_orders(void)
{
	static const struct { unsigned int size; int order[4]; } t[] = {
		{ 16, { 0, 0, 0, 0 } },		{ 256, { 0, 0, 0, 1 } },
		{ 512, { 0, 0, 1, 2 } },	{ 2048, { 0, 1, 3, 3 } },
		{ 2100, { 3, 3, 3, 3 } },	{ 8192, { 1, 3, 3, 3 } },
		{ 16384, { 2, 3, 3, 3 } },	{ 20000, { 3, 3, 3, 3 } },
		{ 33000, { 4, 4, 4, 4 } },
	};
	static const unsigned int min_objects[4] = { 1, 4, 12, 32 };

	slab_init_once();
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		for (int j = 0; j < 4; j++) {
			int order = calculate_order(t[i].size, min_objects[j]);

			if (order != t[i].order[j])
				printf("    size %u, min_objects %u: order %d, want %d\n",
				       t[i].size, min_objects[j], order, t[i].order[j]);
			CHECK_EQ(order, t[i].order[j]);
		}
}

static void a_red_zoned_cache_through_create(void)
{
	struct kmem_cache *s = kmem_cache_create("g-rz", 24, 0, SLAB_RED_ZONE, NULL);

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_EQ(s->size, 48);
	CHECK_EQ(oo_order(s->oo), 0);
	CHECK_EQ(oo_objects(s->oo), 4096 / 48);
	kmem_cache_destroy(s);
}

int main(void)
{
	RUN(more_layouts);
	RUN(more_orders);
	RUN(a_red_zoned_cache_through_create);
	return test_main_result();
}
