/* SPDX-License-Identifier: MIT */
/*
 * bt_buf.c - bpftrace's buf(X, LEN) in the checker: LEN bytes of the
 * string X (a literal, str(), a string variable ...), LEN a literal, or
 * the string's size without it.  buf() of an address (bytes of the
 * traced program's memory) is not read yet: it is refused.  Its value
 * travels escaped as common/bt_buf.h says; bt_print_buf.c prints it.
 */
#include "common/bt_prog.h"
#include "lib/bt/bt_check.h"

int bt_check_buf(struct bt_checker *ck, struct bt_node *n)
{
	int ret = ck->expr(ck, n->args[0]);
	int64_t len;

	if (ret < 0)
		return ret;
	if (n->args[0]->type != BT_T_STR)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_BUF_ARG);
	if (n->nargs > 1 && (n->args[1]->kind != BT_N_INT || n->args[1]->ival < 0))
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_LITERAL_ARG, n->str, "length");
	len = n->nargs > 1 ? n->args[1]->ival : (int64_t)n->args[0]->size;
	n->type = BT_T_BUF;
	n->size = (unsigned)(len < UTRACE_BT_STRLEN ? len : UTRACE_BT_STRLEN - 1);
	return 0;
}
