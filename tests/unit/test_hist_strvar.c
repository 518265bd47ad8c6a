/* SPDX-License-Identifier: MIT */
/*
 * test_hist_strvar.c - string variables and field variables of hist
 * triggers, from the kernel's syntax to what the synthetic event gets:
 * each trigger is parsed, compiled for an exec-like or exit-like format,
 * run with utrace_hist_run() (the interpreter the runtime runs), and the
 * other trigger's variables found as the recorder finds them (their
 * compiled program says which is a string: utrace_hist_var_is_str):
 *   exec: hist:keys=pid:fn=filename:ts0=common_timestamp  (fn a string)
 *   exit: ...:onmatch(sched.exec).s($lat,$fn): the string in s's char[]
 *   exec: hist:keys=pid:synthetic_prio=prio (the tracefs adds it)
 *   exit: ...:onmatch(sched.exec).p($lat,sched.exec.prio): reads it
 *   exec: hist:keys=pid:st=common_stacktrace            (st a stack)
 *   exit: ...s=$st:onmax($lat).trace(klat,$lat,$s): the frames in k's
 *         unsigned long[]
 * and the errors: $fn in arithmetic or for a number, a field that neither
 * event has, a string for a stack, a stack in arithmetic.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/hist_prog.h"
#include "lib/hist/hist.h"
#include "lib/hist/hist_compile.h"
#include "lib/hist/synth.h"
#include "tests/unit/check.h"

/* sched:exec: pid, prio, __data_loc char[] filename (its bytes after) */
struct exec_rec {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	int32_t xpid, prio;
	uint32_t filename; /* __data_loc: len << 16 | offset */
	char bytes[36];
};
static const struct utrace_event_field exec_fields[] = {
    UTRACE_EVENT_COMMON_FIELDS,
    {"int", "pid", "pid", 8, 4, true, false, UTRACE_EF_INT},
    {"int", "prio", "prio", 12, 4, true, false, UTRACE_EF_INT},
    {"__data_loc char[]", "filename", "filename", 16, 4, false, false, UTRACE_EF_STRING},
};
static const struct utrace_event_format exec_fmt = {
    .system = "sched", .name = "exec", .rec_size = 20, .nr_fields = 7, .fields = exec_fields,
};

/* sched:exit: pid */
struct exit_rec {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	int32_t xpid, pad;
};
static const struct utrace_event_field exit_fields[] = {
    UTRACE_EVENT_COMMON_FIELDS,
    {"int", "pid", "pid", 8, 4, true, false, UTRACE_EF_INT},
};
static const struct utrace_event_format exit_fmt = {
    .system = "sched", .name = "exit", .rec_size = 16, .nr_fields = 5, .fields = exit_fields,
};

struct table {
	struct utrace_hist_spec *spec;
	struct utrace_hist_hdr *prog;
	struct utrace_hist_map *map;
	uint64_t size;
};

/* the exec triggers, table ids 1 (fn, ts0), 2 (synthetic_prio), 3 (st) */
static struct table defs[4];
static struct utrace_synth *s_str, *s_num, *s_stack;
static uint64_t last[UTRACE_HIST_PARAM_WORDS];
static uint32_t last_n, nr_emitted;

static void emit(void *arg, uint32_t synth, const uint64_t *params, uint32_t n)
{
	(void)arg;
	(void)synth;
	memcpy(last, params, n * 8);
	last_n = n;
	nr_emitted++;
}

static struct utrace_hist_map *table_of(void *arg, uint32_t id)
{
	(void)arg;
	return id >= 1 && id <= 3 ? defs[id].map : NULL;
}

/* $name of an exec trigger, as the recorder's hist_var_info says it */
static int env_var(void *arg, const char *name, const char *msys, const char *mev,
		   struct utrace_hist_var_info *out)
{
	const char *bare = strrchr(name, '.') ? strrchr(name, '.') + 1 : name;

	(void)arg;
	(void)msys;
	(void)mev;
	for (uint32_t id = 1; id <= 3; id++) {
		const struct utrace_hist_spec *s = defs[id].spec;

		for (unsigned v = 0; s && v < s->nr_vars; v++) {
			if (strcmp(s->vars[v].name, bare))
				continue;
			*out = (struct utrace_hist_var_info){
			    .table = id,
			    .sum = utrace_hist_var_sum(s, v),
			    .bitmap = utrace_hist_var_bitmap(s),
			    .bit = 1ull << v,
			    .key_size = defs[id].prog->key_size,
			    .nr_keys = defs[id].prog->nr_keys,
			    .str = utrace_hist_var_is_str(defs[id].prog, utrace_hist_var_sum(s, v)),
			    .stack = utrace_hist_var_is_stack(defs[id].prog, utrace_hist_var_sum(s, v))};
			memcpy(out->slots, defs[id].prog->slots, sizeof(out->slots));
			return 0;
		}
	}
	return UTRACE_HIST_ERR_VAR_NOT_FOUND;
}

