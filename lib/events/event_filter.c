/* SPDX-License-Identifier: MIT */
/*
 * event_filter.c - the event filter compiler (syntax in event_filter.h,
 * program format in common/filter_prog.h).
 *
 * Design: a recursive-descent parser builds a small tree in one array:
 * predicates are leaves, "&&" and "||" are n-ary nodes (a chain
 * "a && b && c" is one node, so a long chain does not make the tree
 * deep; only parentheses do, and their depth is limited), and "!" is a
 * flag on the node it applies to.  Each predicate becomes one instruction
 * as it is parsed, so leaves are numbered left to right and the first
 * instruction of any subtree is its leftmost leaf.
 *
 * Code generation is then the classic short-circuit scheme with a
 * true and a false target per subtree, starting with (KEEP, DROP) at the
 * root:
 *
 *   a && b  with (T, F):  a with (first(b), F), then b with (T, F)
 *   a || b  with (T, F):  a with (T, first(b)), then b with (T, F)
 *   !a      with (T, F):  a with (F, T)
 *   pred    with (T, F):  its instruction gets jt = T, jf = F
 *
 * Every target is a later leaf or an exit, so the program only jumps
 * forward, and each jump lands directly on the next predicate that must
 * be tested (no chains of jumps, unlike the kernel's first pass).
 *
 * Errors point at the offending token: the field name, the operator, the
 * value, the unmatched '(' or quote, or what follows a predicate where
 * "&&", "||", ")" or the end was expected.  Parsing goes left to right
 * and stops at the first error.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/filter_prog.h"
#include "lib/base/grow.h"
#include "lib/events/event_filter.h"
#include "lib/events/event_filter_internal.h"

#define UTRACE_FILTER_ERR_TEXT(name, text) text,
static const char *const err_text[] = {UTRACE_FILTER_ERRORS(UTRACE_FILTER_ERR_TEXT)};
#undef UTRACE_FILTER_ERR_TEXT

/* Longest numeric operand: the kernel's num_buf[24] with its NUL. */
#define NUM_MAX 23

enum node_type { N_PRED, N_AND, N_OR };

struct node {
	enum node_type type;
	bool neg;	 /* a "!" applies to it */
	uint32_t first;	 /* its leftmost leaf: the instruction to jump to */
	int child, last; /* N_AND, N_OR: the first and the last child */
	int next;	 /* next sibling, -1 at the end */
};

struct parser {
	const struct utrace_event_format *fmt;
	const char *expr;
	const char *p; /* next character */
	unsigned depth;

	struct node *nodes;
	unsigned nr_nodes, cap_nodes;
	struct utrace_filter_insn *insns; /* one per predicate, in order */
	unsigned nr_insns, cap_insns;
	char *pool; /* string constants, each with a NUL */
	size_t pool_len, pool_cap;

	int code;		    /* enum utrace_filter_err */
	const char *where;	    /* its token */
	utrace_filter_func_fn func; /* FIELD.function's ranges */
	void *func_arg;
};

const char *utrace_filter_error_text(int code)
{
	if (code < 0 || code >= UTRACE_FILTER_ERR_MAX)
		return "Unknown error";
	return err_text[code];
}

static int fail(struct parser *ps, int code, const char *where)
{
	ps->code = code;
	ps->where = where;
	return -1;
}

static void skip_space(struct parser *ps)
{
	while (is_space(*ps->p))
		ps->p++;
}


static int new_node(struct parser *ps, enum node_type type, uint32_t first)
{
	struct node *n;

	if (UTRACE_GROW(ps->nodes, ps->cap_nodes, (size_t)ps->nr_nodes + 1) < 0)
		return fail(ps, UTRACE_FILTER_ERR_NO_MEMORY, ps->p);
	n = &ps->nodes[ps->nr_nodes];
	*n = (struct node){.type = type, .first = first, .child = -1, .last = -1, .next = -1};
	return (int)ps->nr_nodes++;
}

static void add_child(struct parser *ps, int parent, int child)
{
	struct node *p = &ps->nodes[parent];

	if (p->last < 0)
		p->child = child;
	else
		ps->nodes[p->last].next = child;
	p->last = child;
}

