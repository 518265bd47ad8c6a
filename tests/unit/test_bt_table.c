/* SPDX-License-Identifier: MIT */
/*
 * test_bt_table.c - a bpftrace program's maps kept where it runs at the
 * hit (common/bt_table.h, lib/bt/bt_inproc.c): the same hits run once
 * into the tool's maps (the replay path) and once from four threads into
 * the tables, which are then read back; every map prints byte for byte
 * the same.  Also: min/max at the ends of int64, a full table's drops,
 * and which programs may run at the hit.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_ast.h"
#include "lib/bt/bt_inproc.h"
#include "tests/unit/bt_fixture.h"
#include "tests/unit/check.h"

#define NTHREADS 4
#define NHITS 20000

static int no_load(uint64_t a, unsigned s, uint64_t *o)
{
	(void)a;
	(void)s;
	*o = 0;
	return -1;
}

static int no_get(void *arg, unsigned map, const uint8_t *key, struct utrace_bt_mval *v)
{
	(void)arg, (void)map, (void)key;
	memset(v, 0, sizeof(*v));
	return -1;
}

static void no_emit(void *arg, const void *rec, uint32_t len)
{
	(void)arg, (void)rec, (void)len;
}

struct tables {
	const struct utrace_bt_hdr *h;
	struct utrace_hist_map *m[8];
};
static __thread uint32_t self_tid;

static void table_update(void *arg, unsigned map, const uint8_t *key, int agg,
			 const struct utrace_bt_mval *v)
{
	struct tables *t = arg;

	(void)agg;
	utrace_bt_table_update(t->m[map], &utrace_bt_maps(t->h)[map], key, v->i, self_tid);
}

static void hit_of(unsigned i, struct utrace_bt_hit *hit)
{
	memset(hit, 0, sizeof(*hit));
	hit->args[0] = (int64_t)(i * 2654435761u % 5000) - 700;
	hit->args[1] = i % 7;
	hit->builtin[UTRACE_BB_RETVAL] = (int64_t)i;
	hit->builtin[UTRACE_BB_TID] = i % 3;
	snprintf(hit->comm, sizeof(hit->comm), "%s", i % 2 ? "odd" : "even");
}

struct worker {
	const void *prog;
	struct tables *t;
	unsigned first;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct utrace_bt_ctx ctx = {.arg = w->t, .load = no_load, .map_get = no_get,
				    .map_update = table_update, .emit = no_emit};
	struct utrace_bt_state *st = calloc(1, sizeof(*st));

	self_tid = 1000 + w->first; /* each its own stripe */
	for (unsigned i = w->first; st && i < NHITS; i += NTHREADS) {
		struct utrace_bt_hit hit;

		hit_of(i, &hit);
		utrace_bt_exec(w->prog, &hit, &ctx, st);
	}
	free(st);
	return NULL;
}

static char *print_all(struct bt_maps *ms, const struct bt_program *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (unsigned i = 0; f && i < p->nmaps; i++)
		bt_maps_print(ms, i, p->maps[i].name, 0, 0, UTRACE_BT_TEXT, f);
	if (f)
		fclose(f);
	return buf;
}

/* The maps of src after the hits, through the tables (threads) or not. */
static char *run(const char *src, bool tables, size_t max_keys, uint64_t *drops)
{
	struct bt_program p;
	struct bt_code code = {0};
	struct bt_maps *ms = NULL;
	struct tables t = {0};
	char *out = NULL;

	if (bt_fixture_compile_ok(src, &p, &code) < 0)
		return NULL;
	t.h = code.prog;
	if (bt_maps_new(code.prog, &ms) < 0)
		goto done;
	if (!tables) {
		struct utrace_bt_ctx ctx = {.arg = ms, .load = no_load, .map_get = bt_maps_get,
					    .map_update = bt_maps_update, .emit = no_emit};
		struct utrace_bt_state *st = calloc(1, sizeof(*st));

		for (unsigned i = 0; st && i < NHITS; i++) {
			struct utrace_bt_hit hit;

			hit_of(i, &hit);
			utrace_bt_exec(code.prog, &hit, &ctx, st);
		}
		free(st);
	} else {
		pthread_t th[NTHREADS];
		struct worker w[NTHREADS];

		check(bt_inproc_refusal(&code) == NULL, "runs at the hit: %s", src);
		for (unsigned i = 0; i < t.h->nr_maps; i++) {
			const struct utrace_bt_mapdesc *d = &utrace_bt_maps(t.h)[i];
			uint32_t bits = bt_inproc_table_bits(d, max_keys);

			t.m[i] = calloc(1, bt_inproc_table_bytes(d, bits));
			bt_inproc_table_init(t.m[i], d, bits);
		}
		for (unsigned i = 0; i < NTHREADS; i++) {
			w[i] = (struct worker){code.prog, &t, i};
			pthread_create(&th[i], NULL, work, &w[i]);
		}
		for (unsigned i = 0; i < NTHREADS; i++)
			pthread_join(th[i], NULL);
		for (unsigned i = 0; i < t.h->nr_maps; i++)
			check(bt_inproc_table_read(ms, i, &utrace_bt_maps(t.h)[i], t.m[i]) == 0,
			      "table %u read", i);
	}
	out = print_all(ms, &p);
	if (drops)
		*drops = bt_maps_drops(ms);
done:
	for (unsigned i = 0; i < 8; i++)
		free(t.m[i]);
	bt_maps_free(ms);
	free(code.prog);
	bt_program_free(&p);
	return out;
}

