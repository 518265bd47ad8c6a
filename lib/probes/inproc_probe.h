/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe.h - in-process dynamic probes: the kernel's kprobe_events and
 * fprobe syntax on the traced program's own symbols (no PATH:), run by
 * libutrace.so inside the process instead of by the kernel.
 *
 *   p[:[GRP/]EVENT] SYMBOL[+OFFS] [FETCHARGS]      any instruction
 *   r[MAXACTIVE][:[GRP/]EVENT] SYMBOL[%return] [FETCHARGS]   its return
 *   p[:[GRP/]EVENT] SYMBOL%return [FETCHARGS]      the same
 *   f[:[GRP/]EVENT] SYMBOL[%return] [FETCHARGS]    entry / exit (fprobe)
 *   t[:[GRP/]EVENT] TRACEPOINT [FETCHARGS]         a static tracepoint's hits,
 *                                                  $argN its arguments
 *   -:[GRP/]EVENT                                  removes an earlier one
 *
 * SYMBOL may be MODULE:SYMBOL, the kernel's module place: MODULE is the
 * file name of the object (libc.so.6, the program's name) that is to
 * hold SYMBOL, so that only that object gets the probe.
 * FETCHARGS are checked by lib/probes/uprobe_args.c (the kernel's rules and
 * messages, one error table), then compiled into a fetch program
 * (common/fetch_prog.h, lib/probes/fetch_compile.c).  The default group is
 * "probes".  utrace_inproc_probe_parse_as also takes the point of the kernel's
 * uprobe_events, PATH:OFFSET (a file offset) or PATH:SYMBOL[+OFFS], either
 * with %return: the probe then lands in the object that is that file
 * (lib/probes/inproc_probe_path.c).  A parsed probe knows its event's format, the kernel's kprobe
 * layout (__probe_ip, or __probe_func and __probe_ret_ip for returns).
 *
 * Where it runs is decided per loaded object, when the runtime registers
 * one (utrace_inproc_probe_locate): the object whose symbols define SYMBOL gets
 * the probe, on its patchable call site when the probe is at the
 * function's entry, else on an int3 whose displaced instruction runs out
 * of line (relocated here with Zydis, lib/probes/inproc_probe_insn.c).
 */
#ifndef UTRACE_LIB_INPROC_PROBE_H
#define UTRACE_LIB_INPROC_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/error.h"
#include "lib/events/event_format.h"

#define UTRACE_INPROC_PROBE_DEFAULT_GROUP "probes"
#define UTRACE_INPROC_PROBE_MAXACTIVE_MAX 4096 /* the kernel's KRETPROBE_MAXACTIVE_MAX */

enum utrace_inproc_probe_kind {
	UTRACE_IPP_PROBE,  /* p: SYMBOL[+OFFS] */
	UTRACE_IPP_RETURN, /* r:, p:...%return, f:...%return */
	UTRACE_IPP_REMOVE, /* -:[GRP/]EVENT */
};

struct utrace_inproc_probe;

/* Whether def is an in-process definition: its probe point has no PATH:
 * (a ':' after a name with no '/' and before no digit is MODULE:SYMBOL),
 * or it is a removal. */
bool utrace_inproc_probe_is_in_process(const char *def);

/*
 * Parses def.  exe (may be NULL): the program, whose symbols and those of
 * the libraries it needs give the function's size for the event's print
 * format and check OFFS; a symbol found in none of them may come from a
 * library loaded later.  id goes into the format's ID line.  0 and *out,
 * or -EINVAL with err->msg "TEXT at column N", err->column, *code (an
 * enum utrace_uprobe_err) as utrace_uprobe_parse_code() gives them.
 */
int utrace_inproc_probe_parse(const char *def, const char *exe, struct utrace_inproc_probe **out, int *code,
			struct utrace_error *err);
/* The same with group as the default group (NULL: "probes"); with_path:
 * the probe point is PATH:OFFSET or PATH:SYMBOL[+OFFS][%return] (the
 * kernel's uprobe_events), PATH an existing file (FILE_NOT_FOUND at its
 * column if not), an ELF one. */
int utrace_inproc_probe_parse_as(const char *def, const char *exe, const char *group, bool with_path,
			   struct utrace_inproc_probe **out, int *code, struct utrace_error *err);
void utrace_inproc_probe_free(struct utrace_inproc_probe *p);

enum utrace_inproc_probe_kind utrace_inproc_probe_kind(const struct utrace_inproc_probe *p);
bool utrace_inproc_probe_fprobe(const struct utrace_inproc_probe *p);
/* An event probe's (lib/probes/eprobe.h) attached system (NULL for the
 * other probes), its *name, its *filter (NULL: none), its definition;
 * such a probe lands in no object: it fires with its attached event. */
const char *utrace_inproc_probe_eprobe(const struct utrace_inproc_probe *p, const char **name,
				       const char **filter, const char **def);
/* t:'s TRACEPOINT (an fprobe on __utrace_do_TRACEPOINT), NULL for others. */
const char *utrace_inproc_probe_tracepoint(const struct utrace_inproc_probe *p);
const char *utrace_inproc_probe_group(const struct utrace_inproc_probe *p);
/* The number of arguments, and argument i's name with *comm (if comm)
 * its text after NAME= as written, the kernel's comm ($arg* and $argN
 * given as the parameters' names): dynamic_events lists NAME=COMM. */
unsigned utrace_inproc_probe_nargs(const struct utrace_inproc_probe *p);
const char *utrace_inproc_probe_arg(const struct utrace_inproc_probe *p, unsigned i, const char **comm);
const char *utrace_inproc_probe_event(const struct utrace_inproc_probe *p);
const char *utrace_inproc_probe_symbol(const struct utrace_inproc_probe *p, uint64_t *offset);
/* MODULE of a MODULE:SYMBOL probe (NULL: any object); whether the
 * object at path is that module (its file name; any for NULL). */
const char *utrace_inproc_probe_module(const struct utrace_inproc_probe *p);
bool utrace_inproc_probe_module_is(const struct utrace_inproc_probe *p, const char *path);
/* Whether the exe given to the parse, or a library it needs, defines
 * SYMBOL as a function (if not, a library loaded later may). */
bool utrace_inproc_probe_found(const struct utrace_inproc_probe *p);
/* A PATH: probe's PATH as written and its file offset; NULL if none. */
const char *utrace_inproc_probe_path(const struct utrace_inproc_probe *p, uint64_t *file_offset);
/* r<MAXACTIVE>: (0: none given). */
unsigned utrace_inproc_probe_maxactive(const struct utrace_inproc_probe *p);
/* The event's format (system = group) and its text; NULL for a removal. */
const struct utrace_event_format *utrace_inproc_probe_format(const struct utrace_inproc_probe *p);
const char *utrace_inproc_probe_format_text(const struct utrace_inproc_probe *p);

/* @SYMBOL of a fetcharg: its address where the probe lands; 0 or -1. */
typedef int (*utrace_inproc_probe_sym_fn)(void *arg, const char *name, uint64_t *addr);

/*
 * The probe's fetch program (common/fetch_prog.h), malloc'ed, *len bytes,
 * with @SYMBOLs resolved through sym.  -ENOENT (err says which symbol) if
 * one is not found.
 */
int utrace_inproc_probe_compile(const struct utrace_inproc_probe *p, utrace_inproc_probe_sym_fn sym, void *arg,
			  void **prog, uint32_t *len, struct utrace_error *err);

/* The same, @SYMBOLs looked up in the object at path loaded at bias. */
int utrace_inproc_probe_compile_in(const struct utrace_inproc_probe *p, const char *path, uint64_t bias,
			     void **prog, uint32_t *len, struct utrace_error *err);

/* How the runtime runs a probe at one address (common/proto.h INPROC_PROBE). */
struct utrace_inproc_probe_loc {
	uint64_t vaddr;	  /* the probed instruction (ELF vaddr) */
	uint64_t func;	  /* the function's vaddr */
	uint32_t site;	  /* UINT32_MAX, or the object's call-site index at vaddr */
	uint32_t kind;	  /* enum utrace_inproc_probe_kind */
	uint8_t xol[96];  /* the instructions relocated to run at the slot, then jmp back */
	uint32_t xol_len;
	uint64_t call_to; /* int3 on a direct call: emulated, its target vaddr (0: none) */
	uint32_t insn_len; /* bytes moved: one instruction, or (jmp) those under the jmp */
	bool jmp;	   /* jump-optimisable: xol runs at slot + the detour's head */
};

/*
 * Where p lands in the object at path (ELF vaddrs; sites: the object's
 * call-site vaddrs, n of them; slot: where the runtime will run the
 * displaced instructions, as bias-free vaddr; others: where the object's
 * other probes are, which a jmp must not cover).  1 and *loc if the
 * object defines SYMBOL, 0 if not, <0 with err: -EILSEQ where the
 * kernel's register_kprobe() says so (not an instruction boundary, or
 * inside the function's patchable call site), else e.g. an instruction
 * that cannot run out of line.
 */
int utrace_inproc_probe_locate(const struct utrace_inproc_probe *p, const char *path, const uint64_t *sites,
			 size_t n, uint64_t slot, const uint64_t *others, size_t nothers,
			 struct utrace_inproc_probe_loc *loc, struct utrace_error *err);

#endif
