/* SPDX-License-Identifier: MIT */
/*
 * report_filter_opts.c - the report's selection options read into a
 * filter (utrace_report_filter_add): CPU lists, tids and pids, comm and
 * function globs, depth, and times as report prints them or elapsed
 * with a unit, each checked with the error the user sees; and their
 * help text.  What a pass does with them is report_filter.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/glob.h"
#include "lib/report/report_filter.h"
#include "lib/report/report_filter_internal.h"

static int bad(struct utrace_error *err, const char *key, const char *value, const char *why)
{
	return utrace_error_set(err, -EINVAL, "--%s '%s': %s", key, value, why);
}

/* A decimal number up to max; the end in *end. */
static int parse_uint(const char *s, const char **end, uint64_t max, uint64_t *v)
{
	uint64_t n = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		n = n * 10 + (uint64_t)(*s - '0');
		if (n > max)
			return -1;
	}
	*end = s;
	*v = n;
	return 0;
}

static int add_cpus(struct utrace_report_filter *f, const char *value, struct utrace_error *err)
{
	const char *s = value;

	for (;;) {
		uint64_t lo, hi;
		struct cpu_range *n;

		if (parse_uint(s, &s, UINT32_MAX - 1, &lo) < 0)
			return bad(err, "cpu", value, "expected CPU numbers like 0,2-3");
		hi = lo;
		if (*s == '-' && parse_uint(s + 1, &s, UINT32_MAX - 1, &hi) < 0)
			return bad(err, "cpu", value, "expected CPU numbers like 0,2-3");
		if (hi < lo)
			return bad(err, "cpu", value, "range ends before it starts");
		n = realloc(f->cpus, (f->nr_cpus + 1) * sizeof(*n));
		if (!n)
			return utrace_error_set(err, -ENOMEM, "out of memory");
		f->cpus = n;
		f->cpus[f->nr_cpus++] = (struct cpu_range){(uint32_t)lo, (uint32_t)hi};
		if (!*s)
			return 0;
		if (*s++ != ',')
			return bad(err, "cpu", value, "expected CPU numbers like 0,2-3");
	}
}

static int add_ids(int32_t **arr, size_t *nr, const char *key, const char *value,
		   struct utrace_error *err)
{
	const char *s = value;

	for (;;) {
		uint64_t v;
		int32_t *n;

		if (parse_uint(s, &s, INT32_MAX, &v) < 0 || (*s && *s != ','))
			return bad(err, key, value, "expected numbers separated by commas");
		n = realloc(*arr, (*nr + 1) * sizeof(*n));
		if (!n)
			return utrace_error_set(err, -ENOMEM, "out of memory");
		*arr = n;
		(*arr)[(*nr)++] = (int32_t)v;
		if (!*s)
			return 0;
		s++;
	}
}

static int add_glob(char ***arr, size_t *nr, const char *key, const char *value,
		    struct utrace_error *err)
{
	struct utrace_error gerr;
	char **n;

	if (!*value)
		return bad(err, key, value, "empty pattern");
	if (utrace_glob_check(value, &gerr) < 0)
		return utrace_error_set(err, -EINVAL, "--%s '%s': %s", key, value, gerr.msg);
	n = realloc(*arr, (*nr + 1) * sizeof(*n));
	if (!n)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	*arr = n;
	n[*nr] = strdup(value);
	if (!n[*nr])
		return utrace_error_set(err, -ENOMEM, "out of memory");
	(*nr)++;
	return 0;
}

/* "SECS[.FRAC]" (absolute) or "N[.FRAC]UNIT" (elapsed); the whole of s. */
static int parse_time(const char *s, struct tspec *t)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
	    {"ns", 1},
	    {"us", 1000},
	    {"ms", 1000000},
	    {"s", 1000000000ull},
	    {"m", 60000000000ull},
	    {"h", 3600000000000ull},
	};
	uint64_t ip, frac = 0, scale = 1, mult = 1000000000ull;
	unsigned __int128 v;
	const char *p;

	if (parse_uint(s, &p, UINT64_MAX / 10, &ip) < 0)
		return -1;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (scale >= 1000000000000000000ull)
				continue; /* finer than we can count */
			frac = frac * 10 + (uint64_t)(*p - '0');
			scale *= 10;
		}
	}
	t->elapsed = 0;
	if (*p) {
		size_t i;

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(p, units[i].name))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		mult = units[i].ns;
		t->elapsed = 1;
	}
	v = (unsigned __int128)ip * mult + (unsigned __int128)frac * mult / scale;
	if (v > UINT64_MAX)
		return -1;
	t->ns = (uint64_t)v;
	t->set = 1;
	return 0;
}

