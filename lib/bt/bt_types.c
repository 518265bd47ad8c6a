/* SPDX-License-Identifier: MIT */
/*
 * bt_types.c - the C types of a bpftrace program (bt_types.h): the table,
 * the layout of a struct, and the C declarations that define them,
 * parsed from the lexer's tokens (a struct definition is C, not the
 * action language, so it has its own small grammar here):
 *
 *   struct NAME { TYPE DECL {, DECL} ; ... } [;]
 *   TYPE  := [const] (struct [NAME] [{ ... }] | union ... | C's integer words
 *            | int8_t ... uint64_t | int8 ... uint64 | void) [const]
 *   DECL  := {*} NAME {[N]} [: BITS]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_types.h"

static unsigned ctype_add(struct bt_program *p, const struct bt_ctype *t)
{
	struct bt_ctype *a;

	if (!p->nctypes) { /* index 0: no C type */
		if (!(p->ctypes = calloc(1, sizeof(*p->ctypes))))
			return 0;
		p->nctypes = 1;
	}
	a = realloc(p->ctypes, (p->nctypes + 1) * sizeof(*a));
	if (!a)
		return 0;
	p->ctypes = a;
	a[p->nctypes] = *t;
	return p->nctypes++;
}

const struct bt_ctype *bt_ctype(const struct bt_program *p, unsigned idx)
{
	return idx && idx < p->nctypes ? &p->ctypes[idx] : NULL;
}

unsigned bt_ctype_int(struct bt_program *p, unsigned size, bool is_signed, bool is_char)
{
	for (unsigned i = 1; i < p->nctypes; i++) {
		const struct bt_ctype *t = &p->ctypes[i];

		if (t->kind == BT_C_INT && t->size == size && t->is_signed == is_signed &&
		    t->is_char == is_char)
			return i;
	}
	return ctype_add(p, &(struct bt_ctype){.kind = BT_C_INT, .size = size, .align = size,
					       .is_signed = is_signed, .is_char = is_char});
}

unsigned bt_ctype_timestamp(struct bt_program *p)
{
	for (unsigned i = 1; i < p->nctypes; i++)
		if (p->ctypes[i].kind == BT_C_TIMESTAMP)
			return i;
	return ctype_add(p, &(struct bt_ctype){.kind = BT_C_TIMESTAMP, .size = 0,
					       .align = 1});
}

bool bt_is_timestamp(const struct bt_program *p, unsigned t)
{
	const struct bt_ctype *c = bt_ctype(p, t);

	return c && c->kind == BT_C_TIMESTAMP;
}

unsigned bt_ctype_ptr(struct bt_program *p, unsigned elem)
{
	for (unsigned i = 1; i < p->nctypes; i++)
		if (p->ctypes[i].kind == BT_C_PTR && p->ctypes[i].elem == elem)
			return i;
	return ctype_add(p, &(struct bt_ctype){.kind = BT_C_PTR, .size = 8, .align = 8,
					       .elem = elem});
}

unsigned bt_ctype_array(struct bt_program *p, unsigned elem, unsigned count)
{
	const struct bt_ctype *e = bt_ctype(p, elem);

	return ctype_add(p, &(struct bt_ctype){.kind = BT_C_ARRAY, .elem = elem, .count = count,
					       .size = e ? e->size * count : 0,
					       .align = e ? e->align : 1});
}

/* The struct named name (an incomplete one if it is new). */
static unsigned ctype_struct(struct bt_program *p, const char *name, size_t len)
{
	char *s;
	unsigned i;

	for (i = 1; name && i < p->nctypes; i++)
		if (p->ctypes[i].kind == BT_C_STRUCT && p->ctypes[i].name &&
		    strlen(p->ctypes[i].name) == len && !memcmp(p->ctypes[i].name, name, len))
			return i;
	s = name ? strndup(name, len) : NULL;
	if (name && !s)
		return 0;
	i = ctype_add(p, &(struct bt_ctype){.kind = BT_C_STRUCT, .name = s, .align = 1});
	if (!i)
		free(s);
	return i;
}

const struct bt_member *bt_ctype_member(const struct bt_program *p, unsigned t, const char *name)
{
	const struct bt_ctype *c = bt_ctype(p, t);

	for (unsigned i = 0; c && c->kind == BT_C_STRUCT && i < c->nm; i++)
		if (!strcmp(c->m[i].name, name))
			return &c->m[i];
	return NULL;
}

