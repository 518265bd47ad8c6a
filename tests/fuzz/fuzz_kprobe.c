/* SPDX-License-Identifier: MIT */
/*
 * fuzz_kprobe.c - the in-process probe parser and fetch-arg compiler
 * (lib/probes/inproc_probe.h, common/fetch_prog.h): "p:GRP/EVENT SYM+OFFS
 * FETCHARGS", r:, f:, -:, then, for a definition that parses, its
 * format, its compiled program and one run of it (tests/fuzz/fuzz_probe.h).
 */
#include <errno.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct utrace_error err = {0};
	struct utrace_inproc_probe *p;
	char *def = fuzz_str(data, size);
	int code = -1;

	if (utrace_inproc_probe_parse(def, NULL, &p, &code, &err) < 0) {
		if (!err.msg[0])
			abort();
	} else {
		use(p);
		utrace_inproc_probe_free(p);
	}
	/* the same as a uprobe_events line (PATH:OFFSET, PATH:SYMBOL) */
	if (utrace_inproc_probe_parse_as(def, NULL, "uprobes", true, &p, &code, &err) < 0) {
		if (!err.msg[0])
			abort();
	} else {
		use(p);
		utrace_inproc_probe_free(p);
	}
	(void)utrace_inproc_probe_is_in_process(def);
	free(def);
	return 0;
}
