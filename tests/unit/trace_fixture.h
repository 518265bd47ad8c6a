/* SPDX-License-Identifier: MIT */
/*
 * trace_fixture.h - reads back the synthetic utrace.dat files of
 * dat_fixture.h for the tests of what reads them (report, report
 * --profile, graph, dump): a selection of one key=value, a trace opened,
 * the text something writes about it in a string, the call graph of a
 * pass, and golden comparisons of text.  An error is printed as a "# "
 * comment and makes the result NULL.  dat_fixture.h comes with it.
 */
#ifndef UTRACE_TESTS_TRACE_FIXTURE_H
#define UTRACE_TESTS_TRACE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/callgraph.h"
#include "lib/tracefile/dat_reader.h"
#include "lib/report/report_filter.h"
#include "lib/report/report_text.h"
#include "tests/unit/dat_fixture.h"

/* The selection key=value; NULL (every event) if key is NULL. */
static inline struct utrace_report_filter *fx_filter(const char *key, const char *value)
{
	struct utrace_report_filter *f = NULL;
	struct utrace_error err;

	if (!key)
		return NULL;
	utrace_report_filter_new(&f, &err);
	if (utrace_report_filter_add(f, key, value, &err) < 0)
		printf("# %s\n", err.msg);
	return f;
}

static inline struct utrace_dat *fx_open(const char *path)
{
	struct utrace_error err;
	struct utrace_dat *d;

	if (utrace_dat_open(path, &d, &err) < 0) {
		printf("# %s\n", err.msg);
		return NULL;
	}
	return d;
}

/* What fn writes to out about the trace at path, in malloc'd memory;
 * fn returns 0, or <0 with err set. */
static inline char *
fx_text(const char *path,
	int (*fn)(struct utrace_dat *d, FILE *out, void *arg, struct utrace_error *err), void *arg)
{
	struct utrace_dat *d = fx_open(path);
	struct utrace_error err;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	int ret;

	if (!d)
		return NULL;
	out = open_memstream(&text, &len);
	ret = fn(d, out, arg, &err);
	fclose(out);
	utrace_dat_close(d);
	if (ret < 0) {
		printf("# %s\n", err.msg);
		free(text);
		return NULL;
	}
	return text;
}

struct fx_report_args {
	const struct utrace_report_opts *opts;
	struct utrace_report_summary *sum;
};

static inline int fx_report_write(struct utrace_dat *d, FILE *out, void *arg,
				  struct utrace_error *err)
{
	const struct fx_report_args *a = arg;

	return utrace_report_print(d, out, a->opts, a->sum, err);
}

/* The text report of path (utrace_report_print(), sum as it takes it). */
static inline char *fx_report(const char *path, const struct utrace_report_opts *opts,
			      struct utrace_report_summary *sum)
{
	struct fx_report_args a = {opts, sum};

	return fx_text(path, fx_report_write, &a);
}

static inline int fx_callgraph_add(void *arg, const struct utrace_event *ev,
				   struct utrace_error *err)
{
	return utrace_callgraph_add(arg, ev, err);
}

/* The call graph of one pass over d, f applied (NULL: all), into *g,
 * which the caller frees (even on an error: it may be NULL). */
static inline int fx_callgraph(struct utrace_dat *d, struct utrace_report_filter *f,
			       struct utrace_callgraph **g, struct utrace_error *err)
{
	struct utrace_pass_stats st;
	int ret;

	*g = NULL;
	ret = utrace_callgraph_new(d, g, err);
	if (ret == 0)
		ret = utrace_report_filter_run(f, d, fx_callgraph_add, *g, &st, err);
	if (ret == 0)
		ret = utrace_callgraph_finish(*g, err);
	return ret;
}

/* Checks that got is want; if not, prints both as comments. */
static inline void fx_golden(const char *what, const char *got, const char *want)
{
	int ok = got && !strcmp(got, want);

	check(ok, "%s", what);
	if (!ok)
		printf("# want:\n%s# got:\n%s", want, got ? got : "(error)\n");
}

/* fx_golden(), then frees got. */
static inline void fx_golden_free(const char *what, char *got, const char *want)
{
	fx_golden(what, got, want);
	free(got);
}

#endif
