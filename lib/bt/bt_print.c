/* SPDX-License-Identifier: MIT */
/*
 * bt_print.c - bpftrace 0.17's map output, text and `-f json`, from the
 * plain arrays of bt_print.h (src/output.cpp and BPFtrace::print_map*).
 *
 * The sort orders are bpftrace's: maps of count/sum/min/max and integers
 * by value (ascending), hist/lhist by the total of their buckets, avg and
 * stats by their average, everything else by key (first key first; ints
 * as unsigned, strings by strcmp, stacks unsorted).  Where bpftrace leaves
 * ties to the kernel's hash order (which changes from run to run), ties
 * here fall back to its key order, so that the output is deterministic:
 * hist, avg and stats keys in the byte order of bpftrace's std::map (ints
 * little-endian), other maps as sort_by_key.  print()'s top keeps the last
 * `top` entries of that order; div divides count/sum/min/max/int values,
 * avg and hist counts (not lhist, not stats, as bpftrace).  The blank lines
 * are bpftrace's: a map is followed by one newline, stats and avg by two,
 * the entries of a map of stacks or symbols by none.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_print_internal.h"

struct sort_ctx {
	const struct utrace_bt_map *m;
	const size_t *rank; /* position in key order, for value ties */
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* An int as std::map compares bpftrace's key bytes: little-endian. */
static int cmp_le(uint64_t a, uint64_t b)
{
	for (int i = 0; i < 64; i += 8) {
		int d = (int)((a >> i) & 0xff) - (int)((b >> i) & 0xff);

		if (d)
			return d;
	}
	return 0;
}

static bool is_bucketed(enum utrace_bt_agg agg)
{
	return agg == UTRACE_BT_AGG_HIST || agg == UTRACE_BT_AGG_LHIST ||
	       agg == UTRACE_BT_AGG_AVG || agg == UTRACE_BT_AGG_STATS;
}

static int cmp_key(const struct utrace_bt_map *m, const struct utrace_bt_entry *a,
		   const struct utrace_bt_entry *b)
{
	for (size_t k = 0; k < m->nkeys; k++) {
		const struct utrace_bt_scalar *x = &a->key[k], *y = &b->key[k];
		int d = 0;

		if (x->kind == UTRACE_BT_INT || x->kind == UTRACE_BT_UINT)
			d = is_bucketed(m->agg) ? cmp_le(x->i, y->i) : cmp_u64(x->i, y->i);
		else if (x->kind == UTRACE_BT_STR)
			d = strcmp(x->s ? x->s : "", y->s ? y->s : "");
		if (d)
			return d;
	}
	return 0;
}

static int by_key(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int d = cmp_key(c->m, &c->m->entries[a], &c->m->entries[b]);

	return d ? d : cmp_u64(a, b);
}

static uint64_t hist_total(const struct utrace_bt_map *m, const struct utrace_bt_entry *e)
{
	size_t n = m->agg == UTRACE_BT_AGG_HIST ? UTRACE_BT_HIST_BUCKETS : bt_lhist_nbuckets(m);
	uint64_t t = 0;

	for (size_t i = 0; e->buckets && i < n; i++)
		t += e->buckets[i];
	return t;
}

static int64_t average(const struct utrace_bt_entry *e)
{
	return e->n ? e->sum / e->n : 0;
}

static int cmp_value(const struct utrace_bt_map *m, const struct utrace_bt_entry *a,
		     const struct utrace_bt_entry *b)
{
	switch (m->agg) {
	case UTRACE_BT_AGG_SCALAR:
		if (a->value.kind == UTRACE_BT_INT)
			return cmp_i64(a->value.i, b->value.i);
		if (a->value.kind == UTRACE_BT_UINT)
			return cmp_u64(a->value.i, b->value.i);
		return 0; /* strings, stacks, symbols: by key */
	case UTRACE_BT_AGG_COUNT:
	case UTRACE_BT_AGG_MAX:
		return cmp_u64(a->n, b->n);
	case UTRACE_BT_AGG_SUM:
		if (m->value_unsigned)
			return cmp_u64(a->n, b->n);
		return cmp_i64(a->n, b->n);
	case UTRACE_BT_AGG_MIN:
		return cmp_i64(a->n, b->n);
	case UTRACE_BT_AGG_AVG:
	case UTRACE_BT_AGG_STATS:
		return cmp_i64(average(a), average(b));
	case UTRACE_BT_AGG_HIST:
	case UTRACE_BT_AGG_LHIST:
		return cmp_u64(hist_total(m, a), hist_total(m, b));
	}
	return 0;
}

static int by_value(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int d = cmp_value(c->m, &c->m->entries[a], &c->m->entries[b]);

	return d ? d : cmp_u64(c->rank[a], c->rank[b]);
}

/* The entries' indexes in bpftrace's print order; NULL if out of memory. */
static size_t *print_order(const struct utrace_bt_map *m)
{
	size_t n = m->nentries, *idx = malloc((2 * n + 1) * sizeof(*idx));
	struct sort_ctx c = {m, idx + n};

	if (!idx)
		return NULL;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), by_key, &c);
	for (size_t i = 0; i < n; i++)
		idx[n + idx[i]] = i;
	qsort_r(idx, n, sizeof(*idx), by_value, &c);
	return idx;
}

