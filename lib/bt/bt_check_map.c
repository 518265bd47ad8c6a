/* SPDX-License-Identifier: MIT */
/*
 * bt_check_map.c - the maps of a program as the checker finds them: a
 * map's keys (their number and types) and its value (a scalar of one
 * type, or one aggregation) are those of its first use; a later use that
 * disagrees is bpftrace's "Type mismatch" or "Argument mismatch".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_check.h"
#include "lib/bt/bt_print.h"

static const char *const aggs[] = {
	    [UTRACE_BT_AGG_COUNT] = "count", [UTRACE_BT_AGG_SUM] = "sum",
	    [UTRACE_BT_AGG_MIN] = "min",     [UTRACE_BT_AGG_MAX] = "max",
	    [UTRACE_BT_AGG_AVG] = "avg",     [UTRACE_BT_AGG_STATS] = "stats",
	    [UTRACE_BT_AGG_HIST] = "hist",   [UTRACE_BT_AGG_LHIST] = "lhist",
};

const char *bt_type_name(enum bt_type t, unsigned size, char *buf, size_t room)
{
	switch (t) {
	case BT_T_INT: return "int64";
	case BT_T_STR: snprintf(buf, room, "string[%u]", size); return buf;
	case BT_T_STACK: return "ustack";
	case BT_T_USYM: return "usym";
	case BT_T_TUPLE: return "tuple";
	case BT_T_BUF: snprintf(buf, room, "buffer[%u]", size); return buf;
	case BT_T_AGG: return size < sizeof(aggs) / sizeof(aggs[0]) && aggs[size] ? aggs[size] : "none";
	default: return "none";
	}
}

const char *bt_value_name(const struct bt_program *p, const struct bt_node *n, char *buf,
			  size_t room)
{
	if (n->type == BT_T_STR && bt_is_timestamp(p, n->ctype))
		return "timestamp";
	return bt_type_name(n->type, n->size, buf, room);
}

/* The range of a builtin or variable: from the enclosing call's start. */
struct bt_loc bt_name_loc(const struct bt_checker *ck, const struct bt_node *n)
{
	struct bt_loc l = n->loc;

	if (ck->call_col)
		l.col = ck->call_col;
	return l;
}

int bt_compound_error(struct bt_checker *ck, const struct bt_node *as)
{
	char op[4] = {0}, b1[24];

	memcpy(op, as->op, strlen(as->op) - 1); /* "+=" compares as "+" */
	return bt_error(ck->err, ck->p,
			(struct bt_loc){as->a->loc.line, as->a->loc.col, as->b->loc.end},
			BT_ERR_BINOP_TYPE, op, "int64",
			bt_type_name(as->b->type, as->b->size, b1, sizeof(b1)));
}

static struct bt_mapdef *map_get(struct bt_program *p, const char *name)
{
	struct bt_mapdef *m;

	for (unsigned i = 0; i < p->nmaps; i++)
		if (!strcmp(p->maps[i].name, name))
			return &p->maps[i];
	m = realloc(p->maps, (p->nmaps + 1) * sizeof(*m));
	if (!m)
		return NULL;
	p->maps = m;
	m = &p->maps[p->nmaps];
	*m = (struct bt_mapdef){.agg = -1};
	if (!(m->name = strdup(name)))
		return NULL;
	p->nmaps++;
	return m;
}

static void key_text(const enum bt_type *t, const unsigned *sz, unsigned n, char *buf,
		     size_t room)
{
	size_t len = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < n && len < room; i++) {
		char tb[24];

		len += (size_t)snprintf(buf + len, room - len, "%s%s", i ? ", " : "",
					bt_type_name(t[i], sz[i], tb, sizeof(tb)));
	}
}

/* The map node's keys checked and held to the map's: its index. */
static int map_keys(struct bt_checker *ck, struct bt_node *n, struct bt_mapdef **out)
{
	struct bt_mapdef *m = map_get(ck->p, n->str);
	enum bt_type t[8];
	unsigned sz[8];
	int ret;

	if (!m)
		return utrace_error_set(ck->err, -ENOMEM, "out of memory");
	if (n->nargs > 8)
		return utrace_error_set(ck->err, -E2BIG, "%s: more than 8 keys", n->str);
	for (unsigned i = 0; i < n->nargs; i++) {
		if ((ret = ck->expr(ck, n->args[i])) < 0)
			return ret;
		m = map_get(ck->p, n->str); /* the array may have moved */
		t[i] = n->args[i]->type;
		sz[i] = t[i] == BT_T_STR ? 64 : 8;
		if (t[i] == BT_T_TUPLE) /* bpftrace 0.17 refuses one, a struct is a key */
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_TUPLE_KEY);
	}
	if (!m->keyed) {
		m->keyed = true;
		m->nkeys = n->nargs;
		memcpy(m->key_types, t, sizeof(t));
		memcpy(m->key_sizes, sz, sizeof(sz));
	} else if (m->nkeys != n->nargs || memcmp(m->key_types, t, n->nargs * sizeof(t[0]))) {
		char have[128], want[128];

		key_text(t, sz, n->nargs, have, sizeof(have));
		key_text(m->key_types, m->key_sizes, m->nkeys, want, sizeof(want));
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_MAP_KEY, n->str, have, want);
	}
	n->slot = (int)(m - ck->p->maps);
	*out = m;
	return 0;
}

int bt_check_map_read(struct bt_checker *ck, struct bt_node *n)
{
	struct bt_mapdef *m;
	int ret = map_keys(ck, n, &m);

	if (ret < 0)
		return ret;
	if (!m->read)
		m->read_loc = bt_name_loc(ck, n);
	m->read = true;
	/* an aggregation read back keeps its kind: bpftrace compares no
	 * count() with an integer */
	n->type = m->agg == UTRACE_BT_AGG_SCALAR ? m->vtype : m->agg > 0 ? BT_T_AGG : BT_T_INT;
	n->size = m->agg > 0 ? (unsigned)m->agg : m->vsize;
	n->ctype = m->vctype;
	return 0;
}


