/* SPDX-License-Identifier: MIT */
/*
 * test_hist_vars.c - the variable and action instructions of
 * common/hist_prog.h on hand-assembled programs: VAR sets a variable and
 * its bit, RESOLVE finds another table's variable of the same key, reads
 * it once and skips the hit when it is not set, REF, VGET, PARAM and EMIT
 * hand the params to the context's callback, and malformed programs do
 * nothing.  Hand-assembled so that this depends on the interpreter only.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/hist_prog.h"
#include "lib/hist/hist_compile.h"
#include "tests/unit/check.h"

struct rec {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	int32_t id, pad;
};

struct prog {
	struct utrace_hist_hdr h;
	struct utrace_hist_insn in[16];
};

struct table {
	struct prog p;
	struct utrace_hist_map *map;
	uint64_t size;
};

static void insn(struct prog *p, uint8_t op, uint32_t off, uint32_t key_off, uint32_t reserved,
		 uint16_t len, uint64_t imm)
{
	struct utrace_hist_insn *x = &p->in[p->h.nr_insns++];

	*x = (struct utrace_hist_insn){.op = op, .off = off, .key_off = key_off,
				       .reserved = reserved, .len = len, .imm = imm};
	if (op == UTRACE_HOP_LOAD)
		x->size = 4, x->imm = 1;
}

/* keys=id: the key part of every program here. */
static void prog_init(struct table *t, uint32_t nr_sums)
{
	memset(t, 0, sizeof(*t));
	t->p.h.magic = UTRACE_HIST_MAGIC;
	t->p.h.version = UTRACE_HIST_VERSION;
	t->p.h.key_size = 8;
	t->p.h.nr_sums = nr_sums;
	t->p.h.nr_keys = 1;
	t->p.h.map_bits = 7;
	t->p.h.slots[0] = (struct utrace_hist_slot){UTRACE_HSLOT_NUM, 0, 8, 1};
	insn(&t->p, UTRACE_HOP_LOAD, 8, 0, 0, 0, 0);
	insn(&t->p, UTRACE_HOP_KEY, 0, 0, 0, 0, 0);
	t->p.h.nr_key_insns = 2;
}

static const struct utrace_hist_hdr *prog_done(struct table *t)
{
	uint32_t n = t->p.h.nr_insns;

	t->p.h.size = (uint32_t)(sizeof(t->p.h) + n * sizeof(t->p.in[0]));
	t->size = utrace_hist_map_bytes(t->p.h.map_bits, t->p.h.key_size, t->p.h.nr_sums);
	t->map = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	t->map->magic = UTRACE_HIST_MAP_MAGIC;
	t->map->bits = t->p.h.map_bits;
	t->map->key_size = t->p.h.key_size;
	t->map->nr_sums = t->p.h.nr_sums;
	return utrace_hist_hdr_ok(&t->p, t->p.h.size);
}

/* The sums of key id, NULL if the table has no such entry. */
static uint64_t *sums_of(struct table *t, int64_t id)
{
	uint64_t key = (uint64_t)id;
	uint8_t *e = utrace_hist_map_find(t->map, (const uint8_t *)&key);

	return e ? (uint64_t *)(e + t->map->key_size) : NULL;
}

static struct table begin, end;
static uint64_t emitted[8][4]; /* synth, n, params[0], params[1] */
static unsigned nr_emitted;

static struct utrace_hist_map *table_of(void *arg, uint32_t id)
{
	(void)arg;
	return id == 3 ? begin.map : NULL;
}

static void emit(void *arg, uint32_t synth, const uint64_t *params, uint32_t n)
{
	(void)arg;
	if (nr_emitted < 8) {
		emitted[nr_emitted][0] = synth;
		emitted[nr_emitted][1] = n;
		emitted[nr_emitted][2] = n > 0 ? params[0] : 0;
		emitted[nr_emitted][3] = n > 1 ? params[1] : 0;
	}
	nr_emitted++;
}

static void hit(struct table *t, int id, uint64_t ts)
{
	struct rec r = {.id = id};
	struct utrace_hist_ctx c = {.rec = (const uint8_t *)&r, .rec_len = sizeof(r),
				    .ts_ns = ts, .table = table_of, .emit = emit};

	utrace_hist_run(&t->p.h, t->map, &c);
}

/* begin: hist:keys=id:ts0=common_timestamp (sums: hitcount, ts0, bitmap)
 * end:   hist:keys=id:lat=common_timestamp-$ts0:onmatch(...).synth(lat, id)
 *        (sums: hitcount, lat, bitmap) */