static void stack_text(FILE *out, const struct utrace_bt_scalar *v, int indent)
{
	fputc('\n', out);
	for (size_t i = 0; i < v->nlines; i++)
		fprintf(out, "%*s%s\n", v->lines[i][0] == '\t' ? 0 : indent, "", v->lines[i]);
}

/* A scalar as bpftrace's text: keys are always signed ints, stacks are
 * indented 4 in keys and 8 in values. */
static void scalar_text(FILE *out, const struct utrace_bt_scalar *v, bool key, uint64_t div)
{
	switch (v->kind) {
	case UTRACE_BT_INT:
		fprintf(out, "%" PRId64, key ? v->i : v->i / (int64_t)div);
		break;
	case UTRACE_BT_UINT:
		if (key)
			fprintf(out, "%" PRId64, v->i);
		else
			fprintf(out, "%" PRIu64, (uint64_t)v->i / div);
		break;
	case UTRACE_BT_STR:
	case UTRACE_BT_SYM:
	case UTRACE_BT_TIME:
		fputs(v->s ? v->s : "", out);
		break;
	case UTRACE_BT_STACK:
		stack_text(out, v, key ? 4 : 8);
		break;
	case UTRACE_BT_TUPLE:
		bt_tuple_print_as(out, v->s ? v->s : "", key ? 2 : 0);
		break;
	case UTRACE_BT_BUF:
		bt_buf_print(out, v->s ? v->s : "", 'r');
		break;
	}
}

/* Writes what emit() writes to out, escaped and quoted as a json string. */
static int json_quoted(FILE *out, void (*emit)(FILE *, const void *, const void *),
		       const void *a, const void *b)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		return -ENOMEM;
	emit(mem, a, b);
	if (fclose(mem)) {
		free(buf);
		return -ENOMEM;
	}
	fputc('"', out);
	bt_json_escape(out, buf, len);
	fputc('"', out);
	free(buf);
	return 0;
}

static void emit_keys(FILE *out, const void *map, const void *entry)
{
	const struct utrace_bt_map *m = map;
	const struct utrace_bt_entry *e = entry;

	for (size_t k = 0; k < m->nkeys; k++) {
		if (k)
			fputc(',', out);
		scalar_text(out, &e->key[k], true, 1);
	}
}

static void emit_value(FILE *out, const void *value, const void *unused)
{
	scalar_text(out, value, false, 1);
}

static bool is_quoted(const struct utrace_bt_scalar *v)
{
	return v->kind != UTRACE_BT_INT && v->kind != UTRACE_BT_UINT && v->kind != UTRACE_BT_TIME;
}

static void stats_text(FILE *out, const struct utrace_bt_entry *e, bool json)
{
	if (json)
		fprintf(out, "{\"count\": %" PRId64 ", \"average\": %" PRId64 ", \"total\": %" PRId64 "}",
			e->n, average(e), e->sum);
	else
		fprintf(out, "count %" PRId64 ", average %" PRId64 ", total %" PRId64, e->n,
			average(e), e->sum);
}

/* One entry's value, text or json. */
static int value_print(FILE *out, const struct utrace_bt_map *m, const struct utrace_bt_entry *e,
		       uint64_t div, bool json)
{
	switch (m->agg) {
	case UTRACE_BT_AGG_SCALAR:
		if (e->value.kind == UTRACE_BT_TUPLE) {
			bt_tuple_print(out, e->value.s ? e->value.s : "", json);
			break;
		}
		if (json && is_quoted(&e->value))
			return json_quoted(out, emit_value, &e->value, NULL);
		scalar_text(out, &e->value, false, div);
		break;
	case UTRACE_BT_AGG_COUNT:
	case UTRACE_BT_AGG_MAX:
		fprintf(out, "%" PRIu64, (uint64_t)e->n / div);
		break;
	case UTRACE_BT_AGG_SUM:
	case UTRACE_BT_AGG_MIN:
		if (m->agg == UTRACE_BT_AGG_SUM && m->value_unsigned)
			fprintf(out, "%" PRIu64, (uint64_t)e->n / div);
		else
			fprintf(out, "%" PRId64, e->n / (int64_t)div);
		break;
	case UTRACE_BT_AGG_AVG:
		fprintf(out, "%" PRId64, average(e) / (int64_t)div);
		break;
	case UTRACE_BT_AGG_STATS:
		stats_text(out, e, json);
		break;
	case UTRACE_BT_AGG_HIST:
		(json ? bt_hist_json : bt_hist_text)(out, e->buckets, div);
		break;
	case UTRACE_BT_AGG_LHIST:
		(json ? bt_lhist_json : bt_lhist_text)(out, m, e->buckets);
		break;
	}
	return 0;
}

