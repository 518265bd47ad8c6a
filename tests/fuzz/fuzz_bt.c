/* SPDX-License-Identifier: MIT */
/*
 * fuzz_bt.c - `utrace bt`'s language (lib/bt/: the parser, the checker
 * and the compiler) on arbitrary programs, and the bytecode's checker and
 * interpreter (common/bt_prog.h) on arbitrary bytecode.
 *
 * Input: a program text, then optionally a NUL and bytes.  The program
 * is parsed, checked and each probe's first attach point compiled (as
 * for a function named "main"): an error must have a message; a program
 * the compiler gives must pass utrace_bt_check() and run on a hit (its
 * arguments and its reads taken from the bytes) within its bounds, its
 * maps printed.  The bytes after the NUL are then taken as bytecode
 * themselves, as the traced program's runtime takes what the tool sends
 * (runtime/bt_probe.c: checked once, never trusted beyond that): what
 * utrace_bt_check() accepts must run within its bounds too.
 */
#include <errno.h>

#include "common/bt_prog.h"
#include "lib/bt/bt_ast.h"
#include "lib/bt/bt_compile.h"
#include "lib/bt/bt_longval.h"
#include "lib/bt/bt_maps.h"
#include "lib/bt/bt_types.h"
#include "tests/fuzz/fuzz.h"

/* What a run reads: the input's bytes at address 0x1000. */
static const uint8_t *mem;
static size_t mem_len;

static int load(uint64_t addr, unsigned size, uint64_t *out)
{
	*out = 0;
	if (addr < 0x1000 || addr - 0x1000 > mem_len || size > mem_len - (addr - 0x1000))
		return -1;
	memcpy(out, mem + (addr - 0x1000), size);
	return 0;
}

struct run_ctx {
	struct bt_maps *ms;
	struct bt_longvals *lv;
	const struct bt_code *code;
};

static int get_cb(void *arg, unsigned map, const uint8_t *key, struct utrace_bt_mval *v)
{
	struct run_ctx *c = arg;

	if (!c->ms) {
		memset(v, 0, sizeof(*v));
		return -1;
	}
	return bt_maps_get(c->ms, map, key, v);
}

static void update_cb(void *arg, unsigned map, const uint8_t *key, int agg,
		      const struct utrace_bt_mval *v)
{
	struct run_ctx *c = arg;

	if (c->ms)
		bt_maps_update(c->ms, map, key, agg, v);
}

/* A record must be as long as it says, and fit its bound. */
static void emit_cb(void *arg, const void *rec, uint32_t len)
{
	struct utrace_bt_rec_hdr h;

	(void)arg;
	if (len < sizeof(h) || len > UTRACE_BT_REC_MAX)
		abort();
	memcpy(&h, rec, sizeof(h));
	if (h.len != len)
		abort();
}

/* A struct FIELD: the input's bytes made its value. */
static int64_t field_cb(void *arg, unsigned k, char *out)
{
	const struct run_ctx *c = arg;

	if (out && c->code && k < c->code->nfields && c->code->ftypes && c->code->ftypes[k] &&
	    c->code->ftypes[k] < BT_FTYPE_BUF)
		bt_record_text(c->code->p, c->code->ftypes[k], mem, mem_len, c->lv, out);
	return (int64_t)k;
}

static const char *long_text(void *arg, const char *slot)
{
	return bt_longval_text(((struct run_ctx *)arg)->lv, slot);
}

static void long_put(void *arg, const char *text, unsigned len, char *slot)
{
	bt_longval_put(((struct run_ctx *)arg)->lv, text, len, slot);
}

/* Runs prog (len bytes) once on a hit whose arguments point into mem. */
static void run(const void *prog, uint32_t len, struct run_ctx *c)
{
	static struct utrace_bt_state st;
	struct utrace_bt_hit hit = {.args = {0x1000, 0x1008, 7, -1, 0, 1}, .comm = "fuzz"};
	struct utrace_bt_ctx ctx = {.arg = c,
				    .load = load,
				    .map_get = get_cb,
				    .map_update = update_cb,
				    .emit = emit_cb,
				    .field = field_cb,
				    .long_text = long_text,
				    .long_put = long_put};

	if (utrace_bt_check(prog, len) < 0)
		return;
	memset(&st, 0, sizeof(st));
	(void)utrace_bt_exec(prog, &hit, &ctx, &st);
}

static void compile_all(struct bt_program *p, struct bt_longvals *lv)
{
	for (unsigned i = 0; i < p->nprobes; i++) {
		struct bt_formats fmts = {0};
		struct bt_code code = {0};
		struct utrace_error err = {0};
		struct run_ctx c = {.lv = lv, .code = &code};

		if (!p->probes[i].naps)
			continue;
		if (bt_compile(p, &p->probes[i], &p->probes[i].aps[0], "main", &fmts, &code, &err) <
		    0) {
			if (!err.msg[0])
				abort(); /* an error says what */
		} else {
			if (utrace_bt_check(code.prog, code.len) < 0)
				abort(); /* the compiler's bytecode is whole */
			if (bt_maps_new(code.prog, &c.ms) == 0) {
				run(code.prog, code.len, &c);
				for (unsigned m = 0; m < p->nmaps; m++)
					bt_maps_print(c.ms, m, "@m", 0, 0, UTRACE_BT_TEXT,
						      fuzz_sink());
				bt_maps_free(c.ms);
			}
		}
		for (unsigned k = 0; k < code.nfields; k++)
			free(code.fields[k]);
		free(code.fields);
		free(code.ftypes);
		free(code.prog);
		bt_formats_free(&fmts);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct utrace_error err = {0};
	struct bt_longvals *lv = NULL;
	struct bt_program p;
	char *src = fuzz_split(data, size, &mem, &mem_len);
	int ret;

	if (bt_longvals_new(&lv) < 0)
		abort();
	p = (struct bt_program){.src = src, .name = "stdin", .longvals = lv};
	ret = bt_parse(&p, &err);
	if (!ret)
		ret = bt_check(&p, &err);
	if (ret < 0 && !err.msg[0])
		abort(); /* an error says what */
	if (!ret)
		compile_all(&p, lv);
	bt_program_free(&p);
	if (mem_len) { /* the bytes as bytecode, as the runtime gets it */
		uint8_t *copy = malloc(mem_len);
		struct run_ctx c = {.lv = lv};

		if (!copy)
			abort();
		memcpy(copy, mem, mem_len);
		run(copy, (uint32_t)mem_len, &c);
		free(copy);
	}
	bt_longvals_free(lv);
	free(src);
	return 0;
}
