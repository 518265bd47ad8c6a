/* SPDX-License-Identifier: MIT */
/*
 * fuzz_btfarg.c - in-process probe definitions parsed against a program
 * with DWARF (UTRACE_FUZZ_TARGET: tests/fuzz/target.c built with -g, which
 * tests/fuzz/run.sh sets), so that parameter names, $arg*, $argN, $retval
 * and their ->/. fields go through the kernel's BTF arguments from DWARF
 * (lib/probes/inproc_probe_btf.c, dwarf_btfarg.c): a refusal has its
 * message, a probe has a name and a text for each argument, its format,
 * and a compiled program the runtime takes, run on made-up registers
 * whose memory reads mostly fault.  (A harness of its own: a parse that
 * reads ELF and DWARF is a hundred times slower than fuzz_kprobe's.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *target = getenv("UTRACE_FUZZ_TARGET");
	struct utrace_error err = {0};
	struct utrace_inproc_probe *p;
	char *def;
	int code = -1;

	if (!target)
		return 0;
	def = fuzz_str(data, size);
	if (utrace_inproc_probe_parse(def, target, &p, &code, &err) < 0) {
		if (!err.msg[0])
			abort();
	} else {
		for (unsigned i = 0; i < utrace_inproc_probe_nargs(p); i++) {
			const char *comm = NULL;

			if (!utrace_inproc_probe_arg(p, i, &comm) || !comm)
				abort();
		}
		use(p);
		utrace_inproc_probe_free(p);
	}
	free(def);
	return 0;
}
