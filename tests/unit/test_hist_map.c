/* SPDX-License-Identifier: MIT */
/*
 * test_hist_map.c - hist triggers compiled (lib/hist/hist_compile.c) and run
 * (common/hist_prog.h) on hand-made records: keys of every kind, values,
 * the value modifiers, a filter, a full table, and threads inserting into
 * one table at once (the lock-free insert must lose no hit).  The specs
 * are built by hand so that this test depends on the compiler only; the
 * parser has tests of its own.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/hist_prog.h"
#include "lib/hist/hist_compile.h"
#include "tests/unit/check.h"

/* The layout of the records below: the kernel's common fields first. */
static const struct utrace_event_field fields[] = {
    UTRACE_EVENT_COMMON_FIELDS,
    {"int", "id", "id", 8, 4, true, false, UTRACE_EF_INT},
    {"unsigned long", "len", "len", 16, 8, false, false, UTRACE_EF_INT},
    {"char", "comm[16]", "comm", 24, 16, true, false, UTRACE_EF_CHARS},
    {"__data_loc char[]", "word", "word", 40, 4, false, false, UTRACE_EF_STRING},
};
static const struct utrace_event_format fmt = {
    .system = "t",
    .name = "ev",
    .rec_size = 44,
    .nr_fields = sizeof(fields) / sizeof(fields[0]),
    .fields = fields,
    .print_fmt = "\"id=%d\", REC->id",
};

struct rec {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid, id, pad;
	uint64_t len;
	char comm[16];
	uint32_t word_loc;
	char word[20];
};

static struct rec mkrec(int pid, int id, uint64_t len, const char *comm, const char *word)
{
	struct rec r;

	memset(&r, 0, sizeof(r));
	r.pid = pid;
	r.id = id;
	r.len = len;
	strncpy(r.comm, comm, sizeof(r.comm) - 1);
	strncpy(r.word, word, sizeof(r.word) - 1);
	r.word_loc = (uint32_t)(strlen(r.word) + 1) << 16 | (uint32_t)offsetof(struct rec, word);
	return r;
}

/* ---- hand-made specs ------------------------------------------------- */

static struct utrace_hist_expr *field(const char *name, unsigned mods)
{
	struct utrace_hist_expr *e = calloc(1, sizeof(*e));

	e->op = UTRACE_HE_FIELD;
	e->name = (char *)name;
	e->mods = mods;
	return e;
}

static struct utrace_hist_expr *binop(enum utrace_hist_expr_op op, struct utrace_hist_expr *l,
				      struct utrace_hist_expr *r)
{
	struct utrace_hist_expr *e = calloc(1, sizeof(*e));

	e->op = op;
	e->l = l;
	e->r = r;
	return e;
}

static struct utrace_hist_expr *constant(uint64_t v)
{
	struct utrace_hist_expr *e = calloc(1, sizeof(*e));

	e->op = UTRACE_HE_CONST;
	e->constant = v;
	return e;
}

static void free_expr(struct utrace_hist_expr *e)
{
	if (!e)
		return;
	free_expr(e->l);
	free_expr(e->r);
	free(e);
}

static void free_spec(struct utrace_hist_spec *s)
{
	for (unsigned i = 0; i < s->nr_keys; i++)
		free_expr(s->keys[i]);
	for (unsigned i = 0; i < s->nr_vals; i++)
		free_expr(s->vals[i]);
}

/* ---- a table and its program ----------------------------------------- */

struct table {
	struct utrace_hist_hdr *prog;
	struct utrace_hist_map *map;
	uint64_t size;
};

static int table_new(struct table *t, const struct utrace_hist_spec *s, const char *what)
{
	struct utrace_error err = {0};
	uint32_t len;
	int code;
	void *prog;

	if (utrace_hist_compile(s, &fmt, &prog, &len, &code, &err) < 0) {
		check(0, "%s: compile: %s", what, err.msg);
		return -1;
	}
	t->prog = prog;
	check(utrace_hist_hdr_ok(prog, len) != NULL, "%s: the program passes its own check", what);
	t->size = utrace_hist_map_bytes(t->prog->map_bits, t->prog->key_size, t->prog->nr_sums);
	t->map = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	t->map->magic = UTRACE_HIST_MAP_MAGIC;
	t->map->bits = t->prog->map_bits;
	t->map->key_size = t->prog->key_size;
	t->map->nr_sums = t->prog->nr_sums;
	return 0;
}

