# The SLUB book: one source tree, three products (the book, the library, the tests).
#
#   make            dependencies, tangle, library, book.pdf
#   make test       every check CI runs (tests/run), ending `N passed, N failed`
#
# See README.md for every target.  Nothing this Makefile writes is committed:
# code/, build/ and book.pdf are all generated from chapters/*.nw.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
.DELETE_ON_ERROR:

CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif

# Chapter files are chapters/NN-name.nw; the frame is chapters/book.tex.  A
# chapter's tests may be in a companion, chapters/NN-name-tests.nw: tangled
# with the chapter (./tangle), woven after all the chapters as the book's
# appendix, which chapters/tests.nw opens.  Its benchmark programs may be in
# another, chapters/NN-name-measuring.nw: tangled with it too, and woven
# after the tests as sections of one appendix, which chapters/measuring.nw
# opens with the machine and the method.  The kernel services it emulates
# but that are not SLUB may be in a third, chapters/NN-name-env.nw: tangled
# with it too, and woven after the measuring as sections of one more
# appendix, which chapters/environment.nw opens.
ALL_NW := $(sort $(wildcard chapters/[0-9][0-9]-*.nw))
# (NN without its leading zero: GNU make 4.3 passes a \# in a function on
# to the shell, so no 10#NN here)
chapter_number = $(patsubst 0%,%,$(firstword $(subst -, ,$(notdir $(1)))))
ifdef UPTO
UPTO_NW := $(foreach f,$(ALL_NW),$(if $(shell [ $(call chapter_number,$f) -le $(UPTO) ] && echo y),$f))
TANGLE_UPTO := -n $(UPTO)
else
UPTO_NW := $(ALL_NW)
TANGLE_UPTO :=
endif
TESTS_NW := $(filter %-tests.nw,$(UPTO_NW))
MEASURING_NW := $(filter %-measuring.nw,$(UPTO_NW))
ENV_NW := $(filter %-env.nw,$(UPTO_NW))
BOOK_NW := $(filter-out %-tests.nw %-measuring.nw %-env.nw,$(UPTO_NW)) \
	$(if $(TESTS_NW),chapters/tests.nw $(TESTS_NW)) \
	$(if $(MEASURING_NW),chapters/measuring.nw $(MEASURING_NW)) \
	$(if $(ENV_NW),chapters/environment.nw $(ENV_NW))

# Reproducible builds: the date in the book is the date of the last commit.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
export SOURCE_DATE_EPOCH
export FORCE_SOURCE_DATE := 1

all: deps lib book

deps:
	@scripts/deps

tangle:
	./tangle $(TANGLE_UPTO) -o code

lib: tangle
	$(MAKE) -s -f mk/code.mk SRC=code OUT=code CC=$(CC)

# Chapter 15: code/ is a product with its own Makefile; install it under
# PREFIX (default /usr/local), staged below DESTDIR if given.  Both reach
# code/Makefile on the command line, as make passes them down.
install: tangle
	@[[ -f code/Makefile ]] || { echo "make install: no code/Makefile (Chapter 15 writes it)" >&2; exit 1; }
	$(MAKE) -C code CC=$(CC) install

uninstall:
	@[[ -f code/Makefile ]] || { echo "make uninstall: no code/Makefile: run make tangle" >&2; exit 1; }
	$(MAKE) -C code uninstall

test: deps
	tests/run

check: deps
	tests/run $(if $(UPTO),--only $(UPTO)) --no-book

# The book: noweave all chapters in one run so that chunk cross-references
# and the identifier index span the whole book; the last filter puts the
# subject index's entries into the prose (chapters/index-terms).  latexmk
# runs pdflatex, bibtex and makeindex until the references settle.  We
# weave with -n into body.tex and input it from the frame chapters/book.tex
# rather than use -delay: with -delay, noweave 2.12 writes its index records
# before the first chunk, that is before \documentclass, where LaTeX cannot
# take them.
BOOK_DIR := build/book
BENCH_DIR := build/bench
# A student edition of a lab (scripts/lab-student) says so in mk/edition.mk.
# Its library stops at the lab's stubs until the lab is solved, so its book
# takes the listings the reference build made (labs/listings/) instead of
# running the programs itself.
-include mk/edition.mk
# The HTML edition (below) is part of `make`, but not a student edition's.
all: $(if $(filter 1,$(STUDENT_EDITION)),,html)
BOOK_LISTINGS := $(if $(filter 1,$(STUDENT_EDITION)),labs/listings,$(BENCH_DIR))
TEX_PATH := .:$(CURDIR)/chapters:$(CURDIR)/figures:$(CURDIR)/$(BOOK_DIR):$(CURDIR)/$(BOOK_LISTINGS):

