/* SPDX-License-Identifier: MIT */
/*
 * report_profile.c - `utrace report --profile`'s pass: the selected events
 * into a per-function profile (profile.h), printed, with the summary of
 * the losses as utrace_report_print() counts them (report_profile.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/profile.h"
#include "lib/report/report_filter.h"
#include "lib/report/report_profile.h"
#include "lib/report/report_text.h"

struct profile_pass {
	struct utrace_profile *p;
	struct utrace_report_summary *sum;
};

static int profile_event(void *arg, const struct utrace_event *ev, struct utrace_error *err)
{
	struct profile_pass *pp = arg;

	if (ev->kind != UTRACE_EV_LOST)
		return utrace_profile_add(pp->p, ev, err);
	if (!(ev->flags & UTRACE_EVF_LOST_UNKNOWN))
		pp->sum->buf_lost[ev->buf] += ev->lost;
	return 0;
}

/* One pass over the selected events into the profile; counts the losses
 * and damaged sub-buffers into sum as utrace_report_print() does. */
static int profile_pass(struct utrace_dat *d, struct utrace_report_filter *f,
			struct utrace_profile *p, struct utrace_report_summary *sum,
			struct utrace_error *err)
{
	struct profile_pass pp = {p, sum};
	struct utrace_pass_stats st;
	int ret;

	memset(sum, 0, sizeof(*sum));
	sum->nr_bufs = utrace_dat_buffer_count(d);
	sum->buf_lost = calloc(sum->nr_bufs ? sum->nr_bufs : 1, sizeof(*sum->buf_lost));
	if (!sum->buf_lost)
		return utrace_error_set(err, -1, "%s: out of memory", utrace_dat_path(d));
	ret = utrace_report_filter_run(f, d, profile_event, &pp, &st, err);
	sum->events = st.events;
	sum->lost = st.lost;
	sum->lost_unknown = st.lost_unknown;
	sum->own = st.own;
	if (ret == 0 && (sum->warnings = st.damaged)) {
		snprintf(sum->warning, sizeof(sum->warning), "%s", st.damaged_first);
		sum->unread = st.unread;
		sum->unread_unknown = st.unread_unknown;
	}
	return ret;
}

int utrace_report_profile(struct utrace_dat *d, struct utrace_report_filter *f, const char *keys,
			  uint32_t fields, FILE *out, struct utrace_report_summary *sum,
			  uint64_t *unfinished, struct utrace_error *err)
{
	const char *tracer = utrace_dat_meta(d, "tracer");
	struct utrace_profile *p;
	int ret;

	/* the function tracer has no durations: only the calls */
	if (!fields && tracer && strcmp(tracer, "function_graph"))
		fields = UTRACE_PROFILE_CALLS;
	if (!fields)
		fields = UTRACE_PROFILE_DEFAULT_FIELDS | (keys ? utrace_profile_sort_fields(keys) : 0);
	*unfinished = 0;
	ret = utrace_profile_new(d, &p, err);
	if (ret < 0)
		return ret;
	ret = profile_pass(d, f, p, sum, err);
	if (ret == 0)
		ret = utrace_profile_finish(p, err);
	if (ret == 0 && keys)
		ret = utrace_profile_sort(p, keys, err);
	if (ret == 0)
		ret = utrace_profile_print(p, out, fields, err);
	if (ret == 0 && fflush(out) == EOF)
		ret =
		    utrace_error_set(err, -1, "%s: writing the profile failed", utrace_dat_path(d));
	if (ret == 0)
		*unfinished = utrace_profile_unfinished(p);
	utrace_profile_free(p);
	return ret;
}
