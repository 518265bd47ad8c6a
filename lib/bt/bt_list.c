/* SPDX-License-Identifier: MIT */
/*
 * bt_list.c - `utrace bt -l PATTERN`: the probes a program could attach,
 * one a line as bpftrace lists them ("uprobe:/bin/bash:readline"); the
 * pattern names a binary and globs its functions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_dwarf.h"
#include "lib/bt/bt_run_internal.h"

int utrace_bt_list(const char *pattern, bool verbose, FILE *out, struct utrace_error *err)
{
	char *copy, *type, *target, *func, **funcs = NULL;
	size_t n = 0;
	int ret;

	if (!pattern)
		return utrace_error_set(err, -EINVAL, "-l needs a PATTERN that names a binary: "
						      "uprobe:BIN:FUNC (a glob)");
	if (!(copy = strdup(pattern)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	type = copy;
	target = strchr(type, ':');
	func = target ? strchr(target + 1, ':') : NULL;
	if (!target || !func || (strcmp(type, "uprobe") && strncmp(type, "uprobe:", 7) &&
				 strcmp(type, "uretprobe") && strncmp(type, "uretprobe:", 10))) {
		free(copy);
		return utrace_error_set(err, -EINVAL, "%s: PATTERN is uprobe:BIN:FUNC", pattern);
	}
	*target++ = 0;
	*func++ = 0;
	ret = bt_resolve_funcs(target, func, &funcs, &n);
	if (ret < 0)
		utrace_error_set(err, ret, "%s: %s", target, strerror(-ret));
	for (size_t i = 0; i < n; i++) {
		if (ret >= 0)
			fprintf(out, "%s:%s:%s\n", type, target, funcs[i]);
		if (ret >= 0 && verbose) /* -lv: the parameters, through DWARF */
			bt_dwarf_list(target, funcs[i], out);
		free(funcs[i]);
	}
	free(funcs);
	free(copy);
	return ret < 0 ? ret : 0;
}
