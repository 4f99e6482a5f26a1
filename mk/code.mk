# mk/code.mk -- build one tangled tree with one compiler and one set of flags.
#
#   make -f mk/code.mk SRC=code OUT=code CC=gcc [VARIANT=plain|tsan|ubsan] [STATS=1]
#                      [syntax: warnings only, -fsyntax-only]
#                      [FAULT_INJECTION=1|0|unkeyed] [MEM_ALLOC_PROFILING=1|0|inline]
#                      [MEM_ALLOC_PROFILING_ON=1] [PERCPU_RSEQ=1|0] [RSEQ_INJECT=1]
#                      [SHEAVES=opt-in|all] [PIC_ONLY=1]
#
# SRC holds what ./tangle wrote (include/, src/, tests/, programs/); OUT gets
# obj/, lib/libslub.a, lib/libslub.so, bin/ (programs) and bin/tests/.  It is
# run from the top of the repository so that the #line paths the tangler wrote
# (chapters/NN-name.nw) resolve for the compiler, gdb and Valgrind.
# STATS=1 compiles in the statistics counters (CONFIG_SLUB_STATS, Chapter 7):
# off by default, as in the kernel; tests/run turns them on for the tests.
# JUMP_LABEL=1 (the default) defines CONFIG_JUMP_LABEL: static keys are sites
# patched in the running code (Chapter 9); JUMP_LABEL=0 builds the portable
# fallback, a flag tested with a branch hint.
# A test program named tNN-...-shared.c is linked against lib/libslub.so
# (with an rpath to it), which is then built in every variant; it is
# compiled with SLUB_SHARED, so that its call sites test the library's
# exported flag instead of static-key sites it could not patch (Chapter 11).
# MEM_ALLOC_PROFILING=1 (the default) compiles allocation profiling in with
# its key off (Chapter 11), =0 compiles it out, =inline builds the state
# before Baghdasaryan's out-of-line hooks (the gated code inline); MEM_ALLOC_PROFILING_ON=1 starts
# the key on.
# PERCPU_RSEQ=1 (the default) compiles in Chapter 12's restartable fast
# path (CONFIG_SLUB_RSEQ), chosen at start-up when the kernel and glibc
# allow it; =0 leaves only the locked fast path of Chapter 5 (the benchmark
# builds of Chapters 7, 10 and 11, whose fronts those chapters list, and a
# lab's student edition, whose stubs are the locked path; but not lab rseq's,
# which is the restartable path).  The TSan build
# never has it: TSan cannot see into the sequences.  RSEQ_INJECT=1 adds
# the forced aborts of Chapter 12's tests (SLUB_RSEQ_INJECT).
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
.DELETE_ON_ERROR:

SRC ?= code
OUT ?= code
CC ?= gcc
VARIANT ?= plain
STATS ?= 0
FAULT_INJECTION ?= 1
JUMP_LABEL ?= 1
MEM_ALLOC_PROFILING ?= 1
MEM_ALLOC_PROFILING_ON ?= 0
-include mk/edition.mk
PERCPU_RSEQ ?= $(if $(filter 1,$(STUDENT_EDITION)),$(if $(filter rseq,$(LAB)),1,0),1)
RSEQ_INJECT ?= 0
# SHEAVES=opt-in|all (Chapter 16): which caches have sheaves when no boot
# parameter says (slab_sheaves=): those that ask (Linux 6.18) or every
# cache (Linux 7.0).
SHEAVES ?= opt-in
# CC_LAUNCHER=ccache: each object file through a compiler cache.  tests/run
# sets it, with the cache below build/: its builds compile many files that
# another build of the same run has compiled already (a lab's stubbed tree
# differs from the reference in one or two files).
CC_LAUNCHER ?=

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS_plain := -O2 -g -gdwarf-4
CFLAGS_tsan := -O1 -g -fsanitize=thread -DSLUB_TSAN
CFLAGS_ubsan := -O1 -g -fsanitize=undefined,address -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
CFLAGS_STATS_1 := -DCONFIG_SLUB_STATS
# FAULT_INJECTION=1|0|unkeyed (Chapter 10): fault injection compiled in
# behind static keys (Babka's patch), compiled out, or the state before the key.
CFLAGS_FI_1 := -DCONFIG_FAULT_INJECTION -DCONFIG_FAILSLAB -DCONFIG_FAIL_PAGE_ALLOC \
	-DCONFIG_FUNCTION_ERROR_INJECTION
