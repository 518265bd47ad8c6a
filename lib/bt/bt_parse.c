/* SPDX-License-Identifier: MIT */
/*
 * bt_parse.c - a bpftrace program's grammar (bpftrace 0.17's parser.yy,
 * the subset utrace runs) by recursive descent, into the tree of
 * bt_ast.h.  Precedence as C's (bpftrace's %left table): ?: then || &&
 * | ^ & == != < <= > >= << >> + - * / % then the unary operators.  An
 * assignment is a statement, not an expression, as in bpftrace.  Syntax
 * errors are bison's texts ("syntax error, unexpected ;, expecting }")
 * with the offending token underlined.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/bt/bt_parse.h"
#include "lib/bt/bt_types.h"

static int advance(struct parser *ps)
{
	free(ps->tok.sval);
	return bt_lex_next(&ps->lx, &ps->tok);
}

static bool is(const struct parser *ps, const char *punct)
{
	return ps->tok.kind == BT_TK_PUNCT && ps->tok.len == strlen(punct) &&
	       !memcmp(ps->tok.start, punct, ps->tok.len);
}

static bool is_word(const struct parser *ps, const char *w)
{
	return ps->tok.kind == BT_TK_IDENT && ps->tok.len == strlen(w) &&
	       !memcmp(ps->tok.start, w, ps->tok.len);
}

static int unexpected(struct parser *ps, const char *expecting)
{
	char name[64];

	bt_tok_name(&ps->tok, name, sizeof(name));
	if (expecting)
		return bt_error(ps->err, ps->prog, ps->tok.loc, BT_ERR_SYNTAX_EXPECTING, name,
				expecting);
	return bt_error(ps->err, ps->prog, ps->tok.loc, BT_ERR_SYNTAX, name);
}

static int expect(struct parser *ps, const char *punct, const char *expecting)
{
	if (!is(ps, punct))
		return unexpected(ps, expecting ? expecting : punct);
	return advance(ps);
}

static struct bt_node *node_new(enum bt_node_kind kind, struct bt_loc loc)
{
	struct bt_node *n = calloc(1, sizeof(*n));

	if (n) {
		n->kind = kind;
		n->loc = loc;
		n->slot = -1;
	}
	return n;
}

static char *tok_text(const struct bt_token *t)
{
	return strndup(t->start, t->len);
}

static int push_node(struct bt_node ***arr, unsigned *n, struct bt_node *x)
{
	/* arrays here are short: grown one at a time */
	struct bt_node **a = realloc(*arr, (*n + 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	a[(*n)++] = x;
	*arr = a;
	return 0;
}

static int parse_expr(struct parser *ps, struct bt_node **out);
static int parse_unary(struct parser *ps, struct bt_node **out);
static int parse_block(struct parser *ps, struct bt_node ***body, unsigned *n);
static int parse_inner(struct parser *ps, struct bt_node ***body, unsigned *n);

/* "(" [expr {"," expr}] ")" or "[" ... "]" into n->args. */
static int parse_list(struct parser *ps, struct bt_node *n, const char *close)
{
	char expecting[16];
	int ret = advance(ps);

	snprintf(expecting, sizeof(expecting), "%s or \",\"", close);
	if (!ret && is(ps, close))
		n->loc.end = ps->tok.loc.end;
	if (ret || is(ps, close))
		return ret ? ret : advance(ps);
	for (;;) {
		struct bt_node *a = NULL;

		/* kept even when it fails: the tree frees what was made */
		ret = parse_expr(ps, &a);
		if (a && push_node(&n->args, &n->nargs, a) < 0)
			return -ENOMEM;
		if (ret < 0)
			return ret;
		if (is(ps, close))
			break;
		if (!is(ps, ","))
			return unexpected(ps, expecting);
		if ((ret = advance(ps)) < 0)
			return ret;
	}
	n->loc.end = ps->tok.loc.end;
	return advance(ps);
}

/* args->NAME (args.NAME, and their chains): one builtin whose name is
 * the whole text, "args->foo1->a" (bt_dwarf.c for uprobes). */
static int parse_args_field(struct parser *ps, struct bt_node *n)
{
	int ret;

	while (is(ps, "->") || is(ps, ".")) {
		const char *op = is(ps, "->") ? "->" : ".";
		size_t len = strlen(n->str);
		char *name, *s;

		if ((ret = advance(ps)) < 0)
			return ret;
		if (ps->tok.kind != BT_TK_IDENT)
			return unexpected(ps, "identifier");
		if (!(name = tok_text(&ps->tok)) ||
		    !(s = realloc(n->str, len + strlen(op) + strlen(name) + 1))) {
			free(name);
			return -ENOMEM;
		}
		sprintf(s + len, "%s%s", op, name);
		free(name);
		n->str = s;
		n->loc.end = ps->tok.loc.end;
		if ((ret = advance(ps)) < 0)
			return ret;
	}
	return 0;
}

/* (a, b, ...), a parsed and the "," current: a tuple. */
static int parse_tuple(struct parser *ps, struct bt_loc at, struct bt_node **out)
{
	struct bt_node *n = node_new(BT_N_TUPLE, at);
	int ret;

	if (!n)
		return -ENOMEM;
	n->args = malloc(sizeof(*n->args));
	if (!n->args) {
		free(n);
		return -ENOMEM;
	}
	n->args[n->nargs++] = *out;
	*out = n;
	while (is(ps, ",")) {
		struct bt_node **v = realloc(n->args, (n->nargs + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		n->args = v;
		n->args[n->nargs] = NULL;
		if ((ret = advance(ps)) < 0 || (ret = parse_expr(ps, &n->args[n->nargs++])) < 0)
			return ret;
	}
	n->loc.end = ps->tok.loc.end;
	return expect(ps, ")", ") or \",\"");
}

static int parse_primary(struct parser *ps, struct bt_node **out)
{
	struct bt_token *t = &ps->tok;
	struct bt_node *n = NULL;
	int ret;

	switch (t->kind) {
	case BT_TK_INT:
		n = node_new(BT_N_INT, t->loc);
		if (n)
			n->ival = t->ival;
		break;
	case BT_TK_STR:
		n = node_new(BT_N_STR, t->loc);
		if (n) {
			n->str = t->sval;
			n->ival = t->ival;
			t->sval = NULL;
		}
		break;
	case BT_TK_VAR:
	case BT_TK_MAP:
	case BT_TK_IDENT:
		n = node_new(t->kind == BT_TK_VAR ? BT_N_VAR : t->kind == BT_TK_MAP ? BT_N_MAP
										 : BT_N_BUILTIN,
			     t->loc);
		if (n && !(n->str = tok_text(t))) {
			free(n);
			n = NULL;
		}
		break;
	default:
		if (is(ps, "(")) {
			struct bt_loc at = t->loc;
			bool sgn;

			if ((ret = advance(ps)) < 0)
				return ret;
			if (bt_ctype_starts(t) ||
			    (t->kind == BT_TK_IDENT && bt_int_type(t->start, t->len, &sgn)))
				return bt_parse_cast(ps, at, out);
			if ((ret = parse_expr(ps, out)) < 0)
				return ret;
			if (is(ps, ","))
				return parse_tuple(ps, at, out);
			return expect(ps, ")", ") or \",\"");
		}
		return unexpected(ps, NULL);
	}
	if (!n)
		return -ENOMEM;
	*out = n;
	if ((ret = advance(ps)) < 0)
		return ret;
	if (n->kind == BT_N_BUILTIN && !strcmp(n->str, "args") && (is(ps, "->") || is(ps, ".")))
		return parse_args_field(ps, n);
	if (n->kind == BT_N_VAR && bt_param_is(n->str))
		return bt_param_node(ps->prog, n);
	if (n->kind == BT_N_MAP && is(ps, "["))
		return parse_list(ps, n, "]");
	if (n->kind == BT_N_BUILTIN && is(ps, "(")) {
		n->kind = BT_N_CALL;
		if (!strcmp(n->str, "sizeof") && bt_parse_type_follows(ps))
			return bt_parse_sizeof_type(ps, n);
		if ((ret = parse_list(ps, n, ")")) < 0)
			return ret;
		return bt_param_str(ps->prog, n, ps->err);
	}
	return 0;
}

static int parse_unary(struct parser *ps, struct bt_node **out)
{
	static const char *const ops[] = {"!", "~", "-", "++", "--", "*"};
	struct bt_loc at;
	int ret;

	for (unsigned i = 0; i < 6; i++) {
		struct bt_node *n;

		if (!is(ps, ops[i]))
			continue;
		n = node_new(i < 3 ? BT_N_UNOP : i < 5 ? BT_N_INCDEC : BT_N_DEREF, ps->tok.loc);
		if (!n)
			return -ENOMEM;
		strcpy(n->op, ops[i]);
		*out = n;
		if ((ret = advance(ps)) < 0)
			return ret;
		if (i == 2 && ps->tok.kind == BT_TK_INT) { /* bpftrace's `int: MINUS INT` */
			n->kind = BT_N_INT;
			n->op[0] = 0;
			n->ival = (int64_t)(~(uint64_t)ps->tok.ival + 1);
			n->loc.end = ps->tok.loc.end;
			return advance(ps);
		}
		if ((ret = parse_unary(ps, &n->a)) < 0)
			return ret;
		n->loc.end = n->a->loc.end;
		return 0;
	}
	at = ps->tok.loc; /* the primary's place, with its parentheses */
	if ((ret = parse_primary(ps, out)) < 0 || (ret = bt_parse_fields(ps, at, out)) < 0)
		return ret;
	while ((is(ps, "++") || is(ps, "--")) &&
	       ((*out)->kind == BT_N_MAP || (*out)->kind == BT_N_VAR)) {
		struct bt_node *n = node_new(BT_N_INCDEC, (*out)->loc);

		if (!n)
			return -ENOMEM;
		memcpy(n->op, ps->tok.start, 2);
		n->post = true;
		n->a = *out;
		n->loc.end = ps->tok.loc.end;
		*out = n;
		if ((ret = advance(ps)) < 0)
			return ret;
	}
	return 0;
}

/* The binary operators by level, loosest first. */
static const char *const levels[][5] = {
    {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="},
    {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
};
#define NLEVELS (sizeof(levels) / sizeof(levels[0]))

/* A '/' followed by '{': the end of a predicate, not a division. */
static bool pred_end(const struct parser *ps)
{
	const char *s = ps->lx.p;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	return *s == '{';
}

static int parse_binary(struct parser *ps, unsigned level, struct bt_node **out)
{
	int ret;

	if (level == NLEVELS)
		return parse_unary(ps, out);
	if ((ret = parse_binary(ps, level + 1, out)) < 0)
		return ret;
	for (;;) {
		const char *op = NULL;
		struct bt_node *n;

		for (unsigned i = 0; i < 5 && levels[level][i]; i++)
			if (is(ps, levels[level][i]))
				op = levels[level][i];
		if (!op || (!strcmp(op, "/") && pred_end(ps)))
			return 0;
		n = node_new(BT_N_BINOP, (*out)->loc);
		if (!n)
			return -ENOMEM;
		strcpy(n->op, op);
		n->pos = ps->tok.loc.col;
		n->a = *out;
		*out = n;
		if ((ret = advance(ps)) < 0 || (ret = parse_binary(ps, level + 1, &n->b)) < 0)
			return ret;
		n->loc.end = n->b->loc.end;
	}
}

static int parse_expr(struct parser *ps, struct bt_node **out)
{
	struct bt_node *n;
	int ret;

	if ((ret = parse_binary(ps, 0, out)) < 0 || !is(ps, "?"))
		return ret;
	if (!(n = node_new(BT_N_TERNARY, (*out)->loc)))
		return -ENOMEM;
	n->a = *out;
	*out = n;
	if ((ret = advance(ps)) < 0 || (ret = parse_expr(ps, &n->b)) < 0 ||
	    (ret = expect(ps, ":", NULL)) < 0 || (ret = parse_expr(ps, &n->c)) < 0)
		return ret;
	n->loc.end = n->c->loc.end;
	return 0;
}

static const char *const assign_ops[] = {"=",  "+=", "-=", "*=",  "/=",  "%=",
					 "&=", "|=", "^=", "<<=", ">>="};

static int parse_if(struct parser *ps, struct bt_node **out)
{
	struct bt_node *n = node_new(BT_N_IF, ps->tok.loc);
	unsigned paren;
	int ret;

	if (!n)
		return -ENOMEM;
	*out = n;
	if ((ret = advance(ps)) < 0)
		return ret;
	paren = ps->tok.loc.col;
	if ((ret = expect(ps, "(", NULL)) < 0 || (ret = parse_expr(ps, &n->a)) < 0 ||
	    (ret = expect(ps, ")", NULL)) < 0 || (ret = parse_inner(ps, &n->body, &n->nbody)) < 0)
		return ret;
	n->a->loc.col = paren; /* bpftrace's condition starts at its "(" */
	if (!is_word(ps, "else"))
		return 0;
	if ((ret = advance(ps)) < 0)
		return ret;
	if (is_word(ps, "if")) {
		struct bt_node *elif = NULL;

		ret = parse_if(ps, &elif);
		if (elif && push_node(&n->orelse, &n->norelse, elif) < 0)
			return -ENOMEM;
		return ret;
	}
	return parse_inner(ps, &n->orelse, &n->norelse);
}

static int parse_stmt(struct parser *ps, struct bt_node **out)
{
	struct bt_node *e = NULL, *n;
	int ret;

	if (is_word(ps, "if"))
		return parse_if(ps, out);
	if (is_word(ps, "while")) { /* while (COND) { ... } */
		if (!(n = node_new(BT_N_WHILE, ps->tok.loc)))
			return -ENOMEM;
		*out = n;
		if ((ret = advance(ps)) < 0 || (ret = expect(ps, "(", NULL)) < 0 ||
		    (ret = parse_expr(ps, &n->a)) < 0 || (ret = expect(ps, ")", NULL)) < 0)
			return ret;
		return parse_inner(ps, &n->body, &n->nbody);
	}
	if (is_word(ps, "unroll")) {
		if (!(n = node_new(BT_N_UNROLL, ps->tok.loc)))
			return -ENOMEM;
		*out = n;
		if ((ret = advance(ps)) < 0 || (ret = expect(ps, "(", NULL)) < 0)
			return ret;
		if (ps->tok.kind == BT_TK_VAR && !bt_param_int(ps->prog, ps->tok.start,
							       ps->tok.len, &n->ival))
			; /* unroll ($1): the parameter's number */
		else if (ps->tok.kind != BT_TK_INT)
			return unexpected(ps, "integer");
		else
			n->ival = ps->tok.ival;
		if ((ret = advance(ps)) < 0)
			return ret;
		if (is(ps, ")") && ps->tok.loc.line == n->loc.line)
			n->loc.end = ps->tok.loc.end; /* bpftrace's: `unroll (N)` */
		if ((ret = expect(ps, ")", NULL)) < 0)
			return ret;
		return parse_inner(ps, &n->body, &n->nbody);
	}
	if ((ret = parse_expr(ps, &e)) < 0) {
		*out = e; /* the caller's tree frees it */
		return ret;
	}
	for (unsigned i = 0; i < sizeof(assign_ops) / sizeof(assign_ops[0]); i++) {
		if (!is(ps, assign_ops[i]) || (e->kind != BT_N_MAP && e->kind != BT_N_VAR))
			continue;
		/* bpftrace places an assignment at its operator */
		if (!(n = node_new(BT_N_ASSIGN, ps->tok.loc)))
			return -ENOMEM;
		strcpy(n->op, assign_ops[i]);
		n->a = e;
		*out = n;
		if ((ret = advance(ps)) < 0 || (ret = parse_expr(ps, &n->b)) < 0)
			return ret;
		return 0;
	}
	if (!(n = node_new(BT_N_EXPR, e->loc)))
		return -ENOMEM;
	n->a = e;
	*out = n;
	return 0;
}

/* "{" stmt {";" stmt} [";"] "}"; if and unroll need no ";" after them. */
static int parse_block(struct parser *ps, struct bt_node ***body, unsigned *n)
{
	int ret = expect(ps, "{", NULL);

	while (!ret && !is(ps, "}")) {
		struct bt_node *s = NULL;

		if (is(ps, ";")) {
			ret = advance(ps);
			continue;
		}
		ret = parse_stmt(ps, &s);
		if (s && push_node(body, n, s) < 0)
			return -ENOMEM;
		if (ret < 0)
			return ret;
		if (is(ps, ";"))
			ret = advance(ps);
		else if (!is(ps, "}") && s->kind != BT_N_IF && s->kind != BT_N_UNROLL &&
			 s->kind != BT_N_WHILE)
			return unexpected(ps, "}");
	}
	return ret;
}

/* A block inside an action (if, else, unroll): its "}" consumed. */
static int parse_inner(struct parser *ps, struct bt_node ***body, unsigned *n)
{
	int ret = parse_block(ps, body, n);

	return ret < 0 ? ret : advance(ps);
}

int bt_attach_parse(struct bt_program *p, struct bt_attach *ap, struct utrace_error *err);

static int parse_probe(struct parser *ps, struct bt_probe *pr)
{
	int ret;

	pr->loc = ps->tok.loc;
	for (;;) {
		struct bt_attach *a;

		if (ps->tok.kind != BT_TK_ATTACH)
			return unexpected(ps, pr->naps ? NULL : "{");
		a = realloc(pr->aps, (pr->naps + 1) * sizeof(*a));
		if (!a)
			return -ENOMEM;
		pr->aps = a;
		a = &pr->aps[pr->naps++];
		*a = (struct bt_attach){.loc = ps->tok.loc, .text = tok_text(&ps->tok)};
		if (!a->text)
			return -ENOMEM;
		if ((ret = bt_attach_parse(ps->prog, a, ps->err)) < 0)
			return ret;
		ps->lx.top = false;
		if ((ret = advance(ps)) < 0)
			return ret;
		if (!is(ps, ","))
			break;
		ps->lx.top = true;
		if ((ret = advance(ps)) < 0)
			return ret;
	}
	if (is(ps, "/")) {
		if ((ret = advance(ps)) < 0 || (ret = parse_expr(ps, &pr->pred)) < 0 ||
		    (ret = expect(ps, "/", NULL)) < 0)
			return ret;
	}
	if (!is(ps, "{")) {
		/* bpftrace's own words for a probe without its block */
		struct bt_loc l = pr->aps[pr->naps - 1].loc;

		if (ps->tok.kind == BT_TK_EOF)
			return bt_error(ps->err, ps->prog, l, BT_ERR_EOF_EXPECTING, "{");
		return unexpected(ps, "{");
	}
	ret = parse_block(ps, &pr->body, &pr->nbody);
	if (ret < 0)
		return ret;
	ps->lx.top = true; /* the "}" is current: the next token is a probe's */
	return advance(ps);
}

int bt_parse(struct bt_program *p, struct utrace_error *err)
{
	static const struct bt_ps_ops ops = {advance, is, unexpected, expect, node_new,
					     tok_text, push_node, parse_expr, parse_unary};
	struct parser ps = {.ops = &ops, .prog = p, .err = err};
	int ret;

	bt_lex_init(&ps.lx, p->src);
	if ((ret = advance(&ps)) < 0)
		return ret;
	while (ps.tok.kind != BT_TK_EOF) {
		struct bt_probe *pr;

		if (ps.tok.kind == BT_TK_ATTACH && ps.tok.len == 6 && !memcmp(ps.tok.start, "struct", 6)) {
			if ((ret = bt_ctype_parse_def(p, &ps.lx, &ps.tok, err)) < 0)
				break;
			continue;
		}
		pr = realloc(p->probes, (p->nprobes + 1) * sizeof(*pr));

		if (!pr) {
			ret = -ENOMEM;
			break;
		}
		p->probes = pr;
		pr = &p->probes[p->nprobes++];
		*pr = (struct bt_probe){0};
		if ((ret = parse_probe(&ps, pr)) < 0)
			break;
	}
	if (!ret && !p->nprobes)
		ret = bt_error(err, p, ps.tok.loc, BT_ERR_SYNTAX, "end of file");
	free(ps.tok.sval);
	if (ret == -ENOMEM)
		utrace_error_set(err, ret, "out of memory");
	return ret;
}