static int entry_text(FILE *out, const struct utrace_bt_map *m, const struct utrace_bt_entry *e,
		      uint64_t div)
{
	fputs(m->name, out);
	if (m->nkeys) {
		fputc('[', out);
		for (size_t k = 0; k < m->nkeys; k++) {
			fputs(k ? ", " : "", out);
			scalar_text(out, &e->key[k], true, 1);
		}
		fputc(']', out);
	}
	fputs(m->agg == UTRACE_BT_AGG_HIST || m->agg == UTRACE_BT_AGG_LHIST ? ": \n" : ": ", out);
	return value_print(out, m, e, div, false);
}

static int entry_json(FILE *out, const struct utrace_bt_map *m, const struct utrace_bt_entry *e,
		      uint64_t div)
{
	int ret;

	if (m->nkeys) {
		ret = json_quoted(out, emit_keys, m, e);
		if (ret)
			return ret;
		fputs(": ", out);
	}
	return value_print(out, m, e, div, true);
}

static const char *json_type(enum utrace_bt_agg agg)
{
	if (agg == UTRACE_BT_AGG_HIST || agg == UTRACE_BT_AGG_LHIST)
		return "hist";
	if (agg == UTRACE_BT_AGG_AVG || agg == UTRACE_BT_AGG_STATS)
		return "stats";
	return "map";
}

/* The separator between two entries in text: none after a stack or a
 * symbol value (bpftrace's map_elem_delim_to_str). */
static const char *text_delim(const struct utrace_bt_map *m)
{
	if (m->agg == UTRACE_BT_AGG_SCALAR && m->nentries &&
	    (m->entries[0].value.kind == UTRACE_BT_STACK || m->entries[0].value.kind == UTRACE_BT_SYM))
		return "";
	return "\n";
}

static int map_body(FILE *out, const struct utrace_bt_map *m, const size_t *idx, size_t top,
		    uint64_t div, bool json)
{
	size_t n = m->nentries, first = top && n > top ? n - top : 0;
	int ret = 0;

	if (m->agg == UTRACE_BT_AGG_STATS)
		first = 0, div = 1; /* print(@stats, top, div) ignores both */
	for (size_t i = first; i < n && !ret; i++) {
		if (i > first)
			fputs(json ? ", " : text_delim(m), out);
		ret = (json ? entry_json : entry_text)(out, m, &m->entries[idx[i]], div);
	}
	return ret;
}

static int write_status(FILE *out, int ret)
{
	if (ret)
		return ret;
	return ferror(out) ? -(errno ? errno : EIO) : 0;
}

int utrace_bt_map_print(FILE *out, const struct utrace_bt_map *m, size_t top, uint64_t div,
			enum utrace_bt_format fmt)
{
	bool json = fmt == UTRACE_BT_JSON;
	size_t *idx;
	int ret;

	if (json && !m->nentries)
		return 0;
	idx = print_order(m);
	if (!idx)
		return -ENOMEM;
	if (div == 0)
		div = 1;
	if (json) {
		fprintf(out, "{\"type\": \"%s\", \"data\": {\"", json_type(m->agg));
		bt_json_escape(out, m->name, strlen(m->name));
		fputs(m->nkeys ? "\": {" : "\": ", out);
	}
	ret = map_body(out, m, idx, top, div, json);
	if (json)
		fputs(m->nkeys ? "}}}\n" : "}}\n", out);
	else
		fputs(m->agg == UTRACE_BT_AGG_AVG || m->agg == UTRACE_BT_AGG_STATS ? "\n\n" : "\n",
		      out);
	free(idx);
	return write_status(out, ret);
}

static int by_name(const void *pa, const void *pb)
{
	const struct utrace_bt_map *a = *(const struct utrace_bt_map *const *)pa;
	const struct utrace_bt_map *b = *(const struct utrace_bt_map *const *)pb;

	return strcmp(a->name, b->name);
}

int utrace_bt_maps_print(FILE *out, const struct utrace_bt_map *maps, size_t nmaps,
			 enum utrace_bt_format fmt)
{
	const struct utrace_bt_map **order = malloc((nmaps + 1) * sizeof(*order));
	int ret = 0;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < nmaps; i++)
		order[i] = &maps[i];
	qsort(order, nmaps, sizeof(*order), by_name);
	for (size_t i = 0; i < nmaps && !ret; i++)
		ret = utrace_bt_map_print(out, order[i], 0, 0, fmt);
	free(order);
	return ret;
}

int utrace_bt_value_print(FILE *out, const struct utrace_bt_scalar *v, enum utrace_bt_format fmt)
{
	int ret = 0;

	if (fmt == UTRACE_BT_JSON) {
		fputs("{\"type\": \"value\", \"data\": ", out);
		if (v->kind == UTRACE_BT_TUPLE)
			bt_tuple_print(out, v->s ? v->s : "", true);
		else if (is_quoted(v))
			ret = json_quoted(out, emit_value, v, NULL);
		else
			scalar_text(out, v, false, 1);
		fputs("}\n", out);
	} else {
		scalar_text(out, v, false, 1);
		fputc('\n', out);
	}
	return write_status(out, ret);
}