static int env_synth(void *arg, const char *name, struct utrace_hist_synth_info *out)
{
	(void)arg;
	if (!strcmp(name, "s") && s_str)
		utrace_synth_info(s_str, 7, out);
	else if (!strcmp(name, "p") && s_num)
		utrace_synth_info(s_num, 8, out);
	else if (!strcmp(name, "klat") && s_stack)
		utrace_synth_info(s_stack, 9, out);
	else
		return UTRACE_HIST_ERR_SYNTH_EVENT_NOT_FOUND;
	return 0;
}

static const struct utrace_hist_env env = {env_var, env_synth, NULL};

/* Parses and compiles text for fmt: 0, or the error code. */
static int make(struct table *t, const char *text, const struct utrace_event_format *fmt)
{
	struct utrace_error err = {0};
	uint32_t len;
	int code = 0;

	memset(t, 0, sizeof(*t));
	if (utrace_hist_parse(text, &t->spec, &code, &err) < 0) {
		printf("# %s: %s (column %d)\n", text, err.msg, err.column);
		return code ? code : -1;
	}
	if (utrace_hist_compile_env(t->spec, fmt, &env, (void **)&t->prog, &len, &code, &err) < 0) {
		printf("# %s: %s (column %d)\n", text, err.msg, err.column);
		return code ? code : -1;
	}
	t->size = utrace_hist_map_bytes(t->prog->map_bits, t->prog->key_size, t->prog->nr_sums);
	t->map = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	t->map->magic = UTRACE_HIST_MAP_MAGIC;
	t->map->bits = t->prog->map_bits;
	t->map->key_size = t->prog->key_size;
	t->map->nr_sums = t->prog->nr_sums;
	return 0;
}

static void drop(struct table *t)
{
	if (t->map)
		munmap(t->map, t->size);
	free(t->prog);
	utrace_hist_spec_free(t->spec);
	memset(t, 0, sizeof(*t));
}

/* the stack of every hit: two frames */
static uint32_t stack_of(void *arg, uint64_t *pcs, uint32_t max)
{
	(void)arg;
	if (max < 2)
		return 0;
	pcs[0] = 0x401234;
	pcs[1] = 0x405678;
	return 2;
}

static void run(struct table *t, const void *rec, uint32_t len, uint64_t ts)
{
	struct utrace_hist_ctx c = {.rec = rec, .rec_len = len, .ts_ns = ts, .table = table_of,
				    .emit = emit, .stack = stack_of};

	utrace_hist_run(t->prog, t->map, &c);
}

static void exec_hit(struct table *t, int pid, int prio, const char *file, uint64_t ts)
{
	struct exec_rec r = {.xpid = pid, .prio = prio};
	size_t n = strlen(file) + 1;

	memcpy(r.bytes, file, n);
	r.filename = (uint32_t)(n << 16 | offsetof(struct exec_rec, bytes));
	run(t, &r, (uint32_t)(offsetof(struct exec_rec, bytes) + n), ts);
}

static void exit_hit(struct table *t, int pid, uint64_t ts)
{
	struct exit_rec r = {.xpid = pid};

	run(t, &r, sizeof(r), ts);
}

static void test_string_var(void)
{
	struct table end;
	const char *got;
	int ret = make(&defs[1], "hist:keys=pid:fn=filename:ts0=common_timestamp", &exec_fmt);

	check(!ret, "a string field as a variable compiles (%d)", ret);
	if (ret)
		return;
	check(utrace_hist_var_is_str(defs[1].prog, utrace_hist_var_sum(defs[1].spec, 0)) &&
		  !utrace_hist_var_is_str(defs[1].prog, utrace_hist_var_sum(defs[1].spec, 1)),
	      "its program says fn is a string, ts0 not");
	ret = make(&end, "hist:keys=pid:lat=common_timestamp-$ts0:onmatch(sched.exec).s($lat,$fn)",
		   &exit_fmt);
	check(!ret, "onmatch() hands $fn to a char[] field (%d)", ret);
	if (ret)
		return;
	exec_hit(&defs[1], 7, 120, "/bin/true", 100);
	exec_hit(&defs[1], 8, 120, "/usr/bin/env", 100);
	nr_emitted = 0;
	exit_hit(&end, 7, 150);
	got = last_n >= 2 && (last[1] & 0xffff) >= 8 ? (const char *)last + (last[1] & 0xffff) - 8
						      : "";
	check(nr_emitted == 1 && last[0] == 50 && !strcmp(got, "/bin/true"),
	      "the synthetic event gets lat 50 and the string of pid 7 (%u %llu '%s')", nr_emitted,
	      (unsigned long long)last[0], got);
	check((last[1] >> 16) == strlen("/bin/true") + 1, "its __data_loc says the length with the NUL");
	drop(&end);
	check(make(&end, "hist:keys=pid:x=$fn+1", &exit_fmt) ==
		  UTRACE_HIST_ERR_INVALID_STR_OPERAND,
	      "$fn in arithmetic: String type can not be an operand");
	drop(&end);
	check(make(&end, "hist:keys=pid:lat=common_timestamp-$ts0:onmatch(sched.exec).p($lat,$fn)",
		   &exit_fmt) == UTRACE_HIST_ERR_INVALID_STR_OPERAND,
	      "$fn for a number field: String type can not be an operand");
	drop(&end);
}

