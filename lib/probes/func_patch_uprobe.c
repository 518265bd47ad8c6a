/* SPDX-License-Identifier: MIT */
/*
 * func_patch_uprobe.c - the entries of a plan (func_patch.c) that the
 * recording's own kernel uprobes keep for themselves.
 *
 * A kernel uprobe is an int3 the kernel writes into every process that
 * maps the probed file (uprobe_mmap), at the probe's offset.  An entry
 * patch writes a jmp (or an int3 of its own) over the first bytes of the
 * function and runs the file's displaced bytes from its slot: a uprobe
 * there would never fire again.  The plan is made from the file's bytes
 * (lib/elf maps files shared, so the kernel's int3s are not in its
 * view), so the probes the recording made are left out by name, which
 * makes the plan the same whatever order the probes and the process come
 * in.  The runtime also leaves an entry alone whose bytes in memory are
 * not the file's (runtime/func_patch.c): another tool's uprobe.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/probes/func_patch.h"
#include "lib/probes/uprobe_internal.h"

#define FPU_ID_MAX 64

/* Whether a and b (at pa, pb) are the same file: the same build id, or
 * the same inode when either has none. */
static bool fpu_same_file(const struct upr_file *a, const char *pa, const struct upr_file *b,
			  const char *pb)
{
	uint8_t ia[FPU_ID_MAX], ib[FPU_ID_MAX];
	int la = utrace_elf_build_id(a->elf, ia, sizeof(ia));
	int lb = utrace_elf_build_id(b->elf, ib, sizeof(ib));
	struct stat sa, sb;

	if (la > 0 && lb > 0)
		return la == lb && !memcmp(ia, ib, (size_t)la);
	return !stat(pa, &sa) && !stat(pb, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The OK entries whose bytes, from the function's start to the end of
 * those the entry displaces, hold vaddr: left out as UPROBE. */
static size_t fpu_leave_out(struct utrace_fpatch_plan *plan, uint64_t vaddr)
{
	size_t n = 0;

	for (size_t i = 0; i < plan->n; i++) {
		struct utrace_fpatch_func *f = &plan->f[i];

		if (f->why != UTRACE_FPATCH_OK || vaddr < f->func || vaddr >= f->addr + f->len)
			continue;
		f->why = UTRACE_FPATCH_UPROBE;
		plan->count[UTRACE_FPATCH_OK]--;
		plan->count[UTRACE_FPATCH_UPROBE]++;
		if (f->int3) {
			f->int3 = 0;
			plan->nint3--;
		}
		n++;
	}
	return n;
}

size_t utrace_fpatch_plan_uprobe(struct utrace_fpatch_plan *plan, const char *path,
				 const struct utrace_uprobe *p)
{
	struct upr_file planned, probed;
	uint64_t vaddr;
	size_t n = 0;

	if (upr_file_open(path, &planned, NULL) < 0)
		return 0;
	if (upr_file_open(utrace_uprobe_path(p), &probed, NULL) == 0) {
		if (fpu_same_file(&planned, path, &probed, utrace_uprobe_path(p)) &&
		    upr_offset_to_vaddr(&probed, utrace_uprobe_offset(p), &vaddr) == 0)
			n = fpu_leave_out(plan, vaddr);
		upr_file_close(&probed);
	}
	upr_file_close(&planned);
	return n;
}
