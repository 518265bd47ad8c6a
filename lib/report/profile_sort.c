/* SPDX-License-Identifier: MIT */
/*
 * profile_sort.c - a finished profile ordered and printed: the sort keys
 * (total, self, call, avg, min, max, name, each with its direction), the
 * columns a user may choose (-f), and the table in uftrace's layout with
 * times in their unit.  profile.c counts; this file only reads its
 * entries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/func_table.h"
#include "lib/report/profile.h"
#include "lib/report/profile_internal.h"

/* Sorting */

enum key {
	K_TOTAL,
	K_SELF,
	K_CALLS,
	K_AVG,
	K_MIN,
	K_MAX,
	K_SELF_AVG,
	K_SELF_MIN,
	K_SELF_MAX,
	K_NAME,
	K_END,
};

static const struct {
	const char *name;
	enum key key;
	uint32_t field;
} sort_keys[] = {
    {"total", K_TOTAL, UTRACE_PROFILE_TOTAL},
    {"self", K_SELF, UTRACE_PROFILE_SELF},
    {"calls", K_CALLS, UTRACE_PROFILE_CALLS},
    {"call", K_CALLS, UTRACE_PROFILE_CALLS},
    {"avg", K_AVG, UTRACE_PROFILE_TOTAL_AVG},
    {"total-avg", K_AVG, UTRACE_PROFILE_TOTAL_AVG},
    {"min", K_MIN, UTRACE_PROFILE_TOTAL_MIN},
    {"total-min", K_MIN, UTRACE_PROFILE_TOTAL_MIN},
    {"max", K_MAX, UTRACE_PROFILE_TOTAL_MAX},
    {"total-max", K_MAX, UTRACE_PROFILE_TOTAL_MAX},
    {"self-avg", K_SELF_AVG, UTRACE_PROFILE_SELF_AVG},
    {"self-min", K_SELF_MIN, UTRACE_PROFILE_SELF_MIN},
    {"self-max", K_SELF_MAX, UTRACE_PROFILE_SELF_MAX},
    {"name", K_NAME, 0},
    {"func", K_NAME, 0},
};

#define NR_SORT_KEYS (sizeof(sort_keys) / sizeof(sort_keys[0]))
#define MAX_KEYS 8

static uint64_t avg(uint64_t sum, uint64_t n)
{
	return n ? sum / n : 0;
}

static uint64_t key_value(const struct utrace_profile_entry *e, enum key k)
{
	switch (k) {
	case K_TOTAL:
		return e->total;
	case K_SELF:
		return e->self;
	case K_CALLS:
		return e->calls;
	case K_AVG:
		return avg(e->total_sum, e->timed);
	case K_MIN:
		return e->timed ? e->total_min : 0;
	case K_MAX:
		return e->total_max;
	case K_SELF_AVG:
		return avg(e->self, e->timed);
	case K_SELF_MIN:
		return e->timed ? e->self_min : 0;
	case K_SELF_MAX:
		return e->self_max;
	default:
		return 0;
	}
}

struct sort_ctx {
	const struct utrace_profile *p;
	enum key keys[MAX_KEYS + 1];
};

static int cmp_entries(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	const struct utrace_profile_entry *x = &c->p->e[*(const uint32_t *)a];
	const struct utrace_profile_entry *y = &c->p->e[*(const uint32_t *)b];

	for (const enum key *k = c->keys; *k != K_END; k++) {
		uint64_t vx, vy;

		if (*k == K_NAME) {
			int r = strcmp(x->name, y->name);

			if (r)
				return r;
			continue;
		}
		vx = key_value(x, *k);
		vy = key_value(y, *k);
		if (vx != vy)
			return vx > vy ? -1 : 1;
	}
	return strcmp(x->name, y->name);
}

/* Parses keys into c->keys; the fields they show in *fields. */
static int parse_keys(const char *keys, enum key *out, uint32_t *fields, struct utrace_error *err)
{
	const char *s = keys;
	unsigned n = 0;

	*fields = 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		size_t i;

		for (i = 0; i < NR_SORT_KEYS; i++)
			if (strlen(sort_keys[i].name) == len && !strncmp(s, sort_keys[i].name, len))
				break;
		if (i == NR_SORT_KEYS || n == MAX_KEYS)
			return utrace_error_set(err, -EINVAL,
						"unknown sort key '%.*s' (keys: total self calls "
						"avg min max self-avg self-min self-max name)",
						(int)len, s);
		out[n++] = sort_keys[i].key;
		*fields |= sort_keys[i].field;
		s += len;
		if (*s == ',')
			s++;
	}
	if (!n)
		return utrace_error_set(err, -EINVAL, "empty sort key");
	out[n] = K_END;
	return 0;
}

int utrace_profile_check_sort(const char *keys, struct utrace_error *err)
{
	enum key k[MAX_KEYS + 1];
	uint32_t fields;

	return parse_keys(keys, k, &fields, err);
}

uint32_t utrace_profile_sort_fields(const char *keys)
{
	enum key k[MAX_KEYS + 1];
	uint32_t fields;

	return parse_keys(keys, k, &fields, NULL) < 0 ? 0 : fields;
}

