/* SPDX-License-Identifier: MIT */
/*
 * list_fpatch.c - "utrace list -f PROGRAM" for an object without call
 * sites: the functions whose entries utrace record patches
 * (lib/probes/func_patch.h); with --why, those it leaves out and why,
 * "name<TAB>reason", and those it patches with an int3 instead of a jmp,
 * "name<TAB>int3: why not a jmp", then the counts on stderr.  Parts of functions (cold
 * code) are no functions and are not listed.
 */
#include <stdio.h>

#include "cmds/cmds.h"
#include "lib/probes/fpatch_list.h"
#include "lib/probes/func_patch.h"

long list_fpatch(const char *path, const char *module, const struct utrace_func_filter *filter,
		 bool why)
{
	struct utrace_fpatch_plan plan;
	struct utrace_error err = {0};
	size_t left = 0, found;
	long printed = 0;

	if (utrace_fpatch_plan(path, &plan, &err) < 0) {
		utrace_die_msg("list", "%s", err.msg);
		return -1;
	}
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
		printf("%s", f->name);
		if (module)
			printf(" [%s]", module);
		if (why && f->int3)
			printf("\tint3: %s", utrace_fpatch_why_text(f->int3));
		else if (why)
			printf("\t%s", utrace_fpatch_why_text(f->why));
		printf("\n");
		printed++;
	}
	if (why)
		fprintf(stderr,
			"utrace list: %s: %zu of %zu functions left out, %zu patched with int3\n",
			path, left, found, plan.nint3);
	utrace_fpatch_plan_free(&plan);
	return printed ? printed : (long)plan.count[UTRACE_FPATCH_OK];
}
