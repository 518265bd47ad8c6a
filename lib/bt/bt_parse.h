/* SPDX-License-Identifier: MIT */
/*
 * bt_parse.h - the parser's state and helpers, shared by bt_parse.c (the
 * grammar) and bt_parse_type.c (what C types add to it: casts to them,
 * members, indexes, sizeof(TYPE)).
 */
#ifndef UTRACE_LIB_BT_PARSE_H
#define UTRACE_LIB_BT_PARSE_H

#include "lib/bt/bt_ast.h"

struct parser;

/* bt_parse.c's helpers, for bt_parse_type.c (which it calls) */
struct bt_ps_ops {
	int (*advance)(struct parser *ps);
	bool (*is)(const struct parser *ps, const char *punct);
	int (*unexpected)(struct parser *ps, const char *expecting);
	int (*expect)(struct parser *ps, const char *punct, const char *expecting);
	struct bt_node *(*node)(enum bt_node_kind kind, struct bt_loc loc);
	char *(*text)(const struct bt_token *t);
	int (*push)(struct bt_node ***arr, unsigned *n, struct bt_node *x);
	int (*expr)(struct parser *ps, struct bt_node **out);
	int (*unary)(struct parser *ps, struct bt_node **out);
};

struct parser {
	const struct bt_ps_ops *ops;
	struct bt_program *prog;
	struct bt_lexer lx;
	struct bt_token tok;
	struct utrace_error *err;
};

/* bt_parse_type.c: (TYPE)x, the "(" behind; what follows a primary
 * (t.N, p->m, s.m, a[i]); whether a type name follows the current
 * token; sizeof(TYPE), its "(" current. */
int bt_parse_cast(struct parser *ps, struct bt_loc at, struct bt_node **out);
int bt_parse_fields(struct parser *ps, struct bt_loc at, struct bt_node **out);
bool bt_parse_type_follows(const struct parser *ps);
int bt_parse_sizeof_type(struct parser *ps, struct bt_node *n);

#endif
