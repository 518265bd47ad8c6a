/* SPDX-License-Identifier: MIT */
/*
 * export_dump.c - `utrace dump`'s formats, one pass over the selected
 * events each (export_dump.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/export/export_chrome.h"
#include "lib/export/export_diff.h"
#include "lib/export/export_dump.h"
#include "lib/export/export_flame.h"
#include "lib/export/export_perfetto.h"
#include "lib/export/export_pprof.h"
#include "lib/export/export_svg.h"
#include "lib/report/callgraph.h"
#include "lib/report/report_signal.h"
#include "lib/report/samples.h"
#include "lib/tracefile/dat_samples.h"

struct raw {
	struct utrace_dat *d;
	FILE *out;
};

static int raw_event(void *arg, const struct utrace_event *ev, struct utrace_error *err)
{
	static const char *const kinds[] = {"?",    "entry", "exit",  "leaf",  "func",
					    "lost", "event", "print", "stack", "signal"};
	char sig[256];
	struct raw *r = arg;
	FILE *out = r->out;

	fprintf(out, "%5" PRIu64 ".%09" PRIu64 " %7d/%-7d [%03u] %-5s", ev->ts / 1000000000u,
		ev->ts % 1000000000u, ev->pid, ev->tid, ev->cpu,
		ev->kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[ev->kind] : "?");
	switch (ev->kind) {
	case UTRACE_EV_ENTRY:
		fprintf(out, " depth=%u %s\n", ev->depth,
			utrace_dat_func_name(r->d, ev->image, ev->id));
		break;
	case UTRACE_EV_LEAF:
		fprintf(out, " depth=%u %s %" PRIu64 " ns\n", ev->depth,
			utrace_dat_func_name(r->d, ev->image, ev->id), ev->duration);
		break;
	case UTRACE_EV_EXIT:
		fprintf(out, " depth=%u %s", ev->depth,
			(ev->flags & UTRACE_EVF_NO_ID)
			    ? "?"
			    : utrace_dat_func_name(r->d, ev->image, ev->id));
		if (!(ev->flags & UTRACE_EVF_NO_DURATION))
			fprintf(out, " %" PRIu64 " ns", ev->duration);
		fprintf(out, "%s%s%s\n", (ev->flags & UTRACE_EVF_NO_ENTRY) ? " (no entry)" : "",
			(ev->flags & UTRACE_EVF_UNWIND) ? " (unwound)" : "",
			(ev->flags & UTRACE_EVF_THRESH) ? " (thresh)" : "");
		break;
	case UTRACE_EV_FUNC:
		fprintf(out, " %s <- %#" PRIx64 "\n", utrace_dat_func_name(r->d, ev->image, ev->id),
			ev->parent_ip);
		break;
	case UTRACE_EV_LOST:
		if (ev->flags & UTRACE_EVF_LOST_UNKNOWN)
			fputs(" ? events\n", out);
		else
			fprintf(out, " %" PRIu64 " events\n", ev->lost);
		break;
	case UTRACE_EV_PRINT:
		fprintf(out, " %.*s\n", (int)ev->data_len, (const char *)ev->data);
		break;
	case UTRACE_EV_SIGNAL:
		utrace_report_signal_text(r->d, ev, sig, sizeof(sig));
		fprintf(out, " depth=%u %s\n", ev->depth, sig);
		break;
	default:
		fprintf(out, " id=%u %u bytes\n", ev->id, ev->data_len);
		break;
	}
	if (ferror(out))
		return utrace_error_set(err, -EIO, "writing the dump failed");
	return 0;
}

static int chrome_event(void *arg, const struct utrace_event *ev, struct utrace_error *err)
{
	return utrace_chrome_event(arg, ev, err);
}

static int perfetto_event(void *arg, const struct utrace_event *ev, struct utrace_error *err)
{
	return utrace_perfetto_event(arg, ev, err);
}

static int graph_event(void *arg, const struct utrace_event *ev, struct utrace_error *err)
{
	return utrace_callgraph_add(arg, ev, err);
}

/* The traced program's file: the first image's. */
static const char *program(struct utrace_dat *d)
{
	const struct utrace_dat_image_info *im =
	    utrace_dat_image_count(d) ? utrace_dat_image_get(d, 0) : NULL;

	return im && im->exe[0] ? im->exe : NULL;
}

/* Whether g has no path at all (a recording without calls). */
static int count_node(void *arg, const struct utrace_callgraph_node *n)
{
	(void)n;
	++*(uint64_t *)arg;
	return 1;
}