static void same(const char *src)
{
	char *want = run(src, false, 4096, NULL), *got = run(src, true, 4096, NULL);

	if (!want || !got || strcmp(want, got))
		fprintf(stderr, "replay:\n%s\ntables:\n%s", want ? want : "", got ? got : "");
	check(want && got && !strcmp(want, got), "the tables print as the replay: %s", src);
	check(want && strlen(want) > 10, "prints something: %s", src);
	free(want);
	free(got);
}

static void test_refusal(void)
{
	static const char *const no[] = {
	    "uprobe:/bin/true:main { printf(\"%d\\n\", arg0); }",
	    "uprobe:/bin/true:main { @[str(arg0)] = count(); }",
	    "uprobe:/bin/true:main { @x = arg0; }",
	    "uprobe:/bin/true:main { @c[arg0] = count(); delete(@c[arg1]); }",
	    "uprobe:/bin/true:main { @[nsecs] = count(); }",
	    "uprobe:/bin/true:main { @c = count(); exit(); }",
	};

	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		struct bt_program p;
		struct bt_code code = {0};

		if (bt_fixture_compile_ok(no[i], &p, &code) < 0)
			continue;
		check(bt_inproc_refusal(&code) != NULL, "stays on the replay path: %s", no[i]);
		free(code.prog);
		bt_program_free(&p);
	}
}

static void test_ends(void)
{
	struct utrace_bt_mapdesc d = {.agg = UTRACE_BTT_MIN};

	check(utrace_bt_ext_dec(UTRACE_BTT_MIN, utrace_bt_ext_enc(UTRACE_BTT_MIN, INT64_MAX)) ==
		      INT64_MAX && utrace_bt_ext_enc(UTRACE_BTT_MIN, INT64_MAX) == 0,
	      "min: INT64_MAX is the sentinel's code and decodes back");
	check(utrace_bt_ext_enc(UTRACE_BTT_MAX, -1) < utrace_bt_ext_enc(UTRACE_BTT_MAX, 0) &&
		      utrace_bt_ext_enc(UTRACE_BTT_MIN, 5) < utrace_bt_ext_enc(UTRACE_BTT_MIN, -5),
	      "the codes keep the order");
	(void)d;
}

int main(void)
{
	same("uprobe:/bin/true:main { @[comm] = count(); }");
	same("uprobe:/bin/true:main /arg0 > 10/ { @c[arg1, comm] = count(); @s[arg1] = "
	     "sum(arg0); @mn[comm] = min(arg0); @mx = max(arg0); @a[tid] = avg(arg0); }");
	same("uprobe:/bin/true:main { @h = hist(arg0); @l[arg1 % 2] = lhist(arg0, 0, 3000, "
	     "250); }");
	same("uretprobe:/bin/true:main { @st = stats(retval); @r = hist(retval); }");
	same("uprobe:/bin/true:main { $x = arg0 * 2; if ($x < 0) { @neg[comm] = count(); } else "
	     "{ @pos = sum($x); } @t = count(); @e[arg1 == 3 ? 1 : 0] = max(-arg0); }");
	{
		uint64_t drops = 0;
		char *got;

		setenv("BPFTRACE_MAP_KEYS_MAX", "16", 1);
		got = run("uprobe:/bin/true:main { @[arg0] = count(); }", true, 16, &drops);
		check(got && drops > 0, "a full table counts drops (%llu)", (unsigned long long)drops);
		free(got);
		unsetenv("BPFTRACE_MAP_KEYS_MAX");
	}
	test_refusal();
	test_ends();
	return check_done();
}
