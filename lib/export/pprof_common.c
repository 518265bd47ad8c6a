/* SPDX-License-Identifier: MIT */
/*
 * pprof_common.c - the tables and the end of a pprof profile, shared by
 * lib/export/export_pprof.c and export_pprof_samples.c
 * (lib/export/pprof_internal.h).
 *
 * Design: a profile refers to everything by small ids (strings,
 * functions, locations, samples' stacks), so one table kind serves all:
 * a pair of u64 keys to an id, open addressing.  The string table is
 * strings interned by their hash through it.  The message is built whole
 * in memory (it is small: one entry per distinct stack or path) and
 * compressed with zlib's gzip format at the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lib/base/grow.h"
#include "lib/export/pprof_internal.h"

static size_t ids_slot(uint64_t a, uint64_t b, size_t cap)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + 0x632be59bd9b4e019ull + (a << 6));

	h *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(h >> 20) & (cap - 1);
}

uint64_t pprof_ids_find(const struct pprof_ids *t, uint64_t a, uint64_t b)
{
	if (!t->cap)
		return 0;
	for (size_t s = ids_slot(a, b, t->cap); t->v[s * 3 + 2]; s = (s + 1) & (t->cap - 1))
		if (t->v[s * 3] == a && t->v[s * 3 + 1] == b)
			return t->v[s * 3 + 2];
	return 0;
}

static void ids_put(uint64_t *v, size_t cap, uint64_t a, uint64_t b, uint64_t id)
{
	size_t s = ids_slot(a, b, cap);

	while (v[s * 3 + 2])
		s = (s + 1) & (cap - 1);
	v[s * 3] = a;
	v[s * 3 + 1] = b;
	v[s * 3 + 2] = id;
}

int pprof_ids_add(struct pprof_ids *t, uint64_t a, uint64_t b, uint64_t id)
{
	if ((t->nr + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		uint64_t *v = calloc(cap * 3, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t s = 0; s < t->cap; s++)
			if (t->v[s * 3 + 2])
				ids_put(v, cap, t->v[s * 3], t->v[s * 3 + 1], t->v[s * 3 + 2]);
		free(t->v);
		t->v = v;
		t->cap = cap;
	}
	ids_put(t->v, t->cap, a, b, id);
	t->nr++;
	return 0;
}

void pprof_ids_free(struct pprof_ids *t)
{
	free(t->v);
	*t = (struct pprof_ids){0};
}

void pprof_strings_init(struct pprof_strings *t)
{
	*t = (struct pprof_strings){0};
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

int64_t pprof_string(struct pprof_strings *t, const char *s)
{
	uint64_t h, k, id;

	if (!s || !*s)
		s = "";
	if (!t->nr && (UTRACE_GROW(t->s, t->cap, 1) < 0 || !(t->s[0] = strdup(""))))
		return -1;
	t->nr += !t->nr;
	if (!*s)
		return 0;
	h = str_hash(s);
	for (k = 0; (id = pprof_ids_find(&t->ids, h, k)); k++)
		if (!strcmp(t->s[id - 1], s))
			return (int64_t)id - 1;
	if (UTRACE_GROW(t->s, t->cap, t->nr + 1) < 0 || !(t->s[t->nr] = strdup(s)))
		return -1;
	if (pprof_ids_add(&t->ids, h, k, t->nr + 1) < 0) {
		free(t->s[t->nr]);
		return -1;
	}
	return (int64_t)t->nr++;
}

void pprof_strings_free(struct pprof_strings *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->s[i]);
	free(t->s);
	pprof_ids_free(&t->ids);
}

void pprof_put_sample(struct utrace_pb *b, const uint64_t *ids, const struct pprof_stack *st)
{
	utrace_pb_begin(b, PROF_SAMPLE);
	utrace_pb_begin(b, SAMPLE_LOCATION_ID);
	for (uint32_t i = 0; i < st->n; i++)
		utrace_pb_varint(b, ids[i]);
	utrace_pb_end(b);
	utrace_pb_begin(b, SAMPLE_VALUE);
	utrace_pb_varint(b, st->samples);
	utrace_pb_varint(b, st->ns);
	utrace_pb_end(b);
	utrace_pb_end(b);
}

void pprof_value_type(struct utrace_pb *b, unsigned field, uint64_t type, uint64_t unit)
{
	utrace_pb_begin(b, field);
	utrace_pb_uint(b, VT_TYPE, type);
	utrace_pb_uint(b, VT_UNIT, unit);
	utrace_pb_end(b);
}

/* data[0..len) gzipped to out. */
static int write_gzip(const unsigned char *data, size_t len, FILE *out, struct utrace_error *err)
{
	unsigned char chunk[1 << 16];
	z_stream zs = {0};
	int zr;

	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return utrace_error_set(err, -ENOMEM, "zlib: cannot start compressing");
	zs.next_in = (unsigned char *)data;
	zs.avail_in = (uInt)len;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zr = deflate(&zs, Z_FINISH);
		if (zr == Z_STREAM_ERROR || fwrite(chunk, 1, sizeof(chunk) - zs.avail_out, out) !=
						sizeof(chunk) - zs.avail_out) {
			deflateEnd(&zs);
			return utrace_error_set(err, -EIO, "writing the profile failed");
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&zs);
	return 0;
}

int pprof_finish(struct utrace_pb *b, struct pprof_strings *t, FILE *out, struct utrace_error *err)
{
	if (pprof_string(t, "") < 0)
		b->oom = true;
	for (size_t i = 0; i < t->nr; i++)
		utrace_pb_str(b, PROF_STRING_TABLE, t->s[i]);
	if (b->oom)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	if (b->len > UINT32_MAX)
		return utrace_error_set(err, -EFBIG, "the profile is larger than 4 GB");
	return write_gzip(b->p, b->len, out, err);
}
