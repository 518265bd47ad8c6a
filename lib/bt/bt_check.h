/* SPDX-License-Identifier: MIT */
/*
 * bt_check.h - the checker's state, shared by its two files: bt_check.c
 * (statements, expressions, variables) and bt_check_call.c (functions,
 * maps, printf formats).
 */
#ifndef UTRACE_LIB_BT_CHECK_H
#define UTRACE_LIB_BT_CHECK_H

#include "lib/bt/bt_ast.h"

struct bt_checker {
	struct bt_program *p;
	const struct bt_probe *probe;
	struct utrace_error *err;
	unsigned call_col;  /* the enclosing call's first column, 0 if none */
	bool assigning_agg; /* checking the value of `@m = agg()` */
	uint64_t defined;   /* the variables this probe has assigned so far */
	/* bt_check.c's expression checker, for the arguments and keys the
	 * lower files meet (files call each other one way) */
	int (*expr)(struct bt_checker *ck, struct bt_node *n);
};

/* bt_check_map.c, the lowest */
struct bt_loc bt_name_loc(const struct bt_checker *ck, const struct bt_node *n);
const char *bt_type_name(enum bt_type t, unsigned size, char *buf, size_t room);
/* `x op= v` with a v that is no integer: bpftrace's "Type mismatch for
 * 'op'" over the whole statement. */
int bt_compound_error(struct bt_checker *ck, const struct bt_node *as);

int bt_check_call(struct bt_checker *ck, struct bt_node *n);
/* bt_check_sign.c: bpftrace's signedness of integers (unsigned: an
 * unsigned integer C type), its warnings, unsigned comparisons */
bool bt_is_unsigned(const struct bt_program *p, const struct bt_node *n);
void bt_sign_builtin(struct bt_checker *ck, struct bt_node *n);
void bt_sign_binop(struct bt_checker *ck, struct bt_node *n);
void bt_sign_unop(struct bt_checker *ck, struct bt_node *n);
/* bpftrace's name of integer n's type: int64, unsigned int32 ... */
const char *bt_int_type_name(const struct bt_program *p, const struct bt_node *n, char *buf,
			     size_t room);
/* bt_cast.c: (int32)x; sizeof(TYPE or expression), made a literal;
 * bswap(); strncmp(a, b, LEN) (0 when the first LEN bytes are equal). */
int bt_check_cast(struct bt_checker *ck, struct bt_node *n);
int bt_check_int_fn(struct bt_checker *ck, struct bt_node *n);
/* bt_check_ptr.c: C types (bt_types.h): (TYPE *)x, *p, p->m, s.m, a[i];
 * p + i typed as p; the bytes p + 1 steps over (1 but for a pointer). */
int bt_check_cast_ptr(struct bt_checker *ck, struct bt_node *n);
int bt_check_ctype(struct bt_checker *ck, struct bt_node *n);
void bt_check_ptr_arith(struct bt_checker *ck, struct bt_node *n);
unsigned bt_ctype_scale(const struct bt_program *p, unsigned ctype);
/* macaddr(p->mac): the 6 bytes of an array in memory as a MAC address. */
int bt_check_macaddr(struct bt_checker *ck, struct bt_node *n);
/* reg("sp"): a register of the hit (uprobes), NAME a literal. */
int bt_check_reg(struct bt_checker *ck, struct bt_node *n);
/* uaddr("NAME"): bt_check_ptr.c */
int bt_check_uaddr(struct bt_checker *ck, struct bt_node *n);
/* bt_pton.c: pton("ADDRESS") (its bytes' count in n->size); whether n is
 * a pton() call; ntop(AF, pton()) checked; its text (known before the
 * run: the compiler makes it a string constant). */
int bt_check_pton(struct bt_checker *ck, struct bt_node *n);
bool bt_is_pton(const struct bt_node *n);
int bt_check_ntop_pton(struct bt_checker *ck, struct bt_node *n);
void bt_ntop_pton_text(const struct bt_node *n, char *out, size_t room);
/* The bytes of an integer expression's value: a cast's, else 8. */
unsigned bt_int_bytes(const struct bt_node *n);
/* bt_buf.c: buf(STRING, LEN), LEN a literal. */
int bt_check_buf(struct bt_checker *ck, struct bt_node *n);
/* bt_strftime.c: strftime(FMT, NS), FMT a literal: a string of C type
 * timestamp, which only prints (bpftrace's `timestamp`).  bt_types.c:
 * whether C type t is that; bt_check_map.c: bpftrace's name of n's
 * type, 'timestamp' for it. */
int bt_check_strftime(struct bt_checker *ck, struct bt_node *n);
bool bt_is_timestamp(const struct bt_program *p, unsigned t);
const char *bt_value_name(const struct bt_program *p, const struct bt_node *n, char *buf,
			  size_t room);
/* One of a ternary's branches a timestamp: bpftrace's error (-EINVAL),
 * else 0. */
int bt_ternary_timestamp(struct bt_checker *ck, const struct bt_node *n);
/* bt_tuple.c: a tuple literal, `t.N`; a tuple type's shape by index,
 * whether two are one type for bpftrace, its sizeof. */
int bt_check_tuple(struct bt_checker *ck, struct bt_node *n);
int bt_check_field(struct bt_checker *ck, struct bt_node *n);
const char *bt_tuple_shape(const struct bt_program *p, unsigned idx);
/* A tuple of shape val assigned where one of shape have was: 0, or
 * bpftrace's "Tuple type mismatch" at at. */
int bt_tuple_same(struct bt_checker *ck, struct bt_loc at, unsigned have, unsigned val);
unsigned bt_tuple_sizeof(const struct bt_program *p, unsigned idx);
int bt_check_map_read(struct bt_checker *ck, struct bt_node *n);
/* A whole map (print, clear, zero): no key. */
int bt_check_map_whole(struct bt_checker *ck, struct bt_node *n);
int bt_check_map_assign(struct bt_checker *ck, struct bt_node *assign);
int bt_check_map_incdec(struct bt_checker *ck, struct bt_node *n);
/* Every map read is assigned somewhere. */
int bt_check_maps_final(struct bt_program *p, struct utrace_error *err);

/* The aggregation functions: their enum utrace_bt_agg, -1 if name is not
 * one. */
int bt_agg_of(const char *name);

/* printf's conversions: each one's kind, in order. */
enum bt_fmt_conv { BT_FMT_INT, BT_FMT_UINT, BT_FMT_STR, BT_FMT_CHAR, BT_FMT_PTR, BT_FMT_BUF };
/* The conversions of fmt into conv (room max); their number, or -1 if
 * the format is malformed. */
int bt_fmt_scan(const char *fmt, enum bt_fmt_conv *conv, char (*spec)[8], unsigned max);

#endif