static void build(void)
{
	prog_init(&begin, 3);
	insn(&begin.p, UTRACE_HOP_TS, 0, 0, 0, 0, 0);
	insn(&begin.p, UTRACE_HOP_VAR, 0, 1, 2, 0, 1);
	check(prog_done(&begin) != NULL, "a program that sets a variable passes the check");

	prog_init(&end, 3);
	insn(&end.p, UTRACE_HOP_RESOLVE, 3, 1, 2, 0, 1);
	end.p.h.nr_resolve_insns = 1;
	insn(&end.p, UTRACE_HOP_TS, 0, 0, 0, 0, 0);
	insn(&end.p, UTRACE_HOP_REF, 0, 0, 0, 0, 0);
	insn(&end.p, UTRACE_HOP_SUB, 0, 0, 0, 0, 0);
	insn(&end.p, UTRACE_HOP_VAR, 0, 1, 2, 0, 1);
	insn(&end.p, UTRACE_HOP_VGET, 0, 1, 0, 0, 0);
	insn(&end.p, UTRACE_HOP_PARAM, 0, 0, 0, 0, 0);
	insn(&end.p, UTRACE_HOP_LOAD, 8, 0, 0, 0, 0);
	insn(&end.p, UTRACE_HOP_PARAM, 0, 0, 0, 1, 0);
	insn(&end.p, UTRACE_HOP_EMIT, 42, 0, 0, 2, 0);
	end.p.h.nr_action_insns = 5;
	check(prog_done(&end) != NULL, "a program that resolves and emits passes the check");
}

static void test_var_resolve_emit(void)
{
	uint64_t *s;

	build();
	hit(&begin, 5, 1000);
	s = sums_of(&begin, 5);
	check(s && s[0] == 1 && s[1] == 1000 && s[2] == 1, "VAR stores ts0 and sets its bit");

	hit(&end, 9, 1500);
	check(!sums_of(&end, 9) && nr_emitted == 0,
	      "a key the other table never saw: the hit is skipped, nothing emitted");

	hit(&end, 5, 1250);
	s = sums_of(&end, 5);
	check(s && s[0] == 1 && s[1] == 250 && s[2] == 1, "lat = ts - $ts0 (%llu)",
	      s ? (unsigned long long)s[1] : 0ull);
	check(nr_emitted == 1 && emitted[0][0] == 42 && emitted[0][1] == 2 &&
		  emitted[0][2] == 250 && emitted[0][3] == 5,
	      "EMIT hands synth 42 the params (lat 250, id 5)");
	s = sums_of(&begin, 5);
	check(s && s[2] == 0 && s[1] == 1000, "RESOLVE read ts0 once: its bit is clear");

	hit(&end, 5, 1300);
	s = sums_of(&end, 5);
	check(s && s[0] == 1 && nr_emitted == 1, "read once: a second end without a begin is "
						 "skipped whole");

	hit(&begin, 5, 2000);
	hit(&begin, 5, 2100); /* the newest begin counts */
	hit(&end, 5, 2600);
	s = sums_of(&end, 5);
	check(s && s[0] == 2 && s[1] == 500 && nr_emitted == 2 && emitted[1][2] == 500,
	      "a new begin: matched again with its newest ts0");
}

static void test_malformed(void)
{
	struct table t;
	uint64_t *s;

	prog_init(&t, 3);
	insn(&t.p, UTRACE_HOP_TS, 0, 0, 0, 0, 0);
	insn(&t.p, UTRACE_HOP_VAR, 0, 1, 3, 0, 1); /* bitmap past the sums */
	check(prog_done(&t) != NULL, "header fine");
	hit(&t, 1, 10);
	s = sums_of(&t, 1);
	check(s && s[1] == 0 && s[2] == 0, "VAR with its bitmap out of the sums writes nothing");
	munmap(t.map, t.size);

	prog_init(&t, 2);
	insn(&t.p, UTRACE_HOP_REF, 0, 0, 0, UTRACE_HIST_REFS_MAX, 0);
	insn(&t.p, UTRACE_HOP_SUM, 0, 1, 0, 0, 0);
	prog_done(&t);
	hit(&t, 1, 10);
	s = sums_of(&t, 1);
	check(s && s[1] == 0, "REF past refs[] adds nothing");
	munmap(t.map, t.size);

	prog_init(&t, 3);
	insn(&t.p, UTRACE_HOP_RESOLVE, 4, 1, 2, 0, 1); /* a table nobody knows */
	t.p.h.nr_resolve_insns = 1;
	prog_done(&t);
	hit(&t, 5, 10);
	check(!sums_of(&t, 5), "RESOLVE of an unknown table skips the hit");
	t.p.h.nr_action_insns = 1;
	check(!utrace_hist_hdr_ok(&t.p, t.p.h.size), "parts longer than the program: refused");
	munmap(t.map, t.size);

	prog_init(&t, 2);
	insn(&t.p, UTRACE_HOP_RESOLVE, 3, 1, 2, 0, 1); /* the bitmap is past begin's sums */
	t.p.h.nr_resolve_insns = 1;
	prog_done(&t);
	hit(&begin, 5, 5);
	begin.map->nr_sums = 2;
	hit(&t, 5, 10);
	begin.map->nr_sums = 3;
	check(!sums_of(&t, 5), "RESOLVE past the other table's sums skips the hit");
	munmap(t.map, t.size);
}

