/* SPDX-License-Identifier: MIT */
/*
 * bt_longval.c - struct and array values longer than a bytecode slot.
 *
 * The bytecode (common/bt_prog.h) carries every value that is not an
 * integer in a slot of UTRACE_BT_STRLEN bytes: strings (bpftrace's
 * strlen), tuples, and the struct and array values bt_record.c makes
 * from a hit's bytes.  bpftrace keeps a struct as its bytes, as long as
 * the struct is; `$w = $c->w` of ten 16-byte structs is a 160-byte value
 * whose text is about 300 bytes.  Such a value only ever exists in the
 * tool (a program that makes one never runs at the hit: bt_inproc.c), so
 * the tool keeps its text here and the slot holds a handle:
 *
 *   slot:  \010 "17"            the store:  17 -> "\004\005a\006100\037t..."
 *
 * The same text always gets the same handle (the store looks texts up in
 * a tree, tsearch(3)), so what the bytecode does with slots stays right
 * for handles: a map keyed by the value, `==` of two values, a variable,
 * a map's value.  Where a value is looked into (TGET, the context's
 * long_text and long_put) or printed (bt_maps.c, bt_format.c), its text
 * is taken back from here.  A tuple built by the bytecode may hold
 * handles among its elements: bt_longval_text gives it with each
 * replaced.  The compiler makes a name constant over 63 bytes (`probe`,
 * `func` of a long C++ name: bpftrace prints them whole) a handle too,
 * which bt_longval_str gives back where strings are printed.
 *
 * Memory: the texts stay for the run, at most BT_LONGVAL_BYTES_MAX of
 * them; past that a value is cut at the slot's end as before this store
 * (bt_print_tuple.c closes what is open) and counted.
 */
#include <errno.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bt_prog.h"
#include "common/bt_tuple.h"
#include "lib/bt/bt_longval.h"

#define BT_LONGVAL_BYTES_MAX (64u << 20)

struct lv_ent {
	char *text;
	uint32_t id;
};

struct bt_longvals {
	void *root;	      /* tsearch tree of struct lv_ent, by text */
	struct lv_ent **byid; /* id -> its entry */
	uint32_t n, cap;
	size_t bytes;
	uint64_t cut;
};

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct lv_ent *)a)->text, ((const struct lv_ent *)b)->text);
}

int bt_longvals_new(struct bt_longvals **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void ent_free(void *p)
{
	struct lv_ent *e = p;

	free(e->text);
	free(e);
}

void bt_longvals_free(struct bt_longvals *lv)
{
	if (!lv)
		return;
	tdestroy(lv->root, ent_free);
	free(lv->byid);
	free(lv);
}

uint64_t bt_longvals_cut(const struct bt_longvals *lv)
{
	return lv ? lv->cut : 0;
}

/* text's entry, added if new; NULL when full or out of memory. */
static struct lv_ent *intern(struct bt_longvals *lv, const char *text, size_t len)
{
	struct lv_ent key = {.text = (char *)text}, *e, **found;

	if (text[len]) /* a part of a longer text: a copy to look it up */
		return NULL;
	found = tfind(&key, &lv->root, ent_cmp);
	if (found)
		return *found;
	if (lv->bytes + len + 1 > BT_LONGVAL_BYTES_MAX || lv->n == UINT32_MAX)
		return NULL;
	if (lv->n == lv->cap) {
		uint32_t cap = lv->cap ? 2 * lv->cap : 64;
		struct lv_ent **b = realloc(lv->byid, cap * sizeof(*b));

		if (!b)
			return NULL;
		lv->byid = b;
		lv->cap = cap;
	}
	e = malloc(sizeof(*e));
	if (!e || !(e->text = strndup(text, len))) {
		free(e);
		return NULL;
	}
	e->id = lv->n;
	if (!tsearch(e, &lv->root, ent_cmp)) {
		ent_free(e);
		return NULL;
	}
	lv->byid[lv->n++] = e;
	lv->bytes += len + 1;
	return e;
}

/* The entry of the handle at s (its \010 first), and its length. */
static const struct lv_ent *handle_ent(const struct bt_longvals *lv, const char *s, size_t *len)
{
	uint64_t id = 0;
	size_t k = 1;

	for (; s[k] >= '0' && s[k] <= '9' && k < 12; k++)
		id = id * 10 + (uint64_t)(s[k] - '0');
	*len = k;
	return k > 1 && id < lv->n ? lv->byid[id] : NULL;
}

/* Whether t starts an element of tuple s (a string's \010 is no handle). */
static bool elem_start(const char *s, const char *t)
{
	return t == s || utrace_bt_tuple_opens(t[-1]) || t[-1] == UTRACE_BT_T_SEP ||
	       t[-1] == UTRACE_BT_T_NAME || t[-1] == UTRACE_BT_T_STR;
}

static void cut_copy(char *slot, const char *text, size_t len)
{
	if (len >= UTRACE_BT_STRLEN)
		len = UTRACE_BT_STRLEN - 1;
	memcpy(slot, text, len);
	slot[len] = 0;
}

void bt_longval_put(struct bt_longvals *lv, const char *text, size_t len, char *slot)
{
	char *copy = NULL;
	struct lv_ent *e;

	if (len < UTRACE_BT_STRLEN || !lv) {
		cut_copy(slot, text, len);
		return;
	}
	if (text[len] && !(text = copy = strndup(text, len))) {
		e = NULL;
	} else {
		e = intern(lv, text, len);
	}
	if (e)
		snprintf(slot, UTRACE_BT_STRLEN, "%c%u", UTRACE_BT_T_LONG, e->id);
	else {
		cut_copy(slot, text, len);
		lv->cut++;
	}
	free(copy);
}

const char *bt_longval_str(const struct bt_longvals *lv, const char *s)
{
	const struct lv_ent *e;
	size_t hl;

	if (!lv || *s != UTRACE_BT_T_LONG || !(e = handle_ent(lv, s, &hl)) || s[hl])
		return s;
	return e->text;
}

const char *bt_longval_text(struct bt_longvals *lv, const char *s)
{
	const struct lv_ent *e;
	const char *t = s;
	char *buf = NULL;
	size_t n = 0, hl;
	FILE *m;

	if (!lv || !strchr(s, UTRACE_BT_T_LONG))
		return s;
	if (*s == UTRACE_BT_T_LONG && (e = handle_ent(lv, s, &hl)) && !s[hl])
		return e->text; /* the value is one handle */
	m = open_memstream(&buf, &n);
	if (!m)
		return s;
	for (; *t; t++) { /* a tuple with handles among its elements */
		if (*t == UTRACE_BT_T_LONG && elem_start(s, t) && (e = handle_ent(lv, t, &hl))) {
			fputs(e->text, m);
			t += hl - 1;
		} else {
			fputc(*t, m);
		}
	}
	if (fclose(m) || !buf) {
		free(buf);
		return s;
	}
	e = intern(lv, buf, n);
	free(buf);
	return e ? e->text : "";
}
