/* SPDX-License-Identifier: MIT */
/*
 * bt_ast.h - a bpftrace program as the parser leaves it and the checker
 * types it: probes (their attach points, predicate, action block) over a
 * tree of statements and expressions.  Every node keeps its source range
 * (line, first and last column, bpftrace's `stdin:L:C1-C2`), so that the
 * checker's errors can underline the node as bpftrace does.  The tree is
 * the tool's alone: the compiler (bt_compile.c) turns it into the
 * runtime's bytecode (common/bt_prog.h) and nothing else reads it.
 */
#ifndef UTRACE_LIB_BT_AST_H
#define UTRACE_LIB_BT_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/error.h"

/* A range of the source: line, first column, one past the last column
 * (1-based), as bpftrace prints `L:C1-C2`. */
struct bt_loc {
	unsigned line, col, end;
};

/* The errors of the parser and the checker, bpftrace 0.17's texts. */
#define BT_ERRORS(C)                                                                               \
	C(SYNTAX, "syntax error, unexpected %s")                                                   \
	C(SYNTAX_EXPECTING, "syntax error, unexpected %s, expecting %s")                           \
	C(EOF_EXPECTING, "unexpected end of file, expected %s")                                    \
	C(UNKNOWN_FUNC, "Unknown function: %s")                                                    \
	C(UNKNOWN_IDENT, "Unknown identifier: '%s'")                                               \
	C(SARG_PROBE, "The %s builtin can only be used with 'kprobes' and 'uprobes' probes")         \
	C(UADDR_PROBE, "%s can not be used with \"%s\" probes")                                    \
	C(UADDR_SYMBOL, "Could not resolve symbol: %s:%s")                                         \
	C(CPID_CHILD, "cpid cannot be used without child command")                                 \
	C(UNDEF_VAR, "Undefined or undeclared variable: %s")                                       \
	C(UNDEF_MAP, "Undefined map: %s")                                                          \
	C(NARGS_NONE, "%s() requires no arguments (%u provided)")                                  \
	C(NARGS_ONE, "%s() requires one argument (%u provided)")                                   \
	C(NARGS_N, "%s() requires %u arguments (%u provided)")                                     \
	C(NARGS_AT_LEAST, "%s() requires at least %u argument%s (%u provided)")                    \
	C(NARGS_AT_MOST, "%s() takes up to %u arguments (%u provided)")                            \
	C(PRINTF_FEW, "%s: Not enough arguments for format string (%u supplied, %u expected)")    \
	C(PRINTF_MANY, "%s: Too many arguments for format string (%u supplied, %u expected)")     \
	C(PRINTF_FIRST, "%s() expects a string literal (%s provided)")                     \
	C(PRINTF_TYPE, "%s: %%%s specifier expects a value of type %s (%s supplied)")             \
	C(PRINTF_BAD, "%s: Invalid format string")                                                 \
	C(VAR_TYPE, "Type mismatch for %s: trying to assign value of type '%s' when variable "     \
		    "already contains a value of type '%s'")                                       \
	C(MAP_TYPE, "Type mismatch for %s: trying to assign value of type '%s' when map already " \
		    "contains a value of type '%s")                                               \
	C(MAP_KEY, "Argument mismatch for %s: trying to access with arguments: [%s] when map "     \
		   "expects arguments: [%s]")                                             \
	C(AGG_ASSIGN, "%s() should be directly assigned to a map")                                 \
	C(MAP_ARG, "%s() expects a map to be provided")                                            \
	C(INT_ARG, "%s() expects an integer argument")                                            \
	C(LITERAL_ARG, "%s: invalid %s value, must be a literal")                                  \
	C(LHIST_LITERAL, "lhist() expects a integer literal (%s provided)")                         \
	C(LHIST_STEP, "lhist() step must be >= 1 (%lld provided)")                                  \
	C(LHIST_BUCKETS, "lhist() too many buckets, must be <= 1000 (would need %d)")               \
	C(LHIST_MIN, "lhist() min must be non-negative (provided min %lld)")                        \
	C(LHIST_ORDER, "lhist() min must be less than max (provided min %lld and max %lld)")        \
	C(LHIST_RANGE, "lhist() step is too large for the given range (provided step %lld for "      \
		       "range %lld)")                                                                \
	C(BINOP_TYPE, "Type mismatch for '%s': comparing '%s' with '%s'")                          \
	C(UNOP_TYPE, "The %s operator can not be used on expressions of type '%s'")                \
	C(TERNARY_TYPE, "Ternary operator must return the same type: have '%s' and '%s'")         \
	C(TERNARY_UNSUP, "Ternary return type unsupported %s")                                     \
	C(COND_TYPE, "Invalid condition in %s: %s")                                                      \
	C(BUILTIN_PROBE, "The %s builtin can only be used with %s probes")                         \
	C(RETVAL_PROBE, "The retval builtin can only be used with 'kretprobe' and 'uretprobe' and " \
			"'kfunc' probes")                                                          \
	C(ARG_PROBE, "The %s builtin can only be used with 'kprobes', 'uprobes' and 'usdt' probes") \
	C(PROBE_TYPE, "Invalid probe type: %s")                                                    \
	C(PROBE_NARGS, "%s probe type requires %u arguments")                                     \
	C(TIME_UNIT, "%s is not an accepted unit of time")                                         \
	C(PROBE_TARGET, "uprobe target file '%s' does not exist or is not executable")             \
	C(PROBE_OFFSET, "Offset not allowed")                                                      \
	C(PROBE_NUMBER, "%s: invalid %s")                                                          \
	C(INCDEC, "The %s operator must be applied to a map or variable")                          \
	C(EXIT_PROBE, "exit() is not allowed here")                                                \
	C(UNROLL_MAX, "unroll maximum value is 100")                                               \
	C(UNROLL_MIN, "unroll minimum value is 1")                                                 \
	C(NO_MATCH, "No probes to attach")                                                         \
	C(PRINT_NONMAP, "Non-map print() only takes 1 argument, %u found")                          \
	C(INCDEC_AGG, "The %s operator can not be used on expressions of type '%s'")               \
	C(UNSAFE, "%s() is an unsafe function being used in safe mode")                           \
	C(DWARF_PARAM, "Can't find function parameter %s")                                         \
	C(CAST, "Cannot cast from \"%s\" to \"%s\"")                                               \
	C(DEREF, "Can not dereference type '%s'")                                                 \
	C(NO_FIELD, "Struct/union of type '%s' does not contain a field named '%s'")              \
	C(MEMBER_TYPE, "Can not access field '%s' on type '%s'. Try dereferencing it first, or "   \
		       "using '->'")                                                               \
	C(MEMBER_EXPR, "Can not access field '%s' on expression of type '%s'")                    \
	C(INDEX_TYPE, "The array index operator [] can only be used on arrays and pointers, "     \
		      "found %s.")                                                                 \
	C(INDEX_BOUNDS, "the index %lld is out of bounds for array of size %u")                   \
	C(REG, "'%s' is not a valid register")                                                    \
	C(MACADDR, "%s() only supports array arguments of 6 bytes in memory")                    \
	C(STR_ARG, "%s() only supports string arguments (%s provided)")                            \
	C(STR_FIRST, "str() expects an integer or a pointer type as first argument (%s provided)") \
	C(TUPLE_ELEM, "Invalid tuple element: integers, strings and tuples only")                  \
	C(FIELD, "Can not access field on a value that is no tuple")                               \
	C(TUPLE_KEY, "tuple cannot be used as a map key. Try a multi-key associative array "        \
		     "instead (eg `@map[$1, $2] = ...)`.")                                        \
	C(TUPLE_TYPE, "Tuple type mismatch: %s != %s.")                                           \
	C(TUPLE_INDEX, "Invalid tuple index: %lld. Found max index: %lld")                         \
	C(BUF_ARG, "%s() expects an integer, string, or array argument but saw %s")                \
	C(BUF_LEN, "%s() expects a length argument for non-array type %s")                       \
	C(NTOP, "ntop() of an IPv4 address as an integer (AF_INET, 2), or of pton(), is all "      \
		"utrace bt has yet")                                                               \
	C(PTON_STR, "pton() expects an string argument of an IPv4/IPv6 address, got %s")           \
	C(PTON_ADDR, "pton() expects a valid IPv4/IPv6 address, got %s")                          \
	C(JOIN_ARG, "() only supports int or pointer arguments (%s provided)")                     \
	C(STR_PARAM, "str() only accepts positional parameters directly or with a single "         \
		     "constant offset added")                                                      \
	C(STR_PARAM_ADD, "only addition of a single constant less or equal to the length of $%s " \
			 "(which is %zu) is allowed inside str()")

