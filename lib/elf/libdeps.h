/* SPDX-License-Identifier: MIT */
/*
 * libdeps.h - the shared libraries a program loads when it starts, as ldd
 * lists them (libdeps.c), for utrace list (their functions and events)
 * and utrace record (checking -e against them before anything runs).
 */
#ifndef UTRACE_LIB_ELF_LIBDEPS_H
#define UTRACE_LIB_ELF_LIBDEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/error.h"

struct utrace_libdeps {
	char **paths; /* the libraries' files, the program and its loader left out */
	size_t n;
	char **missing; /* sonames the loader did not find */
	size_t nr_missing;
	char *interp;	 /* the program's ELF interpreter; NULL: static */
	bool ldd_failed; /* the loader could not list them (paths is empty) */
};

/* PROGRAM as execvp() runs it: itself when it has a '/', else the first
 * executable regular file of that name in PATH (an empty element: the
 * current directory), as `utrace record -- PROGRAM` would run;
 * malloc'ed, or NULL with errno. */
char *utrace_program_path(const char *prog);

/* The libraries of prog (a path).  -errno (err) if prog is not a readable
 * ELF file; the loader's failure is not an error (ldd_failed). */
int utrace_libdeps_get(const char *prog, struct utrace_libdeps *d, struct utrace_error *err);
void utrace_libdeps_free(struct utrace_libdeps *d);

#endif