CFLAGS_FI_0 :=
CFLAGS_FI_unkeyed := $(CFLAGS_FI_1) -DSLUB_FAILSLAB_UNKEYED
CFLAGS_JUMP_LABEL_1 := -DCONFIG_JUMP_LABEL
# MEM_ALLOC_PROFILING=1|0|inline (Chapter 11): allocation profiling compiled
# in (Baghdasaryan's out-of-line hooks), compiled out, or inline as before them.
CFLAGS_MAP_1 := -DCONFIG_MEM_ALLOC_PROFILING
CFLAGS_MAP_0 :=
CFLAGS_MAP_inline := $(CFLAGS_MAP_1) -DSLUB_ALLOC_TAG_INLINE
CFLAGS_MAP_ON_1 := $(if $(filter 0,$(MEM_ALLOC_PROFILING)),,\
	-DCONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT)
CFLAGS_RSEQ_1 := $(if $(filter tsan,$(VARIANT)),,-DCONFIG_SLUB_RSEQ)
CFLAGS_INJECT_1 := -DSLUB_RSEQ_INJECT
CFLAGS_SHEAVES_all := -DCONFIG_SLUB_SHEAVES_ALL
CFLAGS := -std=gnu11 $(WARN) $(CFLAGS_$(VARIANT)) $(CFLAGS_STATS_$(STATS)) \
	$(CFLAGS_JUMP_LABEL_$(JUMP_LABEL)) $(CFLAGS_FI_$(FAULT_INJECTION)) \
	$(CFLAGS_MAP_$(MEM_ALLOC_PROFILING)) $(CFLAGS_MAP_ON_$(MEM_ALLOC_PROFILING_ON)) \
	$(CFLAGS_RSEQ_$(PERCPU_RSEQ)) $(CFLAGS_INJECT_$(RSEQ_INJECT)) \
	$(CFLAGS_SHEAVES_$(SHEAVES)) \
	-mcx16 -pthread -I$(SRC)/include -I$(SRC)/src -fdebug-prefix-map=$(CURDIR)=.
LDLIBS := -pthread -ldl
# Chapter 18: liburcu's memb flavour, when the tree has src/kvfree_rcu.c.
URCU := $(if $(wildcard $(SRC)/src/kvfree_rcu.c),liburcu-memb)
CFLAGS += $(if $(URCU),$(shell pkg-config --cflags $(URCU)))
LDLIBS += $(if $(URCU),$(shell pkg-config --libs $(URCU)))

