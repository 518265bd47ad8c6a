/* SPDX-License-Identifier: MIT */
/*
 * dwarf.h - probe points and fetch-args by source names, from a file's
 * DWARF (libdw; separate debug files and debuginfod through libdwfl's own
 * look-up, when DEBUGINFOD_URLS is set), as perf probe converts them.
 *
 * The result is always ordinary text in the kernel's syntax: an address
 * (file vaddr) for a point, "NAME=FETCHARG:TYPE" for an argument, so that
 * every probe back end (uprobe_events, the in-process probes) takes it
 * unchanged:
 *
 *   count          -> count=-20(%bp):s32        (a local at -O0, after the prologue)
 *   p->next->len   -> len=+16(+8(%di)):s64      (a parameter in a register at -O2)
 *   buf:string     -> buf_string=+0(%si):string
 *   p->flag        -> flag=+24(%di):b3@0/32     (a bitfield: bits@LSB-offset/container bits)
 *   p->arr[2], s.f, *ptr, arr (a whole array: TYPE[N]), counter (a global: @counter+0)
 *
 * Points: SYMBOL:LINE (LINE relative to the function's first line, as
 * `perf probe -L SYMBOL` numbers them) and FILE:LINE (FILE is a source file
 * name or its tail, LINE absolute).
 */
#ifndef UTRACE_LIB_DWARF_H
#define UTRACE_LIB_DWARF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/base/error.h"

/* Every way a name or a point can be wrong (perf probe's words). */
#define UTRACE_DWARF_ERRORS(C)                                                                     \
	C(NO_DEBUGINFO, "No debug information (DWARF) in the file")                                \
	C(NO_SCOPE, "No function with debug information at the probe address")                     \
	C(BAD_EXPR, "Invalid variable expression")                                                 \
	C(NO_VAR, "Failed to find the variable in this function")                                  \
	C(OPTIMIZED_OUT, "Failed to find the location of the variable at this address: "           \
			 "perhaps it has been optimized out")                                      \
	C(LOC_UNSUPPORTED, "Sorry, we don't support this variable location yet")                   \
	C(NOT_STRUCT, "Not a data structure nor a union")                                          \
	C(NO_MEMBER, "No such member")                                                             \
	C(NEED_DOT, "A structure must be referred by '.'")                                         \
	C(NEED_ARROW, "A pointer must be referred by '->'")                                        \
	C(NOT_ARRAY, "Not an array nor a pointer")                                                 \
	C(NOT_POINTER, "Not a pointer")                                                            \
	C(IN_REGISTER, "A structure held in registers cannot be accessed by member")               \
	C(NOT_STRING, "Only a char pointer or a char array can be a string")                       \
	C(WHOLE_STRUCT, "A structure or a union cannot be fetched whole: name a member")           \
	C(BAD_TYPE, "Unsupported variable type")                                                   \
	C(ON_RETURN, "Variables are not available on a return probe: use $retval")                 \
	C(NO_LINE, "No probe-able code at this line")                                              \
	C(NO_SOURCE, "No such source file in the debug information")                               \
	C(NO_FUNC, "No such function in the debug information")                                    \
	C(TOO_LONG, "The converted argument is too long")

#define UTRACE_DWARF_ERR_ENUM(name, text) UTRACE_DWARF_ERR_##name,
enum utrace_dwarf_err { UTRACE_DWARF_ERR_NONE, UTRACE_DWARF_ERRORS(UTRACE_DWARF_ERR_ENUM) };
#undef UTRACE_DWARF_ERR_ENUM

const char *utrace_dwarf_error_text(int code);

struct utrace_dwarf;

/* Opens path's debug information.  0, or -ENOENT/-ENOEXEC (err: what), or
 * -ENODATA if it has none (err: UTRACE_DWARF_ERR_NO_DEBUGINFO's text). */
int utrace_dwarf_open(const char *path, struct utrace_dwarf **out, struct utrace_error *err);
void utrace_dwarf_close(struct utrace_dwarf *d);

