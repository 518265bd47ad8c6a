/* SPDX-License-Identifier: MIT */
/*
 * test_bt_fast.c - `utrace bt`'s straight path (common/bt_fast.h) against
 * the interpreter it stands in for: the same hits, on entry and return
 * probes, run once through utrace_bt_exec() into tables as
 * runtime/bt_probe.c's rt_bt_update fills them and once through
 * utrace_bt_fast_run(); the tables must be byte for byte the same (keys,
 * sums, stripes, drops).  Also which programs take the straight path:
 * the shapes it knows do, anything else (a predicate, a string key, a
 * variable) does not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bt_fast.h"
#include "lib/bt/bt_ast.h"
#include "lib/bt/bt_inproc.h"
#include "tests/unit/bt_fixture.h"
#include "tests/unit/check.h"

#define NHITS 5000
#define TID 4242
#define PID 77

struct tables {
	const struct utrace_bt_hdr *h;
	struct utrace_hist_map *m[8];
	uint64_t bytes[8];
};

static int no_load(uint64_t a, unsigned s, uint64_t *o)
{
	(void)a, (void)s;
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

/* runtime/bt_probe.c's rt_bt_update */
static void update(void *arg, unsigned map, const uint8_t *key, int agg,
		   const struct utrace_bt_mval *v)
{
	struct tables *t = arg;
	const struct utrace_bt_mapdesc *d = &utrace_bt_maps(t->h)[map];

	if (map < t->h->nr_maps && agg > 0 && (uint32_t)agg == d->agg && utrace_bt_table_agg_ok(d))
		utrace_bt_table_update(t->m[map], d, key, v->i, TID);
}

static void tables_new(struct tables *t, const struct utrace_bt_hdr *h)
{
	*t = (struct tables){.h = h};
	for (unsigned i = 0; i < h->nr_maps && i < 8; i++) {
		const struct utrace_bt_mapdesc *d = &utrace_bt_maps(h)[i];
		uint32_t bits = bt_inproc_table_bits(d, 64);

		t->bytes[i] = bt_inproc_table_bytes(d, bits);
		t->m[i] = calloc(1, t->bytes[i]);
		bt_inproc_table_init(t->m[i], d, bits);
	}
}

/* hit i's registers, and its entry arguments (a return probe's) */
static void regs_of(unsigned i, struct utrace_fetch_regs *r, uint64_t *entry)
{
	memset(r, 0, sizeof(*r));
	r->r[UTRACE_FR_DI] = (uint64_t)((int64_t)(i * 2654435761u % 5000) - 700);
	r->r[UTRACE_FR_SI] = i % 7;
	r->r[UTRACE_FR_DX] = i * 3;
	r->r[UTRACE_FR_CX] = i % 5;
	r->r[UTRACE_FR_R8] = i >> 3;
	r->r[UTRACE_FR_R9] = ~(uint64_t)i;
	r->r[UTRACE_FR_AX] = (uint64_t)(int64_t)(i % 900) - 100;
	for (unsigned k = 0; k < 6; k++)
		entry[k] = i * 11 + k;
}

/* runtime/bt_probe.c's rt_bt_hit_of */
static void hit_of(struct utrace_bt_hit *hit, const struct utrace_fetch_regs *r,
		   const uint64_t *entry, int is_return)
{
	static const uint8_t arg_regs[6] = {UTRACE_FR_DI, UTRACE_FR_SI, UTRACE_FR_DX,
					    UTRACE_FR_CX, UTRACE_FR_R8, UTRACE_FR_R9};

	memset(hit, 0, sizeof(*hit));
	for (unsigned k = 0; k < 6; k++)
		hit->args[k] = (int64_t)(entry ? entry[k] : r->r[arg_regs[k]]);
	hit->builtin[UTRACE_BB_RETVAL] = is_return ? (int64_t)r->r[UTRACE_FR_AX] : 0;
	hit->builtin[UTRACE_BB_PID] = PID;
	hit->builtin[UTRACE_BB_TID] = TID;
	strcpy(hit->comm, "prog");
}

