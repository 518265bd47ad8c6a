/* SPDX-License-Identifier: MIT */
/*
 * lib/probes - dynamic probes: uprobe definitions in the
 * kernel's syntax (this file) resolved against ELF symbols, and USDT notes
 * (usdt.h).  May use: lib/base, lib/elf, lib/events (the in-process
 * probes' formats), lib/kernel.
 *
 * uprobe.h - dynamic probes on any binary, through the kernel's
 * uprobe_events (Documentation/trace/uprobetracer.rst).
 *
 * utrace's definition is the kernel's with a symbol where the kernel wants
 * a file offset:
 *
 *   p[:[GRP/]EVENT] PATH:SYMBOL[+OFFS] [FETCHARGS]     (entry, or inside)
 *   p[:[GRP/]EVENT] PATH:OFFSET[(REFCTR)] [FETCHARGS]  (file offset)
 *   r[:[GRP/]EVENT] PATH:SYMBOL [FETCHARGS]            (return)
 *
 * PATH:SYMBOL%return is r: too.  FETCHARGS are [NAME=]FETCHARG[:TYPE],
 * checked with the kernel's rules and messages (lib/probes/uprobe_args.c); on top
 * of the kernel's, $argN (function entry only) becomes the x86-64 argument
 * register or stack slot, and @SYMBOL[+|-OFFS] the kernel's @+FILEOFFSET.
 *
 * A parsed probe knows the kernel's line ("p:GRP/EVENT /abs/path:0xOFFSET
 * NAME=FETCHARG:TYPE ..."), which utrace_uprobe_register() appends to
 * tracefs uprobe_events; its event then appears under events/GRP/EVENT in
 * tracefs and in every instance.  The default group is "utrace": probes
 * that a killed utrace left behind are removed by `utrace reset`
 * (utrace_uprobe_remove_stale(): every group whose name starts "utrace").
 */
#ifndef UTRACE_LIB_UPROBE_H
#define UTRACE_LIB_UPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/error.h"

/* The kernel's limits (kernel/trace/trace_probe.h). */
#define UTRACE_UPROBE_NAME_MAX 63     /* group and event: MAX_EVENT_NAME_LEN - 1 */
#define UTRACE_UPROBE_ARG_NAME_MAX 32 /* MAX_ARG_NAME_LEN */
#define UTRACE_UPROBE_ARG_MAX 63      /* MAX_ARGSTR_LEN: one fetcharg's text */
#define UTRACE_UPROBE_MAX_ARGS 128    /* MAX_TRACE_ARGS */
#define UTRACE_UPROBE_ARRAY_MAX 64    /* MAX_ARRAY_LEN */
#define UTRACE_UPROBE_DEFAULT_GROUP "utrace"

/*
 * Every way a definition can be wrong, once: the kernel's words where the
 * kernel has the same check (trace_probe.h ERRORS, same order), then
 * utrace's own.  The error's column (err->column, 1-based, in the
 * definition as given) is where the kernel puts its caret.
 */