int utrace_profile_sort(struct utrace_profile *p, const char *keys, struct utrace_error *err)
{
	uint32_t nfn = utrace_func_table_count(p->ft), fields;
	struct sort_ctx c = {p, {K_END}};
	int ret = parse_keys(keys, c.keys, &fields, err);

	if (ret < 0)
		return ret;
	if (!p->order) {
		p->order = malloc((nfn ? nfn : 1) * sizeof(*p->order));
		if (!p->order)
			return profile_oom(p, err);
		for (uint32_t fn = 0; fn < nfn && fn < p->cap_e; fn++) {
			if (!p->e[fn].calls)
				continue;
			p->e[fn].name = utrace_func_table_name(p->ft, fn);
			p->order[p->nr_order++] = fn;
		}
	}
	qsort_r(p->order, p->nr_order, sizeof(*p->order), cmp_entries, &c);
	return 0;
}

unsigned utrace_profile_count(const struct utrace_profile *p)
{
	return p->nr_order;
}

const struct utrace_profile_entry *utrace_profile_get(const struct utrace_profile *p, unsigned i)
{
	return i < p->nr_order ? &p->e[p->order[i]] : NULL;
}

/* Columns */

static const struct {
	const char *name;
	const char *header;
	uint32_t field;
	enum key key;
} columns[] = {
    {"total", "Total time", UTRACE_PROFILE_TOTAL, K_TOTAL},
    {"total-avg", "Total avg", UTRACE_PROFILE_TOTAL_AVG, K_AVG},
    {"total-min", "Total min", UTRACE_PROFILE_TOTAL_MIN, K_MIN},
    {"total-max", "Total max", UTRACE_PROFILE_TOTAL_MAX, K_MAX},
    {"self", "Self time", UTRACE_PROFILE_SELF, K_SELF},
    {"self-avg", "Self avg", UTRACE_PROFILE_SELF_AVG, K_SELF_AVG},
    {"self-min", "Self min", UTRACE_PROFILE_SELF_MIN, K_SELF_MIN},
    {"self-max", "Self max", UTRACE_PROFILE_SELF_MAX, K_SELF_MAX},
    {"call", "Calls", UTRACE_PROFILE_CALLS, K_CALLS},
};

#define NR_COLUMNS (sizeof(columns) / sizeof(columns[0]))

int utrace_parse_fields(const char *s, uint32_t allowed, const char *names, uint32_t *fields,
			struct utrace_error *err)
{
	const char *p = s;

	*fields = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		uint32_t f = 0;

		if (len == 3 && !strncmp(p, "all", 3))
			f = UTRACE_PROFILE_ALL_FIELDS;
		else if (len == 5 && !strncmp(p, "calls", 5))
			f = UTRACE_PROFILE_CALLS;
		for (size_t i = 0; !f && i < NR_COLUMNS; i++)
			if (strlen(columns[i].name) == len && !strncmp(p, columns[i].name, len))
				f = columns[i].field;
		if (!f || (f & ~allowed))
			return utrace_error_set(err, -EINVAL, "unknown field '%.*s' (fields: %s)",
						(int)len, p, names);
		*fields |= f;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!*fields)
		return utrace_error_set(err, -EINVAL, "no field given");
	return 0;
}

int utrace_profile_parse_fields(const char *s, uint32_t *fields, struct utrace_error *err)
{
	return utrace_parse_fields(s, UTRACE_PROFILE_ALL_FIELDS,
				   "total total-avg total-min total-max self self-avg self-min "
				   "self-max call all",
				   fields, err);
}

void utrace_print_time_unit(FILE *out, uint64_t ns)
{
	static const char *const units[] = {"us", "ms", " s", " m", " h"};
	static const uint64_t limit[] = {1000, 1000, 1000, 60, 24, UINT32_MAX};
	uint64_t delta = ns, small = 0;
	unsigned idx;

	if (!ns) {
		fprintf(out, "%7s %2s", "", "");
		return;
	}
	for (idx = 0; idx < 5; idx++) {
		small = delta % limit[idx];
		delta /= limit[idx];
		if (delta < limit[idx + 1])
			break;
	}
	if (idx == 5)
		idx = 4;
	if (delta > 999)
		delta = small = 999;
	fprintf(out, "%3llu.%03llu %s", (unsigned long long)delta, (unsigned long long)small,
		units[idx]);
}

int utrace_profile_print(const struct utrace_profile *p, FILE *out, uint32_t fields,
			 struct utrace_error *err)
{
	static const char line[] = "====================";

	for (size_t i = 0; i < NR_COLUMNS; i++)
		if (fields & columns[i].field)
			fprintf(out, "  %10s", columns[i].header);
	fputs("  Function\n", out);
	for (size_t i = 0; i < NR_COLUMNS; i++)
		if (fields & columns[i].field)
			fprintf(out, "  %.10s", line);
	fprintf(out, "  %s\n", line);

	for (unsigned n = 0; n < p->nr_order; n++) {
		const struct utrace_profile_entry *e = &p->e[p->order[n]];

		for (size_t i = 0; i < NR_COLUMNS; i++) {
			if (!(fields & columns[i].field))
				continue;
			fputs("  ", out);
			if (columns[i].key == K_CALLS)
				fprintf(out, "%10llu", (unsigned long long)e->calls);
			else
				utrace_print_time_unit(out, key_value(e, columns[i].key));
		}
		fprintf(out, "  %s\n", e->name);
	}
	if (ferror(out))
		return utrace_error_set(err, -EIO, "%s: writing the profile failed",
					utrace_dat_path(p->d));
	return 0;
}
