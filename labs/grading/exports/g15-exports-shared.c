/* g15-exports-shared.c -- lab exports' grading test (kept back from students).
 * Linked with libslub.so (mk/code.mk's rule for tests named -shared): the library's
 * dynamic symbol table must hold exactly slub.h's interface as chapter 15 has it, no
 * PLT slot may call one of the library's own functions, and a program of the
 * interface (a cache, kmalloc, its own call sites in /proc/allocinfo) must run.
 * g15-exports-malloc.c includes this file with G15_MALLOC defined: the same for
 * libslub-malloc.so, whose exports are the interface and the malloc family. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include "test.h"
#include "slub.h"

static const char *const interface[] = {
	"__free_pages", "__get_free_pages_noprof", "__kmalloc", "__kmalloc_cache",
	"__kmalloc_node_track_caller", "alloc_pages_noprof", "free_pages", "is_vmalloc_addr",
	"kfree", "kfree_track_caller", "kmalloc", "kmalloc_caches", "kmem_cache_alloc",
	"kmem_cache_alloc_bulk", "kmem_cache_alloc_bulk_noprof", "kmem_cache_alloc_noprof",
	"kmem_cache_create", "kmem_cache_destroy", "kmem_cache_free", "kmem_cache_free_bulk",
	"kmem_cache_shrink", "kmem_cache_size", "krealloc", "krealloc_noprof", "ksize",
	"kvfree", "kvmalloc", "kvrealloc", "page_address", "slab_errors_count_start",
	"slab_errors_count_stop", "slub_allocinfo_top", "slub_ctl_read", "slub_ctl_readlink",
	"slub_ctl_write", "slub_slabinfo", "slub_use_own_memory", "validate_slab_cache",
	"vfree", "virt_addr_valid", "virt_to_page", "vmalloc", "vrealloc", "vzalloc",
#ifdef CONFIG_MEM_ALLOC_PROFILING
	"alloc_tag_load_module", "current_alloc_tag", "mem_alloc_profiling_flag",
#endif
#ifdef G15_MALLOC
	"aligned_alloc", "calloc", "free", "mallinfo", "mallinfo2", "malloc",
	"malloc_stats", "malloc_trim", "malloc_usable_size", "memalign",
	"posix_memalign", "pvalloc", "realloc", "reallocarray", "valloc",
#endif
};
#define N_INTERFACE (sizeof(interface) / sizeof(interface[0]))

/* A wrong symbol is named, the first few of them. */
static unsigned int wrong;

static void report(const char *what, const char *name)
{
	if (wrong++ < 8)
		printf("    %s: %s\n", what, name);
	else if (wrong == 9)
		printf("    (and more)\n");
	CHECK(false);
}

static bool in_interface(const char *name)
{
	for (size_t i = 0; i < N_INTERFACE; i++)
		if (!strcmp(interface[i], name))
			return true;
	return false;
}

/* The library's file, read whole: the one that defines kmem_cache_create. */
static char file[8 << 20];
static size_t file_len;

static bool read_library(void)
{
	Dl_info info;
	FILE *f;

	if (file_len)
		return true;
	if (!dladdr((void *)kmem_cache_create, &info) || !(f = fopen(info.dli_fname, "rb")))
		return false;
	file_len = fread(file, 1, sizeof(file), f);
	fclose(f);
	if (file_len >= sizeof(file) || file_len < sizeof(Elf64_Ehdr))
		file_len = 0;
	return file_len != 0;
}

static const Elf64_Shdr *section(const char *name, Elf64_Word type)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(file + eh->e_shoff);
	const char *names = file + sh[eh->e_shstrndx].sh_offset;

	for (int i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == type && (!name || !strcmp(names + sh[i].sh_name, name)))
			return &sh[i];
	return NULL;
}

static const Elf64_Shdr *link_of(const Elf64_Shdr *s)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;

	return (const Elf64_Shdr *)(file + eh->e_shoff) + s->sh_link;
}