int bt_agg_of(const char *name)
{
	for (int i = 1; i < (int)(sizeof(aggs) / sizeof(aggs[0])); i++)
		if (!strcmp(aggs[i], name))
			return i;
	return -1;
}

static const char *value_name(const struct bt_mapdef *m, int agg, enum bt_type t, unsigned size,
			      char *buf, size_t room)
{
	(void)m;
	if (agg == UTRACE_BT_AGG_SCALAR)
		return bt_type_name(t, size, buf, room);
	return aggs[agg];
}

/* The map's value is agg (of type t for a scalar). */
static int map_value(struct bt_checker *ck, struct bt_mapdef *m, const struct bt_node *n, int agg,
		     enum bt_type t, unsigned size)
{
	char b1[24], b2[24];

	if (!m->assigned) {
		m->assigned = true;
		m->agg = agg;
		m->vtype = t;
		m->vsize = size;
		m->vctype = n->ctype;
		return 0;
	}
	if (m->agg != agg || (agg == UTRACE_BT_AGG_SCALAR && m->vtype != t))
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_MAP_TYPE, m->name,
				value_name(m, agg, t, size, b1, sizeof(b1)),
				value_name(m, m->agg, m->vtype, m->vsize, b2, sizeof(b2)));
	if (size > m->vsize)
		m->vsize = size;
	return 0;
}

int bt_check_map_whole(struct bt_checker *ck, struct bt_node *n)
{
	struct bt_mapdef *m;

	if (n->nargs)
		return bt_check_map_read(ck, n);
	if (!(m = map_get(ck->p, n->str)))
		return utrace_error_set(ck->err, -ENOMEM, "out of memory");
	if (!m->read)
		m->read_loc = bt_name_loc(ck, n);
	m->read = true;
	n->slot = (int)(m - ck->p->maps);
	n->type = BT_T_NONE;
	return 0;
}

int bt_check_map_assign(struct bt_checker *ck, struct bt_node *as)
{
	struct bt_node *v = as->b;
	struct bt_mapdef *m;
	int agg = v->kind == BT_N_CALL ? bt_agg_of(v->str) : -1;
	int ret;

	if ((ret = map_keys(ck, as->a, &m)) < 0)
		return ret;
	ck->assigning_agg = agg >= 0 && !strcmp(as->op, "=");
	ret = ck->expr(ck, v);
	ck->assigning_agg = false;
	if (ret < 0)
		return ret;
	m = &ck->p->maps[as->a->slot];
	if (agg >= 0) {
		ret = map_value(ck, m, as->a, agg, BT_T_NONE, 0);
		if (!ret && agg == UTRACE_BT_AGG_SUM && v->nargs && bt_is_unsigned(ck->p, v->args[0]))
			m->vusgn = true; /* bpftrace's sum type takes its argument's sign */
		if (!ret && agg == UTRACE_BT_AGG_LHIST) {
			m->lmin = v->args[1]->ival;
			m->lmax = v->args[2]->ival;
			m->lstep = v->args[3]->ival;
		}
		return ret;
	}
	if (strcmp(as->op, "=") && v->type != BT_T_INT)
		return bt_compound_error(ck, as);
	if (m->assigned && m->agg == UTRACE_BT_AGG_SCALAR && m->vtype == v->type &&
	    bt_is_timestamp(ck->p, m->vctype) != bt_is_timestamp(ck->p, v->ctype)) {
		char b1[24], b2[24];

		return bt_error(ck->err, ck->p, as->a->loc, BT_ERR_MAP_TYPE, m->name,
				bt_value_name(ck->p, v, b1, sizeof(b1)),
				bt_is_timestamp(ck->p, m->vctype)
				    ? "timestamp"
				    : value_name(m, m->agg, m->vtype, m->vsize, b2, sizeof(b2)));
	}
	if (m->assigned && m->agg == UTRACE_BT_AGG_SCALAR && m->vtype == BT_T_TUPLE &&
	    v->type == BT_T_TUPLE && (ret = bt_tuple_same(ck, as->loc, m->vsize, v->size)) < 0)
		return ret;
	if (!m->assigned)
		as->a->ctype = v->ctype;
	ret = map_value(ck, m, as->a, UTRACE_BT_AGG_SCALAR, v->type,
			 v->type == BT_T_STR || v->type == BT_T_TUPLE || v->type == BT_T_BUF ||
				 v->type == BT_T_RECORD ? v->size : 8);
	as->a->ctype = m->vctype;
	return ret;
}

int bt_check_map_incdec(struct bt_checker *ck, struct bt_node *n)
{
	struct bt_mapdef *m;
	int ret = map_keys(ck, n->a, &m);

	if (ret < 0)
		return ret;
	n->type = BT_T_INT;
	n->ctype = n->a->ctype = m->vctype;
	if (m->assigned && m->agg != UTRACE_BT_AGG_SCALAR)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_INCDEC_AGG, n->op,
				value_name(m, m->agg, BT_T_NONE, 0, (char[4]){0}, 4));
	return map_value(ck, m, n->a, UTRACE_BT_AGG_SCALAR, BT_T_INT, 8);
}

int bt_check_maps_final(struct bt_program *p, struct utrace_error *err)
{
	for (unsigned i = 0; i < p->nmaps; i++)
		if (!p->maps[i].assigned)
			return bt_error(err, p, p->maps[i].read_loc, BT_ERR_UNDEF_MAP, p->maps[i].name);
	return 0;
}
