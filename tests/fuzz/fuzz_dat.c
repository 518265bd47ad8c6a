/* SPDX-License-Identifier: MIT */
/*
 * fuzz_dat.c - the utrace.dat reader on arbitrary files: open, every
 * event through the iterator with its names, the samples (PERF records),
 * then what `utrace report` does with a file: the text report, the
 * per-thread statistics, the profile and the call graph, and each
 * snapshot (SNAPSHOT, SNAP_PAGE records) opened and printed as its own.  A damaged file
 * must give an error with a message or warnings, never a fault, a leak
 * or undefined behaviour (lib/tracefile/dat_reader.h).
 */
#include "lib/report/callgraph.h"
#include "lib/report/report_hist.h"
#include "lib/report/profile.h"
#include "lib/report/report_filter.h"
#include "lib/report/report_snapshot.h"
#include "lib/report/report_text.h"
#include "lib/report/samples.h"
#include "lib/tracefile/dat_reader.h"
#include "lib/tracefile/dat_samples.h"
#include "tests/fuzz/fuzz.h"

/* A failing call must say why: an empty message is a bug too. */
static void check_err(int ret, const struct utrace_error *err)
{
	if (ret < 0 && !err->msg[0])
		abort();
}

static void iterate(struct utrace_dat *d)
{
	struct utrace_dat_iter *it;
	struct utrace_error err = {0};
	struct utrace_event ev;
	uint64_t addr, off;
	int ret;

	ret = utrace_dat_iter_open(d, &it, &err);
	check_err(ret, &err);
	if (ret < 0)
		return;
	while ((ret = utrace_dat_iter_next(it, &ev, &err)) > 0) {
		(void)utrace_dat_func_name(d, ev.image, ev.id);
		(void)utrace_dat_func_addr(d, ev.image, ev.id, &addr);
		(void)utrace_dat_addr_name(d, ev.image, ev.parent_ip, &off);
		(void)utrace_dat_buffer_get(d, ev.buf);
		(void)utrace_dat_comm(d, ev.tid);
	}
	check_err(ret, &err);
	(void)utrace_dat_iter_warning(it);
	utrace_dat_iter_close(it);
}

static int sample(void *arg, const struct utrace_dat_sample *s, struct utrace_error *err)
{
	uint64_t off;

	(void)utrace_dat_sample_map(arg, s->pid, s->ip, &off);
	(void)utrace_dat_sample_comm(arg, s->tid);
	return 0;
}

static void samples(struct utrace_dat *d)
{
	struct utrace_samples_opts o = {
	    {UTRACE_SAMPLE_COMM, UTRACE_SAMPLE_DSO, UTRACE_SAMPLE_SYM}, 3, UTRACE_GRAPH_NONE, false};
	struct utrace_error err = {0};
	uint64_t lost;

	if (!utrace_dat_has_samples(d, NULL, NULL))
		return;
	check_err(utrace_dat_samples_each(d, sample, d, &lost, &err), &err);
	check_err(utrace_samples_report(d, &o, fuzz_sink(), &err), &err);
	/* the chains' trees too, when the file has them (unwound from the
	 * stack copies of --call-graph dwarf: registers and copy are input) */
	o.graph = UTRACE_GRAPH_DEFAULT;
	o.children = true;
	if (utrace_dat_samples_have_chains(d))
		check_err(utrace_samples_report(d, &o, fuzz_sink(), &err), &err);
}

static void report(struct utrace_dat *d)
{
	struct utrace_report_summary sum;
	struct utrace_report_opts opts;
	struct utrace_error err = {0};

	utrace_report_opts_init(&opts);
	opts.flags |= UTRACE_REPORT_PROC | UTRACE_REPORT_ABSTIME | UTRACE_REPORT_TAIL;
	check_err(utrace_report_print(d, fuzz_sink(), &opts, &sum, &err), &err);
	utrace_report_summary_free(&sum);
	check_err(utrace_report_print_stat(d, fuzz_sink(), NULL, &err), &err);
	/* report --hist: HIST records, checked when the file was opened */
	check_err(utrace_report_print_hist(d, fuzz_sink(), NULL, &err), &err);
	/* report --snapshot: the file reopened as each snapshot */
	check_err(utrace_report_print_snapshots(d, fuzz_sink(), &opts, &err), &err);
}

struct pass {
	struct utrace_profile *p;
	struct utrace_callgraph *g;
};

static int add(void *arg, const struct utrace_event *ev, struct utrace_error *err)
{
	struct pass *ps = arg;

	if (ev->kind == UTRACE_EV_LOST)
		return 0;
	if (utrace_profile_add(ps->p, ev, err) < 0)
		return -1;
	return utrace_callgraph_add(ps->g, ev, err);
}

/* `utrace report --profile` and `utrace graph` in one pass. */
static void profile(struct utrace_dat *d)
{
	struct utrace_pass_stats st;
	struct utrace_error err = {0};
	struct pass ps = {0};
	int ret;

	ret = utrace_profile_new(d, &ps.p, &err);
	if (ret == 0)
		ret = utrace_callgraph_new(d, &ps.g, &err);
	if (ret == 0)
		ret = utrace_report_filter_run(NULL, d, add, &ps, &st, &err);
	if (ret == 0)
		ret = utrace_profile_finish(ps.p, &err);
	if (ret == 0)
		ret = utrace_callgraph_finish(ps.g, &err);
	if (ret == 0)
		ret = utrace_profile_print(ps.p, fuzz_sink(), UTRACE_PROFILE_ALL_FIELDS, &err);
	if (ret == 0)
		ret = utrace_callgraph_print_all(ps.g, fuzz_sink(), UTRACE_PROFILE_TOTAL, 0, &err);
	check_err(ret, &err);
	utrace_callgraph_free(ps.g);
	utrace_profile_free(ps.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct utrace_error err = {0};
	struct utrace_dat *d;
	int ret;

	ret = utrace_dat_open(fuzz_file(data, size), &d, &err);
	check_err(ret, &err);
	if (ret < 0)
		return 0;
	iterate(d);
	samples(d);
	report(d);
	profile(d);
	/* a snapshot's events, as the iterator gives them (its cut, stacks) */
	if (utrace_dat_snapshot_count(d)) {
		struct utrace_dat *sd;

		ret = utrace_dat_open_snapshot(utrace_dat_path(d),
					       utrace_dat_snapshot_get(d, 0)->id, &sd, &err);
		check_err(ret, &err);
		if (ret == 0) {
			iterate(sd);
			utrace_dat_close(sd);
		}
	}
	utrace_dat_close(d);
	return 0;
}
