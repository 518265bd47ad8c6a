/* SPDX-License-Identifier: MIT */
/*
 * synth_list.c - a synthetic event in `utrace list -e`'s listing
 * (synth_list.h): parsed as record --synthetic parses it, printed as the
 * program's own events are.
 */
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
