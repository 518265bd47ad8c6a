/* SPDX-License-Identifier: MIT */
/*
 * bt_parse_type.c - the parts of bpftrace's grammar that C types bring
 * (bt_types.h): casts `(TYPE)x` (integers and pointers), the postfix
 * operators `t.N` (a tuple's element), `p->m`, `s.m` and `a[i]`, and
 * `sizeof(TYPE)`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_parse.h"
#include "lib/bt/bt_types.h"

/* (TYPE)x, the "(" behind: a cast (bt_types.h's type names), bound as a
 * unary operator. */
int bt_parse_cast(struct parser *ps, struct bt_loc at, struct bt_node **out)
{
	struct bt_node *n = ps->ops->node(BT_N_CAST, at);
	bool sgn = false;
	int ret;

	if (!n || !(n->str = ps->ops->text(&ps->tok))) {
		free(n);
		return -ENOMEM;
	}
	*out = n;
	n->ival = bt_int_type(ps->tok.start, ps->tok.len, &sgn);
	n->op[0] = sgn ? 's' : 'u';
	if ((ret = bt_ctype_parse_name(ps->prog, &ps->lx, &ps->tok, &n->ctype, ps->err)) < 0 ||
	    (ret = ps->ops->expect(ps, ")", NULL)) < 0 || (ret = ps->ops->unary(ps, &n->a)) < 0)
		return ret;
	n->loc.end = n->a->loc.end;
	return 0;
}

/* What follows a primary: t.N (a tuple's element), p->m and s.m (a
 * struct's member), a[i] (bt_types.h).  at: where the primary begins,
 * its "(" if it has one: bpftrace's place of the whole access. */
int bt_parse_fields(struct parser *ps, struct bt_loc at, struct bt_node **out)
{
	int ret;

	while (ps->ops->is(ps, ".") || ps->ops->is(ps, "->") || ps->ops->is(ps, "[")) {
		bool idx = ps->ops->is(ps, "["), arrow = ps->ops->is(ps, "->");
		struct bt_node *n = ps->ops->node(idx ? BT_N_INDEX : BT_N_FIELD, (*out)->loc);

		if (!n)
			return -ENOMEM;
		if (at.line == n->loc.line && at.col < n->loc.col)
			n->loc.col = at.col;
		n->a = *out;
		*out = n;
		if ((ret = ps->ops->advance(ps)) < 0)
			return ret;
		if (idx) {
			if ((ret = ps->ops->expr(ps, &n->b)) < 0)
				return ret;
			n->loc.end = ps->tok.loc.end;
			if ((ret = ps->ops->expect(ps, "]", NULL)) < 0)
				return ret;
			continue;
		}
		if (ps->tok.kind == BT_TK_IDENT) {
			n->kind = BT_N_MEMBER;
			strcpy(n->op, arrow ? "->" : ".");
			if (!(n->str = ps->ops->text(&ps->tok)))
				return -ENOMEM;
		} else if (ps->tok.kind != BT_TK_INT || arrow) {
			return ps->ops->unexpected(ps, arrow ? "identifier" : "integer");
		}
		n->ival = ps->tok.ival;
		/* bpftrace's a.f spans a and the '.' (its rule's location
		 * leaves the identifier out); a->f and a.N the whole */
		n->loc.end = n->kind == BT_N_MEMBER && !arrow ? ps->tok.loc.col : ps->tok.loc.end;
		if ((ret = ps->ops->advance(ps)) < 0)
			return ret;
	}
	return 0;
}

/* Whether a type name follows the current token. */
bool bt_parse_type_follows(const struct parser *ps)
{
	struct bt_lexer lx = ps->lx;
	struct bt_token t;
	bool yes;

	if (bt_lex_next(&lx, &t) < 0)
		return false;
	yes = bt_ctype_starts(&t);
	free(t.sval);
	return yes;
}

/* sizeof(TYPE), the "(" current: its argument a type node. */
int bt_parse_sizeof_type(struct parser *ps, struct bt_node *n)
{
	struct bt_node *t;
	int ret;

	if ((ret = ps->ops->advance(ps)) < 0)
		return ret;
	if (!(t = ps->ops->node(BT_N_TYPE, ps->tok.loc)) || ps->ops->push(&n->args, &n->nargs, t) < 0) {
		free(t);
		return -ENOMEM;
	}
	if ((ret = bt_ctype_parse_name(ps->prog, &ps->lx, &ps->tok, &t->ctype, ps->err)) < 0)
		return ret;
	n->loc.end = ps->tok.loc.end;
	return ps->ops->expect(ps, ")", NULL);
}