/* Adds a string constant to the pool; its offset in the pool, or -1. */
static long add_string(struct parser *ps, const char *s, size_t len)
{
	size_t need = ps->pool_len + len + 1;
	long off = (long)ps->pool_len;

	if (UTRACE_GROW(ps->pool, ps->pool_cap, need) < 0)
		return -1;
	memcpy(ps->pool + ps->pool_len, s, len);
	ps->pool[ps->pool_len + len] = '\0';
	ps->pool_len = need;
	return off;
}

static const struct utrace_event_field *find_field(const struct utrace_event_format *fmt,
						   const char *name, size_t len)
{
	unsigned i;

	for (i = 0; i < fmt->nr_fields; i++) {
		const struct utrace_event_field *f = &fmt->fields[i];
		const char *n = f->base ? f->base : f->name;

		if (n && strlen(n) == len && !memcmp(n, name, len))
			return f;
	}
	return NULL;
}

/* The operators, longest first where one is a prefix of another. */
static const struct {
	const char *text;
	uint8_t op; /* the integer op; strings map it in string_pred() */
} ops[] = {
    {"~", 0},
    {"!=", UTRACE_FOP_NE},
    {"==", UTRACE_FOP_EQ},
    {"<=", UTRACE_FOP_LE},
    {"<", UTRACE_FOP_LT},
    {">=", UTRACE_FOP_GE},
    {">", UTRACE_FOP_GT},
    {"&", UTRACE_FOP_BAND},
};
#define OP_GLOB 0

static bool is_string_field(const struct utrace_event_field *f)
{
	return f->kind == UTRACE_EF_CHARS || f->kind == UTRACE_EF_STRING;
}

/* FIELD OP "string": fills in and reports whether the test is negated. */
static int string_pred(struct parser *ps, const struct utrace_event_field *f, int op,
		       const char *op_at, struct utrace_filter_insn *in, bool *neg)
{
	const char *val = ps->p, *end = strchr(val + 1, *val), *pat = val + 1;
	size_t len;
	long off;

	if (!end)
		return fail(ps, UTRACE_FILTER_ERR_MISSING_QUOTE, val);
	if (op != OP_GLOB && op != UTRACE_FOP_EQ && op != UTRACE_FOP_NE)
		return fail(ps, UTRACE_FILTER_ERR_ILLEGAL_FIELD_OP, op_at);
	if (!is_string_field(f))
		return fail(ps, UTRACE_FILTER_ERR_EXPECT_DIGIT, val);
	len = (size_t)(end - pat);
	if (len > UTRACE_FILTER_STR_MAX)
		return fail(ps, UTRACE_FILTER_ERR_OPERAND_TOO_LONG, val);
	ps->p = end + 1;

	*neg = op == UTRACE_FOP_NE;
	in->op = op == OP_GLOB ? filter_glob_op(&pat, &len, neg) : UTRACE_FOP_STR_EQ;
	if (f->kind == UTRACE_EF_STRING) {
		in->flags = UTRACE_FF_LOC;
		in->size = 4;
	}
	off = add_string(ps, pat, len);
	if (off < 0)
		return fail(ps, UTRACE_FILTER_ERR_NO_MEMORY, val);
	in->str_off = (uint32_t)off; /* relative to the pool for now */
	in->str_len = (uint32_t)len;
	return 0;
}

/* FIELD OP number. */
static int number_pred(struct parser *ps, const struct utrace_event_field *f, int op,
		       const char *op_at, struct utrace_filter_insn *in)
{
	const char *val = ps->p, *end = val;
	uint64_t v;

	if (is_string_field(f))
		return fail(ps, UTRACE_FILTER_ERR_EXPECT_STRING, val);
	if (op == OP_GLOB)
		return fail(ps, UTRACE_FILTER_ERR_ILLEGAL_FIELD_OP, op_at);
	if (*end == '-')
		end++;
	while (is_alnum(*end))
		end++;
	if (end - val > NUM_MAX)
		return fail(ps, UTRACE_FILTER_ERR_OPERAND_TOO_LONG, val);
	if (filter_parse_number(val, (size_t)(end - val), f->is_signed, &v) < 0)
		return fail(ps, UTRACE_FILTER_ERR_ILLEGAL_INTVAL, val);
	ps->p = end;
	in->op = (uint8_t)op;
	in->flags = f->is_signed ? UTRACE_FF_SIGNED : 0;
	in->imm = filter_to_field_type(v, f->size, f->is_signed);
	return 0;
}

