/* SPDX-License-Identifier: MIT */
/*
 * fpatch_list.c - "utrace list -f PROGRAM" for an object without call
 * sites: the functions whose entries utrace record patches
 * (lib/probes/func_patch.h); with --why, those it leaves out and why,
 * "name<TAB>reason", and those it patches with an int3 instead of a jmp,
 * "name<TAB>int3: why not a jmp", and their counts.  Parts of functions (cold
 * code) are no functions and are not listed.
 */
#include <stdio.h>

#include "lib/probes/fpatch_list.h"
#include "lib/probes/func_patch.h"

long utrace_fpatch_list(FILE *out, const char *path, const char *module,
			const struct utrace_func_filter *filter, bool why,
			struct utrace_fpatch_counts *c, struct utrace_error *err)
{
	struct utrace_fpatch_plan plan;
	size_t left = 0, found;
	long printed = 0;

	if (utrace_fpatch_plan(path, &plan, err) < 0)
		return -1;
	found = plan.n - plan.count[UTRACE_FPATCH_PART];
	for (size_t i = 0; i < plan.n; i++) {
		const struct utrace_fpatch_func *f = &plan.f[i];

		if (f->why == UTRACE_FPATCH_PART ||
		    (why ? f->why == UTRACE_FPATCH_OK && !f->int3 : f->why != UTRACE_FPATCH_OK))
			continue;
		left += f->why != UTRACE_FPATCH_OK;
		if (filter &&
		    !(utrace_func_filter_select(filter, f->name, f->raw, path) & UTRACE_SITE_TRACE))
			continue;
		fprintf(out, "%s", f->name);
		if (module)
			fprintf(out, " [%s]", module);
		if (why && f->int3)
			fprintf(out, "\tint3: %s", utrace_fpatch_why_text(f->int3));
		else if (why)
			fprintf(out, "\t%s", utrace_fpatch_why_text(f->why));
		fprintf(out, "\n");
		printed++;
	}
	*c = (struct utrace_fpatch_counts){left, found, plan.nint3};
	utrace_fpatch_plan_free(&plan);
	return printed ? printed : (long)plan.count[UTRACE_FPATCH_OK];
}
