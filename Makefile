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

# Chapter files are chapters/NN-name.nw; the frame is chapters/book.tex.
ALL_NW := $(sort $(wildcard chapters/[0-9][0-9]-*.nw))
chapter_number = $(shell echo $$((10\#$(firstword $(subst -, ,$(notdir $(1)))))))
ifdef UPTO
BOOK_NW := $(foreach f,$(ALL_NW),$(if $(shell [ $(call chapter_number,$f) -le $(UPTO) ] && echo y),$f))
TANGLE_UPTO := -n $(UPTO)
else
BOOK_NW := $(ALL_NW)
TANGLE_UPTO :=
endif

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

test: deps
	tests/run

check: deps
	tests/run $(if $(UPTO),--only $(UPTO)) --no-book

# The book: noweave all chapters in one run so that chunk cross-references
# and the identifier index span the whole book; latexmk runs pdflatex and
# bibtex until the references settle.  We weave with -n into body.tex and
# input it from the frame chapters/book.tex rather than use -delay: with
# -delay, noweave 2.12 writes its index records before the first chunk, that
# is before \documentclass, where LaTeX cannot take them.
BOOK_DIR := build/book
TEX_PATH := .:$(CURDIR)/chapters:$(CURDIR)/figures:$(CURDIR)/$(BOOK_DIR):

book: book.pdf

book.pdf: $(BOOK_NW) $(wildcard chapters/*.tex chapters/*.bib figures/*) Makefile
	@mkdir -p $(BOOK_DIR)
	@noweave -n -autodefs c -filter $(CURDIR)/scripts/nw-drop-defs -index $(BOOK_NW) > $(BOOK_DIR)/body.tex
	@cp chapters/book.tex $(BOOK_DIR)/book.tex
	@cd $(BOOK_DIR) && TEXINPUTS=$(TEX_PATH) BIBINPUTS=$(CURDIR)/chapters: \
		latexmk -pdf -interaction=nonstopmode -halt-on-error -quiet book.tex \
		>latexmk.out 2>&1 || { tail -n 40 latexmk.out; grep -A5 '^!' book.log || true; exit 1; }
	@cp $(BOOK_DIR)/book.pdf $@

# A second build from nothing, for the reproducibility check.
book-again:
	rm -rf $(BOOK_DIR) book.pdf
	$(MAKE) -s book

bench: lib
	@echo "bench: the benchmark arrives with chapter 7 (statistics and the first benchmark)"

clean:
	rm -rf code build book.pdf

.PHONY: all deps tangle lib test check book book-again bench clean