/* One leaf: instruction in, negated or not; its node, or -1. */
static int add_leaf(struct parser *ps, const struct utrace_filter_insn *in, bool neg,
		    const char *where)
{
	int n;

	if (ps->nr_insns >= UTRACE_FILTER_MAX_INSNS)
		return fail(ps, UTRACE_FILTER_ERR_TOO_MANY_PREDS, where);
	if (UTRACE_GROW(ps->insns, ps->cap_insns, (size_t)ps->nr_insns + 1) < 0)
		return fail(ps, UTRACE_FILTER_ERR_NO_MEMORY, where);
	n = new_node(ps, N_PRED, ps->nr_insns);
	if (n < 0)
		return -1;
	ps->nodes[n].neg = neg;
	ps->insns[ps->nr_insns++] = *in;
	return n;
}

/* FIELD.function OP FUNCTION|ADDRESS (the kernel's checks and columns):
 * start <= FIELD && FIELD < end, negated for !=; the node, or -1. */
static int function_pred(struct parser *ps, const struct utrace_event_field *f, int op,
			 const char *name)
{
	struct utrace_filter_insn lo = {.off = f->offset, .size = 8, .op = UTRACE_FOP_GE};
	struct utrace_filter_insn hi = {.off = f->offset, .size = 8, .op = UTRACE_FOP_LT};
	const char *val = ps->p, *end = val;
	char buf[256];
	uint64_t addr = 0;
	int n, a, b, ret;

	if (f->size != 8 || is_string_field(f))
		return fail(ps, UTRACE_FILTER_ERR_ILLEGAL_FIELD_OP, val);
	if (op != UTRACE_FOP_EQ && op != UTRACE_FOP_NE)
		return fail(ps, UTRACE_FILTER_ERR_INVALID_OP, val);
	if (is_digit(*val)) {
		while (is_alnum(*end))
			end++;
		if (end - val > NUM_MAX)
			return fail(ps, UTRACE_FILTER_ERR_OPERAND_TOO_LONG, end);
		if (filter_parse_number(val, (size_t)(end - val), false, &addr) < 0)
			return fail(ps, UTRACE_FILTER_ERR_INVALID_VALUE, end);
	} else {
		while (*end && !is_space(*end))
			end++;
		if ((size_t)(end - val) >= sizeof(buf))
			return fail(ps, UTRACE_FILTER_ERR_NO_FUNCTION, end);
		memcpy(buf, val, (size_t)(end - val));
		buf[end - val] = 0;
	}
	ps->p = end;
	ret = ps->func ? ps->func(ps->func_arg, is_digit(*val) ? NULL : buf, addr, &lo.imm, &hi.imm)
		       : -ENOENT;
	if (ret < 0)
		return fail(ps, UTRACE_FILTER_ERR_NO_FUNCTION, end);
	if ((n = new_node(ps, N_AND, ps->nr_insns)) < 0 ||
	    (a = add_leaf(ps, &lo, false, name)) < 0 || (b = add_leaf(ps, &hi, false, name)) < 0)
		return -1;
	add_child(ps, n, a);
	add_child(ps, n, b);
	ps->nodes[n].neg = op == UTRACE_FOP_NE;
	return n;
}