# BOOK_PDF: where the PDF is copied (book-again sets it, and BOOK_DIR).
BOOK_PDF := book.pdf
book: $(BOOK_PDF)

# What the book includes that the build makes by running the library.
BOOK_GENERATED = $(addprefix $(BOOK_LISTINGS)/,bench-results.tex slabinfo-mixed.txt \
	debug-reports.txt fronts-alloc.txt static-key-site.txt fei-clone.txt allocinfo.txt \
	exports.txt) \
	$(if $(filter 1,$(STUDENT_EDITION)),,$(BENCH_DIR)/.fronts-fi $(BENCH_DIR)/.fronts-pr \
		$(BENCH_DIR)/.fronts-rseq)

# The woven chapters alone (book-tex): what the labs' checks read to see a
# student edition's boxes without typesetting the whole book each time.
book-tex: $(BOOK_DIR)/body.tex

$(BOOK_DIR)/body.tex: $(BOOK_NW) Makefile scripts/nw-drop-defs scripts/nw-sort-chunks \
		scripts/nw-index-terms chapters/index-terms
	@mkdir -p $(BOOK_DIR)
	@noweave -n -autodefs c -filter $(CURDIR)/scripts/nw-drop-defs -index \
		-filter $(CURDIR)/scripts/nw-sort-chunks \
		-filter '$(CURDIR)/scripts/nw-index-terms $(CURDIR)/chapters/index-terms' \
		$(BOOK_NW) > $@.tmp
	@mv $@.tmp $@