#define BT_ERR_ENUM(name, text) BT_ERR_##name,
enum bt_err { BT_ERRORS(BT_ERR_ENUM) BT_ERR_MAX };
#undef BT_ERR_ENUM

/* Value types, as bpftrace names them in its messages. */
enum bt_type {
	BT_T_NONE,   /* a statement, or not typed yet */
	BT_T_INT,    /* int64 */
	BT_T_STR,    /* string[N] */
	BT_T_STACK,  /* ustack */
	BT_T_AGG,    /* count(), sum(), ...: only assigned to a map */
	BT_T_USYM,   /* usym(), func */
	BT_T_TUPLE,  /* (a, b, ...): size is its shape's index (bt_tuple.c) */
	BT_T_BUF,    /* buf(): size its bytes (common/bt_buf.h) */
	BT_T_RECORD, /* a struct or an array (not of char): size its bytes, ctype its type */
};

enum bt_node_kind {
	BT_N_INT,     /* ival */
	BT_N_STR,     /* str */
	BT_N_BUILTIN, /* str: pid, tid, comm, arg0, retval, ... */
	BT_N_VAR,     /* str: "$x" */
	BT_N_MAP,     /* str: "@x" or "@"; args: the key elements */
	BT_N_CALL,    /* str: the function; args */
	BT_N_BINOP,   /* op; a, b */
	BT_N_UNOP,    /* op ('!', '~', '-'); a */
	BT_N_TERNARY, /* a ? b : c */
	BT_N_INCDEC,  /* op "++"/"--", post; a: a map or a variable */
	BT_N_ASSIGN,  /* op "=", "+=", ...; a: map or variable; b: value */
	BT_N_IF,      /* a: condition; body, orelse */
	BT_N_EXPR,    /* a statement that is an expression: a */
	BT_N_UNROLL,  /* ival times body; loc: `unroll (N)` */
	BT_N_WHILE,   /* while (a) body */
	BT_N_CAST,    /* (str)a: str the type; ival its bytes, op "s"/"u" (bt_cast.c) */
	BT_N_TUPLE,   /* (args...) (bt_tuple.c) */
	BT_N_FIELD,   /* a.ival: a tuple's element */
	BT_N_DEREF,   /* *a (bt_types.h: the C types) */
	BT_N_MEMBER,  /* a->str (op "->"), a.str (op ".") */
	BT_N_INDEX,   /* a[b] */
	BT_N_TYPE,    /* a type name (sizeof's argument): ctype */
};

