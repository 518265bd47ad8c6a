/* SPDX-License-Identifier: MIT */
/*
 * synth_list.c - a synthetic event in `utrace list -e`'s listing
 * (synth_list.h): parsed as record --synthetic parses it, printed as the
 * program's own events are.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/hist/synth.h"
#include "lib/hist/synth_list.h"

int utrace_synth_list(struct utrace_prog_list *ls, const char *def, struct utrace_error *err)
{
	struct utrace_synth *sy;
	bool match;
	int code;

	if (utrace_synth_parse(def, 0, &sy, &code, err) < 0)
		return -1;
	match = utrace_prog_list_matches(ls, sy->fmt->system, sy->fmt->name);
	if (match && ls->format)
		fprintf(ls->out, "system: %s\n%s", sy->fmt->system, sy->format);
	else if (match)
		fprintf(ls->out, "%s:%s\n", sy->fmt->system, sy->fmt->name);
	ls->printed += match;
	utrace_synth_free(sy);
	return 0;
}

int utrace_list_events_defs(struct utrace_prog_list *ls, const char *prog,
			    const char *const *probes, int nprobes, const char *const *synths,
			    int nsynths, int *bad_synth, struct utrace_error *err)
{
	struct utrace_prog_list_found r;

	*bad_synth = -1;
	if (utrace_prog_list_events(ls, prog, probes, nprobes, &r, err) < 0)
		return -1;
	for (int i = 0; i < nsynths; i++)
		if (utrace_synth_list(ls, synths[i], err) < 0) {
			*bad_synth = i;
			return -1;
		}
	if (r.main == 0 && r.libs == 0 && !nprobes && !nsynths)
		return utrace_error_set(err, -ENOENT,
					"%s has no static tracepoints: define CREATE_TRACE_POINTS "
					"before including an events header (see <utrace/tracepoint.h>)",
					prog);
	return 0;
}