/* pred := FIELD OP VALUE; the node, or -1. */
static int parse_pred(struct parser *ps)
{
	const char *name = ps->p, *op_at;
	const struct utrace_event_field *f;
	struct utrace_filter_insn in = {0};
	bool neg = false;
	unsigned i;
	int op = -1, ret;

	bool function;

	while (is_alnum(*ps->p) || *ps->p == '_')
		ps->p++;
	if (ps->p == name)
		return fail(ps, UTRACE_FILTER_ERR_MISSING_FIELD, name);
	f = find_field(ps->fmt, name, (size_t)(ps->p - name));
	if (!f)
		return fail(ps, UTRACE_FILTER_ERR_FIELD_NOT_FOUND, name);
	if (ps->nr_insns >= UTRACE_FILTER_MAX_INSNS)
		return fail(ps, UTRACE_FILTER_ERR_TOO_MANY_PREDS, name);
	if ((function = !strncmp(ps->p, ".function", 9)))
		ps->p += 9;

	skip_space(ps);
	op_at = ps->p;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t l = strlen(ops[i].text);

		if (!strncmp(ps->p, ops[i].text, l)) {
			op = ops[i].op;
			ps->p += l;
			break;
		}
	}
	/* "field && ..." is a missing operator, not a bit test of "&...". */
	if (op < 0 || (op == UTRACE_FOP_BAND && *ps->p == '&'))
		return fail(ps, UTRACE_FILTER_ERR_INVALID_OP, op_at);
	if (f->kind == UTRACE_EF_DYNARRAY || f->kind == UTRACE_EF_OTHER ||
	    (f->kind == UTRACE_EF_INT && f->size != 1 && f->size != 2 && f->size != 4 &&
	     f->size != 8))
		return fail(ps, UTRACE_FILTER_ERR_ILLEGAL_FIELD_OP, op_at);

	skip_space(ps);
	if (function)
		return function_pred(ps, f, op, name);
	in.off = f->offset;
	in.size = f->size;
	if (*ps->p == '"' || *ps->p == '\'')
		ret = string_pred(ps, f, op, op_at, &in, &neg);
	else if (is_digit(*ps->p) || *ps->p == '-')
		ret = number_pred(ps, f, op, op_at, &in);
	else
		ret = fail(ps, UTRACE_FILTER_ERR_INVALID_VALUE, ps->p);
	if (ret < 0)
		return -1;

	return add_leaf(ps, &in, neg, name);
}

static int parse_or(struct parser *ps);

/* unary := "!"* ( "(" expr ")" | pred ) */
static int parse_unary(struct parser *ps)
{
	const char *open;
	bool neg = false;
	int n;

	for (;;) {
		skip_space(ps);
		/* "!=" and "!~" are not "not"s */
		if (ps->p[0] != '!' || ps->p[1] == '=' || ps->p[1] == '~')
			break;
		neg = !neg;
		ps->p++;
	}
	if (*ps->p != '(') {
		n = parse_pred(ps);
	} else {
		open = ps->p++;
		if (++ps->depth > UTRACE_FILTER_MAX_DEPTH)
			return fail(ps, UTRACE_FILTER_ERR_TOO_DEEP, open);
		n = parse_or(ps);
		if (n < 0)
			return -1;
		skip_space(ps);
		if (*ps->p != ')')
			return fail(ps,
				    *ps->p ? UTRACE_FILTER_ERR_TOO_MANY_PREDS
					   : UTRACE_FILTER_ERR_TOO_MANY_OPEN,
				    *ps->p ? ps->p : open);
		ps->p++;
		ps->depth--;
	}
	if (n >= 0 && neg)
		ps->nodes[n].neg = !ps->nodes[n].neg;
	return n;
}

/* One level of "a OP b OP c" (OP "&&" or "||") into an n-ary node. */
static int parse_chain(struct parser *ps, enum node_type type, int (*sub)(struct parser *))
{
	char c = type == N_AND ? '&' : '|';
	int first, n, child;

	first = sub(ps);
	if (first < 0)
		return -1;
	skip_space(ps);
	if (ps->p[0] != c || ps->p[1] != c)
		return first;
	n = new_node(ps, type, ps->nodes[first].first);
	if (n < 0)
		return -1;
	add_child(ps, n, first);
	while (ps->p[0] == c && ps->p[1] == c) {
		ps->p += 2;
		child = sub(ps);
		if (child < 0)
			return -1;
		add_child(ps, n, child);
		skip_space(ps);
	}
	return n;
}

static int parse_and(struct parser *ps)
{
	return parse_chain(ps, N_AND, parse_unary);
}

static int parse_or(struct parser *ps)
{
	return parse_chain(ps, N_OR, parse_and);
}

/* Sets the targets of the subtree n: T if it holds, F if not. */
static void gen(struct parser *ps, int n, uint16_t t, uint16_t f)
{
	const struct node *nd = &ps->nodes[n];
	int c;

	if (nd->neg) {
		uint16_t tmp = t;

		t = f;
		f = tmp;
	}
	if (nd->type == N_PRED) {
		ps->insns[nd->first].jt = t;
		ps->insns[nd->first].jf = f;
		return;
	}
	for (c = nd->child; c >= 0; c = ps->nodes[c].next) {
		int next = ps->nodes[c].next;
		uint16_t to_next = next < 0 ? 0 : (uint16_t)ps->nodes[next].first;

		if (next < 0)
			gen(ps, c, t, f);
		else if (nd->type == N_AND)
			gen(ps, c, to_next, f);
		else
			gen(ps, c, t, to_next);
	}
}