static void table_free(struct table *t)
{
	munmap(t->map, t->size);
	free(t->prog);
}

static void hit(struct table *t, const struct rec *r, uint64_t ts, uint32_t cpu)
{
	struct utrace_hist_ctx c = {
	    .rec = (const uint8_t *)r, .rec_len = sizeof(*r), .cpu = cpu, .ts_ns = ts, .comm = "thread-name"};

	utrace_hist_run(t->prog, t->map, &c);
}

/* The entries are what the slots name (an element an inserter lost its
 * race with is in no slot); the one whose key starts with key[0..n). */
static const uint64_t *find(struct table *t, const void *key, size_t n)
{
	uint32_t nslots = 2u << t->map->bits;

	for (uint32_t i = 0; i < nslots; i++) {
		uint64_t w = utrace_hist_slots(t->map)[i].word;
		const uint8_t *e;

		if (!w)
			continue;
		e = utrace_hist_elt(t->map, utrace_hist_slot_elt(w));
		if (!memcmp(e, key, n))
			return (const uint64_t *)(e + t->prog->key_size);
	}
	return NULL;
}

static const uint64_t *find_num(struct table *t, uint64_t k)
{
	return find(t, &k, sizeof(k));
}

static const uint64_t *find_str(struct table *t, const char *s)
{
	char key[UTRACE_HIST_STR_MAX] = {0};

	strncpy(key, s, sizeof(key) - 1);
	return find(t, key, t->prog->slots[0].len);
}

/* Totals' Hits: the entries' hit counts, added up. */
static uint64_t total_hits(struct table *t)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < 2u << t->map->bits; i++) {
		uint64_t w = utrace_hist_slots(t->map)[i].word;

		if (w)
			n += *(const uint64_t *)(utrace_hist_elt(t->map, utrace_hist_slot_elt(w)) +
						 t->prog->key_size);
	}
	return n;
}

/* Entries: the used slots. */
static uint32_t entries(struct table *t)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < 2u << t->map->bits; i++)
		n += utrace_hist_slots(t->map)[i].word != 0;
	return n;
}

static void test_numeric_keys_and_values(void)
{
	struct utrace_hist_spec s = {0};
	struct table t;
	const uint64_t *v;
	uint64_t want_sum[5] = {0}, want_hits[5] = {0};

	s.keys[s.nr_keys++] = field("id", 0);
	s.vals[s.nr_vals++] = field("len", 0);
	s.vals[s.nr_vals++] = binop(UTRACE_HE_MINUS, field("len", 0), constant(1));
	if (table_new(&t, &s, "keys=id:vals=len,len-1") < 0)
		return;
	for (int i = 0; i < 100; i++) {
		struct rec r = mkrec(7, i % 5, (uint64_t)i * 3 + 1, "x", "w");

		hit(&t, &r, 0, 0);
		want_hits[i % 5]++;
		want_sum[i % 5] += (uint64_t)i * 3 + 1;
	}
	check(entries(&t) == 5 && total_hits(&t) == 100 && t.map->drops == 0,
	      "id: 5 entries, 100 hits, 0 drops (%llu, %llu, %llu)",
	      (unsigned long long)entries(&t), (unsigned long long)total_hits(&t),
	      (unsigned long long)t.map->drops);
	for (int k = 0; k < 5; k++) {
		v = find_num(&t, (uint64_t)k);
		check(v && v[0] == want_hits[k] && v[1] == want_sum[k] &&
			  v[2] == want_sum[k] - want_hits[k],
		      "id %d: hitcount %llu, len %llu, len-1 %llu", k,
		      v ? (unsigned long long)v[0] : 0, v ? (unsigned long long)v[1] : 0,
		      v ? (unsigned long long)v[2] : 0);
	}
	table_free(&t);
	free_spec(&s);
}

