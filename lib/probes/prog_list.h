/* SPDX-License-Identifier: MIT */
/*
 * prog_list.h - what `utrace list` prints of a program: its traceable
 * functions and those of the instrumented libraries it loads, its static
 * tracepoints, the events of in-process probes, its USDT sites.
 */
#ifndef UTRACE_LIB_PROBES_PROG_LIST_H
#define UTRACE_LIB_PROBES_PROG_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/base/error.h"
#include "lib/elf/libdeps.h"
#include "lib/events/ftrace_filter.h"
#include "lib/probes/fpatch_list.h"
#include "lib/probes/usdt.h"

/* One listing: what it prints and where, and what it printed so far.
 * Zero it, set the fields above printed, free it with
 * utrace_prog_list_free(). */
struct utrace_prog_list {
	FILE *out;				 /* where the list goes */
	const struct utrace_func_filter *filter; /* functions: NULL: all (set by -f) */
	bool events;				 /* libraries: their events, not functions */
	bool format;				 /* events: each one's format */
	char **patterns;			 /* events: SYSTEM:EVENT globs; none: all */
	int npatterns;
	/* A warning, one line without "utrace CMD: warning: "; NULL: none. */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	size_t printed; /* lines listed so far */
	char **seen;	/* events printed so far, "system:event" */
	size_t nseen, cap_seen;
};

/* Lists the traceable functions of one object (its call sites); module
 * NULL for the main executable.  Returns the number of call sites, or -1. */
long utrace_prog_list_object(struct utrace_prog_list *ls, const char *path, const char *module,
			     struct utrace_error *err);
/* Lists the events of one object that ls->patterns select, each once
 * per listing.  Returns the number of events it defines, or -1. */
long utrace_prog_list_object_events(struct utrace_prog_list *ls, const char *path,
				    struct utrace_error *err);
/* Lists the instrumented libraries among prog's deps (ls->events: their
 * events, else their functions); uninstrumented ones are skipped without a
 * word.  Returns their total number of call sites (events), or -1. */
long utrace_prog_list_libraries(struct utrace_prog_list *ls, const char *prog,
				const struct utrace_libdeps *deps, struct utrace_error *err);
/* The events of in-process probes (record --probe DEF, no PATH:), as the
 * recording would define them.  Returns n, or -1. */
long utrace_prog_list_probes(struct utrace_prog_list *ls, const char *prog, const char *const *defs,
			     int n, struct utrace_error *err);
/* What a listing found in a program and its libraries. */
struct utrace_prog_list_found {
	long main, libs; /* call sites (events) of the program, of its libraries */
	bool patched;	 /* no call sites: the entries record patches were listed */
	struct utrace_fpatch_counts counts; /* those, with why */
};

/* -f: the functions of prog (a path) and of the instrumented libraries it
 * loads, found as ldd finds them, that the set_ftrace_filter expressions
 * filters select (GLOB, !GLOB, GLOB:mod:MODULE; none: all); prog without
 * call sites (or why): the functions whose entries record patches
 * (fpatch_list.h).  0, or -1. */
int utrace_prog_list_functions(struct utrace_prog_list *ls, const char *prog, char **filters,
			       int nfilters, bool why, struct utrace_prog_list_found *found,
			       struct utrace_error *err);
/* -e: the events of prog, of its instrumented libraries and of the
 * in-process probes defined by probes.  0, or -1. */
int utrace_prog_list_events(struct utrace_prog_list *ls, const char *prog,
			    const char *const *probes, int nprobes,
			    struct utrace_prog_list_found *found, struct utrace_error *err);
/* Checks a pattern of the command line: an event's SYSTEM:EVENT (event)
 * or a USDT probe's PROVIDER:NAME, globs.  0, or <0 with err saying
 * "bad EVENT 'PATTERN': why". */
int utrace_prog_list_check(const char *pattern, bool event, struct utrace_error *err);
/* Whether ls->patterns select system:name (all do when there is none). */
bool utrace_prog_list_matches(const struct utrace_prog_list *ls, const char *system,
			      const char *name);
void utrace_prog_list_free(struct utrace_prog_list *ls);

/* Lists prog's USDT probes that patterns (PROVIDER:NAME globs; none: all)
 * select, once each; verbose: every site of each.  0, or -1 (none has
 * no probes at all). */
int utrace_prog_list_usdt(FILE *out, const char *prog, char **patterns, int npatterns, bool verbose,
			  struct utrace_error *err);

#endif
