/* g02-buddy.c -- lab buddy's grading test (kept back from students).
 * Runs with SLUB_MAX_ORDER=4: a section is one block of 16 pages, so every
 * split and merge shows in the free lists' counts. */
#include "test.h"
#include "mm.h"

static struct page_alloc_stats st;

static void counts(unsigned long o0, unsigned long o1, unsigned long o2, unsigned long o3,
		   unsigned long o4)
{
	page_alloc_stats(&st);
	CHECK_EQ(st.max_order, 4);
	CHECK_EQ(st.nr_free[0], o0);
	CHECK_EQ(st.nr_free[1], o1);
	CHECK_EQ(st.nr_free[2], o2);
	CHECK_EQ(st.nr_free[3], o3);
	CHECK_EQ(st.nr_free[4], o4);
	CHECK_EQ(page_alloc_check(), 0);
}

static void first_page_splits_a_section_down(void)
{
	struct page *p = alloc_pages(GFP_KERNEL, 0);

	CHECK(p != NULL);
	counts(1, 1, 1, 1, 0);
	__free_pages(p, 0);
	counts(0, 0, 0, 0, 1);
}

static void every_page_of_a_section_then_merge_back(void)
{
	struct page *pg[16];
	unsigned long lo = ~0UL, hi = 0;

	for (int i = 0; i < 16; i++) {
		pg[i] = alloc_pages(GFP_KERNEL, 0);
		CHECK(pg[i] != NULL);
		if (!pg[i])
			return;
		lo = page_to_pfn(pg[i]) < lo ? page_to_pfn(pg[i]) : lo;
		hi = page_to_pfn(pg[i]) > hi ? page_to_pfn(pg[i]) : hi;
	}
	CHECK_EQ(hi - lo, 15);		/* the one section, no other */
	counts(0, 0, 0, 0, 0);
	for (unsigned long pfn = lo; pfn <= hi; pfn += 2)
		__free_pages(pfn_to_page(pfn), 0);
	counts(8, 0, 0, 0, 0);		/* no page's buddy is free: nothing merges */
	__free_pages(pfn_to_page(lo + 1), 0);
	counts(7, 1, 0, 0, 0);
	__free_pages(pfn_to_page(lo + 3), 0);
	counts(6, 0, 1, 0, 0);
	for (unsigned long pfn = lo + 5; pfn <= hi; pfn += 2)
		__free_pages(pfn_to_page(pfn), 0);
	counts(0, 0, 0, 0, 1);
}

static void buddies_of_another_order_do_not_merge(void)
{
	struct page *a = alloc_pages(GFP_KERNEL, 0);
	struct page *b = alloc_pages(GFP_KERNEL, 1);

	CHECK(a && b);
	if (!a || !b)
		return;
	CHECK_EQ(page_to_pfn(b) % 2, 0);
	counts(1, 0, 1, 1, 0);
	__free_pages(a, 0);		/* merges with its order-0 buddy only */
	counts(0, 1, 1, 1, 0);
	__free_pages(b, 1);		/* now everything merges back */
	counts(0, 0, 0, 0, 1);
}

static void large_orders_split_only_what_they_need(void)
{
	struct page *a = alloc_pages(GFP_KERNEL, 2);
	struct page *b = alloc_pages(GFP_KERNEL, 3);
	struct page *c = alloc_pages(GFP_KERNEL, 2);

	CHECK(a && b && c);
	if (!a || !b || !c)
		return;
	CHECK_EQ(page_to_pfn(a) % 4, 0);
	CHECK_EQ(page_to_pfn(b) % 8, 0);
	counts(0, 0, 0, 0, 0);		/* 4 + 8 + 4 pages: the whole section */
	__free_pages(b, 3);
	__free_pages(c, 2);
	counts(0, 0, 1, 1, 0);
	__free_pages(a, 2);
	counts(0, 0, 0, 0, 1);
}

int main(void)
{
	RUN(first_page_splits_a_section_down);
	RUN(every_page_of_a_section_then_merge_back);
	RUN(buddies_of_another_order_do_not_merge);
	RUN(large_orders_split_only_what_they_need);
	return test_main_result();
}
