/* SPDX-License-Identifier: MIT */
/*
 * bt_tuple.c - bpftrace's tuples, `(1, "a", (2, 3))`, in the checker.
 *
 * A tuple's type is a shape, a string interned in the program (its index
 * is the node's size, so variables and maps keep it as they keep a
 * string's size): "(" elements ")", an element `iN` (an integer of N
 * bytes; `uN` an unsigned one, bt_check_sign.c: it prints as bpftrace's
 * uint64), `sN;` (a string of N bytes), `tN;` (a strftime() value:
 * bpftrace's timestamp, a string that prints bare in json) or a nested
 * shape.  The shape types `$t.N` and gives sizeof() as bpftrace's packed
 * C struct.  At run time a tuple is a string value holding its elements
 * in a self-describing form (common/bt_run.h's utrace_bt_tuple*), so
 * variables, maps and records carry it as they carry strings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bt_prog.h"
#include "lib/bt/bt_check.h"
#include "lib/bt/bt_types.h"

/* Here, below bt_cast.c (whose sizeof() asks a tuple's size): tuples'
 * integer elements have their width too. */
unsigned bt_int_bytes(const struct bt_node *n)
{
	bool typed = n->kind == BT_N_DEREF || n->kind == BT_N_MEMBER || n->kind == BT_N_INDEX;

	return n->kind == BT_N_CAST || (typed && n->ival) ? (unsigned)n->ival : 8;
}

const char *bt_tuple_shape(const struct bt_program *p, unsigned idx)
{
	return idx < p->nshapes ? p->shapes[idx] : "()";
}

static int intern(struct bt_program *p, const char *shape, unsigned *idx)
{
	char **v;

	for (unsigned i = 0; i < p->nshapes; i++)
		if (!strcmp(p->shapes[i], shape)) {
			*idx = i;
			return 0;
		}
	v = realloc(p->shapes, (p->nshapes + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->shapes = v;
	if (!(v[p->nshapes] = strdup(shape)))
		return -ENOMEM;
	*idx = p->nshapes++;
	return 0;
}

/* The end of the element at s. */
static const char *elem_end(const char *s)
{
	int depth = 0;

	do {
		if (*s == '(')
			depth++;
		else if (*s == ')')
			depth--;
		else if (*s == 's' || *s == 't' || *s == 'r')
			s = strchr(s, ';');
		else if (*s == 'i' || *s == 'u')
			s++;
		s++;
	} while (depth > 0 && *s);
	return s;
}

/* The shape without its strings' sizes: equal for tuples bpftrace takes
 * as one type (a string element may change its size; an integer's width
 * and sign may not). */
static void kinds(const char *s, char *out, size_t room)
{
	size_t n = 0;

	for (; *s && n + 1 < room; s++) {
		if (*s == 's' || *s == 't' || *s == 'r') {
			out[n++] = *s;
			s = strchr(s, ';');
			if (!s)
				break;
			continue;
		}
		out[n++] = *s;
	}
	out[n] = 0;
}

/* bpftrace's name of the tuple type at s: (int64,(unsigned int8,string[2])). */
static size_t shape_name(const struct bt_program *p, const char *s, char *out, size_t room)
{
	size_t n = 0;
	char b[64];

	n += (size_t)snprintf(out + n, room - n, "(");
	for (s++; *s && *s != ')' && n < room; s = elem_end(s)) {
		if (*s == '(')
			n += shape_name(p, s, out + n, room - n);
		else if (*s == 'r')
			n += (size_t)snprintf(out + n, room - n, "%s",
					      bt_ctype_name(p, (unsigned)atoi(s + 1), b, sizeof(b)));
		else if (*s == 't')
			n += (size_t)snprintf(out + n, room - n, "timestamp");
		else
			n += (size_t)snprintf(out + n, room - n, *s == 's' ? "string[%d]"
							  : *s == 'u' ? "unsigned int%d" : "int%d",
					      *s == 's' ? atoi(s + 1) : 8 * atoi(s + 1));
		if (n < room && elem_end(s)[0] && elem_end(s)[0] != ')')
			n += (size_t)snprintf(out + n, room - n, ",");
	}
	if (n < room)
		n += (size_t)snprintf(out + n, room - n, ")");
	return n < room ? n : room ? room - 1 : 0;
}

int bt_tuple_same(struct bt_checker *ck, struct bt_loc at, unsigned have, unsigned val)
{
	char ka[256], kb[256];

	kinds(bt_tuple_shape(ck->p, have), ka, sizeof(ka));
	kinds(bt_tuple_shape(ck->p, val), kb, sizeof(kb));
	if (!strcmp(ka, kb))
		return 0;
	shape_name(ck->p, bt_tuple_shape(ck->p, have), ka, sizeof(ka));
	shape_name(ck->p, bt_tuple_shape(ck->p, val), kb, sizeof(kb));
	return bt_error(ck->err, ck->p, at, BT_ERR_TUPLE_TYPE, ka, kb);
}

/* sizeof and alignment of the element at s, as C lays out bpftrace's
 * tuple struct. */
static unsigned elem_size(const char *s, unsigned *align)
{
	unsigned size = 0, al = 1, a, n;

	if (*s == 'i' || *s == 'u' || *s == 's' || *s == 't') {
		n = (unsigned)atoi(s + 1);
		*align = *s == 's' || *s == 't' ? 1 : n;
		return n;
	}
	if (*s == 'r') { /* a struct or an array: r<its C type>:<size>:<align>; */
		const char *c = strchr(s, ':');

		n = c ? (unsigned)atoi(c + 1) : 0;
		c = c ? strchr(c + 1, ':') : NULL;
		*align = c && atoi(c + 1) > 0 ? (unsigned)atoi(c + 1) : 1;
		return n;
	}
	for (s++; *s && *s != ')'; s = elem_end(s)) {
		n = elem_size(s, &a);
		size = (size + a - 1) / a * a + n;
		al = a > al ? a : al;
	}
	*align = al;
	return (size + al - 1) / al * al;
}

unsigned bt_tuple_sizeof(const struct bt_program *p, unsigned idx)
{
	unsigned al;

	return elem_size(bt_tuple_shape(p, idx), &al);
}

int bt_check_tuple(struct bt_checker *ck, struct bt_node *n)
{
	char shape[256];
	size_t len = 1;
	int ret;

	shape[0] = '(';
	if (n->nargs > UTRACE_BT_EMIT_MAX)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_TUPLE_ELEM);
	for (unsigned i = 0; i < n->nargs; i++) {
		struct bt_node *a = n->args[i];

		if ((ret = ck->expr(ck, a)) < 0)
			return ret;
		if (a->type == BT_T_INT)
			len += (size_t)snprintf(shape + len, sizeof(shape) - len, "%c%u",
						bt_is_unsigned(ck->p, a) ? 'u' : 'i', bt_int_bytes(a));
		else if (a->type == BT_T_STR)
			len += (size_t)snprintf(shape + len, sizeof(shape) - len, "%c%u;",
						bt_is_timestamp(ck->p, a->ctype) ? 't' : 's', a->size);
		else if (a->type == BT_T_TUPLE)
			len += (size_t)snprintf(shape + len, sizeof(shape) - len, "%s",
						bt_tuple_shape(ck->p, a->size));
		else if (a->type == BT_T_RECORD)
			len += (size_t)snprintf(shape + len, sizeof(shape) - len, "r%u:%u:%u;",
						a->ctype, a->size, bt_record_align(ck->p, a->ctype));
		else
			return bt_error(ck->err, ck->p, a->loc, BT_ERR_TUPLE_ELEM);
		if (len + 2 >= sizeof(shape))
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_TUPLE_ELEM);
	}
	shape[len++] = ')';
	shape[len] = 0;
	n->type = BT_T_TUPLE;
	if (intern(ck->p, shape, &n->size) < 0)
		return utrace_error_set(ck->err, -ENOMEM, "out of memory");
	return 0;
}

