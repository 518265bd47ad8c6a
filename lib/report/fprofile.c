/* SPDX-License-Identifier: MIT */
/*
 * fprofile.c - trace_stat/functionN of the live tracefs: the kernel's
 * function profiler (kernel/trace/ftrace.c, with the graph tracer: each
 * call timed from entry to return, children included, graph-time's
 * default) made from the function_graph calls a recording holds.
 *
 * The kernel's profiler keeps per CPU, per function, the hits, the sum
 * of the call times and the sum of their squares, and prints
 *
 *   "  %-30.30s  %10lu" name, hits, then "    " and three durations:
 *   total, average, s^2 = (n * sum(x^2) - sum(x)^2) / (n * (n-1) * 1000)
 *
 * (trace_print_graph_duration), sorted by total time, largest first.
 * Here one pass over the file: each EXIT (the reader pairs it with its
 * ENTRY and gives its duration) and each LEAF (tracing_thresh's call in
 * one record) inside the window, counted on the CPU it returned on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/report/fprofile.h"
#include "lib/report/func_table.h"

struct fp_entry {
	uint32_t fn;
	uint64_t hits, time;
	unsigned __int128 time_sq;
};

struct fp_table {
	struct utrace_func_table *ft;
	struct fp_entry *e; /* by function number; hits 0: none */
	size_t cap;
};

void utrace_fprofile_duration(FILE *out, uint64_t ns)
{
	char us[24];
	int len = snprintf(us, sizeof(us), "%llu", (unsigned long long)(ns / 1000));

	fputs(us, out);
	if (len < 7) { /* nsecs, at most 7 digits in all */
		char nsecs[5];

		snprintf(nsecs, (size_t)(8 - len < 5 ? 8 - len : 5), "%03u", (unsigned)(ns % 1000));
		fprintf(out, ".%s", nsecs);
		len += (int)strlen(nsecs) + 1;
	}
	fputs(" us ", out);
	for (; len < 8; len++)
		fputc(' ', out);
}

/* One call of ev's function, dur ns. */
static int fp_add(struct fp_table *t, const struct utrace_event *ev, uint64_t dur,
		  struct utrace_error *err)
{
	uint32_t fn;
	int ret = utrace_func_table_lookup(t->ft, ev->image, ev->id, &fn, err);

	if (ret < 0)
		return ret;
	if (UTRACE_GROW_ZERO(t->e, t->cap, (size_t)fn + 1) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	t->e[fn].fn = fn;
	t->e[fn].hits++;
	t->e[fn].time += dur;
	t->e[fn].time_sq += (unsigned __int128)dur * dur;
	return 0;
}

/* A call of ev (an EXIT or a LEAF) that entered and returned in the
 * window, on cpu: its duration in *dur. */
static bool fp_counts(const struct utrace_event *ev, int cpu, uint64_t from, uint64_t to,
		      uint64_t *dur)
{
	uint64_t entry, exit;

	if ((ev->kind != UTRACE_EV_EXIT && ev->kind != UTRACE_EV_LEAF) || (int)ev->cpu != cpu ||
	    ev->id == UTRACE_DAT_NO_ID || (ev->flags & (UTRACE_EVF_NO_ID | UTRACE_EVF_NO_DURATION)))
		return false;
	entry = ev->kind == UTRACE_EV_LEAF ? ev->ts : ev->ts - ev->duration;
	exit = entry + ev->duration;
	*dur = ev->duration;
	return entry >= from && (!to || exit <= to);
}

static int fp_cmp(const void *a, const void *b)
{
	const struct fp_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? 1 : -1;
	return x->fn < y->fn ? -1 : x->fn > y->fn;
}

static void fp_line(FILE *out, const struct fp_table *t, const struct fp_entry *e)
{
	uint64_t avg = e->time / e->hits, sd = 0;
	unsigned __int128 denom = (unsigned __int128)e->hits * (e->hits - 1) * 1000;

	if (denom) {
		unsigned __int128 n_sq = e->hits * e->time_sq;
		unsigned __int128 sq = (unsigned __int128)e->time * e->time;

		sd = (uint64_t)((n_sq > sq ? n_sq - sq : 0) / denom);
	}
	fprintf(out, "  %-30.30s  %10llu    ", utrace_func_table_name(t->ft, e->fn),
		(unsigned long long)e->hits);
	utrace_fprofile_duration(out, e->time);
	fputs("    ", out);
	utrace_fprofile_duration(out, avg);
	fputs("    ", out);
	utrace_fprofile_duration(out, sd);
	fputc('\n', out);
}

/* The table's lines, sorted; the functions counted moved to the front. */
static void fp_print(FILE *out, struct fp_table *t, uint64_t thresh_ns)
{
	size_t n = 0;

	for (size_t i = 0; i < t->cap; i++)
		if (t->e[i].hits)
			t->e[n++] = t->e[i];
	if (n) /* an empty table has no array: qsort's is nonnull */
		qsort(t->e, n, sizeof(*t->e), fp_cmp);
	for (size_t i = 0; i < n; i++)
		if (!thresh_ns || t->e[i].time / t->e[i].hits >= thresh_ns)
			fp_line(out, t, &t->e[i]);
}

int utrace_fprofile_print(struct utrace_dat *d, FILE *out, int cpu, uint64_t from_ns,
			  uint64_t to_ns, uint64_t thresh_ns, struct utrace_error *err)
{
	struct fp_table t = {0};
	struct utrace_dat_iter *it = NULL;
	struct utrace_event ev;
	uint64_t dur;
	int ret;

	if ((ret = utrace_func_table_new(d, &t.ft, err)) < 0 ||
	    (ret = utrace_dat_iter_open(d, &it, err)) < 0)
		goto out;
	while ((ret = utrace_dat_iter_next(it, &ev, err)) > 0)
		if (fp_counts(&ev, cpu, from_ns, to_ns, &dur) && (ret = fp_add(&t, &ev, dur, err)) < 0)
			break;
	if (ret < 0)
		goto out;
	fputs("  Function                               Hit    Time            Avg             s^2\n"
	      "  --------                               ---    ----            ---             ---\n",
	      out);
	fp_print(out, &t, thresh_ns);
out:
	if (it)
		utrace_dat_iter_close(it);
	utrace_func_table_free(t.ft);
	free(t.e);
	return ret < 0 ? ret : 0;
}
