/* SPDX-License-Identifier: MIT */
/*
 * bt_compile_internal.h - the compiler's state, shared by bt_compile.c
 * (a probe compiled, its program laid out), bt_compile_stmt.c
 * (statements), bt_compile_expr.c (expressions), bt_compile_mem.c (the C
 * types' reads of memory and pointer arithmetic) and bt_compile_emit.c
 * (the instructions, constants and formats).
 */
#ifndef UTRACE_LIB_BT_COMPILE_INTERNAL_H
#define UTRACE_LIB_BT_COMPILE_INTERNAL_H

#include "lib/bt/bt_compile.h"

struct bt_sym;
struct comp;

/* The expressions, for bt_compile_mem.c, which bt_compile_expr.c calls
 * (so not the other way round: no call circle) */
struct bt_comp_ops {
	void (*expr)(struct comp *c, const struct bt_node *n);
};

struct comp {
	const struct bt_comp_ops *ops;
	const struct bt_program *p;
	const struct bt_attach *ap;
	const char *func;
	struct bt_formats *fmts;
	struct utrace_error *err;
	struct utrace_bt_insn *ins;
	unsigned n, cap;
	char *data; /* string constants, placed after the instructions */
	unsigned ndata;
	char **fields; /* the DWARF members FIELD reads (bt_code.fields) */
	unsigned nfields;
	unsigned *ftypes; /* their C types, for a struct or an array read (bt_code.ftypes) */
	int failed;
	/* bt_compile_mem.c: each variable's assignments in the probe, and
	 * the address expression of one assigned once, at the top level */
	unsigned depth; /* 0: a statement of the probe's body, not in an if or unroll */
	unsigned char vcount[UTRACE_BT_VARS];
	struct bt_sym *vsym[UTRACE_BT_VARS];
	/* the same for the maps: @m[literals] assigned once in the probe */
	unsigned char *mcount;
	struct bt_sym **msym;
	bool hit_reads; /* bt_code.hit_reads */
	bool ustack;	/* bt_code.ustack */
};

/* bt_compile_emit.c: instruction op (its index, 0 if none could be added);
 * the jump at `at` made to go to the next instruction; a string constant
 * pushed; what cannot be compiled (the first is kept); a printf/time
 * format's record id; -k's record id of a map helper's failure at loc. */
unsigned bt_comp_emit(struct comp *c, unsigned op, unsigned a, unsigned b, int64_t imm);
void bt_comp_patch(struct comp *c, unsigned at);
void bt_comp_sconst(struct comp *c, const char *s);
/* a name bpftrace prints whole (probe, func): its handle when long */
void bt_comp_sconst_name(struct comp *c, const char *s);
void bt_comp_unsupported(struct comp *c, const struct bt_node *n, const char *what);
unsigned bt_comp_fmt_add(struct comp *c, const char *fmt);
int64_t bt_comp_helper_err(struct comp *c, struct bt_loc loc, enum bt_helper helper);

/* bt_compile_expr.c: whether n's value is a string (or a tuple, a buf ...:
 * bytes, not a number); n's value pushed; the keys of map node m, then
 * KEY; the instruction of a binary operator ("+=" is "+"'s). */
bool bt_comp_is_str(const struct bt_node *n);
void bt_comp_expr(struct comp *c, const struct bt_node *n);
void bt_comp_key(struct comp *c, const struct bt_node *m);
unsigned bt_comp_binop(const char *op);

/* bt_compile_stmt.c: the n statements of s. */
void bt_comp_stmts(struct comp *c, struct bt_node *const *s, unsigned n);

/* bt_compile_mem.c: *p, p->m, s.m, a[i] as values; p + i and p - i,
 * and comparisons of unsigned 64-bit values (true if n is one: its code
 * emitted); the bytes p++ steps over; the
 * variables' assignments counted before the probe is compiled, and a
 * variable's value as an address when it is assigned. */
void bt_comp_mem(struct comp *c, const struct bt_node *n);
/* macaddr(p->mac): its 6 bytes read at the hit, made text in the tool */
void bt_comp_macaddr(struct comp *c, const struct bt_node *n);
/* The fetch-arg (no type) that reads at the address n + add gives, known
 * at a uprobe's hit ("+8(%di)"); false if it is not known there. */
bool bt_comp_addr_fetch(struct comp *c, const struct bt_node *n, int64_t add, char *buf,
			size_t room);
/* The fetch-arg (no type) that reads at place n itself (p->arr, the
 * array's first byte), in the program's memory and known at a uprobe's
 * hit; false if it is not. */
bool bt_comp_place_fetch(struct comp *c, const struct bt_node *n, char *buf, size_t room);
/* Whether n is a place in the program's memory (not in a value) */
bool bt_comp_in_mem(const struct comp *c, const struct bt_node *n);
/* bt_buf.c: buf() of a string value, or of the program's memory */
void bt_comp_buf(struct comp *c, const struct bt_node *n);
/* reg("sp"): the register at the hit, a fetch-arg */
void bt_comp_reg(struct comp *c, const struct bt_node *n);
void bt_comp_sarg(struct comp *c, const struct bt_node *n);
/* args->NAME (bt_dwarf.c): its register, or its member's fetch-arg */
void bt_comp_dwarf_arg(struct comp *c, const struct bt_node *n);
bool bt_comp_ptr_arith(struct comp *c, const struct bt_node *n);
unsigned bt_comp_scale(const struct comp *c, const struct bt_node *n);
void bt_comp_count_vars(struct comp *c, struct bt_node *const *s, unsigned n);
void bt_comp_var_sym(struct comp *c, const struct bt_node *var, const struct bt_node *v, bool top);
void bt_comp_map_sym(struct comp *c, const struct bt_node *map, const struct bt_node *v, bool top);
void bt_comp_mem_free(struct comp *c);
/* The probe's extra fetch-arg text (of C type ctype if it reads a struct
 * or an array, else 0): its index k (FIELD k). */
unsigned bt_comp_field(struct comp *c, const char *fetcharg, unsigned ctype);
/* Whether the probe's action may read at an address computed at run
 * time, at the hit (a uprobe's: then noted in bt_code.hit_reads). */
bool bt_comp_hit_read(struct comp *c);
/* Whether the probe runs in the tool (BEGIN, END, interval): its reads
 * are of the tool's memory. */
bool bt_comp_tool_probe(const struct comp *c);

#endif
