# mk/heapcheck.mk -- Chapter 14's targets, included by the Makefile.
#
#   make heapbugs        the negative suite (scripts/heapbugs) on this machine,
#                        into build/heapbugs/heapbugs.csv and heapbugs-machine.txt
#   make heapbugs-ship   the same, copied into figures/data/ (commit them):
#                        the detection table the book prints
#   make bench-real      the real programs' wall times and peak memory
#                        (scripts/bench-real), into $(BENCH_DIR)/real-programs.csv;
#                        `make bench` runs it; chapters 16 and 17 quote it too
#
# The book's tables (scripts/heapcheck-tex) are made from figures/data/
# heapbugs.csv, and from $(BENCH_DIR)/real-programs.csv after a `make bench`,
# else from the reference in figures/data/.
HEAPBUGS_DIR := build/heapbugs

$(BENCH_DIR)/heapcheck-results.tex: scripts/heapcheck-tex figures/data/heapbugs.csv \
		$(wildcard figures/data/heapbugs-machine.txt figures/data/real-programs.csv \
			figures/data/real-programs-machine.txt $(BENCH_DIR)/real-programs.csv \
			$(BENCH_DIR)/real-programs-machine.txt)
	@scripts/heapcheck-tex $(BENCH_DIR)

# The chapter shows one report the build really produced: heapbug's a-b-a
# double free under the shim of the build `make lib` makes, with
# slab_debug=FZPU, pinned to one CPU; addresses, ages, CPUs and process ids
# masked (scripts/mask-report), as chapter 8's reports are.
$(BENCH_DIR)/heapbug-report.txt: $(BENCH_DIR)/.built scripts/mask-report
	@$(MAKE) -s -f mk/code.mk SRC=$(BENCH_DIR)/code OUT=$(BENCH_DIR)/rseq CC=$(CC) STATS=0 \
		$(BENCH_DIR)/rseq/lib/libslub-malloc.so
	@$(CC) -std=gnu11 -O2 -g $(BENCH_DIR)/code/heapbugs/heapbug.c -o $(BENCH_DIR)/rseq/bin/heapbug
	@LD_PRELOAD=$(CURDIR)/$(BENCH_DIR)/rseq/lib/libslub-malloc.so SLUB_CMDLINE=slab_debug=FZPU \
		taskset -c 0 $(BENCH_DIR)/rseq/bin/heapbug double-free-aba 2>&1 >/dev/null | \
		grep -v '^heapbug: ' | scripts/mask-report >$@.tmp
	@mv $@.tmp $@

book.pdf: $(BOOK_LISTINGS)/heapcheck-results.tex $(BOOK_LISTINGS)/heapbug-report.txt
student: $(BOOK_LISTINGS)/heapcheck-results.tex $(BOOK_LISTINGS)/heapbug-report.txt

# one build of the library and its shim, as `make lib` builds them
$(HEAPBUGS_DIR)/.built: $(ALL_NW) $(CURDIR)/tangle mk/code.mk
	@mkdir -p $(HEAPBUGS_DIR)
	@./tangle -o $(HEAPBUGS_DIR)/code
	@$(MAKE) -s -f mk/code.mk SRC=$(HEAPBUGS_DIR)/code OUT=$(HEAPBUGS_DIR)/gcc CC=$(CC) \
		$(HEAPBUGS_DIR)/gcc/lib/libslub-malloc.so
	@touch $@

heapbugs: deps $(HEAPBUGS_DIR)/.built
	@SHIM=$(HEAPBUGS_DIR)/gcc/lib/libslub-malloc.so scripts/heapbugs $(HEAPBUGS_DIR)/code \
		$(HEAPBUGS_DIR)/run >$(HEAPBUGS_DIR)/heapbugs.csv.tmp
	@mv $(HEAPBUGS_DIR)/heapbugs.csv.tmp $(HEAPBUGS_DIR)/heapbugs.csv
	@{ scripts/bench-machine; echo "valgrind: $$(valgrind --version)"; } \
		>$(HEAPBUGS_DIR)/heapbugs-machine.txt
	@cat $(HEAPBUGS_DIR)/heapbugs.csv

heapbugs-ship: heapbugs
	@cp $(HEAPBUGS_DIR)/heapbugs.csv $(HEAPBUGS_DIR)/heapbugs-machine.txt figures/data/
	@echo "heapbugs-ship: figures/data/heapbugs.csv now holds this run; commit it" >&2

# the wall times, with the shim of the build `make lib` makes (no statistics)
bench-real: $(BENCH_DIR)/.built
	@$(MAKE) -s -f mk/code.mk SRC=$(BENCH_DIR)/code OUT=$(BENCH_DIR)/rseq CC=$(CC) STATS=0 \
		$(BENCH_DIR)/rseq/lib/libslub-malloc.so
	@SHIM=$(BENCH_DIR)/rseq/lib/libslub-malloc.so scripts/bench-real $(BENCH_DIR)/real \
		$(BENCH_DIR)/code $(SLUB_BENCH_REAL_RUNS) >$(BENCH_DIR)/real-programs.csv.tmp
	@mv $(BENCH_DIR)/real-programs.csv.tmp $(BENCH_DIR)/real-programs.csv
	@{ scripts/bench-machine; echo "valgrind: $$(valgrind --version)"; } \
		>$(BENCH_DIR)/real-programs-machine.txt
	@cat $(BENCH_DIR)/real-programs.csv

SLUB_BENCH_REAL_RUNS ?= $(or $(SLUB_BENCH_RUNS),5)

.PHONY: heapbugs heapbugs-ship bench-real