#define UTRACE_UPROBE_ERRORS(C)                                                                    \
	C(FILE_NOT_FOUND, "Failed to find the given file")                                         \
	C(NO_REGULAR_FILE, "Not a regular file")                                                   \
	C(BAD_REFCNT, "Invalid reference counter offset")                                          \
	C(REFCNT_OPEN_BRACE, "Reference counter brace is not closed")                              \
	C(BAD_REFCNT_SUFFIX, "Reference counter has wrong suffix")                                 \
	C(BAD_UPROBE_OFFS, "Invalid uprobe offset")                                                \
	C(BAD_PROBE_ADDR, "Invalid probed address or symbol")                                      \
	C(BAD_RETPROBE, "Retprobe address must be an function entry")                              \
	C(BAD_ADDR_SUFFIX, "Invalid probed address suffix")                                        \
	C(NO_GROUP_NAME, "Group name is not specified")                                            \
	C(GROUP_TOO_LONG, "Group name is too long")                                                \
	C(BAD_GROUP_NAME, "Group name must follow the same rules as C identifiers")                \
	C(NO_EVENT_NAME, "Event name is not specified")                                            \
	C(EVENT_TOO_LONG, "Event name is too long")                                                \
	C(BAD_EVENT_NAME, "Event name must follow the same rules as C identifiers")                \
	C(RETVAL_ON_PROBE, "$retval is not available on probe")                                    \
	C(NO_RETVAL, "This function returns 'void' type")                                          \
	C(BAD_ARG_NUM, "Invalid argument number")                                                  \
	C(BAD_VAR, "Invalid $-variable specified")                                                 \
	C(BAD_REG_NAME, "Invalid register name")                                                   \
	C(BAD_MEM_ADDR, "Invalid memory address")                                                  \
	C(BAD_IMM, "Invalid immediate value")                                                      \
	C(IMMSTR_NO_CLOSE, "String is not closed with '\"'")                                       \
	C(BAD_FILE_OFFS, "Invalid file offset value")                                              \
	C(TOO_MANY_OPS, "Dereference is too much nested")                                          \
	C(DEREF_NEED_BRACE, "Dereference needs a brace")                                           \
	C(BAD_DEREF_OFFS, "Invalid dereference offset")                                            \
	C(DEREF_OPEN_BRACE, "Dereference brace is not closed")                                     \
	C(COMM_CANT_DEREF, "$comm can not be dereferenced")                                        \
	C(BAD_FETCH_ARG, "Invalid fetch argument")                                                 \
	C(ARRAY_NO_CLOSE, "Array is not closed")                                                   \
	C(BAD_ARRAY_SUFFIX, "Array has wrong suffix")                                              \
	C(BAD_ARRAY_NUM, "Invalid array size")                                                     \
	C(ARRAY_TOO_BIG, "Array number is too big")                                                \
	C(BAD_TYPE, "Unknown type is specified")                                                   \
	C(BAD_STRING, "String accepts only memory argument")                                       \
	C(BAD_BITFIELD, "Invalid bitfield")                                                        \
	C(ARG_NAME_TOO_LONG, "Argument name is too long")                                          \
	C(NO_ARG_NAME, "Argument name is not specified")                                           \
	C(BAD_ARG_NAME, "Argument name must follow the same rules as C identifiers")               \
	C(USED_ARG_NAME, "This argument name is already used")                                     \
	C(ARG_TOO_LONG, "Argument expression is too long")                                         \
	C(NO_ARG_BODY, "No argument expression")                                                   \
	C(BAD_INSN_BNDRY, "Probe point is not an instruction boundary")                            \
	C(NOSUP_BTFARG, "BTF is not available or not supported")                                   \
	C(NO_BTFARG, "This variable is not found at this probe point")                             \
	C(NO_BTF_ENTRY, "No BTF entry for this probe point")                                       \
	C(NOFENTRY_ARGS, "$arg* can be used only on function entry or exit")                       \
	C(DOUBLE_ARGS, "$arg* can be used only once in the parameters")                            \
	C(ARGS_2LONG, "$arg* failed because the argument list is too long")                        \
	C(NO_PTR_STRCT, "This is not a pointer to union/structure.")                               \
	C(NOSUP_DAT_ARG, "Non pointer structure/union argument is not supported.")                 \
	C(BAD_HYPHEN, "Failed to parse single hyphen. Forgot '>'?")                                \
	C(NO_BTF_FIELD, "This field is not found.")                                                \
	C(BAD_BTF_TID, "Failed to get BTF type info.")                                             \
	C(BAD_TYPE4STR, "This type does not fit for string.")                                      \
	C(NEED_STRING_TYPE, "$comm and immediate-string only accepts string type")                 \
	C(TOO_MANY_ARGS, "Too many arguments are specified")                                       \
	C(NO_EVENT_INFO, "This requires both group and event name to attach")                      \
	C(BAD_ATTACH_EVENT, "Attached event does not exist")                                       \
	C(NO_EP_FILTER, "No filter rule after 'if'")                                               \
	C(EVENT_EXIST, "Given group/event name is already used by another event")                  \
	/* utrace's own */                                                                         \
	C(NO_DEFINITION, "Empty probe definition")                                                 \
	C(BAD_PROBE_TYPE, "Probe type must be 'p' or 'r'")                                         \
	C(NO_PROBE_POINT, "No probe point: expected PATH:SYMBOL[+OFFS] or PATH:OFFSET")            \
	C(NO_PATH, "No path before ':' in the probe point")                                        \
	C(NOT_ELF, "Not an ELF64 executable or shared library")                                    \
	C(NO_SYMBOL, "Symbol not found in the file")                                               \
	C(AMBIGUOUS_SYMBOL, "Symbol has several definitions: probe PATH:OFFSET instead")           \
	C(OFFS_BEYOND_SYMBOL, "Offset is beyond the end of the function")                          \
	C(NOT_LOADED, "Address is in no loaded segment of the file")                               \
	C(ARG_ON_RETPROBE, "$argN is not available on return probes (registers are reused)")       \
	C(DEREF_SUFFIX, "Dereference has wrong suffix")                                            \
	C(ARG_TRANSLATED_TOO_LONG, "Argument expression is too long once translated")           \
	C(STRING_ARRAY_IN_PROCESS, "Arrays of strings are not supported by in-process probes")    \
	C(NOT_INT_ARG, "This parameter is not passed in an integer register or stack slot")        \
	/* the kernel's kprobe-only words (r<MAXACTIVE>:, in-process probes) */                    \
	C(BAD_MAXACT_TYPE, "Maxactive is only for function exit")                                  \
	C(BAD_MAXACT, "Invalid maxactive number")                                                  \
	C(MAXACT_TOO_BIG, "Maxactive is too big")                                                  \
	C(BAD_STACK_NUM, "Invalid stack number")                                                   \
	C(FILE_ON_KPROBE, "File offset is not available with kprobe")                             \
	C(DIFF_PROBE_TYPE, "Probe type is different from existing probe")                          \
	C(DIFF_ARG_TYPE, "Argument type or name is different from existing probe")                 \
	C(SAME_PROBE, "There is already the exact same probe event")                               \
	C(NO_TRACEPOINT, "Tracepoint is not found")                                               \
	C(BAD_TP_NAME, "Invalid character in tracepoint name")                                     \
	C(APPEND_UNSUPPORTED, "Appending a probe to an existing event is not supported")           \
	C(REFCNT_IN_PROCESS, "A reference counter (USDT semaphore) is not taken by in-process probes")