/* ---- compiled from the kernel's syntax -------------------------------- */

static const struct utrace_event_field fields[] = {
    UTRACE_EVENT_COMMON_FIELDS,
    {"int", "id", "id", 8, 4, true, false, UTRACE_EF_INT},
};
static const struct utrace_event_format fmt = {
    .system = "app", .name = "ev", .rec_size = 16, .nr_fields = 5, .fields = fields,
    .print_fmt = "\"id=%d\", REC->id",
};

static unsigned synth_fields = 2;
static const struct utrace_hist_hdr *var_owner; /* the program that defines ts0 */

static int env_var(void *arg, const char *name, const char *msys, const char *mev,
		   struct utrace_hist_var_info *out)
{
	(void)arg;
	if (strcmp(name, "ts0") && strcmp(name, "app.begin.ts0"))
		return UTRACE_HIST_ERR_VAR_NOT_FOUND;
	if (msys && (strcmp(msys, "app") || strcmp(mev, "begin")))
		return UTRACE_HIST_ERR_VAR_NOT_FOUND;
	*out = (struct utrace_hist_var_info){.table = 3, .sum = 1, .bitmap = 2, .bit = 1,
					     .key_size = var_owner->key_size,
					     .nr_keys = var_owner->nr_keys};
	memcpy(out->slots, var_owner->slots, sizeof(out->slots));
	return 0;
}

static int env_synth(void *arg, const char *name, struct utrace_hist_synth_info *out)
{
	(void)arg;
	if (strcmp(name, "req_lat"))
		return UTRACE_HIST_ERR_SYNTH_EVENT_NOT_FOUND;
	*out = (struct utrace_hist_synth_info){.id = 42, .nr_fields = synth_fields};
	return 0;
}

static const struct utrace_hist_env env = {env_var, env_synth, NULL};

/* Compiles text into t (a fresh table); the error code, 0 if it compiled. */
static int compile_into(struct table *t, const char *text, const struct utrace_hist_env *e,
			struct utrace_error *err)
{
	struct utrace_hist_spec *s;
	void *prog;
	uint32_t len;
	int code = 0;

	if (utrace_hist_parse(text, &s, &code, err) < 0) {
		check(0, "parse %s: %s", text, err->msg);
		return -1;
	}
	if (utrace_hist_compile_env(s, &fmt, e, &prog, &len, &code, err) < 0) {
		utrace_hist_spec_free(s);
		return code;
	}
	utrace_hist_spec_free(s);
	memset(t, 0, sizeof(*t));
	check(len <= sizeof(t->p) && utrace_hist_hdr_ok(prog, len), "%s: compiled and checked",
	      text);
	memcpy(&t->p, prog, len);
	free(prog);
	t->size = utrace_hist_map_bytes(t->p.h.map_bits, t->p.h.key_size, t->p.h.nr_sums);
	t->map = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	t->map->magic = UTRACE_HIST_MAP_MAGIC;
	t->map->bits = t->p.h.map_bits;
	t->map->key_size = t->p.h.key_size;
	t->map->nr_sums = t->p.h.nr_sums;
	return 0;
}

