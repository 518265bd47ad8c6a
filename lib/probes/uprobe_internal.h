/* SPDX-License-Identifier: MIT */
/*
 * uprobe_internal.h - what lib/probes/uprobe.c, lib/probes/uprobe_args.c,
 * lib/probes/uprobe_elf.c, lib/probes/uprobe_tracefs.c and lib/probes/usdt.c share: the probe
 * itself, the fetcharg checker's entry point and the ELF look-ups that turn
 * a symbol or a virtual address into a file offset.
 */
#ifndef UTRACE_LIB_UPROBE_INTERNAL_H
#define UTRACE_LIB_UPROBE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/elf/elf.h"
#include "lib/events/event_format.h"
#include "lib/probes/uprobe.h"

struct upr_arg {
	char name[UTRACE_UPROBE_ARG_NAME_MAX + 1];
	char *fetch; /* the kernel's fetcharg, translated */
	char *type;  /* as given, "u64" if none */
};

struct utrace_uprobe {
	bool is_return;
	char group[UTRACE_UPROBE_NAME_MAX + 1];
	char event[UTRACE_UPROBE_NAME_MAX + 1];
	char *path; /* absolute */
	uint64_t offset, ref_ctr;
	char *symbol; /* NULL for PATH:OFFSET */
	uint64_t sym_off;
	unsigned nargs;
	struct upr_arg *args;
};

/* The PT_LOAD segments of an ELF file, for address <-> offset. */
#define UPR_MAX_LOAD 32
struct upr_file {
	struct utrace_elf *elf;
	int type; /* ET_EXEC, ET_DYN */
	unsigned nload;
	struct {
		uint64_t vaddr, offset, filesz;
		uint32_t flags; /* PF_X, ... */
	} load[UPR_MAX_LOAD];
};

/* Opens path and reads its program headers; 0, -errno, or -ENOEXEC
 * (*why, if why, a static reason) if it is not an ELF64 file with loadable
 * segments. */
int upr_file_open(const char *path, struct upr_file *f, const char **why);
void upr_file_close(struct upr_file *f);
/* vaddr's file offset, through the PT_LOAD holding it in the file (not
 * in its .bss); 0 or -ENOENT. */
int upr_vaddr_to_offset(const struct upr_file *f, uint64_t vaddr, uint64_t *offset);
/* The vaddr an (executable, preferably) segment maps offset to. */
int upr_offset_to_vaddr(const struct upr_file *f, uint64_t offset, uint64_t *vaddr);
/*
 * A defined symbol by name (functions: by mangled or demangled name;
 * others: by name), in .symtab, else .dynsym.  Returns the number of
 * distinct addresses found (0: none, >1: ambiguous), the first one's in
 * *vaddr and its size in *size.  func_only: STT_FUNC/STT_GNU_IFUNC only.
 */
int upr_find_symbol(const struct upr_file *f, const char *name, bool func_only, uint64_t *vaddr,
		    uint64_t *size);
/* The function (of known size) holding vaddr: 1 with its name (if name,
 * malloc'ed), start and size; 0 if none; -ENOMEM. */
int upr_function_at(const struct upr_file *f, uint64_t vaddr, char **name, uint64_t *func,
		    uint64_t *size);
/* 1 if a function starts at vaddr, 0 if not, <0 if unknown. */
int upr_is_function_start(const struct upr_file *f, uint64_t vaddr);

/* What the fetcharg checker needs to know about the probe point. */
struct upr_point {
	bool is_return;
	bool entry;		     /* at a function's first instruction: $argN ok */
	const struct upr_file *file; /* NULL if not an ELF file: no @SYMBOL */
	uint64_t vaddr;		     /* the probe's vaddr, for @SYMBOL */
	uint64_t offset;	     /* and its file offset */
	/* an in-process probe (lib/probes/inproc_probe.c): @SYMBOL is resolved
	 * later, in the object the probe lands in, and the kprobe-only type
	 * "symbol" is accepted */
	bool in_process;
	/* a probe of the kprobe syntax (SYMBOL, not PATH:): the kernel's
	 * TPARG_FL_KERNEL rules ($stackN bounded, no @+OFFS), and an fprobe
	 * (TPARG_FL_FPROBE: no registers) */
	bool kernel, fprobe;
	/* an event probe (e:, lib/probes/eprobe.c): the attached event, whose
	 * fields $FIELD names (the kernel's TPARG_FL_TEVENT: no registers, no
	 * $argN, $stack or $retval); translated to $$OFFSET/SIZE/KIND, KIND
	 * u or s (a number), d (a __data_loc string), a (char[N]) */
	const struct utrace_event_format *event;
};

/*
 * Checks and translates the fetchargs tok[0..n-1] (each at 1-based column
 * col[i] of the definition) into p->args.  0, or an enum utrace_uprobe_err
 * with *column set; -ENOMEM.
 */
int upr_parse_args(struct utrace_uprobe *p, const struct upr_point *pt, char **tok, const int *col,
		   unsigned n, int *column);

/* The kernel's is_good_name(): a C identifier. */
bool upr_good_name(const char *s);
/* Splits a definition on blanks as argv_split() does: *n words (malloc'd,
 * as the arrays) with their 1-based columns; -ENOMEM (what was made is
 * left for the caller to free). */
int upr_split(const char *def, char ***tok, int **col, unsigned *n);
/* Why a definition was refused: a source name (dwerr says), else the
 * kernel's error code at a column with an optional detail. */
struct upr_failure {
	int code, column;
	const char *detail;
	bool dw_failed;
	const struct utrace_error *dwerr;
};
/* The error a parse that returned ret < 0 gives its caller: err filled
 * (the kernel's text and column), *code (if given) the error code;
 * returns -EINVAL or -ENOMEM. */
int upr_parse_failed(int ret, const struct upr_failure *f, int *code, struct utrace_error *err);
/* [GROUP/]EVENT or GROUP.EVENT at column col, the kernel's
 * traceprobe_parse_event_name(): fills group (if given) and event (if
 * given; "GROUP/" leaves the default), each UTRACE_UPROBE_NAME_MAX + 1
 * bytes.  0, or an error code with its column in *errcol. */
int upr_event_name(const char *name, int col, char *group, char *event, int *errcol);
/* The kernel's kstrtoul/kstrtol (base 0: 0x, 0, decimal), whole string. */
bool upr_strtoul(const char *s, int base, uint64_t *v);
bool upr_strtol(const char *s, int base, int64_t *v);

#endif