LIB_SRCS := $(wildcard $(SRC)/src/*.c)
PIC_OBJS := $(patsubst $(SRC)/src/%.c,$(OUT)/obj/pic/%.o,$(LIB_SRCS))
# PIC_ONLY=1: each source is compiled once, position-independent, for
# both libraries (tests/run's builds and the labs' gradings, which make
# many; the shared libraries' code is then what every test runs).  The
# default, as `make lib`, the benchmark and the product build it, compiles
# the static library's objects without -fPIC.
PIC_ONLY ?= 0
LIB_OBJS := $(if $(filter 1,$(PIC_ONLY)),$(PIC_OBJS),\
	$(patsubst $(SRC)/src/%.c,$(OUT)/obj/%.o,$(LIB_SRCS)))
HEADERS := $(wildcard $(SRC)/include/*.h $(SRC)/src/*.h $(SRC)/tests/*.h)
# A test source named tNN-plugin-X.c is a shared object that a test loads
# with dlopen (Chapter 14's t14-dlclose), built beside the tests.
PLUGIN_SRCS := $(wildcard $(SRC)/tests/*-plugin-*.c)
PLUGINS := $(patsubst $(SRC)/tests/%.c,$(OUT)/bin/tests/%.so,$(PLUGIN_SRCS))
TESTS := $(patsubst $(SRC)/tests/%.c,$(OUT)/bin/tests/%,\
	$(filter-out $(PLUGIN_SRCS),$(wildcard $(SRC)/tests/*.c)))
PROGS := $(patsubst $(SRC)/programs/%.c,$(OUT)/bin/%,$(wildcard $(SRC)/programs/*.c))
MANIFESTS := $(patsubst $(SRC)/tests/%,$(OUT)/bin/tests/%,$(wildcard $(SRC)/tests/*.tests))
# Chapter 13's malloc library: the library's objects and slub-malloc.c.
MALLOC_LIB := $(if $(wildcard $(SRC)/malloc/slub-malloc.c),$(OUT)/lib/libslub-malloc.so)

all: $(OUT)/lib/libslub.a $(if $(filter plain,$(VARIANT)),$(OUT)/lib/libslub.so) \
	$(MALLOC_LIB) $(TESTS) $(PLUGINS) $(PROGS) $(MANIFESTS)
lib: $(OUT)/lib/libslub.a $(OUT)/lib/libslub.so

$(OUT)/obj/%.o: $(SRC)/src/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC_LAUNCHER) $(CC) $(CFLAGS) -c $< -o $@

$(OUT)/obj/pic/%.o: $(SRC)/src/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC_LAUNCHER) $(CC) $(CFLAGS) -fPIC -c $< -o $@

$(OUT)/lib/libslub.a: $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# Chapter 15: once the tree has src/exports.awk, each shared library
# exports only what slub.h names (and the malloc library its malloc
# family): the awk writes lib/NAME.map, the linker's version script, from
# nm's list of the objects, and -Bsymbolic-functions binds the library's
# calls of its own exported functions inside it, as code/Makefile does.
EXPORTS_AWK := $(wildcard $(SRC)/src/exports.awk)
MALLOC_OBJ := $(OUT)/obj/pic/malloc/slub-malloc.o
EXPORTS = nm -A -g --defined-only $(filter %.o,$^) | awk -f $(EXPORTS_AWK)
SO_EXPORTS = $(if $(EXPORTS_AWK),-Wl$(comma)--version-script=$(basename $@).map \
	-Wl$(comma)-Bsymbolic-functions)
comma := ,
$(OUT)/lib/libslub.map: $(PIC_OBJS) $(SRC)/include/slub.h $(EXPORTS_AWK)
	@mkdir -p $(@D)
	$(EXPORTS) $(SRC)/include/slub.h - >$@
$(OUT)/lib/libslub-malloc.map: $(PIC_OBJS) $(MALLOC_OBJ) $(SRC)/include/slub.h $(EXPORTS_AWK)
	@mkdir -p $(@D)
	$(EXPORTS) -v own=$(MALLOC_OBJ) $(SRC)/include/slub.h - >$@

# -z nodelete: Chapter 12's rseq descriptors must stay mapped while any
# thread's rseq area may name one, so the shared library is never unloaded.
$(OUT)/lib/libslub.so: $(PIC_OBJS) $(if $(EXPORTS_AWK),$(OUT)/lib/libslub.map)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -Wl,-z,nodelete $(SO_EXPORTS) -o $@ $(PIC_OBJS) $(LDLIBS)

$(MALLOC_OBJ): $(SRC)/malloc/slub-malloc.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC_LAUNCHER) $(CC) $(CFLAGS) -fPIC -c $< -o $@

$(OUT)/lib/libslub-malloc.so: $(MALLOC_OBJ) $(PIC_OBJS) \
		$(if $(EXPORTS_AWK),$(OUT)/lib/libslub-malloc.map)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -Wl,-z,nodelete $(SO_EXPORTS) -o $@ $(MALLOC_OBJ) $(PIC_OBJS) \
		$(LDLIBS)

# A test or a program is compiled to an object of its own, through the
# compiler cache like the library's (a lab's gradings and student editions
# compile the same tests again), then linked.  A test named
# tNN-...-malloc.c runs on the malloc library (Chapter 13) and one named
# tNN-...-shared.c on lib/libslub.so: both are compiled with SLUB_SHARED.
TEST_OBJS := $(patsubst $(SRC)/tests/%.c,$(OUT)/obj/tests/%.o,\
	$(filter-out $(PLUGIN_SRCS),$(wildcard $(SRC)/tests/*.c)))
PROG_OBJS := $(patsubst $(SRC)/programs/%.c,$(OUT)/obj/programs/%.o,$(wildcard $(SRC)/programs/*.c))
.SECONDARY: $(TEST_OBJS) $(PROG_OBJS)
$(OUT)/obj/tests/%.o: $(SRC)/tests/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC_LAUNCHER) $(CC) $(CFLAGS) $(if $(filter %-malloc %-shared,$*),-DSLUB_SHARED) -c $< -o $@

$(OUT)/bin/tests/%-malloc: $(OUT)/obj/tests/%-malloc.o $(MALLOC_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ -L$(OUT)/lib -lslub-malloc -Wl,-rpath,'$$ORIGIN/../../lib' $(LDLIBS)

$(OUT)/bin/tests/%: $(OUT)/obj/tests/%.o $(OUT)/lib/libslub.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ $(OUT)/lib/libslub.a $(LDLIBS)

$(OUT)/bin/tests/%-shared: $(OUT)/obj/tests/%-shared.o $(OUT)/lib/libslub.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ -L$(OUT)/lib -lslub -Wl,-rpath,'$$ORIGIN/../../lib' $(LDLIBS)

$(OUT)/bin/tests/%.so: $(SRC)/tests/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -Wl,--build-id -o $@ $<

$(OUT)/bin/tests/%.tests: $(SRC)/tests/%.tests
	@mkdir -p $(@D)
	cp $< $@

# The benchmark includes the library's internal slab.h (Chapter 7), but its
# own allocation calls are a program's: SLUB_PROGRAM_SITES keeps them call
# sites of the macro layer (Chapter 11), tagged like any program's.
$(OUT)/obj/programs/%.o: $(SRC)/programs/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC_LAUNCHER) $(CC) $(CFLAGS) $(if $(filter slub-bench,$*),-DSLUB_PROGRAM_SITES) -c $< -o $@

$(OUT)/bin/%: $(OUT)/obj/programs/%.o $(OUT)/lib/libslub.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ $(OUT)/lib/libslub.a $(LDLIBS)

# The compiler's warnings alone, nothing built: every source through the
# front end (-fsyntax-only), each with the flags of its rule above.
# tests/run checks clang so at every chapter boundary but the last, which
# it builds whole; SYNTAX_TESTS names the tests it checks there (the
# boundary's own chapter's).
SYNTAX_TESTS ?= $(wildcard $(SRC)/tests/*.c)
SYNTAX_SRCS := $(LIB_SRCS) $(wildcard $(SRC)/malloc/*.c $(SRC)/programs/*.c) $(SYNTAX_TESTS)
syntax: $(patsubst $(SRC)/%.c,$(OUT)/syntax/%.ok,$(SYNTAX_SRCS))
$(OUT)/syntax/%.ok: $(SRC)/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(if $(filter %-malloc %-shared,$*),-DSLUB_SHARED) \
		$(if $(filter programs/slub-bench,$*),-DSLUB_PROGRAM_SITES) -fsyntax-only $<
	@touch $@

.PHONY: all lib syntax