static void test_field_var(void)
{
	struct table end;
	int ret = make(&defs[2], "hist:keys=pid:synthetic_prio=prio", &exec_fmt);

	check(!ret, "the field variable's trigger compiles (%d)", ret);
	ret = make(&end, "hist:keys=pid:lat=common_timestamp-$ts0:"
			 "onmatch(sched.exec).p($lat,sched.exec.prio)",
		   &exit_fmt);
	check(!ret, "onmatch() takes sched.exec.prio, a field of the other event (%d)", ret);
	if (ret)
		return;
	exec_hit(&defs[1], 9, 139, "/bin/sh", 200);
	exec_hit(&defs[2], 9, 139, "/bin/sh", 200);
	nr_emitted = 0;
	exit_hit(&end, 9, 230);
	check(nr_emitted == 1 && last[0] == 30 && last[1] == 139,
	      "the synthetic event gets the prio of sched.exec (%u %llu %llu)", nr_emitted,
	      (unsigned long long)last[0], (unsigned long long)last[1]);
	drop(&end);
	check(make(&end, "hist:keys=pid:lat=common_timestamp-$ts0:"
			 "onmatch(sched.exec).p($lat,prio)",
		   &exit_fmt) == 0,
	      "prio alone is a field of the onmatch() event too");
	drop(&end);
	check(make(&end, "hist:keys=pid:lat=common_timestamp-$ts0:"
			 "onmatch(sched.exec).p($lat,sched.exec.nosuch)",
		   &exit_fmt) == UTRACE_HIST_ERR_PARAM_NOT_FOUND,
	      "a field neither event has: Couldn't find param");
	drop(&end);
}

static void test_stack_var(void)
{
	struct table end;
	const uint64_t *frames;
	int ret = make(&defs[3], "hist:keys=pid:st=common_stacktrace", &exec_fmt);

	check(!ret, "a stack as a variable compiles (%d)", ret);
	if (ret)
		return;
	check(utrace_hist_var_is_stack(defs[3].prog, utrace_hist_var_sum(defs[3].spec, 0)),
	      "its program says st is a stack");
	ret = make(&end, "hist:keys=pid:lat=common_timestamp-$ts0,s=$st:onmax($lat).trace(klat,$lat,$s)",
		   &exit_fmt);
	check(!ret, "a copy of it (s=$st) handed to an unsigned long[] field (%d)", ret);
	if (ret)
		return;
	exec_hit(&defs[1], 11, 120, "/bin/ls", 300);
	exec_hit(&defs[3], 11, 120, "/bin/ls", 300);
	nr_emitted = 0;
	exit_hit(&end, 11, 340);
	frames = last_n >= 2 && (last[1] & 0xffff) >= 8 ? last + ((last[1] & 0xffff) - 8) / 8 : NULL;
	check(nr_emitted == 1 && last[0] == 40 && (last[1] >> 16) == 16 && frames &&
		  frames[0] == 0x401234 && frames[1] == 0x405678,
	      "the synthetic event gets the two frames of the exec hit (%u, %llu bytes)", nr_emitted,
	      (unsigned long long)(last[1] >> 16));
	drop(&end);
	check(make(&end, "hist:keys=pid:lat=common_timestamp-$ts0:onmatch(sched.exec).klat($lat,$fn)",
		   &exit_fmt) == UTRACE_HIST_ERR_SYNTH_TYPE_MISMATCH,
	      "a string for the unsigned long[] field: a type mismatch");
	drop(&end);
	check(make(&end, "hist:keys=pid:x=$st*2", &exit_fmt) == UTRACE_HIST_ERR_INVALID_STR_OPERAND,
	      "a stack in arithmetic is refused");
	drop(&end);
}

int main(void)
{
	int code;
	struct utrace_error err = {0};

	check(!utrace_synth_parse("s u64 lat; char fn[]", 7, &s_str, &code, &err) &&
		  !utrace_synth_parse("p u64 lat; int prio", 8, &s_num, &code, &err),
	      "the synthetic events parse");
	check(!utrace_synth_parse("klat u64 lat; unsigned long[] stack", 9, &s_stack, &code, &err),
	      "a synthetic event with a stack parses");
	test_string_var();
	test_field_var();
	test_stack_var();
	for (int i = 1; i <= 3; i++)
		drop(&defs[i]);
	utrace_synth_free(s_str);
	utrace_synth_free(s_num);
	utrace_synth_free(s_stack);
	return check_done();
}
