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

#include "common/fetch_prog.h"
#include "lib/probes/inproc_probe.h"
#include "tests/fuzz/fuzz.h"

static uint8_t mem[64];

static int load(uint64_t addr, unsigned size, uint64_t *out)
{
	uint64_t v = 0, base = (uint64_t)(uintptr_t)mem;

	if (addr < base || addr - base > sizeof(mem) - size)
		return -1;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)mem[addr - base + i] << (8 * i);
	*out = v;
	return 0;
}

static int sym(void *arg, const char *name, uint64_t *addr)
{
	(void)arg;
	*addr = (uint64_t)(uintptr_t)mem + (strlen(name) & 31);
	return name[0] == 'n' ? -1 : 0; /* some are not found */
}

static void use(const struct utrace_inproc_probe *p)
{
	static uint8_t rec[UTRACE_FETCH_REC_MAX];
	struct utrace_fetch_regs regs;
	struct utrace_error err = {0};
	uint32_t len, n;
	void *prog;

	if (utrace_inproc_probe_kind(p) != UTRACE_IPP_REMOVE &&
	    (!utrace_inproc_probe_format(p) || !utrace_inproc_probe_format_text(p)))
		abort();
	if (utrace_inproc_probe_kind(p) == UTRACE_IPP_REMOVE ||
	    utrace_inproc_probe_compile(p, sym, NULL, &prog, &len, &err) < 0)
		return;
	if (utrace_fetch_check(prog, len) < 0)
		abort(); /* the compiler made a program the runtime would refuse */
	for (int i = 0; i < UTRACE_FR_MAX; i++)
		regs.r[i] = (uint64_t)(uintptr_t)mem + (uint64_t)(i * 7 % 64) - (i & 1 ? 0 : 4096);
	n = utrace_fetch_run(prog, &regs, regs.r, "fuzz", rec, sizeof(rec), load);
	if (n > sizeof(rec))
		abort();
	free(prog);
}

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