static int set_time(struct tspec *t, const char *key, const char *value, const char *s,
		    struct utrace_error *err)
{
	if (parse_time(s, t) < 0)
		return bad(err, key, value,
			   "expected a timestamp in seconds (12345.678901) or an elapsed time "
			   "with a unit (ns us ms s m h)");
	return 0;
}

/* A range whose end comes before its start selects nothing: refused, f
 * unchanged (when both ends are of a kind, elapsed or absolute, they
 * compare now). */
static int set_ends(struct utrace_report_filter *f, const char *key, const char *value,
		    struct tspec from, struct tspec to, struct utrace_error *err)
{
	if (from.set && to.set && from.elapsed == to.elapsed && from.ns > to.ns)
		return bad(err, key, value,
			   !strcmp(key, "time-range") ? "the start is after the end"
			   : !strcmp(key, "to")	      ? "before --from"
						      : "after --to");
	f->from = from;
	f->to = to;
	return 0;
}

static int set_range(struct utrace_report_filter *f, const char *value, struct utrace_error *err)
{
	struct tspec from = f->from, to = f->to;
	const char *tilde = strchr(value, '~');
	char start[64];
	size_t n;

	if (!tilde || tilde[1] == '~' || strchr(tilde + 1, '~'))
		return bad(err, "time-range", value, "expected START~END");
	n = (size_t)(tilde - value);
	if (n >= sizeof(start))
		return bad(err, "time-range", value, "start too long");
	memcpy(start, value, n);
	start[n] = '\0';
	if (!n && !tilde[1])
		return bad(err, "time-range", value, "give a start, an end or both");
	if (n && set_time(&from, "time-range", value, start, err) < 0)
		return -EINVAL;
	if (tilde[1] && set_time(&to, "time-range", value, tilde + 1, err) < 0)
		return -EINVAL;
	return set_ends(f, "time-range", value, from, to, err);
}

/* --from or --to alone */
static int set_end(struct utrace_report_filter *f, const char *key, const char *value,
		   struct utrace_error *err)
{
	struct tspec from = f->from, to = f->to;

	if (set_time(!strcmp(key, "from") ? &from : &to, key, value, value, err) < 0)
		return -EINVAL;
	return set_ends(f, key, value, from, to, err);
}

int utrace_report_filter_add(struct utrace_report_filter *f, const char *key, const char *value,
			     struct utrace_error *err)
{
	int ret;

	if (!strcmp(key, "cpu")) {
		ret = add_cpus(f, value, err);
	} else if (!strcmp(key, "tid")) {
		ret = add_ids(&f->tids, &f->nr_tids, key, value, err);
	} else if (!strcmp(key, "pid")) {
		ret = add_ids(&f->pids, &f->nr_pids, key, value, err);
	} else if (!strcmp(key, "comm")) {
		ret = add_glob(&f->comms, &f->nr_comms, key, value, err);
	} else if (!strcmp(key, "filter")) {
		ret = add_glob(&f->funcs, &f->nr_funcs, key, value, err);
	} else if (!strcmp(key, "depth")) {
		const char *end;
		uint64_t v;

		if (parse_uint(value, &end, NONE - 1, &v) < 0 || *end || !v)
			return bad(err, key, value, "expected a depth of 1 or more");
		f->max_depth = (uint32_t)v;
		ret = 0;
	} else if (!strcmp(key, "time-range")) {
		ret = set_range(f, value, err);
	} else if (!strcmp(key, "from") || !strcmp(key, "to")) {
		ret = set_end(f, key, value, err);
	} else {
		return utrace_error_set(err, -EINVAL, "unknown selection '%s'", key);
	}
	if (ret == 0)
		f->active = true;
	return ret;
}

const char *utrace_report_filter_short_key(int c)
{
	switch (c) {
	case 'F':
		return "filter";
	case 'D':
		return "depth";
	case 'r':
		return "time-range";
	default:
		return NULL;
	}
}

const char *utrace_report_filter_help(void)
{
	return "\nSelection (different options must all hold; repeated values or lists, any):\n"
	       "      --tid TID[,TID]    threads\n"
	       "      --pid PID[,PID]    every thread of the processes\n"
	       "      --comm GLOB        threads by name\n"
	       "      --cpu CPUS         the CPU an event was written on: 2 or 0,2-3\n"
	       "  -F, --filter GLOB      calls of matching functions and all they call\n"
	       "                         (depths counted from the matching function)\n"
	       "  -D, --depth N          calls less than N deep\n"
	       "  -r, --time-range START~END\n"
	       "      --from START, --to END\n"
	       "                         times as report prints them (12345.678901, seconds)\n"
	       "                         or elapsed since the first event with a unit:\n"
	       "                         ns us ms s m h (1.5ms~20ms)\n";
}