struct bt_node {
	enum bt_node_kind kind;
	struct bt_loc loc;
	char op[4];
	unsigned pos; /* BINOP: its operator's column (bpftrace's binop loc); $N: N */
	bool post;
	int64_t ival;
	char *str;
	struct bt_node *a, *b, *c;
	struct bt_node **args; /* MAP keys, CALL arguments */
	unsigned nargs;
	struct bt_node **body, **orelse; /* IF, UNROLL */
	unsigned nbody, norelse;
	/* set by the checker */
	enum bt_type type;
	unsigned size; /* STR: bytes, NUL included */
	int slot;      /* VAR: its scratch slot; MAP: its map index */
	unsigned ctype; /* its C type (bt_types.h), 0 if none: a pointer, a struct ... */
};

enum bt_probe_type {
	BT_P_BEGIN,
	BT_P_END,
	BT_P_UPROBE,
	BT_P_URETPROBE,
	BT_P_INTERVAL,
	BT_P_USDT, /* target: the binary (a glob, "" for -p's), func: "PROVIDER:NAME" globs */
	BT_P_TRACEPOINT, /* the kernel's: target SYSTEM, func EVENT (globs) */
	BT_P_PROFILE,	 /* period_ns: 1 s / hz */
};

struct bt_attach {
	enum bt_probe_type type;
	char *text;   /* as written */
	char *target; /* uprobe: the binary */
	char *func;   /* uprobe: the function, a glob */
	uint64_t off; /* uprobe: FUNC+OFF */
	uint64_t period_ns; /* interval */
	struct bt_loc loc;
};