int bt_check_field(struct bt_checker *ck, struct bt_node *n)
{
	const char *s;
	char sub[256];
	int ret = ck->expr(ck, n->a);
	int64_t k = 0;

	if (ret < 0)
		return ret;
	if (n->a->type != BT_T_TUPLE)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_FIELD);
	for (s = bt_tuple_shape(ck->p, n->a->size) + 1; *s && *s != ')' && k < n->ival; k++)
		s = elem_end(s);
	if (!*s || *s == ')')
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_TUPLE_INDEX, (long long)n->ival,
				(long long)k - 1);
	n->type = *s == 'i' || *s == 'u' ? BT_T_INT
		  : *s == 's' || *s == 't' ? BT_T_STR
		  : *s == 'r'		 ? BT_T_RECORD
					 : BT_T_TUPLE;
	if (*s == 'u')
		n->ctype = bt_ctype_int(ck->p, (unsigned)atoi(s + 1), false, false);
	if (n->type == BT_T_STR)
		n->size = (unsigned)atoi(s + 1);
	if (*s == 't' && !(n->ctype = bt_ctype_timestamp(ck->p)))
		return utrace_error_set(ck->err, -ENOMEM, "out of memory");
	if (n->type == BT_T_RECORD) {
		unsigned al;

		n->ctype = (unsigned)atoi(s + 1);
		n->size = elem_size(s, &al);
		return 0;
	}
	if (n->type != BT_T_TUPLE)
		return 0;
	snprintf(sub, sizeof(sub), "%.*s", (int)(elem_end(s) - s), s);
	if (intern(ck->p, sub, &n->size) < 0)
		return utrace_error_set(ck->err, -ENOMEM, "out of memory");
	return 0;
}