static void test_modifiers(void)
{
	static const struct {
		unsigned mods;
		uint64_t buckets, in, want;
	} cases[] = {
	    {UTRACE_HIST_MOD_LOG2, 0, 0, 0},	 {UTRACE_HIST_MOD_LOG2, 0, 1, 0},
	    {UTRACE_HIST_MOD_LOG2, 0, 2, 1},	 {UTRACE_HIST_MOD_LOG2, 0, 3, 2},
	    {UTRACE_HIST_MOD_LOG2, 0, 1024, 10}, {UTRACE_HIST_MOD_LOG2, 0, 1025, 11},
	    {UTRACE_HIST_MOD_BUCKETS, 10, 0, 0}, {UTRACE_HIST_MOD_BUCKETS, 10, 19, 10},
	    {UTRACE_HIST_MOD_BUCKETS, 10, 20, 20}, {UTRACE_HIST_MOD_HEX, 0, 77, 77},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct utrace_hist_spec s = {0};
		struct table t;
		struct rec r = mkrec(1, 0, cases[i].in, "x", "w");

		s.keys[s.nr_keys++] = field("len", cases[i].mods);
		s.keys[0]->buckets = cases[i].buckets;
		if (table_new(&t, &s, "modifier") < 0)
			continue;
		hit(&t, &r, 0, 0);
		check(find_num(&t, cases[i].want) != NULL, "len %llu with modifier %#x -> key %llu",
		      (unsigned long long)cases[i].in, cases[i].mods,
		      (unsigned long long)cases[i].want);
		table_free(&t);
		free_spec(&s);
	}
}

static void test_special_fields(void)
{
	struct utrace_hist_spec s = {0};
	struct table t;
	struct rec r = mkrec(1, 0, 0, "x", "w");
	const uint64_t *v;

	/* keys=common_cpu:vals=common_timestamp.usecs */
	s.keys[s.nr_keys++] = field("common_cpu", 0);
	s.vals[s.nr_vals++] = field("common_timestamp", UTRACE_HIST_MOD_USECS);
	if (table_new(&t, &s, "common_cpu, common_timestamp.usecs") < 0)
		return;
	hit(&t, &r, 5000, 3);
	hit(&t, &r, 7999, 3);
	v = find_num(&t, 3);
	check(v && v[0] == 2 && v[1] == 5 + 7, "cpu 3: 2 hits, 12 us of timestamps");
	table_free(&t);
	free_spec(&s);
}

static void test_string_keys(void)
{
	static const char *words[] = {"alpha", "beta", "gamma", "beta", "beta", "alpha"};
	struct utrace_hist_spec s = {0};
	struct table t;
	const uint64_t *a, *b, *g;

	s.keys[s.nr_keys++] = field("word", 0);
	if (table_new(&t, &s, "keys=word (__data_loc)") < 0)
		return;
	check(t.prog->slots[0].kind == UTRACE_HSLOT_STR && t.prog->slots[0].len == 256,
	      "a __data_loc key is a string of 256 bytes");
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		struct rec r = mkrec(1, 0, 0, "x", words[i]);

		hit(&t, &r, 0, 0);
	}
	a = find_str(&t, "alpha");
	b = find_str(&t, "beta");
	g = find_str(&t, "gamma");
	check(a && b && g && a[0] == 2 && b[0] == 3 && g[0] == 1 && entries(&t) == 3,
	      "words: alpha 2, beta 3, gamma 1");
	table_free(&t);
	free_spec(&s);

	memset(&s, 0, sizeof(s));
	s.keys[s.nr_keys++] = field("comm", 0);
	s.keys[s.nr_keys++] = field("common_comm", 0);
	if (table_new(&t, &s, "keys=comm,common_comm") < 0)
		return;
	{
		struct rec r = mkrec(1, 0, 0, "worker-1", "w");

		hit(&t, &r, 0, 0);
		hit(&t, &r, 0, 0);
	}
	check(entries(&t) == 1 && t.prog->key_size == 32 &&
		  !strcmp((const char *)utrace_hist_elt(t.map, 0), "worker-1") &&
		  !strcmp((const char *)utrace_hist_elt(t.map, 0) + 16, "thread-name"),
	      "char[16] and common_comm keys: one entry (worker-1, thread-name)");
	table_free(&t);
	free_spec(&s);
}

