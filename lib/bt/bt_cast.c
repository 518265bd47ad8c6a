/* SPDX-License-Identifier: MIT */
/*
 * bt_cast.c - bpftrace's integer types where a program names them: casts
 * `(int8)x` ... `(uint64)x` (the value's low bytes, sign- or
 * zero-extended, bytecode EXT), `sizeof(TYPE)` and `sizeof(expr)` (a
 * literal: the type's bytes), and the integer functions whose result
 * depends on a width or a length: bswap() swaps as many bytes as its
 * argument has (a cast's, else 8), strncmp(a, b, LEN) compares LEN
 * bytes, LEN a literal as bpftrace wants it.
 */
#include <string.h>

#include "lib/bt/bt_check.h"
#include "lib/bt/bt_types.h"

unsigned bt_int_type(const char *name, size_t len, bool *is_signed)
{
	static const char *const names[] = {"int8", "int16", "int32", "int64",
					    "uint8", "uint16", "uint32", "uint64"};

	for (unsigned i = 0; i < 8; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], name, len)) {
			*is_signed = i < 4;
			return 1u << (i % 4);
		}
	return 0;
}

int bt_check_cast(struct bt_checker *ck, struct bt_node *n)
{
	const struct bt_ctype *c = bt_ctype(ck->p, n->ctype);
	char b1[24];
	int ret;

	if (c && c->kind != BT_C_INT)
		return bt_check_cast_ptr(ck, n);
	if (c) { /* an integer's: its bytes, and the C type of its sign */
		bool sgn = c->is_signed;

		n->ival = c->size;
		n->op[0] = sgn ? 's' : 'u';
		n->ctype = bt_ctype_int(ck->p, (unsigned)n->ival, sgn, false);
	}
	if ((ret = ck->expr(ck, n->a)) < 0)
		return ret;
	n->type = BT_T_INT;
	if (n->a->type != BT_T_INT)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_CAST,
				bt_type_name(n->a->type, n->a->size, b1, sizeof(b1)), n->str);
	return 0;
}

/* sizeof(x): its bytes into n->ival (the compiler pushes it). */
static int check_sizeof(struct bt_checker *ck, struct bt_node *n)
{
	struct bt_node *a = n->args[0];
	bool sgn;
	int ret;

	if (a->kind == BT_N_BUILTIN && (n->ival = bt_int_type(a->str, strlen(a->str), &sgn)))
		return 0;
	if (a->kind == BT_N_TYPE) {
		n->ival = bt_ctype(ck->p, a->ctype) ? bt_ctype(ck->p, a->ctype)->size : 1;
		return 0;
	}
	if ((ret = ck->expr(ck, a)) < 0)
		return ret;
	n->ival = a->type == BT_T_STR	  ? a->size
		  : a->type == BT_T_INT	  ? bt_int_bytes(a)
		  : a->type == BT_T_TUPLE ? bt_tuple_sizeof(ck->p, a->size)
		  : a->type == BT_T_RECORD ? a->size
					  : 8;
	return 0;
}

static int check_strncmp(struct bt_checker *ck, struct bt_node *n)
{
	int ret;

	for (unsigned i = 0; i < 2; i++) {
		if ((ret = ck->expr(ck, n->args[i])) < 0)
			return ret;
		if (n->args[i]->type != BT_T_STR || bt_is_timestamp(ck->p, n->args[i]->ctype))
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_STR_ARG, n->str,
					n->args[i]->type == BT_T_INT     ? "integer"
					: n->args[i]->type == BT_T_TUPLE ? "tuple"
					: n->args[i]->type == BT_T_STR	 ? "timestamp"
									 : "other");
	}
	if (n->nargs > 2 && (n->args[2]->kind != BT_N_INT || n->args[2]->ival < 0))
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_LITERAL_ARG, n->str, "length");
	return 0;
}

int bt_check_int_fn(struct bt_checker *ck, struct bt_node *n)
{
	int ret;

	n->type = BT_T_INT;
	if (!strcmp(n->str, "sizeof"))
		return check_sizeof(ck, n);
	if (!strcmp(n->str, "strncmp") || !strcmp(n->str, "strcontains"))
		return check_strncmp(ck, n); /* strcontains(a, b): two strings */
	if (!strcmp(n->str, "reg"))
		return bt_check_reg(ck, n);
	if (!strcmp(n->str, "uaddr"))
		return bt_check_uaddr(ck, n);
	if (!strcmp(n->str, "pton"))
		return bt_check_pton(ck, n);
	if ((ret = ck->expr(ck, n->args[0])) < 0)
		return ret;
	if (n->args[0]->type != BT_T_INT)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_INT_ARG, n->str);
	return 0;
}
