/* SPDX-License-Identifier: MIT */
/*
 * bt_buf.c - bpftrace's buf(X, LEN): LEN bytes of X, where X is a string
 * (a literal, str(), a string variable ...) or the traced program's
 * memory: an array in it (buf($s->arr), LEN the array's size without
 * it, but for a char array, a string to bpftrace), or a pointer or an
 * integer (its address).  As bpftrace's semantic analyser does, LEN is
 * capped at BPFTRACE_STRLEN's default, 64 bytes, with its warning.
 * Memory is read where bpftrace's probe_read reads it: at a uprobe's
 * hit, by one more fetch-arg of the probe ("+8(%di):u8[4]", as str() of
 * a pointer reads), its bytes escaped in the tool (BT_FTYPE_BUF,
 * bt_session.c).  The value travels escaped as common/bt_buf.h says (a
 * 64-byte slot: a buffer whose escaped form is longer is cut);
 * bt_print_buf.c prints it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/bt_prog.h"
#include "lib/bt/bt_check.h"
#include "lib/bt/bt_compile_internal.h"
#include "lib/bt/bt_types.h"

/* bpftrace's strlen_ (BPFTRACE_STRLEN), which caps a buffer's length */
#define BT_BUF_MAX 64

/* bpftrace's typestr() of a value buf() does not take */
static const char *buf_typestr(const struct bt_node *a)
{
	switch (a->type) {
	case BT_T_RECORD: return "record";
	case BT_T_TUPLE: return "tuple";
	case BT_T_BUF: return "buffer";
	case BT_T_STACK: return "ustack";
	case BT_T_USYM: return "usym";
	default: return "none";
	}
}

/* X's C type when it is an array (char arrays among them), else NULL. */
static const struct bt_ctype *buf_array(const struct bt_program *p, const struct bt_node *a)
{
	const struct bt_ctype *t = a->ctype ? bt_ctype(p, a->ctype) : NULL;

	return t && t->kind == BT_C_ARRAY ? t : NULL;
}

/* buf() of a type it does not take: bpftrace's error, and without LEN
 * its second one (its analyser goes on after the first). */
static int buf_bad_type(struct bt_checker *ck, const struct bt_node *n, const struct bt_node *a)
{
	struct utrace_error second = {0};
	size_t len;

	bt_error(ck->err, ck->p, n->loc, BT_ERR_BUF_ARG, n->str, buf_typestr(a));
	if (n->nargs > 1)
		return -EINVAL;
	bt_error(&second, ck->p, n->loc, BT_ERR_BUF_LEN, n->str, buf_typestr(a));
	len = strlen(ck->err->msg);
	snprintf(ck->err->msg + len, sizeof(ck->err->msg) - len, "\n%s", second.msg);
	return -EINVAL;
}

int bt_check_buf(struct bt_checker *ck, struct bt_node *n)
{
	struct bt_node *a = n->args[0];
	const struct bt_ctype *arr;
	int ret = ck->expr(ck, a);
	int64_t len;

	if (ret < 0)
		return ret;
	arr = buf_array(ck->p, a);
	if (a->type != BT_T_STR && a->type != BT_T_INT && !arr)
		return buf_bad_type(ck, n, a);
	if (n->nargs > 1 && (n->args[1]->kind != BT_N_INT || n->args[1]->ival < 0))
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_LITERAL_ARG, n->str, "length");
	/* a char array is a string to bpftrace: it takes LEN too */
	if (n->nargs == 1 && a->type != BT_T_RECORD)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_BUF_LEN, n->str,
				a->type == BT_T_STR			      ? "string"
				: bt_ctype(ck->p, a->ctype) &&
					  bt_ctype(ck->p, a->ctype)->kind == BT_C_PTR ? "pointer"
										      : "integer");
	len = n->nargs > 1 ? n->args[1]->ival : (int64_t)arr->size;
	if (len > BT_BUF_MAX)
		bt_warning(ck->p, n->loc, "buf() length is too long and will be shortened to 64 "
					  "bytes (see BPFTRACE_STRLEN)");
	n->type = BT_T_BUF;
	n->size = (unsigned)(len < BT_BUF_MAX ? len : BT_BUF_MAX);
	return 0;
}

/* DWARF's args->p->arr (bt_dwarf.c), an array member read by a
 * fetch-arg ("+8(%di):u32[2]", "+8(%di):string"): where it is, into at. */
static bool dwarf_array(const struct bt_node *a, char *at, size_t room)
{
	const char *f, *type;

	if (a->kind != BT_N_BUILTIN || strncmp(a->str, "args", 4) || a->slot >= 0 || !a->a ||
	    !a->a->str || (a->type != BT_T_RECORD && !(a->ival & 0x200)))
		return false;
	f = a->a->str;
	type = strrchr(f, ':');
	return type && (size_t)snprintf(at, room, "%.*s", (int)(type - f), f) < room;
}

void bt_comp_buf(struct comp *c, const struct bt_node *n)
{
	const struct bt_node *a = n->args[0];
	char at[200], fa[240];
	bool dwarf = dwarf_array(a, at, sizeof(at));
	bool mem = dwarf || (buf_array(c->p, a) && bt_comp_in_mem(c, a));
	bool ok = dwarf;

	if (a->type == BT_T_STR && !mem) {
		c->ops->expr(c, a); /* a string value */
		bt_comp_emit(c, UTRACE_BOP_BUF, 0, 0, n->size);
		return;
	}
	if (!n->size) {
		bt_comp_sconst(c, "");
		return;
	}
	if (a->type == BT_T_INT)
		ok = bt_comp_addr_fetch(c, a, 0, at, sizeof(at));
	else if (!dwarf)
		ok = mem && bt_comp_place_fetch(c, a, at, sizeof(at));
	if (!ok || (size_t)snprintf(fa, sizeof(fa), "%s:u8[%u]", at, n->size) >= sizeof(fa)) {
		bt_comp_unsupported(c, n, mem || a->type == BT_T_INT
					      ? "buf() of memory at an address the probe's "
						"arguments do not give"
					      : "buf() of an array kept in a variable or a map");
		return;
	}
	bt_comp_emit(c, UTRACE_BOP_FIELD, bt_comp_field(c, fa, BT_FTYPE_BUF), 2, 0);
}
