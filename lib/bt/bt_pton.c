/* SPDX-License-Identifier: MIT */
/*
 * bt_pton.c - pton("ADDRESS"): bpftrace's uint8[4] (IPv4) or uint8[16]
 * (IPv6) of an address literal, which bpftrace makes when it compiles
 * the program (inet_pton of the literal), and ntop() of it: the text of
 * those bytes as the address family reads them (ntop(2, pton("::1")) is
 * "0.0.0.0": the array's first four bytes, as bpftrace prints it).  Both
 * are known before anything runs, so utrace bt makes ntop()'s text here
 * and the action holds it as a string constant.  pton()'s array as a
 * value of its own (a variable, a map, print()) is not supported yet.
 */
#include <arpa/inet.h>
#include <string.h>

#include "lib/bt/bt_check.h"

/* The bytes of literal s into out (16 bytes): 4, 16, or 0 if s is no
 * address. */
static unsigned pton_bytes(const char *s, unsigned char *out)
{
	memset(out, 0, 16);
	if (strchr(s, ':'))
		return inet_pton(AF_INET6, s, out) == 1 ? 16 : 0;
	return inet_pton(AF_INET, s, out) == 1 ? 4 : 0;
}

int bt_check_pton(struct bt_checker *ck, struct bt_node *n)
{
	const struct bt_node *a = n->args[0];
	unsigned char b[16];

	if (a->kind != BT_N_STR)
		return bt_error(ck->err, ck->p, bt_name_loc(ck, n), BT_ERR_PTON_STR, "");
	if (!(n->size = pton_bytes(a->str, b)))
		return bt_error(ck->err, ck->p, bt_name_loc(ck, n), BT_ERR_PTON_ADDR, a->str);
	n->type = BT_T_INT;
	return 0;
}

bool bt_is_pton(const struct bt_node *n)
{
	return n->kind == BT_N_CALL && !strcmp(n->str, "pton") && n->nargs == 1 &&
	       n->args[0]->kind == BT_N_STR;
}

int bt_check_ntop_pton(struct bt_checker *ck, struct bt_node *n)
{
	const struct bt_node *p = n->args[n->nargs - 1];
	int64_t af = n->nargs == 2 && n->args[0]->kind == BT_N_INT ? n->args[0]->ival : -1;

	if (n->nargs == 1)
		return 0; /* the array's size says the family */
	if (af == AF_INET || (af == AF_INET6 && p->size == 16))
		return 0;
	return bt_error(ck->err, ck->p, n->loc, BT_ERR_NTOP);
}

void bt_ntop_pton_text(const struct bt_node *n, char *out, size_t room)
{
	const struct bt_node *p = n->args[n->nargs - 1];
	unsigned char b[16];
	unsigned size = pton_bytes(p->args[0]->str, b);
	int af = n->nargs == 2 ? (int)n->args[0]->ival : size == 16 ? AF_INET6 : AF_INET;

	if (!inet_ntop(af, b, out, (socklen_t)room) && room)
		out[0] = 0;
}