unsigned bt_record_align(const struct bt_program *p, unsigned t)
{
	const struct bt_ctype *c = bt_ctype(p, t);

	return c && c->align ? c->align : 1;
}

bool bt_ctype_is_str(const struct bt_program *p, unsigned t)
{
	const struct bt_ctype *c = bt_ctype(p, t), *e;

	return c && c->kind == BT_C_ARRAY && (e = bt_ctype(p, c->elem)) && e->is_char;
}

const char *bt_ctype_name(const struct bt_program *p, unsigned t, char *buf, size_t room)
{
	const struct bt_ctype *c = bt_ctype(p, t);
	char in[64];

	if (!c)
		snprintf(buf, room, "void");
	else if (c->kind == BT_C_INT)
		snprintf(buf, room, "%sint%u", c->is_signed ? "" : "u", 8 * c->size);
	else if (c->kind == BT_C_PTR)
		snprintf(buf, room, "%s *", bt_ctype_name(p, c->elem, in, sizeof(in)));
	else if (c->kind == BT_C_ARRAY)
		snprintf(buf, room, "%s[%u]", bt_ctype_name(p, c->elem, in, sizeof(in)), c->count);
	else if (c->kind == BT_C_TIMESTAMP)
		snprintf(buf, room, "timestamp");
	else
		snprintf(buf, room, "struct %s", c->name ? c->name : "(anonymous)");
	return buf;
}

void bt_ctypes_free(struct bt_program *p)
{
	for (unsigned i = 0; i < p->nctypes; i++) {
		for (unsigned k = 0; k < p->ctypes[i].nm; k++)
			free(p->ctypes[i].m[k].name);
		free(p->ctypes[i].m);
		free(p->ctypes[i].name);
	}
	free(p->ctypes);
	p->ctypes = NULL;
	p->nctypes = 0;
}

/* The tokens of a declaration. */
struct decl {
	struct bt_program *p;
	struct bt_lexer *lx;
	struct bt_token *t;
	struct utrace_error *err;
};

static int next(struct decl *d)
{
	free(d->t->sval);
	d->t->sval = NULL;
	return bt_lex_next(d->lx, d->t);
}

static bool tok_is(const struct bt_token *t, const char *s)
{
	return (t->kind == BT_TK_PUNCT || t->kind == BT_TK_IDENT || t->kind == BT_TK_ATTACH) &&
	       t->len == strlen(s) && !memcmp(t->start, s, t->len);
}

static int bad(struct decl *d, const char *expecting)
{
	char name[64];

	bt_tok_name(d->t, name, sizeof(name));
	if (expecting)
		return bt_error(d->err, d->p, d->t->loc, BT_ERR_SYNTAX_EXPECTING, name, expecting);
	return bt_error(d->err, d->p, d->t->loc, BT_ERR_SYNTAX, name);
}

static int want(struct decl *d, const char *s)
{
	return tok_is(d->t, s) ? next(d) : bad(d, s);
}

/* The fixed-width names: bpftrace's int8 ... and C's int8_t ... */
static unsigned named_int(const struct bt_token *t, bool *sgn)
{
	static const char *const names[] = {"int8",	"int16",    "int32",	"int64",
					    "uint8",	"uint16",   "uint32",	"uint64",
					    "int8_t",	"int16_t",  "int32_t",	"int64_t",
					    "uint8_t", "uint16_t", "uint32_t", "uint64_t"};
	unsigned n = 0;

	for (unsigned i = 0; !n && i < 16; i++)
		if (tok_is(t, names[i])) {
			*sgn = i % 8 < 4;
			n = 1u << (i % 4);
		}
	if (!n && (tok_is(t, "size_t") || tok_is(t, "ssize_t"))) {
		*sgn = tok_is(t, "ssize_t");
		n = 8;
	}
	if (!n && (tok_is(t, "bool") || tok_is(t, "_Bool"))) {
		*sgn = false;
		n = 1;
	}
	return n;
}