/* Whether a fetch-arg's body ("[NAME=]BODY[:TYPE]") is a source name
 * expression (starts with a letter, '_' or '*') rather than the kernel's
 * %REG, $VAR, @SYM, +OFF(...), \IMM. */
bool utrace_dwarf_is_name_arg(const char *arg);

/* Whether TARGET (what follows PATH: in a definition) is a SYMBOL:LINE or
 * FILE:LINE point. */
bool utrace_dwarf_is_line_point(const char *target);

/*
 * The address of a SYMBOL:LINE or FILE:LINE point: the lowest address of
 * the line's statements.  0 and *vaddr, *func (malloc'd: the function
 * holding it) and *func_off; -EINVAL with err->msg "TEXT at column N:
 * detail" and err->column N (spec being at column col of the definition);
 * -ENOMEM.
 */
int utrace_dwarf_line_addr(struct utrace_dwarf *d, const char *spec, int col, uint64_t *vaddr,
			   char **func, uint64_t *func_off, struct utrace_error *err);

/* The first line of the function holding vaddr (its DW_AT_decl_line, what
 * SYMBOL:LINE counts from); <0 if unknown. */
int utrace_dwarf_decl_line(struct utrace_dwarf *d, uint64_t vaddr);

/* The source of vaddr, as addr2line gives it: the line table's file and
 * line, and the function holding it, where it is declared (its file and
 * first line; 0 if unknown).  0, or -ENOENT if the DWARF has none. */
struct utrace_dwarf_src {
	char file[512];
	int line;
	char func_file[512];
	int func_line;
};
int utrace_dwarf_addr_src(struct utrace_dwarf *d, uint64_t vaddr, struct utrace_dwarf_src *src);

/*
 * perf probe's prologue rule for a probe on a function's entry that reads
 * variables: when the code is not optimised (no location lists in its
 * compilation unit), the variables sit in their stack slots only after
 * the prologue, so the probe moves to the first line after the function's
 * first line (clang's prologue_end marker where there is one).  *vaddr
 * is left as entry otherwise.  Returns 1 if moved, 0 if not.
 */
int utrace_dwarf_skip_prologue(struct utrace_dwarf *d, uint64_t entry, uint64_t *vaddr);

/*
 * One fetch-arg by name, at vaddr: arg is "[NAME=]EXPR[:TYPE]" (TYPE: string
 * or one of the kernel's types, else the DWARF type's), at 1-based column
 * col of the definition.  *out (malloc'd) is "NAME=FETCHARG:TYPE"; NAME
 * defaults to perf probe's (the last member's name, else the expression
 * with '_' for ':').  -EINVAL with err->msg "TEXT at column N: detail" and
 * err->column N; -ENOMEM.
 */
int utrace_dwarf_fetcharg(struct utrace_dwarf *d, uint64_t vaddr, bool is_return, const char *arg,
			  int col, char **out, struct utrace_error *err);

/*
 * The probe back ends' hook: the fetch-args args[0..n) of a probe at vaddr
 * of path (each at column col[i] of the definition) with every name
 * expression among them replaced (freed and reallocated) by its kernel
 * fetch-arg; others are left as they are.  When entry (the probe is on a
 * function's first instruction) and a name is used, the probe first moves
 * past the prologue (utrace_dwarf_skip_prologue()): *vaddr changes.
 * Returns the number of arguments rewritten, or -EINVAL (err), -ENODATA (no
 * DWARF: nothing rewritten, err says so), -ENOMEM.
 */
int utrace_dwarf_rewrite_args(const char *path, uint64_t *vaddr, bool entry, bool is_return,
			      char **args, const int *col, unsigned n, struct utrace_error *err);

/*
 * The kernel's BTF arguments of fprobes, tracepoint probes and kprobes at
 * a function's entry or return (lib/probes/dwarf_btfarg.c), from DWARF:
 * the prototype of the function at vaddr of path.  0 and *out, -ENODATA
 * if path has no DWARF, -ENOENT if no function with DWARF is at vaddr,
 * -ENOMEM.
 */
