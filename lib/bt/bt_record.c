/* SPDX-License-Identifier: MIT */
/*
 * bt_record.c - a struct or an array value read from the traced program
 * (bt_types.h) as the value the bytecode carries: a tuple of
 * common/bt_tuple.h's form that says what it is (\5 a struct, each
 * member NAME \6 VALUE; \4 an array), so that indexing it (TGET),
 * comparing it (STREQ), keeping it in a variable, a map or a tuple, and
 * printing it as bpftrace does (bt_print_tuple.c) need no type at run
 * time.  Made in the tool, from the bytes the hit's fetch-arg captured.
 * A value longer than a string's 64 bytes is cut (what is open closed).
 */
#include <stdio.h>
#include <string.h>

#include "common/bt_prog.h"
#include "lib/bt/bt_longval.h"
#include "lib/bt/bt_types.h"

struct rec_out {
	char *d;
	unsigned n;
};

static void put(struct rec_out *o, char c)
{
	if (o->n < BT_LONGVAL_TEXT_MAX)
		o->d[o->n++] = c;
}

static void puts_(struct rec_out *o, const char *s)
{
	while (*s)
		put(o, *s++);
}

static uint64_t bytes_int(const uint8_t *b, size_t len, unsigned off, unsigned size)
{
	uint64_t v = 0;

	if (off + size <= len)
		memcpy(&v, b + off, size < 8 ? size : 8);
	return v;
}

static void value(const struct bt_program *p, unsigned t, const uint8_t *b, size_t len,
		  unsigned off, const struct bt_member *m, struct rec_out *o);

static void int_value(const struct bt_ctype *c, uint64_t v, const struct bt_member *m,
		      struct rec_out *o)
{
	char num[24];
	unsigned sh = c->size < 8 ? 64 - 8 * c->size : 0;

	if (m && m->bits) { /* bpftrace's bitfields are unsigned */
		v >>= m->bit_off;
		v &= m->bits >= 64 ? ~0ull : (1ull << m->bits) - 1;
		snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	} else if (c->kind == BT_C_INT && c->is_signed) {
		snprintf(num, sizeof(num), "%lld", (long long)((int64_t)(v << sh) >> sh));
	} else {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)((v << sh) >> sh));
	}
	puts_(o, num);
}

static void value(const struct bt_program *p, unsigned t, const uint8_t *b, size_t len,
		  unsigned off, const struct bt_member *m, struct rec_out *o)
{
	const struct bt_ctype *c = bt_ctype(p, t);
	const struct bt_ctype *e;

	if (!c)
		return;
	if (c->kind == BT_C_INT || c->kind == BT_C_PTR) {
		int_value(c, bytes_int(b, len, off, c->size), m, o);
	} else if (bt_ctype_is_str(p, t)) {
		put(o, UTRACE_BT_T_STR);
		for (unsigned i = 0; i < c->count && off + i < len && b[off + i]; i++)
			if (b[off + i] >= 0x20) /* not the tuple's markers */
				put(o, (char)b[off + i]);
	} else if (c->kind == BT_C_ARRAY) {
		e = bt_ctype(p, c->elem);
		put(o, UTRACE_BT_T_AOPEN);
		for (unsigned i = 0; e && i < c->count; i++) {
			if (i)
				put(o, UTRACE_BT_T_SEP);
			value(p, c->elem, b, len, off + i * e->size, NULL, o);
		}
		put(o, UTRACE_BT_T_CLOSE);
	} else {
		put(o, UTRACE_BT_T_SOPEN);
		for (unsigned i = 0; i < c->nm; i++) {
			if (i)
				put(o, UTRACE_BT_T_SEP);
			puts_(o, c->m[i].name);
			put(o, UTRACE_BT_T_NAME);
			value(p, c->m[i].type, b, len, off + c->m[i].off, &c->m[i], o);
			c = bt_ctype(p, t); /* (no table growth here, but keep it fresh) */
		}
		put(o, UTRACE_BT_T_CLOSE);
	}
}

unsigned bt_record_maxlen(const struct bt_program *p, unsigned t)
{
	static const unsigned digits[9] = {0, 4, 6, 0, 11, 0, 0, 0, 20}; /* "-128" ... */
	const struct bt_ctype *c = bt_ctype(p, t);
	unsigned n = 2; /* its open and close markers */

	if (!c)
		return 0;
	if (c->kind == BT_C_INT || c->kind == BT_C_PTR)
		return c->size <= 8 ? digits[c->size] : 20;
	if (bt_ctype_is_str(p, t))
		return 1 + c->count;
	if (c->kind == BT_C_ARRAY)
		return n + c->count * (bt_record_maxlen(p, c->elem) + 1);
	for (unsigned i = 0; i < c->nm; i++)
		n += (unsigned)strlen(c->m[i].name) + 2 + bt_record_maxlen(p, c->m[i].type);
	return n;
}

void bt_record_text(const struct bt_program *p, unsigned t, const void *bytes, size_t len,
		    struct bt_longvals *lv, char *out)
{
	char text[BT_LONGVAL_TEXT_MAX + 1];
	struct rec_out o = {text, 0};

	value(p, t, bytes, len, 0, NULL, &o);
	text[o.n] = 0;
	bt_longval_put(lv, text, o.n, out);
}