static bool c_word(const struct bt_token *t)
{
	static const char *const w[] = {"unsigned", "signed", "char", "short", "int", "long"};

	for (unsigned i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (tok_is(t, w[i]))
			return true;
	return false;
}

bool bt_ctype_starts(const struct bt_token *t)
{
	bool sgn;

	return t->kind == BT_TK_IDENT && (tok_is(t, "struct") || tok_is(t, "union") ||
					  tok_is(t, "const") || tok_is(t, "void") || c_word(t) ||
					  named_int(t, &sgn));
}

/* unsigned long, short int, char, ...: C's integer words. */
static int c_int(struct decl *d, unsigned *type)
{
	bool uns = false, sgn = false, chr = false;
	unsigned size = 4, longs = 0;
	int ret;

	while (c_word(d->t)) {
		if (tok_is(d->t, "unsigned"))
			uns = true;
		else if (tok_is(d->t, "signed"))
			sgn = true;
		else if (tok_is(d->t, "char"))
			chr = true, size = 1;
		else if (tok_is(d->t, "short"))
			size = 2;
		else if (tok_is(d->t, "long"))
			longs++;
		if ((ret = next(d)) < 0)
			return ret;
	}
	if (longs)
		size = 8;
	*type = bt_ctype_int(d->p, size, !uns, chr && !uns && !sgn);
	return *type ? 0 : -ENOMEM;
}

static int parse_members(struct decl *d, unsigned st, bool is_union);

/* TYPE: its base type, before any '*'. */
static int parse_base(struct decl *d, unsigned *type)
{
	bool sgn;
	unsigned n;
	int ret = 0;

	while (tok_is(d->t, "const") || tok_is(d->t, "volatile"))
		if ((ret = next(d)) < 0)
			return ret;
	if (tok_is(d->t, "struct") || tok_is(d->t, "union")) {
		bool is_union = tok_is(d->t, "union");

		if ((ret = next(d)) < 0)
			return ret;
		if (d->t->kind == BT_TK_IDENT) {
			*type = ctype_struct(d->p, d->t->start, d->t->len);
			if (!*type || (ret = next(d)) < 0)
				return *type ? ret : -ENOMEM;
		} else if (!(*type = ctype_struct(d->p, NULL, 0))) {
			return -ENOMEM;
		}
		if (tok_is(d->t, "{") && ((ret = parse_members(d, *type, is_union)) < 0 ||
					     (ret = next(d)) < 0))
			return ret;
	} else if (tok_is(d->t, "void")) {
		*type = 0;
		ret = next(d);
	} else if ((n = named_int(d->t, &sgn))) {
		if (!(*type = bt_ctype_int(d->p, n, sgn, false)))
			return -ENOMEM;
		ret = next(d);
	} else if (c_word(d->t)) {
		ret = c_int(d, type);
	} else {
		return bad(d, "type");
	}
	while (!ret && (tok_is(d->t, "const") || tok_is(d->t, "volatile")))
		ret = next(d);
	return ret;
}

static int parse_stars(struct decl *d, unsigned *type)
{
	int ret = 0;

	while (!ret && tok_is(d->t, "*")) {
		if (!(*type = bt_ctype_ptr(d->p, *type)))
			return -ENOMEM;
		ret = next(d);
	}
	return ret;
}

/* {[N]} after a member's name: its array type, innermost last. */
static int parse_dims(struct decl *d, unsigned *type)
{
	unsigned dims[8], n = 0;
	int ret;

	while (tok_is(d->t, "[")) {
		if ((ret = next(d)) < 0)
			return ret;
		if (d->t->kind != BT_TK_INT || n == 8)
			return bad(d, "integer");
		dims[n++] = (unsigned)d->t->ival;
		if ((ret = next(d)) < 0 || (ret = want(d, "]")) < 0)
			return ret;
	}
	while (n--)
		if (!(*type = bt_ctype_array(d->p, *type, dims[n])))
			return -ENOMEM;
	return 0;
}

static unsigned round_up(unsigned x, unsigned a)
{
	return a ? (x + a - 1) / a * a : x;
}

/* Member m of struct st placed at *bit (the bits laid out so far). */
static void place(struct bt_program *p, unsigned st, struct bt_member *m, unsigned *bit,
		  bool is_union)
{
	const struct bt_ctype *t = bt_ctype(p, m->type);
	unsigned size = t ? t->size : 0, align = t && t->align ? t->align : 1;
	struct bt_ctype *s = &p->ctypes[st];

	if (is_union)
		*bit = 0;
	if (m->bits) { /* in the unit of its type, unless it would cross one */
		unsigned unit = 8 * size;

		if (unit && *bit / unit != (*bit + m->bits - 1) / unit)
			*bit = round_up(*bit, unit);
		m->off = unit ? *bit / unit * size : 0;
		m->bit_off = *bit - 8 * m->off;
		*bit += m->bits;
	} else {
		m->off = round_up(round_up(*bit, 8) / 8, align);
		*bit = 8 * (m->off + size);
	}
	if (align > s->align)
		s->align = align;
	if (round_up(round_up(*bit, 8) / 8, s->align) > s->size)
		s->size = round_up(round_up(*bit, 8) / 8, s->align);
}

static int add_member(struct decl *d, unsigned st, unsigned type, unsigned *bit, bool is_union)
{
	struct bt_member m = {.type = type}, *a;
	int ret;

	if ((ret = parse_stars(d, &m.type)) < 0)
		return ret;
	if (d->t->kind != BT_TK_IDENT)
		return bad(d, "identifier");
	if (!(m.name = strndup(d->t->start, d->t->len)))
		return -ENOMEM;
	if ((ret = next(d)) < 0 || (ret = parse_dims(d, &m.type)) < 0)
		goto fail;
	if (tok_is(d->t, ":")) {
		if ((ret = next(d)) < 0)
			goto fail;
		if (d->t->kind != BT_TK_INT || d->t->ival <= 0 || d->t->ival > 64) {
			ret = bad(d, "integer");
			goto fail;
		}
		m.bits = (unsigned)d->t->ival;
		if ((ret = next(d)) < 0)
			goto fail;
	}
	if (!(a = realloc(d->p->ctypes[st].m, (d->p->ctypes[st].nm + 1) * sizeof(*a)))) {
		ret = -ENOMEM;
		goto fail;
	}
	d->p->ctypes[st].m = a;
	place(d->p, st, &m, bit, is_union);
	a[d->p->ctypes[st].nm++] = m;
	return 0;
fail:
	free(m.name);
	return ret;
}

/* "{" members "}", the "{" current; the "}" left current. */
static int parse_members(struct decl *d, unsigned st, bool is_union)
{
	unsigned bit = 0;
	int ret = next(d);

	if (!ret && d->p->ctypes[st].defined) { /* a second definition: the last one holds */
		for (unsigned i = 0; i < d->p->ctypes[st].nm; i++)
			free(d->p->ctypes[st].m[i].name);
		d->p->ctypes[st].nm = 0;
	}
	while (!ret && !tok_is(d->t, "}")) {
		unsigned type;

		if ((ret = parse_base(d, &type)) < 0)
			return ret;
		while (!(ret = add_member(d, st, type, &bit, is_union)) && tok_is(d->t, ","))
			if ((ret = next(d)) < 0)
				return ret;
		if (ret < 0)
			return ret;
		if (tok_is(d->t, ";"))
			ret = next(d);
		else if (!tok_is(d->t, "}"))
			return bad(d, "}");
	}
	if (!ret)
		d->p->ctypes[st].defined = true;
	return ret;
}

int bt_ctype_parse_def(struct bt_program *p, struct bt_lexer *lx, struct bt_token *t,
		       struct utrace_error *err)
{
	struct decl d = {p, lx, t, err};
	unsigned type;
	int ret;

	lx->top = false;
	if ((ret = next(&d)) < 0)
		return ret;
	if (t->kind != BT_TK_IDENT)
		return bad(&d, "identifier");
	if (!(type = ctype_struct(p, t->start, t->len)))
		return -ENOMEM;
	if ((ret = next(&d)) < 0)
		return ret;
	if (!tok_is(t, "{"))
		return bad(&d, "{");
	if ((ret = parse_members(&d, type, false)) < 0)
		return ret;
	lx->top = true; /* the "}" ends it: what follows is a probe's */
	ret = next(&d);
	while (!ret && tok_is(t, ";"))
		ret = next(&d);
	return ret;
}

int bt_ctype_parse_name(struct bt_program *p, struct bt_lexer *lx, struct bt_token *t,
			unsigned *type, struct utrace_error *err)
{
	struct decl d = {p, lx, t, err};
	int ret = parse_base(&d, type);

	return ret < 0 ? ret : parse_stars(&d, type);
}