struct utrace_dwarf_proto;
int utrace_dwarf_proto_open(const char *path, uint64_t vaddr, struct utrace_dwarf_proto **out);
void utrace_dwarf_proto_free(struct utrace_dwarf_proto *p);
unsigned utrace_dwarf_proto_nparams(const struct utrace_dwarf_proto *p);
/* Parameter i's name (NULL if it has none); the index of parameter
 * name[0..len), or -1. */
const char *utrace_dwarf_proto_param(const struct utrace_dwarf_proto *p, unsigned i);
int utrace_dwarf_proto_find(const struct utrace_dwarf_proto *p, const char *name, size_t len);
/*
 * One argument's body, "NAME[->F[.F|->F...]][:TYPE]" or, on a return,
 * "$retval[->F...][:TYPE]", as the kernel's fetch-arg "FETCH:TYPE" in
 * out ($argN for the parameter at the entry, +OFF(...) per "->", the
 * type from DWARF when none is given).  0, or an enum utrace_uprobe_err
 * with *pos its offset in body (the kernel's caret).
 */
int utrace_dwarf_proto_fetcharg(const struct utrace_dwarf_proto *p, const char *body,
				bool is_return, char *out, size_t size, int *pos);

/*
 * `utrace probe -V POINT`: perf probe -V's listing of the variables that
 * have a location at POINT (FUNC, FUNC+OFF, FUNC:LINE, FILE:LINE):
 *   Available variables at POINT\n\t@<FUNC+OFF>\n\t\tTYPE\tNAME\n...
 */
int utrace_dwarf_list_vars(struct utrace_dwarf *d, const char *point, FILE *out,
			   struct utrace_error *err);
/* `utrace probe -L FUNC`: perf probe -L's listing of FUNC's source, the
 * lines that have probe-able code numbered relative to its first line. */
int utrace_dwarf_list_lines(struct utrace_dwarf *d, const char *func, FILE *out,
			    struct utrace_error *err);

/*
 * funcgraph-args and funcgraph-retval: the signature of the function
 * holding vaddr, as a report needs it to print the argument registers and
 * rax.  Each parameter's kind: 's' signed integer, 'u' unsigned, 'b'
 * bool, 'p' pointer, 'e' enum, 'f' floating point (not in an integer
 * register; also an aggregate of 16 bytes at most with a floating-point
 * member), 'a' aggregate (struct, union: in one or two registers when 16
 * bytes at most), '?' unknown; size in bytes.  The return's kind, or 'v'
 * for void.
 */
#define UTRACE_DWARF_SIG_MAX 16
struct utrace_dwarf_sig {
	unsigned nparams;
	struct {
		char name[48];
		char kind;
		unsigned size;
		char type[64]; /* perf's name of its type ("int*", "struct Foo*") */
	} param[UTRACE_DWARF_SIG_MAX];
	char ret_kind;
	unsigned ret_size;
	bool variadic;
	/* integer argument registers the parameters use (System V: the
	 * address of a result in memory first), at most 6 */
	unsigned int_regs;
};
/* 0 and *sig, or -ENOENT if no function with DWARF holds vaddr. */
int utrace_dwarf_func_sig(struct utrace_dwarf *d, uint64_t vaddr, struct utrace_dwarf_sig *sig);

/*
 * The C definition of struct name (its first complete one) as text,
 * "struct NAME { int32 a; char b[10]; struct Bar *p; uint32 f : 3; };",
 * each struct it embeds defined first (lib/probes/dwarf_struct.c).  0 and
 * *text (malloc'd); -ENOENT if there is none, -ENOTSUP if a member has a
 * type the text cannot say (a union, a float), -ENOMEM.
 */
int utrace_dwarf_struct_def(struct utrace_dwarf *d, const char *name, char **text);

#endif
