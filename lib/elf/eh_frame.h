/* SPDX-License-Identifier: MIT */
/*
 * eh_frame.h - the code ranges the unwind table (.eh_frame) describes:
 * one per FDE.  In a stripped object they are where the functions are
 * (the linker keeps .eh_frame for exceptions and backtraces).
 */
#ifndef UTRACE_LIB_EH_FRAME_H
#define UTRACE_LIB_EH_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "lib/elf/elf.h"

struct utrace_fde_range {
	uint64_t start, size; /* ELF vaddrs */
	/* the rules at start are a function's entry: CFA = rsp + 8, the
	 * return address at CFA - 8, no other register saved (false for a
	 * cold part, which starts inside its function's frame, and for the
	 * program's entry point, whose return address is undefined) */
	int entry;
};

/*
 * Every FDE's range, sorted by start, duplicates removed, malloc'ed into
 * *out (NULL when none).  A record that cannot be parsed ends the walk
 * (what came before is kept).  0, or -ENOMEM.
 */
int utrace_elf_fde_ranges(const struct utrace_elf *elf, struct utrace_fde_range **out, size_t *n);

#endif
