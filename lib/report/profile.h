/* SPDX-License-Identifier: MIT */
/*
 * profile.h - per-function statistics of a recorded trace, as
 * `uftrace report` and the kernel's function profiler give them: calls,
 * total time (in the function and what it calls), self time (in the
 * function alone), average, minimum and maximum, for `utrace report
 * --profile`.
 *
 * Feed it the events of a pass in the iterator's order (possibly
 * filtered, lib/report/report_filter.h), then finish, sort and print.  Memory
 * grows with the distinct functions and the depth of the calls, never
 * with the number of events.
 */
#ifndef UTRACE_LIB_PROFILE_H
#define UTRACE_LIB_PROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/base/error.h"

struct utrace_profile;

/* The columns, in the order they print (uftrace's); the call graph's
 * too, but calls (lib/report/callgraph.h). */
enum utrace_profile_field {
	UTRACE_PROFILE_TOTAL = 1u << 0,
	UTRACE_PROFILE_TOTAL_AVG = 1u << 1,
	UTRACE_PROFILE_TOTAL_MIN = 1u << 2,
	UTRACE_PROFILE_TOTAL_MAX = 1u << 3,
	UTRACE_PROFILE_SELF = 1u << 4,
	UTRACE_PROFILE_SELF_AVG = 1u << 5,
	UTRACE_PROFILE_SELF_MIN = 1u << 6,
	UTRACE_PROFILE_SELF_MAX = 1u << 7,
	UTRACE_PROFILE_CALLS = 1u << 8,
};

#define UTRACE_PROFILE_DEFAULT_FIELDS                                                              \
	(UTRACE_PROFILE_TOTAL | UTRACE_PROFILE_SELF | UTRACE_PROFILE_CALLS)
#define UTRACE_PROFILE_ALL_FIELDS 0x1ffu

struct utrace_profile_entry {
	const char *name;
	uint64_t calls; /* calls, returned or not */
	uint64_t timed; /* calls whose duration is known */
	/* ns; total counts a recursive call once, at its outermost level;
	 * total_sum adds every call (the average is total_sum / timed) */
	uint64_t total, total_sum, total_min, total_max;
	uint64_t self, self_min, self_max;
};

int utrace_profile_new(struct utrace_dat *d, struct utrace_profile **out, struct utrace_error *err);
void utrace_profile_free(struct utrace_profile *p);

int utrace_profile_add(struct utrace_profile *p, const struct utrace_event *ev,
		       struct utrace_error *err);
/* The end of the pass: calls still running are timed up to the last
 * event of their thread (as uftrace does), and counted in unfinished.
 * Then sorted by "total", or by "calls" if no call has a duration (the
 * function tracer). */
int utrace_profile_finish(struct utrace_profile *p, struct utrace_error *err);

/* Calls that had not returned at the end of the trace, and returns whose
 * duration the file does not give. */
uint64_t utrace_profile_unfinished(const struct utrace_profile *p);
uint64_t utrace_profile_untimed(const struct utrace_profile *p);

/*
 * Sorts by keys, a comma-separated list tried in order: total, self,
 * calls, avg, min, max (of the total time), self-avg, self-min, self-max
 * (largest first) and name (alphabetical); ties by name.  The default
 * order, before any sort, is "total".
 */
int utrace_profile_sort(struct utrace_profile *p, const char *keys, struct utrace_error *err);
/* 0 if keys is a valid sort order, else <0 with err filled. */
int utrace_profile_check_sort(const char *keys, struct utrace_error *err);
/* The columns a sort order refers to (to show them). */
uint32_t utrace_profile_sort_fields(const char *keys);

/* Functions with at least one call, in sorted order. */
unsigned utrace_profile_count(const struct utrace_profile *p);
const struct utrace_profile_entry *utrace_profile_get(const struct utrace_profile *p, unsigned i);

/* "total,self,call", "all": column names as uftrace report -f takes them
 * (total total-avg total-min total-max self self-avg self-min self-max
 * call). */
int utrace_profile_parse_fields(const char *s, uint32_t *fields, struct utrace_error *err);
/*
 * The same for a subset of the columns (the call graph's): a name is
 * known only if its fields are all in allowed; the message for an
 * unknown one lists names, the ones the caller takes.
 */
int utrace_parse_fields(const char *s, uint32_t allowed, const char *names, uint32_t *fields,
			struct utrace_error *err);

/* The table, uftrace report's layout:
 *   "  Total time   Self time       Calls  Function" */
int utrace_profile_print(const struct utrace_profile *p, FILE *out, uint32_t fields,
			 struct utrace_error *err);

/* uftrace's time format: "%3u.%03u UU" in 10 columns, units us ms " s"
 * " m" " h", blank for 0.  Shared with the call graph. */
void utrace_print_time_unit(FILE *out, uint64_t ns);

#endif
