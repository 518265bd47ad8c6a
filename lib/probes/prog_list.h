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

#include "lib/elf/libdeps.h"
#include "lib/events/ftrace_filter.h"
#include "lib/probes/usdt.h"

struct lister {
	const struct utrace_func_filter *filter; /* NULL: print everything */
	size_t printed;
	bool events;	 /* -e: list events, not functions */
	bool format;	 /* -F */
	char **patterns; /* -e's EVENT arguments; none: all */
	int npatterns;
	char **seen; /* "system:event" printed so far */
	size_t nseen, cap_seen;
};

long list_object(struct lister *ls, const char *path, const char *module);
long list_object_events(struct lister *ls, const char *path);
long list_libraries(struct lister *ls, const char *prog, const struct utrace_libdeps *deps);
long list_probe_events(struct lister *ls, const char *prog, const char *const *defs, int n);
void print_usdt_site(const struct utrace_usdt_list *l, size_t i);

#endif
