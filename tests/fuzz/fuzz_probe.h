/* SPDX-License-Identifier: MIT */
/*
 * fuzz_probe.h - what the probe parsers' harnesses (fuzz_kprobe.c,
 * fuzz_btfarg.c) do with a definition that parses: its format, its
 * compiled program (which must pass utrace_fetch_check) and one run of
 * it on made-up registers whose memory reads mostly fault (the run must
 * stay inside its record); symbols found at made-up addresses.
 */
#ifndef UTRACE_TESTS_FUZZ_PROBE_H
#define UTRACE_TESTS_FUZZ_PROBE_H

#include <stdlib.h>
#include <string.h>

#include "common/fetch_prog.h"
#include "lib/probes/inproc_probe.h"
#include "tests/fuzz/fuzz_mem.h"

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

#endif