static void test_filter_and_full(void)
{
	struct utrace_hist_spec s = {0};
	struct table t;
	const uint64_t *v;

	s.keys[s.nr_keys++] = field("len", 0);
	s.map_bits = 7; /* 128 entries */
	s.filter = (char *)"id == 1";
	if (table_new(&t, &s, "keys=len:size=128 if id == 1") < 0)
		return;
	for (int i = 0; i < 400; i++) {
		struct rec r = mkrec(1, i % 2, (uint64_t)i, "x", "w");

		hit(&t, &r, 0, 0);
	}
	/* 200 hits pass the filter, each a new key: 128 fit, 72 are dropped */
	check(entries(&t) == 128 && total_hits(&t) == 128 && t.map->drops == 72,
	      "a full table: 128 entries, 128 hits, 72 dropped (%llu, %llu)",
	      (unsigned long long)total_hits(&t), (unsigned long long)t.map->drops);
	v = find_num(&t, 1);
	check(v && v[0] == 1 && !find_num(&t, 0), "the filter kept only id 1's hits");
	table_free(&t);
	free_spec(&s);
}

static void test_errors(void)
{
	static const struct {
		const char *field;
		int code;
	} cases[] = {
	    {"nosuch", UTRACE_HIST_ERR_FIELD_NOT_FOUND},
	    {"hitcount", UTRACE_HIST_ERR_INVALID_SORT_FIELD},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct utrace_hist_spec s = {0};
		struct utrace_error err = {0};
		uint32_t len;
		void *prog;
		int code = 0, ret;

		s.keys[s.nr_keys++] = field(cases[i].field, 0);
		s.keys[0]->pos = 10;
		ret = utrace_hist_compile(&s, &fmt, &prog, &len, &code, &err);
		check(ret < 0 && code == cases[i].code && err.column == 11,
		      "keys=%s: error %d at column 11 (got %d at %d: %s)", cases[i].field,
		      cases[i].code, code, err.column, err.msg);
		free_spec(&s);
	}
	{
		struct utrace_hist_spec s = {0};
		struct utrace_error err = {0};
		uint32_t len;
		void *prog;
		int code = 0, ret;

		s.keys[s.nr_keys++] = field("id", 0);
		s.vals[s.nr_vals++] = field("word", 0);
		s.vals[0]->pos = 12;
		ret = utrace_hist_compile(&s, &fmt, &prog, &len, &code, &err);
		check(ret < 0 && code == UTRACE_HIST_ERR_INVALID_STR_OPERAND && err.column == 13,
		      "vals=word: a string is not a value (%s)", err.msg);
		free_spec(&s);
	}
}

/* ---- threads: the lock-free insert loses nothing ---------------------- */

#define THREADS 4
#define PER_THREAD 200000

static struct table shared;

static void *inserter(void *arg)
{
	int self = (int)(intptr_t)arg;

	for (int i = 0; i < PER_THREAD; i++) {
		/* keys 0..999, the same ones in every thread, each new key
		 * raced for by all of them at once */
		struct rec r = mkrec(self, i % 1000, 1, "x", "w");

		hit(&shared, &r, 0, 0);
	}
	return NULL;
}

static void test_threads(void)
{
	struct utrace_hist_spec s = {0};
	pthread_t th[THREADS];
	uint64_t total = 0, lensum = 0;
	int exact = 1;

	s.keys[s.nr_keys++] = field("id", 0);
	s.vals[s.nr_vals++] = field("len", 0);
	if (table_new(&shared, &s, "threads") < 0)
		return;
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, inserter, (void *)(intptr_t)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	for (int k = 0; k < 1000; k++) {
		const uint64_t *v = find_num(&shared, (uint64_t)k);

		if (!v || v[0] != THREADS * PER_THREAD / 1000)
			exact = 0;
		if (v) {
			total += v[0];
			lensum += v[1];
		}
	}
	check(entries(&shared) == 1000 && exact && total == THREADS * PER_THREAD &&
		  lensum == total && total_hits(&shared) == total && !shared.map->drops,
	      "%d threads, %d hits each on 1000 shared keys: 1000 entries, every count exact "
	      "(%llu entries, %llu hits)",
	      THREADS, PER_THREAD, (unsigned long long)entries(&shared),
	      (unsigned long long)total);
	table_free(&shared);
	free_spec(&s);
}

int main(void)
{
	test_numeric_keys_and_values();
	test_modifiers();
	test_special_fields();
	test_string_keys();
	test_filter_and_full();
	test_errors();
	test_threads();
	return check_done();
}
