/* SPDX-License-Identifier: MIT */
/*
 * event_filter.h - compile an event filter, in the kernel's syntax
 * (Documentation/trace/events.rst, "Event filtering"), into the program
 * libutrace.so runs on each record (common/filter_prog.h).
 *
 *   expr   := and ( "||" and )*
 *   and    := unary ( "&&" unary )*          ("&&" binds tighter)
 *   unary  := "!"* ( "(" expr ")" | pred )
 *   pred   := FIELD OP VALUE
 *   OP     := "==" | "!=" | "<" | "<=" | ">" | ">=" | "&" | "~"
 *   VALUE  := NUMBER | "..." | '...'
 *
 * FIELD is a field of the event or a common field (common_pid, ...).
 * Integer fields take == != < <= > >= and & (a bit test: field & value is
 * not 0); NUMBER is decimal, 0x hex or 0 octal (the kernel's base 0),
 * with a '-' for signed fields only, and is converted to the field's type
 * as in C, so a u8 field == 256 tests for 0, as in the kernel.  String
 * fields (char[N] and __data_loc char[]) take == != and ~ with a quoted
 * string (no escapes, at most 255 bytes): == and != compare the whole
 * string, ~ matches a glob (* ? [...] [!...] \x, the kernel's
 * glob_match()); a '!' at the start of a ~ pattern negates it, as in the
 * kernel.  The string of a char[N] field ends at its first NUL or after
 * N bytes.
 *
 * FIELD.function (a field of the size of a long: an address) takes == and
 * != with a function's name or an address (NUMBER) unquoted: whether the
 * field is an address inside that function (the one holding the
 * address), as the kernel's filter_pred_function(); the caller's
 * callback finds the function's range (none: "Function not found").
 *
 * "0" (blanks around allowed) is no filter, as writing 0 to a tracefs
 * filter file clears it: the compiler returns 0 with *prog NULL and
 * *prog_len 0.  So is "1" (keep everything), which the kernel rejects.
 * The kernel's pseudo fields CPU and COMM are not available.
 */
#ifndef UTRACE_LIB_EVENT_FILTER_H
#define UTRACE_LIB_EVENT_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/error.h"
#include "lib/events/event_format.h"

/*
 * Every compile error, with the kernel's text where it has one
 * (kernel/trace/trace_events_filter.c).  The message is
 * "<text> at column N", N (also in err->column) the 1-based column of
 * the offending token in the expression.
 */
#define UTRACE_FILTER_ERRORS(ERR)                                                                  \
	ERR(NONE, "No error")                                                                      \
	ERR(INVALID_OP, "Invalid operator")                                                        \
	ERR(TOO_MANY_OPEN, "Too many '('")                                                         \
	ERR(TOO_MANY_CLOSE, "Too few '('")                                                         \
	ERR(MISSING_QUOTE, "Missing matching quote")                                               \
	ERR(OPERAND_TOO_LONG, "Operand too long")                                                  \
	ERR(EXPECT_STRING, "Expecting string field")                                               \
	ERR(EXPECT_DIGIT, "Expecting numeric field")                                               \
	ERR(ILLEGAL_FIELD_OP, "Illegal operation for field type")                                  \
	ERR(FIELD_NOT_FOUND, "Field not found")                                                    \
	ERR(ILLEGAL_INTVAL, "Illegal integer value")                                               \
	ERR(TOO_MANY_PREDS, "Too many terms in predicate expression")                              \
	ERR(INVALID_VALUE, "Invalid value (did you forget quotes)?")                               \
	ERR(NO_FILTER, "No filter found")                                                          \
	ERR(MISSING_FIELD, "Missing field name")                                                   \
	ERR(TOO_DEEP, "Parentheses nested too deeply")                                             \
	ERR(NO_MEMORY, "Out of memory")                                                            \
	ERR(NO_FUNCTION, "Function not found")

#define UTRACE_FILTER_ERR_ENUM(name, text) UTRACE_FILTER_ERR_##name,
enum utrace_filter_err { UTRACE_FILTER_ERRORS(UTRACE_FILTER_ERR_ENUM) UTRACE_FILTER_ERR_MAX };
#undef UTRACE_FILTER_ERR_ENUM

/* Deepest nesting of parentheses. */
#define UTRACE_FILTER_MAX_DEPTH 64

/*
 * Compiles expr for events of format fmt.  0 on success, *prog a
 * malloc'ed program (free() it) of *prog_len bytes, or NULL and 0 for no
 * filter ("0" or "1").  Negative on failure (-EINVAL, -ENOMEM) with err
 * filled: "<text> at column N" and err->column.  If code is not NULL it
 * gets the enum utrace_filter_err (UTRACE_FILTER_ERR_NONE on success).
 */
int utrace_filter_compile_code(const struct utrace_event_format *fmt, const char *expr, void **prog,
			       uint32_t *prog_len, int *code, struct utrace_error *err);
int utrace_filter_compile(const struct utrace_event_format *fmt, const char *expr, void **prog,
			  uint32_t *prog_len, struct utrace_error *err);
/* .function's functions: the one named name (addr 0), or holding address
 * addr (name NULL): 0 with its range [*start, *end), or <0 if none. */
typedef int (*utrace_filter_func_fn)(void *arg, const char *name, uint64_t addr, uint64_t *start,
				     uint64_t *end);
/* As utrace_filter_compile_code, with the functions of FIELD.function
 * (func NULL: none is found). */
int utrace_filter_compile_func(const struct utrace_event_format *fmt, const char *expr,
			       utrace_filter_func_fn func, void *func_arg, void **prog,
			       uint32_t *prog_len, int *code, struct utrace_error *err);

/* The text of an enum utrace_filter_err; "Unknown error" if out of range. */
const char *utrace_filter_error_text(int code);

/*
 * Writes a listing of a program into buf (at most size bytes, NUL
 * terminated), one line per instruction:
 *   "   0: s32 @8 > 5 ? 1 : drop"
 *   "   1: __data_loc char[] @40 prefix \"foo\" ? keep : drop"
 * Returns the length the whole listing needs, as snprintf(), or -EINVAL
 * (and an empty buf) if utrace_filter_check() rejects the program.
 */
int utrace_filter_disasm(const void *prog, uint32_t len, char *buf, size_t size);

#endif
