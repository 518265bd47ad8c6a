/* SPDX-License-Identifier: MIT */
/*
 * test_bt_prog.c - bpftrace programs compiled by lib/bt/bt_compile.c and
 * run by common/bt_prog.h's interpreter on made-up hits: predicates,
 * maps and their aggregations, scratch variables, &&, ||, ?:, division by
 * zero, printf's records; and the checks that keep a malformed program
 * (a jump backwards, a map out of range, a short buffer, a stack that
 * overflows) from running.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bt_prog.h"
#include "lib/bt/bt_ast.h"
#include "lib/bt/bt_compile.h"
#include "lib/bt/bt_maps.h"
#include "tests/unit/check.h"

static unsigned nrecs, nprintf;
static int64_t last_arg;

static void emit(void *arg, const void *rec, uint32_t len)
{
	struct utrace_bt_rec_hdr h;

	(void)arg;
	memcpy(&h, rec, sizeof(h));
	nrecs++;
	if (h.kind == UTRACE_BREC_PRINTF && len >= sizeof(h) + 8) {
		nprintf++;
		memcpy(&last_arg, (const uint8_t *)rec + sizeof(h), 8);
	}
}

static int no_load(uint64_t a, unsigned s, uint64_t *o)
{
	(void)a;
	(void)s;
	*o = 0;
	return -1;
}

/* Compiles src's first probe (at its first attach point, function
 * "main") and runs it once per hit with arg0 = 0..n-1, arg1 = 2 * arg0. */
static struct bt_maps *run(const char *src, unsigned n, struct bt_program *p, struct bt_code *code)
{
	struct utrace_error err = {0};
	struct bt_formats fmts = {0};
	struct bt_maps *ms = NULL;
	struct utrace_bt_state *st = calloc(1, sizeof(*st));
	int ret;

	*p = (struct bt_program){.src = src, .name = "stdin"};
	ret = bt_parse(p, &err);
	if (!ret)
		ret = bt_check(p, &err);
	if (!ret)
		ret = bt_compile(p, &p->probes[0], &p->probes[0].aps[0], "main", &fmts, code, &err);
	check(ret == 0, "compiles: %s %s", src, err.msg);
	if (!ret && bt_maps_new(code->prog, &ms) == 0) {
		struct utrace_bt_ctx ctx = {.arg = ms, .load = no_load, .map_get = bt_maps_get,
					    .map_update = bt_maps_update, .emit = emit};

		for (unsigned i = 0; i < n; i++) {
			struct utrace_bt_hit hit = {.args = {(int64_t)i, 2 * (int64_t)i}};

			memcpy(hit.comm, "prog", 5);
			utrace_bt_exec(code->prog, &hit, &ctx, st);
		}
	}
	bt_formats_free(&fmts);
	free(st);
	return ms;
}

static int64_t get(struct bt_maps *ms, unsigned map, int64_t key, bool keyed)
{
	uint8_t k[UTRACE_BT_KEY_MAX] = {0};
	struct utrace_bt_mval v;

	if (keyed)
		memcpy(k, &key, 8);
	return bt_maps_get(ms, map, k, &v) == 0 ? v.i : -999;
}

static void test_maps(void)
{
	struct bt_program p;
	struct bt_code code = {0};
	struct bt_maps *ms = run("uprobe:/bin/true:main /arg0 > 10/ { @[arg0 % 2] = count(); "
				 "@s = sum(arg1); $x = arg0 * 2; @m = max($x); @n = min(arg0); "
				 "@a = avg(arg0); printf(\"%d %s\\n\", arg0, comm); }",
				 20, &p, &code);

	if (!ms)
		return;
	/* arg0 11..19: 12 14 16 18 even, 11 13 15 17 19 odd */
	check(get(ms, 0, 0, true) == 4 && get(ms, 0, 1, true) == 5, "@[arg0 %% 2] = count()");
	check(get(ms, 1, 0, false) == 2 * (11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19),
	      "@s = sum(arg1)");
	check(get(ms, 2, 0, false) == 38 && get(ms, 3, 0, false) == 11, "max($x), min(arg0)");
	check(get(ms, 4, 0, false) == 15, "avg(arg0): 135 / 9");
	check(nprintf == 9 && last_arg == 19, "printf: one record a hit that passed (%u)", nprintf);
	bt_maps_free(ms);
	free(code.prog);
	bt_program_free(&p);
}

static void test_exprs(void)
{
	struct bt_program p;
	struct bt_code code = {0};
	struct bt_maps *ms = run("BEGIN { @a = 1 && 0; @b = 0 || 2; @c = 5 > 3 ? 7 : 8; "
				 "@d = 7 / 0; $i = 1; $i += 4; $i++; @e = $i; @f = -3 >> 1 << 1; "
				 "if (@e == 6) { @g = 1; } else { @g = 2; } @h[\"x\"] = 1; "
				 "@h[\"x\"]++; @k = @h[\"x\"]; @z = 1; delete(@z); }",
				 1, &p, &code);

	if (!ms)
		return;
	check(get(ms, 0, 0, false) == 0 && get(ms, 1, 0, false) == 1, "&& and || give 0 or 1");
	check(get(ms, 2, 0, false) == 7 && get(ms, 3, 0, false) == 0, "?:, division by zero is 0");
	check(get(ms, 4, 0, false) == 6, "$i = 1; $i += 4; $i++");
	check(get(ms, 6, 0, false) == 1, "if/else");
	check(get(ms, 8, 0, false) == 2, "@h[\"x\"]++ on a string key, read back");
	check(bt_maps_count(ms, 9) == 0, "delete(@z)");
	bt_maps_free(ms);
	free(code.prog);
	bt_program_free(&p);
}