/* Every global symbol the library defines is in the interface, and every name of the
 * interface is defined, once. */
static void exports_are_exactly_the_interface(void)
{
	const Elf64_Shdr *dynsym = read_library() ? section(NULL, SHT_DYNSYM) : NULL;
	unsigned int seen[N_INTERFACE] = { 0 };

	CHECK(dynsym != NULL);
	if (!dynsym)
		return;
	const Elf64_Sym *sym = (const Elf64_Sym *)(file + dynsym->sh_offset);
	const char *str = file + link_of(dynsym)->sh_offset;

	for (size_t i = 1; i < dynsym->sh_size / sizeof(*sym); i++) {
		const char *name = str + sym[i].st_name;

		if (sym[i].st_shndx == SHN_UNDEF || ELF64_ST_BIND(sym[i].st_info) == STB_LOCAL)
			continue;
		if (!in_interface(name))
			report("exported, but not the interface", name);
		for (size_t k = 0; k < N_INTERFACE; k++)
			seen[k] += !strcmp(interface[k], name);
	}
	for (size_t k = 0; k < N_INTERFACE; k++)
		if (seen[k] != 1)
			report(seen[k] ? "exported more than once" : "not exported", interface[k]);
}

/* No slot of the PLT calls a function the library defines. */
static void no_plt_slot_for_the_librarys_own_functions(void)
{
	const Elf64_Shdr *plt = read_library() ? section(".rela.plt", SHT_RELA) : NULL;
	size_t slots = 0;

	wrong = 0;
	CHECK(plt != NULL);
	if (!plt)
		return;
	const Elf64_Rela *rela = (const Elf64_Rela *)(file + plt->sh_offset);
	const Elf64_Shdr *dynsym = link_of(plt);
	const Elf64_Sym *sym = (const Elf64_Sym *)(file + dynsym->sh_offset);
	const char *str = file + link_of(dynsym)->sh_offset;

	for (size_t r = 0; r < plt->sh_size / sizeof(*rela); r++, slots++) {
		const Elf64_Sym *s = &sym[ELF64_R_SYM(rela[r].r_info)];

		if (s->st_shndx != SHN_UNDEF)
			report("a PLT slot for its own", str + s->st_name);
	}
	CHECK(slots > 0);
}

/* A program of the interface: a cache, kmalloc, and its call sites in allocinfo. */
struct g15_item {
	long a, b, c;
};

static void a_program_of_the_interface_runs(void)
{
	struct kmem_cache *s = kmem_cache_create("g15-items", sizeof(struct g15_item), 0, 0,
						 NULL);
	char text[1 << 16];
	ssize_t len;

#ifdef CONFIG_MEM_ALLOC_PROFILING
	CHECK_EQ(slub_ctl_write("/proc/sys/vm/mem_profiling", "1"), 0);
#endif
	struct g15_item *item = s ? kmem_cache_alloc(s, GFP_KERNEL) : NULL;
	char *buf = kmalloc(200, GFP_KERNEL);

	CHECK(s && item && buf);
	CHECK(buf && ksize(buf) >= 200);
	len = slub_ctl_read("/proc/allocinfo", text, sizeof(text));
#ifdef CONFIG_MEM_ALLOC_PROFILING
	CHECK(len > 0 && (size_t)len < sizeof(text));
	if (len > 0 && (size_t)len < sizeof(text))
		CHECK(strstr(text, "func:a_program_of_the_interface_runs") != NULL);
	CHECK_EQ(slub_ctl_write("/proc/sys/vm/mem_profiling", "0"), 0);
#else
	(void)len;
#endif
	kfree(buf);
	if (item)
		kmem_cache_free(s, item);
	kmem_cache_destroy(s);
}

int main(void)
{
	RUN(exports_are_exactly_the_interface);
	RUN(no_plt_slot_for_the_librarys_own_functions);
	RUN(a_program_of_the_interface_runs);
	return test_main_result();
}
