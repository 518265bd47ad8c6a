/* SPDX-License-Identifier: MIT */
/*
 * fuzz_mem.h - the made-up memory the fetch programs of the probe
 * harnesses run on (fuzz_probe.h's, fuzz_eprobe.c): 64 bytes, and the
 * load utrace_fetch_run reads it with; every address outside faults.
 */
#ifndef UTRACE_TESTS_FUZZ_MEM_H
#define UTRACE_TESTS_FUZZ_MEM_H

#include <stdint.h>

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

#endif