$(BOOK_PDF): $(BOOK_DIR)/body.tex $(wildcard chapters/*.tex chapters/*.bib figures/*) Makefile \
		$(BOOK_GENERATED)
	@cp chapters/book.tex $(BOOK_DIR)/book.tex
	@cd $(BOOK_DIR) && TEXINPUTS=$(TEX_PATH) BIBINPUTS=$(CURDIR)/chapters: \
		latexmk -pdf -interaction=nonstopmode -halt-on-error -quiet book.tex \
		>latexmk.out 2>&1 || { tail -n 40 latexmk.out; grep -A5 '^!' book.log || true; exit 1; }
	@cp $(BOOK_DIR)/book.pdf $@
	@echo "The book's pages (scripts/book-pages):"
	@scripts/book-pages $(BOOK_DIR)/book.toc
	@echo "The prose's sentences, in words (scripts/sentence-lengths -l N lists the long ones):"
	@scripts/sentence-lengths $(filter-out %-tests.nw %-measuring.nw %-env.nw chapters/tests.nw \
		chapters/measuring.nw chapters/environment.nw,$(BOOK_NW))

# A second build, for the reproducibility check, beside the first
# (build/book-again.pdf; book.pdf and the HTML edition made from it are
# left alone): the chapters woven again and the book typeset again,
# starting from the references, contents, bibliography and index the
# first build settled on (with latexmk's record of them, so one pdflatex
# run makes the PDF and confirms that nothing moved).  It must give the
# same bytes: nothing in the PDF may come from the clock or the run, and
# the first build must have reached the fixed point its references
# converge to.
AGAIN_DIR := build/book-again
book-again:
	rm -rf $(AGAIN_DIR) $(AGAIN_DIR).pdf
	mkdir -p $(AGAIN_DIR)
	cd $(BOOK_DIR) && cp book.aux book.toc book.lof book.lot book.out book.bbl book.blg \
		book.idx book.ind book.ilg book.fls book.fdb_latexmk $(CURDIR)/$(AGAIN_DIR)/
	$(MAKE) -s BOOK_DIR=$(AGAIN_DIR) BOOK_PDF=$(AGAIN_DIR).pdf $(AGAIN_DIR).pdf

# The benchmark (Chapter 7).  Two builds of the library and its programs
# from all the chapters: without statistics, as `make lib` builds it, and
# with CONFIG_SLUB_STATS.  The book needs only what is deterministic: the
# callgrind instruction counts (a few seconds) and the slabinfo listings
# of a pinned, seeded workload.  Timings are measured by `make bench`
# alone, into $(BENCH_DIR)/timing.csv; the book shows them if that file
# exists when it is built.
# Chapter 10 adds three builds of the benchmark alone, all without
# statistics, that differ only in the slab's fault-injection site:
# compiled out (fi-none, FAULT_INJECTION=0), compiled in behind its static
# key, which is off (fi-key, FAULT_INJECTION=1, as `make lib` builds it),
# and the state before the static key, a call on every allocation (fi-unkeyed).
# Allocation profiling (Chapter 11) is compiled out of these three
# (MEM_ALLOC_PROFILING=0), so that they differ in the fault-injection site
# alone and the front without it is chapter 5's.
# Every build above is made with PERCPU_RSEQ=0: Chapters 7, 10 and 11 list
# and count the locked fast path of Chapter 5, as those chapters describe
# it.  Chapter 12 adds one build without statistics as `make lib` builds
# it, with the restartable fast path (rseq): its front is the one that
# chapter lists, and its slub-bench row is the restartable path beside the
# locked one of nostats.
FI_BUILDS := fi-none fi-key fi-unkeyed
fi_switch = $(if $(filter fi-none,$(1)),0,$(if $(filter fi-key,$(1)),1,unkeyed))
# Chapter 11 measures seed 002 in three builds without statistics that
# differ only in MEM_ALLOC_PROFILING: compiled out (0: that is fi-key,
# which is shared), the slab hooks' gated code inline, as before the seed
# (pr-inline, MEM_ALLOC_PROFILING=inline), and moved into noinline
# functions, as after it (pr-noinline, 1, as `make lib` builds it).  Each
# build with profiling compiled in runs with it off and on
# (SLUB_CMDLINE=sysctl.vm.mem_profiling=1): five configurations, which
# scripts/bench-profiling --configs lists.
PR_BUILDS := pr-inline pr-noinline
pr_switch = $(if $(filter pr-inline,$(1)),inline,1)
PR_CONFIGS := $(shell scripts/bench-profiling --configs)

$(BENCH_DIR)/.built: $(ALL_NW) $(CURDIR)/tangle mk/code.mk
	@mkdir -p $(BENCH_DIR)
	@./tangle -o $(BENCH_DIR)/code
	@for v in nostats stats; do \
		$(MAKE) -s -f mk/code.mk SRC=$(BENCH_DIR)/code OUT=$(BENCH_DIR)/$$v CC=$(CC) \
			STATS=$$([[ $$v == stats ]] && echo 1 || echo 0) PERCPU_RSEQ=0 \
			$(BENCH_DIR)/$$v/bin/slub-bench $(BENCH_DIR)/$$v/bin/slabinfo \
			$(BENCH_DIR)/$$v/bin/slub-hackbench $(BENCH_DIR)/$$v/bin/slub-debug-demo \
			$(BENCH_DIR)/$$v/bin/slub-static-key-site \
			$$([[ -f $(BENCH_DIR)/code/programs/allocinfo.c ]] && echo $(BENCH_DIR)/$$v/bin/allocinfo); \
	done
	@$(foreach v,$(FI_BUILDS),$(MAKE) -s -f mk/code.mk SRC=$(BENCH_DIR)/code \
		OUT=$(BENCH_DIR)/$(v) CC=$(CC) STATS=0 FAULT_INJECTION=$(call fi_switch,$(v)) \
		MEM_ALLOC_PROFILING=0 PERCPU_RSEQ=0 $(BENCH_DIR)/$(v)/bin/slub-bench;)
	@$(foreach v,$(PR_BUILDS),$(MAKE) -s -f mk/code.mk SRC=$(BENCH_DIR)/code \
		OUT=$(BENCH_DIR)/$(v) CC=$(CC) STATS=0 MEM_ALLOC_PROFILING=$(call pr_switch,$(v)) \
		PERCPU_RSEQ=0 $(BENCH_DIR)/$(v)/bin/slub-bench;)
	@$(MAKE) -s -f mk/code.mk SRC=$(BENCH_DIR)/code OUT=$(BENCH_DIR)/rseq CC=$(CC) STATS=0 \
		$(BENCH_DIR)/rseq/bin/slub-bench
	@touch $@

$(BENCH_DIR)/instructions.csv: $(BENCH_DIR)/.built scripts/bench-instr
	@scripts/bench-instr $(BENCH_DIR) >$@.tmp
	@mv $@.tmp $@

# Chapter 10: the same count for the three fault-injection builds.
$(BENCH_DIR)/failslab-instructions.csv: $(BENCH_DIR)/.built scripts/bench-instr
	@scripts/bench-instr $(BENCH_DIR) $(FI_BUILDS) >$@.tmp
	@mv $@.tmp $@

# Chapter 11: the same count for the five configurations of seed 002's
# measurement, the kmem_cache pair and the kmalloc pair.
$(BENCH_DIR)/profiling-instructions.csv: $(BENCH_DIR)/.built scripts/bench-instr \
		scripts/bench-profiling
	@SLUB_BENCH_INSTR_PATTERNS=pair32,kmalloc32 scripts/bench-instr $(BENCH_DIR) \
		$(PR_CONFIGS) >$@.tmp
	@mv $@.tmp $@

# and the sizes of the functions its three builds differ in (nm -S).
$(BENCH_DIR)/profiling-sizes.csv: $(BENCH_DIR)/.built scripts/bench-sizes
	@scripts/bench-sizes -f kmem_cache_alloc -f kmem_cache_free $(BENCH_DIR) pr-none=fi-key \
		pr-inline=pr-inline pr-noinline=pr-noinline >$@.tmp
	@mv $@.tmp $@

$(BENCH_DIR)/bench-results.tex: $(BENCH_DIR)/instructions.csv $(BENCH_DIR)/failslab-instructions.csv \
		$(BENCH_DIR)/profiling-instructions.csv $(BENCH_DIR)/profiling-sizes.csv \
		$(wildcard figures/data/*.csv figures/data/*.txt) \
		$(wildcard $(BENCH_DIR)/timing.csv $(BENCH_DIR)/machine.txt $(BENCH_DIR)/hackbench.csv \
			$(BENCH_DIR)/failslab-timing.csv $(BENCH_DIR)/failslab-machine.txt \
			$(BENCH_DIR)/profiling-timing.csv $(BENCH_DIR)/profiling-machine.txt \
			$(BENCH_DIR)/rseq-timing.csv $(BENCH_DIR)/rseq-machine.txt \
			$(BENCH_DIR)/sheaves-timing.csv $(BENCH_DIR)/sheaves-machine.txt \
			$(BENCH_DIR)/workloads.csv $(BENCH_DIR)/workloads-machine.txt \
			$(BENCH_DIR)/real-programs.csv $(BENCH_DIR)/real-programs-machine.txt \
			$(BENCH_DIR)/rcu-timing.csv $(BENCH_DIR)/rcu-machine.txt) \
		$(BENCH_DIR)/.fronts-rseq $(BENCH_DIR)/fronts-alloc.txt scripts/bench-fastpath \
		scripts/bench-tex scripts/sheaves-tex scripts/workloads-tex scripts/rcu-tex
	@scripts/bench-tex $(BENCH_DIR)
	@scripts/sheaves-tex $(BENCH_DIR) >>$@
	@scripts/workloads-tex $(BENCH_DIR) >>$@
	@scripts/rcu-tex $(BENCH_DIR) >>$@

# Chapter 7 lists the fast-path fronts as the compiler built them (and as
# they run: --live shows a static-key site as start-up leaves it).
$(BENCH_DIR)/fronts-alloc.txt: $(BENCH_DIR)/.built scripts/bench-fronts
	@scripts/bench-fronts --live $(BENCH_DIR)/nostats/bin/slub-bench kmem_cache_free \
		>$(BENCH_DIR)/fronts-free.txt
	@scripts/bench-fronts --live $(BENCH_DIR)/nostats/bin/slub-bench kmem_cache_alloc >$@.tmp
	@mv $@.tmp $@

# Chapter 10 lists the allocation front of each fault-injection build: no
# site, the disabled site (its NOP), the call of the state before the static key,
# and the function that build calls.  Chapter 16's sheaf site is in every
# build: check-fronts -n 1 then lets the build without the feature have it.  --live: as the running program has
# them, after chapter 9's start-up pass has written each static-key site.
$(BENCH_DIR)/.fronts-fi: $(BENCH_DIR)/.built scripts/bench-fronts scripts/check-fronts
	@$(foreach v,$(FI_BUILDS),scripts/bench-fronts --live $(BENCH_DIR)/$(v)/bin/slub-bench \
		kmem_cache_alloc >$(BENCH_DIR)/fronts-alloc-$(v).txt;)
	@{ scripts/bench-fronts $(BENCH_DIR)/fi-unkeyed/bin/slub-bench should_failslab; \
	   scripts/bench-fronts $(BENCH_DIR)/fi-unkeyed/bin/slub-bench __should_failslab; } \
		>$(BENCH_DIR)/fronts-should-failslab.txt
	@scripts/check-fronts $(if $(wildcard chapters/16-*.nw),-n 1) \
		$(BENCH_DIR)/fronts-alloc-fi-none.txt $(BENCH_DIR)/fronts-alloc-fi-key.txt
	@touch $@

# Chapter 11 lists both fronts of the build with profiling compiled out
# (fi-key) and of the two builds with it compiled in, as they run after
# start-up (profiling off), and checks its claim: the fronts of the default
# build (pr-noinline) are those without profiling plus one static-key site
# each, its NOP (once chapter 11 exists: before, the builds are the same).
# The fast paths, from the entry to the first ret, are compared up to the
# registers and the order (-r: no instruction more, at most one fewer, as
# many conditional branches): GCC 12 allocates its registers differently
# once the site is there.  What follows the first ret may be at most five
# instructions longer (-t 5): the way to the tagging hook, which the
# site's target runs only with profiling on.  The same
# holds for kmalloc's fronts (Chapter 6): __kmalloc_cache, the allocation
# front of a constant size (fronts-kmalloc-*), and kfree (fronts-kfree-*).
$(BENCH_DIR)/.fronts-pr: $(BENCH_DIR)/.built scripts/bench-fronts scripts/check-fronts
	@for f in alloc:kmem_cache_alloc free:kmem_cache_free kmalloc:__kmalloc_cache kfree:kfree; do \
		for v in pr-none:fi-key pr-inline:pr-inline pr-noinline:pr-noinline; do \
			scripts/bench-fronts --live $(BENCH_DIR)/$${v#*:}/bin/slub-bench \
				$${f#*:} >$(BENCH_DIR)/fronts-$${f%%:*}-$${v%%:*}.txt; \
		done; \
		if [[ -n "$(wildcard chapters/11-*.nw)" ]]; then \
			scripts/check-fronts -n 1 -r -t 5 \
				-w "chapter 11" $(BENCH_DIR)/fronts-$${f%%:*}-pr-none.txt \
				$(BENCH_DIR)/fronts-$${f%%:*}-pr-noinline.txt; \
		fi; \
	done
	@touch $@

# Chapter 12 lists both fronts of the restartable build as they run, once
# the first cache is made and the restartable key is on (the listing is
# read at the benchmark's first run_pattern, not at a front, whose entry
# is a static-key site that gdb's breakpoint would keep from being
# patched), and counts their fast paths
# (scripts/bench-fastpath, in scripts/bench-tex): callgrind cannot run
# rseq.  Should the run under gdb have had no rseq, the key's site is still
# the jump to the locked front; the listing then says so in its last line.
$(BENCH_DIR)/.fronts-rseq: $(BENCH_DIR)/.built scripts/bench-fronts scripts/bench-fastpath
	@for f in alloc free; do \
		scripts/bench-fronts --live --stop-at run_pattern $(BENCH_DIR)/rseq/bin/slub-bench \
			kmem_cache_$$f >$(BENCH_DIR)/fronts-$$f-rseq.txt; \
		if [[ $$(scripts/bench-fastpath $(BENCH_DIR)/fronts-$$f-rseq.txt | cut -d, -f4) != 0 ]]; then \
			echo "(read with the restartable key off: the run under gdb had no rseq)" \
				>>$(BENCH_DIR)/fronts-$$f-rseq.txt; \
			echo "fronts-$$f-rseq.txt: the run under gdb had no rseq; listed with the key off" >&2; \
		fi; \
	done
	@touch $@

# Chapter 11 shows an excerpt of /proc/allocinfo that the build printed:
# the allocinfo tool's built-in workload, pinned to one CPU, deterministic.
$(BENCH_DIR)/allocinfo.txt: $(BENCH_DIR)/.built $(wildcard scripts/allocinfo-listing)
	@if [[ -x $(BENCH_DIR)/nostats/bin/allocinfo ]]; then \
		scripts/allocinfo-listing $(BENCH_DIR)/nostats/bin >$@.tmp; \
	else :>$@.tmp; fi
	@mv $@.tmp $@

# Chapter 15 lists what libslub.so and libslub-malloc.so export (nm -D),
# built as `make lib` builds them (the rseq build: no statistics, the
# default configuration), and libslub.so linked from the same objects
# without its version script, as the libraries were before Chapter 15.
EXPORTS_LIBS := $(BENCH_DIR)/rseq/lib/libslub.so \
	$(if $(wildcard chapters/13-*.nw),$(BENCH_DIR)/rseq/lib/libslub-malloc.so)
$(BENCH_DIR)/exports.txt: $(BENCH_DIR)/.built scripts/exports-listing
	@$(MAKE) -s -f mk/code.mk SRC=$(BENCH_DIR)/code OUT=$(BENCH_DIR)/rseq CC=$(CC) STATS=0 \
		$(EXPORTS_LIBS)
	@$(CC) -shared -Wl,-z,nodelete -o $(BENCH_DIR)/rseq/libslub-unscripted.so \
		$(BENCH_DIR)/rseq/obj/pic/*.o -pthread -ldl
	@scripts/exports-listing $(firstword $(EXPORTS_LIBS)) $(BENCH_DIR)/code/include/slub.h \
		$(or $(word 2,$(EXPORTS_LIBS)),'') $(BENCH_DIR)/rseq/libslub-unscripted.so >$@.tmp
	@mv $@.tmp $@

$(BENCH_DIR)/slabinfo-mixed.txt: $(BENCH_DIR)/.built
	@$(BENCH_DIR)/stats/bin/slabinfo -c 0 -w mixed -D >$(BENCH_DIR)/slabinfo-mixed-D.txt
	@$(BENCH_DIR)/stats/bin/slabinfo -c 0 -w mixed >$@.tmp
	@mv $@.tmp $@

# Chapter 8 shows reports the build really produced: a demonstration program
# corrupts objects on purpose; addresses, ages, CPUs and thread ids are
# masked so that two builds give the same book.
$(BENCH_DIR)/debug-reports.txt: $(BENCH_DIR)/.built scripts/mask-report
	@taskset -c 0 $(BENCH_DIR)/nostats/bin/slub-debug-demo 2>&1 | scripts/mask-report >$@.tmp
	@mv $@.tmp $@

# Chapter 9 shows one static-key site as assembled and as it is live, after
# start-up and after its key is enabled; offsets count from the function.
$(BENCH_DIR)/static-key-site.txt: $(BENCH_DIR)/.built scripts/static-key-site
	@scripts/static-key-site $(BENCH_DIR)/nostats/bin/slub-static-key-site >$@.tmp
	@mv $@.tmp $@

# Chapter 10 shows seed 001's trap: a demonstration program built twice with
# GCC (the clone is GCC's), listed by symbols and disassembly, and run.
$(BENCH_DIR)/fei-clone.txt: $(BENCH_DIR)/.built scripts/fei-clone-listing
	@$(MAKE) -s -f mk/code.mk SRC=$(BENCH_DIR)/code OUT=$(BENCH_DIR)/nostats CC=gcc STATS=0 \
		$(BENCH_DIR)/nostats/bin/fei-clone-demo $(BENCH_DIR)/nostats/bin/fei-noclone-demo
	@scripts/fei-clone-listing $(BENCH_DIR)/nostats/bin fei-noclone-demo \
		>$(BENCH_DIR)/fei-noclone.txt
	@scripts/fei-clone-listing $(BENCH_DIR)/nostats/bin fei-clone-demo >$@.tmp
	@mv $@.tmp $@

bench: deps
	@SLUB_BENCH_PEERS=1 scripts/deps
	@$(MAKE) -s $(BENCH_DIR)/.built $(BENCH_DIR)/.fronts-rseq $(BENCH_DIR)/fronts-alloc.txt
	@scripts/bench $(BENCH_DIR)
	@$(if $(wildcard chapters/14-*.nw),$(MAKE) -s bench-real)
	@$(if $(wildcard chapters/16-*.nw),SLUB_BENCH_SHEAVES_NS=$(BENCH_DIR)/sheaves-ns.csv \
		$(MAKE) -s bench-sheaves)
	@$(if $(wildcard chapters/17-*.nw),$(MAKE) -s bench-workloads)
	@$(if $(wildcard chapters/18-*.nw),$(MAKE) -s bench-rcu)

# Chapter 16: the classic per-CPU slab against sheaves (slab_sheaves=opt-in
# and =all) in the build `make lib` makes (the rseq build), beside the
# peers, into $(BENCH_DIR)/sheaves-timing.csv and sheaves-machine.txt
# (scripts/bench-sheaves; about a minute with SLUB_BENCH_RUNS=5).  The
# chapter's burst program, programs/bench-sheaves.c, gives the memory rows
# when the chapter has it; one real program (SLUB_BENCH_SHEAVES_PROGRAM,
# default sqlite3) runs under the malloc library.  The book's table is
# $(BENCH_DIR)/sheaves-table.tex (scripts/sheaves-tex, with bench-results.tex).
bench-sheaves: $(BENCH_DIR)/.built
	@$(MAKE) -s -f mk/code.mk SRC=$(BENCH_DIR)/code OUT=$(BENCH_DIR)/rseq CC=$(CC) STATS=0 \
		$(BENCH_DIR)/rseq/bin/slub-bench $(BENCH_DIR)/rseq/lib/libslub-malloc.so \
		$$([[ -f $(BENCH_DIR)/code/programs/bench-sheaves.c ]] && echo $(BENCH_DIR)/rseq/bin/bench-sheaves)
	@scripts/bench-sheaves $(BENCH_DIR)

# chapter 16's measurement alone made the reference (then commit the two files)
bench-sheaves-ship: bench-sheaves
	@cp $(BENCH_DIR)/sheaves-timing.csv $(BENCH_DIR)/sheaves-machine.txt figures/data/
	@echo "bench-sheaves-ship: figures/data/sheaves-*.{csv,txt} now hold this run; commit them" >&2
.PHONY: bench-sheaves bench-sheaves-ship

# Chapter 17: its workload programs (programs/wl-*.c, built as plain
# programs: nothing of the library is linked in) under glibc, the three
# peers preloaded, and the malloc library of the build `make lib` makes
# (the rseq build) booted with slab_sheaves=opt-in and =all, taking turns:
# wall time and peak resident memory, medians of RUNS runs (default 3, or
# SLUB_BENCH_RUNS), into $(BENCH_DIR)/workloads.csv and
# workloads-machine.txt (scripts/bench-workloads; about four minutes on 2
# CPUs; `make bench` runs it too).  It ends with whether the malloc library
# meets its targets against the peers, the real programs' rows taken from
# chapter 14's measurement (make bench-real).  The book's table and figure
# come from scripts/workloads-tex, with bench-results.tex.
bench-workloads: deps $(BENCH_DIR)/.built
	@$(MAKE) -s -f mk/code.mk SRC=$(BENCH_DIR)/code OUT=$(BENCH_DIR)/rseq CC=$(CC) STATS=0 \
		$(BENCH_DIR)/rseq/lib/libslub-malloc.so $$(for f in $(BENCH_DIR)/code/programs/wl-*.c; do \
			[[ -f $$f ]] && basename $$f .c | sed 's|^|$(BENCH_DIR)/rseq/bin/|'; done)
	@scripts/bench-workloads $(BENCH_DIR) $(RUNS)

# chapter 17's measurement alone made the reference (then commit the two files)
bench-workloads-ship: bench-workloads
	@cp $(BENCH_DIR)/workloads.csv $(BENCH_DIR)/workloads-machine.txt figures/data/
	@echo "bench-workloads-ship: figures/data/workloads*.{csv,txt} now hold this run; commit them" >&2
.PHONY: bench-workloads bench-workloads-ship

# Chapter 18: what freeing after a grace period costs (kfree at once,
# kfree_rcu, synchronize_rcu per object, and by hand in batches), and what
# a burst of kfree_rcu holds, with slab_sheaves=opt-in (the batches) and
# =all (the rcu_free sheaf), in the build `make lib` makes (the rseq
# build), into $(BENCH_DIR)/rcu-timing.csv and rcu-machine.txt
# (scripts/bench-rcu and the chapter's programs/bench-kfree-rcu.c; well
# under a minute on a quiet machine with SLUB_BENCH_RUNS=5).  The book's
# table is $(BENCH_DIR)/rcu-table.tex (scripts/rcu-tex, with
# bench-results.tex).
bench-rcu: $(BENCH_DIR)/.built
	@$(MAKE) -s -f mk/code.mk SRC=$(BENCH_DIR)/code OUT=$(BENCH_DIR)/rseq CC=$(CC) STATS=0 \
		$(BENCH_DIR)/rseq/bin/bench-kfree-rcu
	@scripts/bench-rcu $(BENCH_DIR)

# chapter 18's measurement alone made the reference (then commit the two files)
bench-rcu-ship: bench-rcu
	@cp $(BENCH_DIR)/rcu-timing.csv $(BENCH_DIR)/rcu-machine.txt figures/data/
	@echo "bench-rcu-ship: figures/data/rcu-*.{csv,txt} now hold this run; commit them" >&2
.PHONY: bench-rcu bench-rcu-ship

# The book ships with reference measurements (figures/data/, see its
# README.md): the book uses them unless `make bench` has measured this
# machine.  `make bench-ship` measures and makes the result the reference
# (then commit figures/data/).  Best on a quiet machine.  Every timed
# configuration of chapters 7 to 12 and 16 comes from one run of
# scripts/bench-timing (timing-all.csv, shipped too); the chapters' files
# are its views, so a configuration quoted in two chapters has one number.
bench-ship: bench
	@cp $(BENCH_DIR)/timing-all.csv $(BENCH_DIR)/timing.csv $(BENCH_DIR)/hackbench.csv $(BENCH_DIR)/machine.txt \
		$(BENCH_DIR)/failslab-timing.csv $(BENCH_DIR)/failslab-machine.txt \
		$(BENCH_DIR)/profiling-timing.csv $(BENCH_DIR)/profiling-machine.txt \
		$(BENCH_DIR)/rseq-timing.csv $(BENCH_DIR)/rseq-machine.txt figures/data/
	@$(if $(wildcard chapters/14-*.nw),cp $(BENCH_DIR)/real-programs.csv \
		$(BENCH_DIR)/real-programs-machine.txt figures/data/)
	@$(if $(wildcard chapters/16-*.nw),cp $(BENCH_DIR)/sheaves-timing.csv \
		$(BENCH_DIR)/sheaves-machine.txt figures/data/)
	@$(if $(wildcard chapters/17-*.nw),cp $(BENCH_DIR)/workloads.csv \
		$(BENCH_DIR)/workloads-machine.txt figures/data/)
	@$(if $(wildcard chapters/18-*.nw),cp $(BENCH_DIR)/rcu-timing.csv \
		$(BENCH_DIR)/rcu-machine.txt figures/data/)
	@echo "bench-ship: figures/data/ now holds this run; commit it" >&2

# Labs (labs/README.md).  `make student` builds the reference listings
# first: the student's book uses them.
LABS := $(basename $(notdir $(wildcard labs/*.grade)))
student: deps $(BOOK_GENERATED)
	@[[ -n "$(LAB)" && -n "$(DEST)" ]] || { echo "make student LAB=name DEST=dir (labs: $(LABS))" >&2; exit 2; }
	@scripts/lab-student $(LAB) $(DEST)

# Without LAB (in the instructor's tree): every lab's reference solution.
grade:
	@$(if $(LAB),scripts/grade $(LAB) $(SUBMISSION),for l in $(LABS); do scripts/grade $$l; done)

grade-all:
	@scripts/grade-all $(LAB) $(SUBMISSIONS)

# Gradescope's autograder for one lab (labs/INSTRUCTOR.md): a zip to upload.
gradescope: deps
	@[[ -n "$(LAB)" ]] || { echo "make gradescope LAB=name [DEST=file.zip] (labs: $(LABS))" >&2; exit 2; }
	@scripts/gradescope $(LAB) $(or $(DEST),build/gradescope/$(LAB).zip)

labs: $(patsubst %,build/labs/%.html,$(LABS)) $(patsubst %,build/labs/%.pdf,$(LABS)) \
	$(if $(wildcard labs/INSTRUCTOR.md),build/labs/INSTRUCTOR.html build/labs/INSTRUCTOR.pdf)

# The perf lab's handout quotes the reference's counts from the book build.
.PRECIOUS: build/labs/%.md
build/labs/%.md: labs/%.md scripts/lab-handout $(BOOK_LISTINGS)/instructions.csv
	@mkdir -p $(@D)
	@scripts/lab-handout $< $(BOOK_LISTINGS) $@

build/labs/%.html: build/labs/%.md labs/handout.css
	@pandoc -s --self-contained --css labs/handout.css --metadata lang=en -o $@ $<

build/labs/%.pdf: build/labs/%.md
	@pandoc -s -V geometry:margin=25mm -V colorlinks=true -o $@ $<

# The HTML edition (scripts/html/build): the same chapters through pandoc,
# one page a chapter, with the PDF's chunk numbers and cross-reference
# numbers, which it reads from the PDF's .aux (so book.pdf comes first),
# and links to the lab handouts.  `make` builds it beside book.pdf (not in
# a lab's student edition); tests/run checks it.  The build starts by
# removing the old edition, so success is marked by a file of its own.
HTML_DIR := build/html
LAB_PAGES = $(patsubst %,build/labs/%.html,$(LABS))
html: $(HTML_DIR)/.built
$(HTML_DIR)/.built: book.pdf $(LAB_PAGES) $(wildcard scripts/html/*) $(BOOK_NW)
	@[[ -f $(BOOK_DIR)/book.aux ]] || { rm -f book.pdf; $(MAKE) -s book; }
	@TEXINPUTS=$(TEX_PATH) scripts/html/build $(HTML_DIR) $(BOOK_DIR) $(BOOK_LISTINGS) \
		build/labs $(BOOK_NW)
	@touch $@

clean:
	rm -rf code build book.pdf

# Chapter 14: the negative suite's table and the real programs' wall times.
include mk/heapcheck.mk

.PHONY: all deps tangle lib install uninstall test check book book-tex book-again bench bench-ship clean \
	student grade grade-all gradescope labs html