static void test_compiled(void)
{
	struct utrace_error err = {0};
	uint64_t *sb, *se;

	munmap(begin.map, begin.size);
	munmap(end.map, end.size);
	nr_emitted = 0;
	check(!compile_into(&begin, "hist:keys=id:ts0=common_timestamp.usecs", NULL, &err),
	      "a trigger with a variable compiles");
	check(begin.p.h.nr_sums == 3, "its sums: hitcount, ts0, the bitmap (%u)", begin.p.h.nr_sums);
	var_owner = &begin.p.h;
	check(!compile_into(&end,
			    "hist:keys=id:lat=common_timestamp.usecs-$ts0:"
			    "onmatch(app.begin).req_lat($lat,id)",
			    &env, &err),
	      "the canonical end trigger compiles: %s", err.msg);
	check(end.p.h.nr_resolve_insns == 1 && end.p.h.nr_action_insns == 5,
	      "one RESOLVE, an action of two params (%u, %u)", end.p.h.nr_resolve_insns,
	      end.p.h.nr_action_insns);
	hit(&begin, 7, 3000000);
	hit(&end, 7, 5500000);
	hit(&end, 8, 5600000);
	sb = sums_of(&begin, 7);
	se = sums_of(&end, 7);
	check(sb && se && sb[1] == 3000 && se[1] == 2500 && !sums_of(&end, 8),
	      "ts0 in us, lat = 2500 us, the unmatched end is skipped");
	check(nr_emitted == 1 && emitted[0][0] == 42 && emitted[0][2] == 2500 && emitted[0][3] == 7,
	      "req_lat(lat 2500, id 7) emitted once");
	munmap(end.map, end.size);
	check(!compile_into(&end, "hist:keys=id:onmatch(app.begin).trace(req_lat,$ts0,id)", &env,
			    &err),
	      "trace(synth,...) with a param that is another trigger's variable");
	hit(&begin, 9, 9000000);
	hit(&end, 9, 9500000);
	check(nr_emitted == 2 && emitted[1][2] == 9000 && emitted[1][3] == 9,
	      "it emits ts0 (in us), id");
	munmap(end.map, end.size);
	check(!compile_into(&end, "hist:keys=id:onmatch(app.begin).req_lat(app.begin.$ts0,id)",
			    &env, &err),
	      "a param SYS.EVENT.$var names that event's variable: %s", err.msg);
	hit(&begin, 4, 4000000);
	hit(&end, 4, 4500000);
	check(end.p.h.nr_resolve_insns == 1 && nr_emitted == 3 && emitted[2][2] == 4000 &&
		  emitted[2][3] == 4,
	      "it resolves and emits ts0 (in us), id");
	munmap(end.map, end.size);
	check(!compile_into(&end, "hist:keys=id,common_pid:onmatch(app.begin).req_lat($ts0,id)",
			    &env, &err),
	      "keys that start with the variable's table's keys (id of id,common_pid): %s",
	      err.msg);
	check(end.p.h.key_size > begin.p.h.key_size, "its key is the longer (%u > %u)",
	      end.p.h.key_size, begin.p.h.key_size);
	hit(&begin, 6, 6000000);
	hit(&end, 6, 6500000);
	check(nr_emitted == 4 && emitted[3][2] == 6000 && emitted[3][3] == 6,
	      "the other table is looked up with the key's first bytes: ts0 6000 us, id 6");
	munmap(end.map, end.size);
}

static void test_compile_errors(void)
{
	static const struct {
		const char *text;
		bool env;
		int code;
		int column;
	} bad[] = {
	    {"hist:keys=id:lat=common_timestamp-$ts0", false, UTRACE_HIST_ERR_VAR_NOT_FOUND, 36},
	    {"hist:keys=id:lat=common_timestamp-$nope", true, UTRACE_HIST_ERR_VAR_NOT_FOUND, 36},
	    {"hist:keys=id:onmatch(app.begin).req_lat($ts0)", true,
	     UTRACE_HIST_ERR_SYNTH_COUNT_MISMATCH, 14},
	    {"hist:keys=id:onmatch(app.begin).nosuch($ts0,id)", true,
	     UTRACE_HIST_ERR_SYNTH_EVENT_NOT_FOUND, 14},
	    {"hist:keys=id:onmatch(app.other).req_lat($ts0,id)", true,
	     UTRACE_HIST_ERR_VAR_NOT_FOUND, 14},
	    {"hist:keys=common_comm,id:onmatch(app.begin).req_lat($ts0,id)", true,
	     UTRACE_HIST_ERR_HIST_NOT_FOUND, 26},
	    {"hist:keys=id:onmatch(app.begin).req_lat($ts0,nofield)", true,
	     UTRACE_HIST_ERR_PARAM_NOT_FOUND, 14},
	    {"hist:keys=id:m=id:onmax($m).save(nosuch)", true, UTRACE_HIST_ERR_FIELD_NOT_FOUND, 34},
	    {"hist:keys=id:onmatch(app.begin).req_lat(app.begin.$nope,id)", true,
	     UTRACE_HIST_ERR_VAR_NOT_FOUND, 14},
	};
	struct table t;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct utrace_error err = {0};
		int code = compile_into(&t, bad[i].text, bad[i].env ? &env : NULL, &err);

		check(code == bad[i].code && err.column == bad[i].column,
		      "'%s': %s (code %d col %d)", bad[i].text, err.msg, code, err.column);
	}
}

int main(void)
{
	test_var_resolve_emit();
	test_malformed();
	test_compiled();
	test_compile_errors();
	munmap(begin.map, begin.size);
	munmap(end.map, end.size);
	return check_done();
}