/* 200 keys (the table grows twice), every third deleted: the others
 * are still found, the deleted are not. */
static void test_delete(void)
{
	struct bt_program p;
	struct bt_code code = {0};
	struct bt_maps *ms = run("uprobe:/bin/true:main { @a[arg0] = arg1; if (arg0 % 3 == 0) { "
				 "delete(@a[arg0]); } }",
				 200, &p, &code);
	bool ok = true;

	if (!ms)
		return;
	for (int64_t k = 0; k < 200; k++)
		ok &= get(ms, 0, k, true) == (k % 3 ? 2 * k : -999);
	check(ok && bt_maps_count(ms, 0) == 133, "delete() among 200 keys: %zu left",
	      bt_maps_count(ms, 0));
	bt_maps_free(ms);
	free(code.prog);
	bt_program_free(&p);
}

/* The test's own memory as the traced process's. */
static int self_load(uint64_t a, unsigned size, uint64_t *o)
{
	*o = 0;
	memcpy(o, (const void *)(uintptr_t)a, size);
	return 0;
}

static unsigned printed;
static char printed_text[2 * UTRACE_BT_STRLEN];

static void emit_strs(void *arg, const void *rec, uint32_t len)
{
	const char *v = (const char *)rec + sizeof(struct utrace_bt_rec_hdr);

	(void)arg;
	if (len >= sizeof(struct utrace_bt_rec_hdr) + 2 * UTRACE_BT_STRLEN) {
		snprintf(printed_text, sizeof(printed_text), "%s|%s", v, v + UTRACE_BT_STRLEN);
		printed++;
	}
}

/* str(arg0) and str(arg0, 2) of a string the hit points at (bpftrace
 * 0.17's str(x, n) keeps n characters). */
static void test_str(void)
{
	/* aligned and padded: the interpreter reads whole aligned words */
	static const char text[16] __attribute__((aligned(8))) = "abcdef";
	const char *src = "uprobe:/bin/true:main { printf(\"%s|%s\\n\", str(arg0, 2), str(arg0)); }";
	struct bt_program p = {.src = src, .name = "stdin"};
	struct utrace_error err = {0};
	struct bt_formats fmts = {0};
	struct bt_code code = {0};
	struct utrace_bt_state *st = calloc(1, sizeof(*st));
	struct utrace_bt_ctx ctx = {.load = self_load, .map_get = bt_maps_get,
				    .map_update = bt_maps_update, .emit = emit_strs};
	struct utrace_bt_hit hit = {.args = {(int64_t)(uintptr_t)text}};
	int ret = bt_parse(&p, &err);

	if (!ret)
		ret = bt_check(&p, &err);
	if (!ret)
		ret = bt_compile(&p, &p.probes[0], &p.probes[0].aps[0], "main", &fmts, &code, &err);
	if (!ret && st)
		ret = utrace_bt_exec(code.prog, &hit, &ctx, st);
	check(ret == 0 && printed == 1 && !strcmp(printed_text, "ab|abcdef"),
	      "str(arg0, 2) and str(arg0): %s %s", printed_text, err.msg);
	free(st);
	free(code.prog);
	bt_formats_free(&fmts);
	bt_program_free(&p);
}

static void test_check(void)
{
	struct {
		struct utrace_bt_hdr h;
		struct utrace_bt_mapdesc m;
		struct utrace_bt_insn in[40];
	} prog = {0};
	struct utrace_bt_ctx ctx = {.load = no_load, .map_get = bt_maps_get,
				    .map_update = bt_maps_update, .emit = emit};
	struct utrace_bt_state st;
	struct utrace_bt_hit hit = {0};

	prog.h = (struct utrace_bt_hdr){sizeof(prog), UTRACE_BT_MAGIC, 2, 1};
	prog.in[0] = (struct utrace_bt_insn){.op = UTRACE_BOP_PUSH, .imm = 1};
	prog.in[1] = (struct utrace_bt_insn){.op = UTRACE_BOP_POP};
	check(utrace_bt_check(&prog, sizeof(prog)) == 0, "a whole program checks");
	check(utrace_bt_check(&prog, sizeof(prog) - 1) != 0, "a short buffer does not");
	prog.in[1] = (struct utrace_bt_insn){.op = UTRACE_BOP_JZ, .imm = 0};
	check(utrace_bt_check(&prog, sizeof(prog)) != 0, "a jump backwards does not");
	prog.in[1] = (struct utrace_bt_insn){.op = UTRACE_BOP_MGET, .a = 1};
	check(utrace_bt_check(&prog, sizeof(prog)) != 0, "a map out of range does not");
	prog.in[1] = (struct utrace_bt_insn){.op = UTRACE_BOP_MAX};
	check(utrace_bt_check(&prog, sizeof(prog)) != 0, "an unknown op does not");
	prog.h.nr_insns = 40;
	for (unsigned i = 0; i < 40; i++)
		prog.in[i] = (struct utrace_bt_insn){.op = UTRACE_BOP_PUSH, .imm = i};
	check(utrace_bt_check(&prog, sizeof(prog)) == 0 &&
		  utrace_bt_exec(&prog, &hit, &ctx, &st) == -1,
	      "a stack that would overflow stops the run");
	prog.in[0] = (struct utrace_bt_insn){.op = UTRACE_BOP_ADD};
	check(utrace_bt_exec(&prog, &hit, &ctx, &st) == -1, "a pop of an empty stack stops it");
}

int main(void)
{
	test_maps();
	test_exprs();
	test_delete();
	test_str();
	test_check();
	return check_done();
}