struct bt_probe {
	struct bt_attach *aps;
	unsigned naps;
	struct bt_node *pred; /* NULL: none */
	struct bt_node **body;
	unsigned nbody;
	struct bt_loc loc;
};

/* A map as the checker found it used. */
struct bt_mapdef {
	char *name;
	enum bt_type key_types[8];
	unsigned key_sizes[8];
	unsigned nkeys;
	bool keyed;	 /* seen with [...] (nkeys may be 0 only without) */
	int agg;	 /* enum utrace_bt_agg */
	enum bt_type vtype; /* AGG_SCALAR: its value type */
	unsigned vsize;
	unsigned vctype; /* its value's C type (bt_types.h), 0 if none */
	bool vusgn;	 /* sum() of an unsigned integer: printed unsigned, as bpftrace */
	int64_t lmin, lmax, lstep; /* lhist */
	bool assigned;		   /* some statement fills it */
	bool read;		   /* read in an expression, first at read_loc */
	struct bt_loc read_loc;
};

struct bt_program {
	const char *src;  /* the source (not owned) */
	const char *name; /* "stdin" for -e, else the file's name */
	struct bt_probe *probes;
	unsigned nprobes;
	struct bt_mapdef *maps;
	unsigned nmaps;
	char **vars; /* the scratch variables' names, their slot the index */
	enum bt_type *var_types;
	unsigned *var_sizes;
	unsigned *var_ctypes; /* their C types (bt_types.h) */
	unsigned nvars;
	struct bt_ctype *ctypes; /* the C types (bt_types.h), by index; 0: none */
	unsigned nctypes;
	bool unsafe; /* --unsafe */
	bool has_child; /* -c CMD: cpid means something */
	int pid;	/* -p PID, 0 if none: a uprobe's BIN as that process sees it */
	unsigned helper_check; /* -k 1, -kk 2: warn when a map helper fails */
	char **shapes; /* the tuples' types (bt_tuple.c), by index */
	unsigned nshapes;
	char *const *params; /* the positional parameters ($1 ...), not owned */
	unsigned nparams;
	/* a tracepoint's args.FIELD (bt_tracepoint.c): field i is served to
	 * the bytecode as argument i, a string one as its address */
	char *tp_fields[6];
	unsigned ntp_fields;
	unsigned tp_deref; /* bit i: str() or join() reads where tp_fields[i] points */
	const char *exe; /* the traced program, whose own tracepoints tracepoint: names too */
	char *warnings; /* the checker's warnings, bpftrace's three lines each (malloc'ed) */
	/* the run's store of values longer than a slot (bt_longval.c, not
	 * owned): a name constant over 63 bytes (a probe's, a C++ func's)
	 * is compiled as its handle; NULL: cut at 63 */
	struct bt_longvals *longvals;
};

/* The error of a parse or check: bpftrace's three lines (the position
 * and message, the source line, the caret line) in err->msg, err->column
 * the first column. */
int bt_error(struct utrace_error *err, const struct bt_program *p, struct bt_loc loc,
	     enum bt_err code, ...);

/* bpftrace's three lines of a diagnostic of level ("ERROR", "WARNING")
 * at loc into buf. */
void bt_diag_text(char *buf, size_t size, const struct bt_program *p, struct bt_loc loc,
		  const char *level, const char *text);
