/* SPDX-License-Identifier: MIT */
/*
 * bt_check_sign.c - bpftrace's signedness of integers, which decides how
 * a comparison compares and how a value prints.
 *
 * bpftrace 0.17 types argN, retval, pid, tid, uid, gid, nsecs, elapsed,
 * cpu, rand, cgroup, numaid and cpid `uint64`, a literal `int64`, a cast
 * or a C field as declared.  A binary operation is signed only when both
 * sides are (a shift: when its left side is); `!x` is unsigned, `-x` and
 * `~x` keep x's sign; a variable or a map keeps its first value's.  So
 *
 *   uretprobe:./p:f /retval < 0/ { ... }     never fires (unsigned < 0)
 *   uprobe:./p:f { @s = sum(arg0); }          prints 18446744073709551604
 *                                             for a sum of -12
 *
 * and bpftrace warns where the two sides differ (a literal >= 0 counts as
 * unsigned there) and where / or % has a signed operand.  Here an
 * unsigned integer is one whose C type (bt_types.h) is an unsigned
 * integer: the builtins get `uint64`, and the type travels with the
 * value through variables and maps as the C types of fields already do.
 * Comparisons of it are unsigned (op[3] 'u': bt_compile_mem.c); printing
 * reads the map's vctype and vusgn (bt_run.c) and print()'s record.
 */
#include <stdio.h>
#include <string.h>

#include "lib/bt/bt_check.h"
#include "lib/bt/bt_types.h"

static const char *const unsigned_builtins[] = {
    "pid", "tid", "uid", "gid", "nsecs", "elapsed", "cpu", "rand", "cgroup", "numaid", "cpid",
    "retval"};

bool bt_is_unsigned(const struct bt_program *p, const struct bt_node *n)
{
	const struct bt_ctype *t = bt_ctype(p, n->ctype);

	return n->type == BT_T_INT && t && t->kind == BT_C_INT && !t->is_signed;
}

void bt_sign_builtin(struct bt_checker *ck, struct bt_node *n)
{
	const char *s = n->str;
	bool u = (!strncmp(s, "arg", 3) || !strncmp(s, "sarg", 4)) && strchr("0123456789",
									      s[s[0] == 's' ? 4 : 3]);

	for (size_t i = 0; !u && i < sizeof(unsigned_builtins) / sizeof(unsigned_builtins[0]); i++)
		u = !strcmp(s, unsigned_builtins[i]);
	if (u && n->type == BT_T_INT && !n->ctype)
		n->ctype = bt_ctype_int(ck->p, 8, false, false);
}

const char *bt_int_type_name(const struct bt_program *p, const struct bt_node *n, char *buf,
			     size_t room)
{
	const struct bt_ctype *t = bt_ctype(p, n->ctype);
	unsigned bits = t && t->kind == BT_C_INT ? 8 * t->size : 64;

	snprintf(buf, room, "%sint%u", bt_is_unsigned(p, n) ? "unsigned " : "", bits);
	return buf;
}

static bool nonneg_literal(const struct bt_node *n)
{
	return n->kind == BT_N_INT && n->ival >= 0;
}

/* bpftrace's warnings of a binary operation on two integers. */
static void sign_warnings(struct bt_checker *ck, const struct bt_node *n, bool ls, bool rs)
{
	static const char *const cmp[] = {"==", "!=", "<=", ">=", "<", ">"};
	static const char *const arith[] = {"+", "-", "*", "/", "%"};
	struct bt_loc at = {n->loc.line, n->pos ? n->pos : n->loc.col, 0};
	char text[160], b1[24], b2[24];
	const char *what = NULL;

	at.end = at.col + (unsigned)strlen(n->op);
	for (size_t i = 0; i < sizeof(cmp) / sizeof(cmp[0]); i++)
		if (!strcmp(n->op, cmp[i]))
			what = "comparison of";
	for (size_t i = 0; i < sizeof(arith) / sizeof(arith[0]); i++)
		if (!strcmp(n->op, arith[i]))
			what = "arithmetic on";
	if (ls != rs) {
		if (ls && nonneg_literal(n->a))
			ls = false;
		else if (rs && nonneg_literal(n->b))
			rs = false;
		else if (what) {
			snprintf(text, sizeof(text),
				 "%s integers of different signs: '%s' and '%s' can lead to "
				 "undefined behavior",
				 what, bt_int_type_name(ck->p, n->a, b1, sizeof(b1)),
				 bt_int_type_name(ck->p, n->b, b2, sizeof(b2)));
			bt_warning(ck->p, at, text);
		}
	}
	if (strcmp(n->op, "/") && strcmp(n->op, "%"))
		return;
	if (ls && nonneg_literal(n->a))
		ls = false;
	if (rs && nonneg_literal(n->b))
		rs = false;
	if (ls || rs) {
		snprintf(text, sizeof(text),
			 "signed operands for '%s' can lead to undefined behavior (cast to unsigned "
			 "to silence warning)",
			 n->op);
		bt_warning(ck->p, at, text);
	}
}

void bt_sign_binop(struct bt_checker *ck, struct bt_node *n)
{
	bool ls = !bt_is_unsigned(ck->p, n->a), rs = !bt_is_unsigned(ck->p, n->b);
	bool shift = !strcmp(n->op, "<<") || !strcmp(n->op, ">>");

	if (n->a->type != BT_T_INT || n->b->type != BT_T_INT || n->ctype)
		return; /* a pointer's arithmetic: bt_check_ptr.c */
	if (bt_ctype(ck->p, n->a->ctype) && bt_ctype(ck->p, n->a->ctype)->kind == BT_C_PTR)
		return;
	if (bt_ctype(ck->p, n->b->ctype) && bt_ctype(ck->p, n->b->ctype)->kind == BT_C_PTR)
		return;
	sign_warnings(ck, n, ls, rs);
	if (!strcmp(n->op, "&&") || !strcmp(n->op, "||"))
		return;
	if (shift ? !ls : !(ls && rs))
		n->ctype = bt_ctype_int(ck->p, 8, false, false);
	if (!(ls && rs) && (n->op[0] == '<' || n->op[0] == '>') && n->op[1] != n->op[0])
		n->op[3] = 'u'; /* an unsigned comparison: bt_compile_mem.c */
}

void bt_sign_unop(struct bt_checker *ck, struct bt_node *n)
{
	if (n->type != BT_T_INT)
		return;
	if (!strcmp(n->op, "!") || bt_is_unsigned(ck->p, n->a))
		n->ctype = bt_ctype_int(ck->p, 8, false, false);
}
