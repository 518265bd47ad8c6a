/* SPDX-License-Identifier: MIT */
/*
 * profile_internal.h - a profile's state, shared by the counting
 * (profile.c) and the sorting and printing (profile_sort.c).
 */
#ifndef UTRACE_LIB_REPORT_PROFILE_INTERNAL_H
#define UTRACE_LIB_REPORT_PROFILE_INTERNAL_H

#include <errno.h>
#include <stdint.h>

#include "lib/report/func_table.h"
#include "lib/report/profile.h"
#include "lib/report/stack_index.h"

struct pthread;

struct utrace_profile {
	struct utrace_dat *d;
	struct utrace_func_table *ft;
	struct utrace_func_cache fc;	/* in front of ft */
	struct utrace_profile_entry *e; /* per function number */
	uint32_t cap_e;
	struct pthread *th; /* per call stack: nr_buf threads', then coroutines' */
	unsigned nr_th, nr_buf;
	struct stack_index stacks;
	uint32_t *order; /* sorted functions with calls */
	unsigned nr_order;
	uint64_t unfinished, untimed;
};

/* -ENOMEM, said with the recording's name (inline: profile.c calls
 * profile_sort.c, never the other way) */
static inline int profile_oom(struct utrace_profile *p, struct utrace_error *err)
{
	return utrace_error_set(err, -ENOMEM, "%s: out of memory for the profile",
				utrace_dat_path(p->d));
}

#endif
