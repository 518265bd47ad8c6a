/* SPDX-License-Identifier: MIT */
/*
 * session_dynev_internal.h - what lib/session/session_dynev.c and
 * session_dynev_names.c (the names of the dynamic events) share.
 */
#ifndef UTRACE_SESSION_DYNEV_INTERNAL_H
#define UTRACE_SESSION_DYNEV_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/events/event_format.h"
#include "lib/session/session.h"

struct dyn_name {
	char sys[65], name[65];
	int id;
	bool synth, live;
	/* a probe defined here: what an append is checked against (NULL
	 * for the others) */
	int kind;
	char *format, *point;
	/* its points (the kernel's multiprobe): each one's key and line, the
	 * event's format */
	int *keys;
	char **lines;
	unsigned nk, cap_k;
	const struct utrace_event_format *fmt;
};

struct session_dynev {
	char *exe; /* the program: its symbols check a probe's point */
	const struct utrace_session_opts *o;
	struct dyn_name *names;
	size_t n, cap;
};

/* The name sys:name defined, NULL if none. */
struct dyn_name *dyn_find(struct session_dynev *d, const char *sys, const char *name);
void dyn_name_free(struct dyn_name *n);
/* Point key of n, listed as line (a copy kept). */
int dyn_point_keep(struct dyn_name *n, int key, const char *line);
/* A name kept: 0 or -ENOMEM. */
int dyn_keep(struct session_dynev *d, const char *sys, const char *name, int id, bool synth,
	     bool live);

#endif