#define UTRACE_UPROBE_ERR_ENUM(name, text) UTRACE_UPROBE_ERR_##name,
enum utrace_uprobe_err { UTRACE_UPROBE_ERR_NONE, UTRACE_UPROBE_ERRORS(UTRACE_UPROBE_ERR_ENUM) };
#undef UTRACE_UPROBE_ERR_ENUM

/* The text of an enum utrace_uprobe_err; "Unknown error" if out of range. */
const char *utrace_uprobe_error_text(int code);

struct utrace_uprobe;

/*
 * Parses a definition, finds its file (PATH absolute, or relative to the
 * current directory, or a program name looked up in $PATH), resolves
 * SYMBOL to its file offset and checks every fetcharg.  0 and *out (free
 * with utrace_uprobe_free()), or -EINVAL with err->msg "TEXT at column N",
 * err->column = N (1-based in def), and *code (if code) the enum
 * utrace_uprobe_err; -ENOMEM.
 */
int utrace_uprobe_parse_code(const char *def, struct utrace_uprobe **out, int *code,
			     struct utrace_error *err);
int utrace_uprobe_parse(const char *def, struct utrace_uprobe **out, struct utrace_error *err);
void utrace_uprobe_free(struct utrace_uprobe *p);

/*
 * The line for uprobe_events into buf (NUL-terminated, truncated to size):
 *   p:GRP/EVENT /abs/path:0xOFFSET[(0xREFCTR)] NAME=FETCHARG[:TYPE]...
 * Returns the length the whole line needs, as snprintf() does.
 */
int utrace_uprobe_kernel_line(const struct utrace_uprobe *p, char *buf, size_t size);

const char *utrace_uprobe_group(const struct utrace_uprobe *p);
const char *utrace_uprobe_event(const struct utrace_uprobe *p);
/* Renames the probe (before registering it); NULL keeps that part.
 * -EINVAL (err: the kernel's group or event name message) if not a C
 * identifier of at most UTRACE_UPROBE_NAME_MAX characters. */
int utrace_uprobe_set_name(struct utrace_uprobe *p, const char *group, const char *event,
			   struct utrace_error *err);
const char *utrace_uprobe_path(const struct utrace_uprobe *p);	      /* absolute */
uint64_t utrace_uprobe_offset(const struct utrace_uprobe *p);	      /* file offset */
uint64_t utrace_uprobe_ref_ctr_offset(const struct utrace_uprobe *p); /* 0: none */
bool utrace_uprobe_is_return(const struct utrace_uprobe *p);
/* The SYMBOL of PATH:SYMBOL[+OFFS] (NULL for a file offset) and OFFS. */
const char *utrace_uprobe_symbol(const struct utrace_uprobe *p, uint64_t *sym_offset);
unsigned utrace_uprobe_nargs(const struct utrace_uprobe *p);
/* Argument i's field name (the kernel's "argN" when none was given), its
 * kernel fetcharg (translated) and its type ("u64" when none was given;
 * with "[N]" for an array); NULL if i is out of range. */
const char *utrace_uprobe_arg_name(const struct utrace_uprobe *p, unsigned i);
const char *utrace_uprobe_arg_fetch(const struct utrace_uprobe *p, unsigned i);
const char *utrace_uprobe_arg_type(const struct utrace_uprobe *p, unsigned i);

/*
 * Appends the probe's line to TRACEFS/uprobe_events (O_APPEND: other
 * probes stay).  tracefs_dir is tracefs's mount point (not an instance;
 * NULL: find it).  When the kernel refuses the line, err->msg is the last
 * entry of TRACEFS/error_log for it, on one line:
 *   "uprobe_events: MESSAGE at column N of 'LINE'"
 * with err->column = N (the caret, 1-based in the kernel line).  An event
 * GRP/EVENT that exists already takes the probe as one more location if
 * its arguments have the same names and types (the kernel's multi-probe
 * events: one event for every location of a USDT probe).
 */
int utrace_uprobe_register(const char *tracefs_dir, const struct utrace_uprobe *p,
			   struct utrace_error *err);
/* Appends "-:GRP/EVENT": the event and all its locations.  -EBUSY while
 * it is enabled in some instance, -ENOENT if there is none. */
int utrace_uprobe_unregister(const char *tracefs_dir, const struct utrace_uprobe *p,
			     struct utrace_error *err);
/*
 * `utrace reset`: removes every probe of a group whose name starts with
 * "utrace" (the default groups: "utrace", "utrace_usdt", "utrace_<pid>"),
 * but those of a group utrace_<pid> whose utrace still runs and those
 * enabled in some instance (the kernel refuses: EBUSY).
 * Returns the number of events removed, or <0 with err filled.
 */
int utrace_uprobe_remove_stale(const char *tracefs_dir, struct utrace_error *err);

#endif