static bool graph_empty(const struct utrace_callgraph *g)
{
	uint64_t n = 0;

	utrace_callgraph_walk(g, count_node, &n);
	return n == 0;
}

/* The call graph of d from the functions' durations (through the
 * selection) or from its samples, as src says; auto: the samples when
 * the functions give nothing and the file has samples. */
static int build_graph(struct utrace_dat *d, struct utrace_report_filter *f,
		       enum utrace_dump_source src, struct utrace_callgraph **out,
		       struct utrace_pass_stats *st, struct utrace_error *err)
{
	struct utrace_callgraph *g;
	int ret;

	*out = NULL;
	if (src == UTRACE_DUMP_SAMPLES)
		return utrace_samples_callgraph(d, out, err);
	ret = utrace_callgraph_new(d, &g, err);
	if (ret < 0)
		return ret;
	ret = utrace_report_filter_run(f, d, graph_event, g, st, err);
	if (ret == 0)
		ret = utrace_callgraph_finish(g, err);
	if (ret == 0 && src == UTRACE_DUMP_AUTO && graph_empty(g) &&
	    utrace_dat_has_samples(d, NULL, NULL)) {
		utrace_callgraph_free(g);
		return utrace_samples_callgraph(d, out, err);
	}
	if (ret < 0)
		utrace_callgraph_free(g);
	else
		*out = g;
	return ret;
}

/* --diff: BASE's call paths, through the same selection and source as
 * the graph's. */
static int load_base(const char *path, struct utrace_report_filter *f, enum utrace_dump_source src,
		     struct utrace_flame_diff **out, struct utrace_error *err)
{
	struct utrace_pass_stats st;
	struct utrace_callgraph *g;
	struct utrace_dat *b;
	int ret = utrace_dat_open(path, &b, err);

	if (ret == 0)
		ret = build_graph(b, f, src, &g, &st, err);
	else
		b = NULL;
	if (ret == 0) {
		ret = utrace_flame_diff_new(g, out, err);
		utrace_callgraph_free(g);
	}
	if (ret < 0) { /* about BASE, not the graph's file */
		struct utrace_error e = *err;

		utrace_error_set(err, ret, "--diff: %s", e.msg);
	}
	if (b)
		utrace_dat_close(b);
	return ret;
}

int utrace_export_dump(struct utrace_dat *d, struct utrace_report_filter *f,
		       const struct utrace_dump_opts *a, FILE *out, struct utrace_pass_stats *st,
		       struct utrace_error *err)
{
	struct utrace_callgraph *g;
	struct utrace_perfetto *p;
	struct utrace_chrome *c;
	struct raw r = {d, out};
	struct utrace_svg_opts svg_opts = a->svg_opts;
	int ret;

	switch (a->fmt) {
	case UTRACE_DUMP_CHROME:
		ret = utrace_chrome_begin(d, f, out, a->chrome_flags, &c, err);
		if (ret < 0)
			return ret;
		ret = utrace_report_filter_run(f, d, chrome_event, c, st, err);
		if (ret < 0) {
			utrace_chrome_end(c, NULL);
			return ret;
		}
		return utrace_chrome_end(c, err);
	case UTRACE_DUMP_PERFETTO:
		ret = utrace_perfetto_begin(d, f, out, &p, err);
		if (ret < 0)
			return ret;
		ret = utrace_report_filter_run(f, d, perfetto_event, p, st, err);
		if (ret < 0) {
			utrace_perfetto_end(p, NULL);
			return ret;
		}
		return utrace_perfetto_end(p, err);
	case UTRACE_DUMP_FLAME:
	case UTRACE_DUMP_PPROF:
		if (a->diff && load_base(a->diff, f, a->source, &svg_opts.diff, err) < 0)
			return -1;
		ret = build_graph(d, f, a->source, &g, st, err);
		if (ret < 0) {
			utrace_flame_diff_free(svg_opts.diff);
			return ret;
		}
		if (ret == 0)
			ret = a->fmt == UTRACE_DUMP_PPROF && utrace_callgraph_sampled(g)
				  ? utrace_export_pprof_samples(d, out, err)
			      : a->fmt == UTRACE_DUMP_PPROF
				  ? utrace_export_pprof(g, program(d), out, err)
			      : a->svg ? utrace_export_svg(g, &svg_opts, out, err)
				       : utrace_export_flame(g, out, a->unit, err);
		utrace_callgraph_free(g);
		utrace_flame_diff_free(svg_opts.diff);
		return ret;
	default:
		return utrace_report_filter_run(f, d, raw_event, &r, st, err);
	}
}