/* The program for the parsed tree rooted at root; NULL if out of memory. */
static void *assemble(struct parser *ps, int root, uint32_t *len)
{
	size_t code = sizeof(struct utrace_filter_hdr) +
		      (size_t)ps->nr_insns * sizeof(struct utrace_filter_insn);
	size_t size = (code + ps->pool_len + 7) & ~(size_t)7;
	struct utrace_filter_hdr *h;
	struct utrace_filter_insn *in;
	unsigned i;

	gen(ps, root, UTRACE_FILTER_KEEP, UTRACE_FILTER_DROP);
	h = calloc(1, size);
	if (!h)
		return NULL;
	h->size = (uint32_t)size;
	h->version = UTRACE_FILTER_VERSION;
	h->nr_insns = ps->nr_insns;
	h->magic = UTRACE_FILTER_MAGIC;
	in = (struct utrace_filter_insn *)(h + 1);
	for (i = 0; i < ps->nr_insns; i++) {
		in[i] = ps->insns[i];
		if (in[i].op > UTRACE_FOP_BAND)
			in[i].str_off += (uint32_t)code;
	}
	if (ps->pool_len)
		memcpy((char *)h + code, ps->pool, ps->pool_len);
	*len = (uint32_t)size;
	return h;
}

/* True if expr is blanks around exactly the one character c. */
static bool is_just(const char *expr, char c)
{
	while (is_space(*expr))
		expr++;
	if (*expr++ != c)
		return false;
	while (is_space(*expr))
		expr++;
	return !*expr;
}

int utrace_filter_compile_func(const struct utrace_event_format *fmt, const char *expr,
			       utrace_filter_func_fn func, void *func_arg, void **prog,
			       uint32_t *prog_len, int *code, struct utrace_error *err)
{
	struct parser ps = {.fmt = fmt,
			    .expr = expr,
			    .p = expr,
			    .code = UTRACE_FILTER_ERR_NONE,
			    .func = func,
			    .func_arg = func_arg};
	int root = -1, col, ret = 0;

	*prog = NULL;
	*prog_len = 0;
	if (is_just(expr, '0') || is_just(expr, '1'))
		goto out;
	skip_space(&ps);
	if (!*ps.p) {
		fail(&ps, UTRACE_FILTER_ERR_NO_FILTER, expr);
	} else {
		root = parse_or(&ps);
		if (root >= 0) {
			skip_space(&ps);
			if (*ps.p == ')')
				root = fail(&ps, UTRACE_FILTER_ERR_TOO_MANY_CLOSE, ps.p);
			else if (*ps.p)
				root = fail(&ps, UTRACE_FILTER_ERR_TOO_MANY_PREDS, ps.p);
		}
	}
	if (root >= 0) {
		*prog = assemble(&ps, root, prog_len);
		if (!*prog)
			fail(&ps, UTRACE_FILTER_ERR_NO_MEMORY, expr);
	}
	if (ps.code == UTRACE_FILTER_ERR_NO_MEMORY) {
		ret = utrace_error_set(err, -ENOMEM, "%s", err_text[ps.code]);
	} else if (ps.code != UTRACE_FILTER_ERR_NONE) {
		col = (int)(ps.where - expr) + 1;
		ret = utrace_error_set(err, -EINVAL, "%s at column %d", err_text[ps.code], col);
		if (err)
			err->column = col;
	}
out:
	if (code)
		*code = ps.code;
	free(ps.nodes);
	free(ps.insns);
	free(ps.pool);
	return ret;
}

int utrace_filter_compile_code(const struct utrace_event_format *fmt, const char *expr, void **prog,
			       uint32_t *prog_len, int *code, struct utrace_error *err)
{
	return utrace_filter_compile_func(fmt, expr, NULL, NULL, prog, prog_len, code, err);
}

int utrace_filter_compile(const struct utrace_event_format *fmt, const char *expr, void **prog,
			  uint32_t *prog_len, struct utrace_error *err)
{
	return utrace_filter_compile_code(fmt, expr, prog, prog_len, NULL, err);
}
