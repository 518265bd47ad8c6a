/* SPDX-License-Identifier: MIT */
/*
 * bt_print_tmp.c - a stand-in for bt_print.c (helper bt2's, merged after
 * this branch): the map printer of bt_print.h, enough for `utrace bt` to
 * show its maps until then: entries sorted by value, `@name[k]: v`, the
 * hist/lhist bars, stats.  Delete this file when bt_print.c lands.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_print.h"

static int64_t sort_val(const struct utrace_bt_map *m, const struct utrace_bt_entry *e)
{
	switch (m->agg) {
	case UTRACE_BT_AGG_SCALAR: return e->value.i;
	case UTRACE_BT_AGG_AVG: return e->n ? e->sum / e->n : 0;
	case UTRACE_BT_AGG_STATS: return e->sum;
	default: return e->n;
	}
}

static const struct utrace_bt_map *sort_map;

static int cmp_entry(const void *a, const void *b)
{
	int64_t x = sort_val(sort_map, *(const struct utrace_bt_entry *const *)a);
	int64_t y = sort_val(sort_map, *(const struct utrace_bt_entry *const *)b);

	return x < y ? -1 : x > y;
}

static void scalar(FILE *out, const struct utrace_bt_scalar *v)
{
	if (v->kind == UTRACE_BT_STR)
		fputs(v->s, out);
	else if (v->kind == UTRACE_BT_UINT)
		fprintf(out, "%" PRIu64, (uint64_t)v->i);
	else if (v->kind == UTRACE_BT_INT)
		fprintf(out, "%" PRId64, v->i);
	for (size_t i = 0; v->kind == UTRACE_BT_STACK && i < v->nlines; i++)
		fprintf(out, "\n        %s", v->lines[i]);
}

static void head(FILE *out, const struct utrace_bt_map *m, const struct utrace_bt_entry *e)
{
	fputs(m->name, out);
	if (m->nkeys) {
		fputc('[', out);
		for (size_t k = 0; k < m->nkeys; k++) {
			if (k)
				fputs(", ", out);
			scalar(out, &e->key[k]);
		}
		fputc(']', out);
	}
	fputs(": ", out);
}

static void num_label(char *buf, size_t room, int64_t v)
{
	static const char sfx[] = "KMGTPE";
	unsigned s = 0;

	while (v >= 1024 && v % 1024 == 0 && s < 6) {
		v /= 1024;
		s++;
	}
	if (s)
		snprintf(buf, room, "%" PRId64 "%c", v, sfx[s - 1]);
	else
		snprintf(buf, room, "%" PRId64, v);
}

static void bucket_label(const struct utrace_bt_map *m, size_t b, size_t nb, char *buf,
			 size_t room)
{
	char lo[24], hi[24];

	if (m->agg == UTRACE_BT_AGG_HIST) {
		if (b == 0)
			snprintf(buf, room, "(..., 0)");
		else if (b == 1)
			snprintf(buf, room, "[0]");
		else if (b == 2)
			snprintf(buf, room, "[1]");
		else {
			num_label(lo, sizeof(lo), (int64_t)1 << (b - 2));
			num_label(hi, sizeof(hi), (int64_t)1 << (b - 1));
			snprintf(buf, room, "[%s, %s)", lo, hi);
		}
		return;
	}
	if (b == 0) {
		snprintf(buf, room, "(..., %" PRId64 ")", m->lhist_min);
	} else if (b == nb - 1) {
		snprintf(buf, room, "[%" PRId64 ", ...)", m->lhist_max);
	} else {
		snprintf(buf, room, "[%" PRId64 ", %" PRId64 ")",
			 m->lhist_min + (int64_t)(b - 1) * m->lhist_step,
			 m->lhist_min + (int64_t)b * m->lhist_step);
	}
}

static void hist(FILE *out, const struct utrace_bt_map *m, const struct utrace_bt_entry *e)
{
	size_t nb = m->agg == UTRACE_BT_AGG_HIST
			    ? UTRACE_BT_HIST_BUCKETS
			    : (size_t)((m->lhist_max - m->lhist_min) / m->lhist_step + 2);
	size_t first = nb, last = 0;
	uint64_t max = 0;

	for (size_t b = 0; b < nb; b++)
		if (e->buckets[b]) {
			first = first < b ? first : b;
			last = b;
			max = e->buckets[b] > max ? e->buckets[b] : max;
		}
	fputc('\n', out);
	for (size_t b = first; b <= last && first < nb; b++) {
		char label[64];
		unsigned bar = max ? (unsigned)(e->buckets[b] * 52 / max) : 0;

		bucket_label(m, b, nb, label, sizeof(label));
		fprintf(out, "%-16s%8" PRIu64 " |", label, e->buckets[b]);
		for (unsigned i = 0; i < 52; i++)
			fputc(i < bar ? '@' : ' ', out);
		fputs("|\n", out);
	}
	fputc('\n', out);
}

int utrace_bt_map_print(FILE *out, const struct utrace_bt_map *map, size_t top, uint64_t div,
			enum utrace_bt_format fmt)
{
	const struct utrace_bt_entry **v = calloc(map->nentries + 1, sizeof(*v));
	size_t from = 0;

	(void)fmt;
	if (!v)
		return -12;
	for (size_t i = 0; i < map->nentries; i++)
		v[i] = &map->entries[i];
	sort_map = map;
	qsort(v, map->nentries, sizeof(*v), cmp_entry);
	if (top && top < map->nentries)
		from = map->nentries - top;
	for (size_t i = from; i < map->nentries; i++) {
		const struct utrace_bt_entry *e = v[i];

		head(out, map, e);
		if (map->agg == UTRACE_BT_AGG_HIST || map->agg == UTRACE_BT_AGG_LHIST) {
			hist(out, map, e);
			continue;
		}
		if (map->agg == UTRACE_BT_AGG_STATS)
			fprintf(out, "count %" PRId64 ", average %" PRId64 ", total %" PRId64 "\n",
				e->n, e->n ? e->sum / e->n : 0, e->sum);
		else if (map->agg == UTRACE_BT_AGG_SCALAR)
			scalar(out, &e->value), fputc('\n', out);
		else
			fprintf(out, "%" PRId64 "\n",
				(map->agg == UTRACE_BT_AGG_AVG ? (e->n ? e->sum / e->n : 0) : e->n) /
					(int64_t)(div > 1 ? div : 1));
	}
	if (map->agg == UTRACE_BT_AGG_STATS)
		fputc('\n', out);
	free(v);
	return 0;
}

int utrace_bt_value_print(FILE *out, const struct utrace_bt_scalar *v, enum utrace_bt_format fmt)
{
	if (fmt == UTRACE_BT_JSON)
		fputs("{\"type\": \"value\", \"data\": ", out);
	if (fmt == UTRACE_BT_JSON && v->kind == UTRACE_BT_STR)
		fprintf(out, "\"%s\"", v->s);
	else
		scalar(out, v);
	fputs(fmt == UTRACE_BT_JSON ? "}\n" : "\n", out);
	return 0;
}
