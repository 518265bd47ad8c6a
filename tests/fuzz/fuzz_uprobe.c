/* SPDX-License-Identifier: MIT */
/*
 * fuzz_uprobe.c - the uprobe definition parser (lib/probes/uprobe.h):
 * "p:GRP/EVENT PATH:SYMBOL+OFFS FETCHARGS", "r ...", fetchargs with
 * their types, dereferences, arrays and bitfields (uprobe_args.c).
 *
 * The input is a whole definition; its PATH is looked up on disk, so the
 * seeds name small files that always exist (tests/fuzz/run.sh writes
 * seeds that name its ELF fixture).  A definition must parse or give an
 * error with its code, message and column; a parsed probe must print its
 * kernel line and take a new name.
 */
#include <errno.h>

#include "lib/probes/uprobe.h"
#include "tests/fuzz/fuzz.h"

static void use(struct utrace_uprobe *p)
{
	struct utrace_error err;
	uint64_t off;
	char line[256];

	(void)utrace_uprobe_kernel_line(p, line, sizeof(line));
	(void)utrace_uprobe_symbol(p, &off);
	for (unsigned i = 0; i <= utrace_uprobe_nargs(p); i++) {
		(void)utrace_uprobe_arg_name(p, i);
		(void)utrace_uprobe_arg_fetch(p, i);
		(void)utrace_uprobe_arg_type(p, i);
	}
	if (utrace_uprobe_set_name(p, "fuzz", "ev_1", &err) < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct utrace_error err = {0};
	struct utrace_uprobe *p;
	char *def = fuzz_str(data, size);
	int code = -1;

	if (utrace_uprobe_parse_code(def, &p, &code, &err) < 0) {
		if (!err.msg[0])
			abort();
	} else {
		use(p);
		utrace_uprobe_free(p);
	}
	free(def);
	return 0;
}
