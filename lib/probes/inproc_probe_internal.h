/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe_internal.h - what lib/probes/inproc_probe.c (parsing),
 * lib/probes/fetch_compile.c (layout, format, fetch programs) and
 * lib/probes/inproc_probe_insn.c (where a probe lands, relocation) share.
 */
#ifndef UTRACE_LIB_INPROC_PROBE_INTERNAL_H
#define UTRACE_LIB_INPROC_PROBE_INTERNAL_H

#include <Zydis/Zydis.h>
#include <limits.h>

#include "lib/probes/inproc_probe.h"
#include "lib/probes/uprobe_internal.h"

struct utrace_inproc_probe {
	enum utrace_inproc_probe_kind kind;
	bool fprobe;
	/* t: a tracepoint probe, an fprobe on the tracepoint's
	 * __utrace_do_TRACEPOINT (symbol); tpoint is TRACEPOINT */
	bool tprobe;
	char *tpoint;
	/* e: an event probe (lib/probes/eprobe.c): no __probe_ip, its
	 * arguments from offset 8, the kernel's eprobe print format; the
	 * attached event, its filter (NULL: none) and the definition */
	bool eprobe;
	char *ep_sys, *ep_name, *ep_filter, *ep_def;
	char group[UTRACE_UPROBE_NAME_MAX + 1];
	char event[UTRACE_UPROBE_NAME_MAX + 1];
	char *symbol;		/* a PATH: probe's: the function holding it, or NULL */
	char *module;		/* MODULE:SYMBOL: the object's file name, or NULL */
	uint64_t offset;	/* from symbol */
	uint64_t sym_size;	/* 0: not known when parsed */
	unsigned maxactive;	/* r<N>: (kept for the listing: returns are per thread) */
	/* PATH:OFFSET, PATH:SYMBOL[+OFF] (the kernel's uprobe point): the
	 * file as written and as found, its identity (objects are matched by
	 * it), the probe's ELF vaddr and file offset */
	char *path, *real;
	uint64_t dev, ino;
	uint64_t vaddr, foff;
	struct utrace_uprobe u; /* nargs and args (name, fetch, type), checked */
	/* each argument's text after NAME= as written ($arg* and $argN
	 * expanded): the kernel's comm, which dynamic_events lists */
	char **comm;
	unsigned ncomm;
	char *format;		/* the format file's text */
	struct utrace_event_format *fmt;
};

struct ipp_parse {
	const char *def, *exe, *group;
	bool with_path;
	int id;
	char **tok;
	int *col;
	unsigned n;
	struct utrace_inproc_probe *p;
	int code, column;
	char detail[PATH_MAX + 64];
	/* where the symbol is, for source names (lib/probes/dwarf.h) */
	char sym_path[PATH_MAX];
	uint64_t sym_vaddr;
	bool dw_failed; /* a source name was wrong: dwerr says */
	struct utrace_error dwerr;
};

/* Re-encodes the decoded instruction at a to run at `at` (out: room
 * bytes): RIP-relative operands and branch targets keep their absolute
 * addresses, a short Jcc may become a near one.  Its length, or 0 if it
 * cannot be (inproc_probe_insn.c; lib/probes/func_patch.c uses it too). */
size_t ipp_reencode(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, uint64_t a,
		   uint64_t at, uint8_t *out, size_t room);

/* PATH:TARGET at col (inproc_probe_path.c): p's path fields, symbol and
 * offset when a function holds it, kind for %return; *entry whether it
 * is a function's first instruction.  0, -1 with ps->code, -ENOMEM. */
int ipp_path_point(struct ipp_parse *ps, char *tok, int col, bool *entry);
/* The kernel's default uprobe event name, p_BASENAME_0xOFFSET. */
void ipp_path_event(struct utrace_inproc_probe *p);
/* Where a PATH: probe lands in the object at path: 1 and the function
 * holding it (*size 0: none known; *func is then the probe), 0 if the
 * object is another file (inproc_probe_path.c). */
int ipp_path_where(const struct utrace_inproc_probe *p, const char *path, const struct upr_file *f,
		  uint64_t *func, uint64_t *size);

/* The kernel's BTF arguments from DWARF (inproc_probe_btf.c): $arg* and
 * $argN expanded to the parameters' names, each argument's comm kept,
 * parameter names and $retval (with fields) turned into the kernel's
 * fetch-args.  0, -1 with ps->code, -ENOMEM. */
int ipp_btf_args(struct ipp_parse *ps, const struct upr_point *pt);

/* The event's format text and parsed format (fetch_compile.c). */
int ipp_make_format(struct utrace_inproc_probe *p, int id);

#endif