/* src's tables after NHITS hits through both paths: the same bytes? */
static void same(const char *src, int is_return)
{
	struct bt_program p;
	struct bt_code code = {0};
	struct utrace_bt_fast f;
	struct tables a, b;
	struct utrace_bt_state *st = calloc(1, sizeof(*st));
	uint64_t *memo = calloc(8 * UTRACE_BT_MEMO, sizeof(uint64_t));
	int eq = 1;

	if (bt_fixture_compile_ok(src, &p, &code) < 0)
		return;
	check(utrace_bt_fast_of(code.prog, &f) == 0, "takes the straight path: %s", src);
	tables_new(&a, code.prog);
	tables_new(&b, code.prog);
	utrace_bt_fast_bind(code.prog, &f, b.m, memo);
	for (unsigned i = 0; st && i < NHITS; i++) {
		struct utrace_bt_ctx ctx = {.arg = &a, .load = no_load, .map_get = no_get,
					    .map_update = update, .emit = no_emit};
		struct utrace_fetch_regs r;
		uint64_t entry[6];
		struct utrace_bt_hit hit;
		struct utrace_bt_fhit x;

		regs_of(i, &r, entry);
		hit_of(&hit, &r, is_return ? entry : NULL, is_return);
		utrace_bt_exec(code.prog, &hit, &ctx, st);
		x = (struct utrace_bt_fhit){r.r, is_return ? entry : NULL,
					    is_return ? (int64_t)r.r[UTRACE_FR_AX] : 0, PID, TID};
		utrace_bt_fast_run(&f, &x, TID);
	}
	for (unsigned i = 0; i < a.h->nr_maps && i < 8; i++) {
		eq &= !memcmp(a.m[i], b.m[i], a.bytes[i]);
		check(a.m[i]->next_elt > 0, "map %u has entries: %s", i, src);
	}
	check(eq, "the tables are the same bytes: %s", src);
	for (unsigned i = 0; i < 8; i++) {
		free(a.m[i]);
		free(b.m[i]);
	}
	free(st);
	free(memo);
	free(code.prog);
	bt_program_free(&p);
}

/* src takes the straight path with no step: its hit does nothing */
static void empty(const char *src)
{
	struct bt_program p;
	struct bt_code code = {0};
	struct utrace_bt_fast f;

	if (bt_fixture_compile_ok(src, &p, &code) < 0)
		return;
	check(utrace_bt_fast_of(code.prog, &f) == 0 && f.n == 0, "no step: %s", src);
	free(code.prog);
	bt_program_free(&p);
}

static void refused(const char *src)
{
	struct bt_program p;
	struct bt_code code = {0};
	struct utrace_bt_fast f;

	if (bt_fixture_compile_ok(src, &p, &code) < 0)
		return;
	check(utrace_bt_fast_of(code.prog, &f) < 0, "left to the interpreter: %s", src);
	free(code.prog);
	bt_program_free(&p);
}

int main(void)
{
	same("uprobe:/bin/true:main { @c[arg0] = count(); @h = hist(arg0); }", 0);
	same("uprobe:/bin/true:main { @s[arg1, pid] = sum(arg0); @mn[arg1] = min(arg0); "
	     "@mx = max(arg2); @a[tid] = avg(arg3); }", 0);
	same("uprobe:/bin/true:main { @st[arg5] = stats(arg4); @l = lhist(arg0, 0, 3000, 250); "
	     "@k[7, arg1] = count(); }", 0);
	same("uprobe:/bin/true:main { @x[arg2] = sum(arg5); @y[arg4] = lhist(arg3, 0, 10, 1); "
	     "@z = count(); @w[arg1] = max(arg1); }", 0);
	same("uprobe:/bin/true:main { @a[arg0] = avg(arg3); @st[arg1] = stats(arg2); "
	     "@s = sum(arg4); @mn = min(arg5); @l[arg2] = lhist(arg1, 0, 100, 10); }", 0);
	same("uretprobe:/bin/true:main { @r = hist(retval); @c[tid, 3] = count(); "
	     "@m = max(retval); }", 1);
	empty("uprobe:/bin/true:main { }");
	refused("uprobe:/bin/true:main /arg0 > 10/ { @c[arg0] = count(); }");
	refused("uprobe:/bin/true:main { @[comm] = count(); }");
	refused("uprobe:/bin/true:main { @c[arg0 + 1] = count(); }");
	refused("uprobe:/bin/true:main { $x = arg0; @s = sum($x); }");
	return check_done();
}