/* A warning of the checker at loc (bpftrace's LOG(WARNING)) added to
 * p->warnings, which the run prints before it attaches. */
void bt_warning(struct bt_program *p, struct bt_loc loc, const char *text);
/* A warning of one line, without the source (bpftrace's for a warning
 * of no place): "WARNING: text". */
void bt_warning_line(struct bt_program *p, const char *text);

/* bt_cpp.c: src with its preprocessor lines done (#include checked and
 * its macros read, #define expanded, the lines left empty) into *out
 * (malloc'ed); o (NULL: none) the headers included first (--include) and
 * the folders searched first (-I); 0, or <0 with err (clang's error for
 * a missing header). */
/* bt_libpath.c: the library "libNAME" names (NAME given), as bpftrace's
 * uprobe:libNAME:FUNC finds it in cache (NULL: /etc/ld.so.cache); its
 * path malloc'd, or NULL. */
char *bt_which_so(const char *name, const char *cache);

struct bt_cpp_opts {
	char *const *includes;
	unsigned nincludes;
	char *const *dirs;
	unsigned ndirs;
};
int bt_preprocess(const char *src, const struct bt_cpp_opts *o, char **out,
		  struct utrace_error *err);

/* Parses src into p (p->src, p->name set by the caller); 0 or -EINVAL. */
int bt_parse(struct bt_program *p, struct utrace_error *err);
/* Types the tree, finds the maps and variables; 0 or -EINVAL. */
int bt_check(struct bt_program *p, struct utrace_error *err);
void bt_program_free(struct bt_program *p);

/* bt_param.c: "$1" ... and "$#" name positional parameters; a VAR node
 * of one becomes its literal (op "$"), and str() of one its word. */
bool bt_param_is(const char *name);
int bt_param_node(const struct bt_program *p, struct bt_node *n);
int bt_param_str(const struct bt_program *p, struct bt_node *call, struct utrace_error *err);
/* The number of the parameter named by name (len bytes): 0, or -1 if
 * it is not one or not a number. */
int bt_param_int(const struct bt_program *p, const char *name, size_t len, int64_t *v);
/* An attach point's text with each $N replaced by its word (bpftrace's
 * `i:ms:$1`, `BEG$1`), a missing one by nothing; malloc'ed. */
char *bt_param_attach(const struct bt_program *p, const char *text);

/* bt_cast.c: an integer type's name (int8 ... uint64): its bytes, and
 * whether it is signed; 0 if name is none. */
unsigned bt_int_type(const char *name, size_t len, bool *is_signed);

/* The lexer (bt_lex.c), used by the parser. */
enum bt_tok {
	BT_TK_EOF,
	BT_TK_INT,
	BT_TK_STR,
	BT_TK_IDENT,
	BT_TK_VAR,
	BT_TK_MAP,
	BT_TK_ATTACH, /* an attach point: "uprobe:/bin/bash:readline" */
	BT_TK_PUNCT,  /* text: "{", "==", "+=", ... */
	BT_TK_BAD,    /* a character the language does not have */
};

struct bt_token {
	enum bt_tok kind;
	struct bt_loc loc;
	const char *start;
	size_t len;
	int64_t ival;
	char *sval; /* STR: the unescaped text (malloc'ed) */
};

struct bt_lexer {
	const char *src, *p;
	unsigned line;
	const char *line_start;
	bool top; /* at the top level: attach points are one token */
	/* bpftrace's lexer reads the '*' or ')' that ends the type of a
	 * cast to a struct (`(struct A *)`) twice, so the columns of what
	 * follows on that line are one more each time: shift */
	unsigned shift, brace; /* brace: inside a struct definition's braces */
	bool in_struct;	       /* after struct, union, enum: its name */
};

void bt_lex_init(struct bt_lexer *lx, const char *src);
/* The next token; -ENOMEM. */
int bt_lex_next(struct bt_lexer *lx, struct bt_token *t);
/* How bpftrace's grammar names a token in "unexpected X". */
void bt_tok_name(const struct bt_token *t, char *buf, size_t size);

#endif
