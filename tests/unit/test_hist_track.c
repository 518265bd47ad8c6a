/* SPDX-License-Identifier: MIT */
/*
 * test_hist_track.c - the onmax($v) and onchange($v) handlers with their
 * save(), trace() and snapshot() actions, from the kernel's syntax to the
 * hist file: each trigger is parsed, compiled for a sched_switch-like
 * format, run on records with utrace_hist_run() (the interpreter the
 * runtime and the recorder run), and its table printed as the kernel's
 * hist file; plus the handlers' errors, with their columns.
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

/* next_pid, prio, next_comm, lat: as a user event's record */
struct rec {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	int32_t next_pid, prio;
	char next_comm[16];
	uint64_t lat;
};

static const struct utrace_event_field fields[] = {
    UTRACE_EVENT_COMMON_FIELDS,
    {"int", "next_pid", "next_pid", 8, 4, true, false, UTRACE_EF_INT},
    {"int", "prio", "prio", 12, 4, true, false, UTRACE_EF_INT},
    {"char", "next_comm[16]", "next_comm", 16, 16, true, false, UTRACE_EF_CHARS},
    {"u64", "lat", "lat", 32, 8, false, false, UTRACE_EF_INT},
};
static const struct utrace_event_format fmt = {
    .system = "sched", .name = "sched_switch", .rec_size = 40, .nr_fields = 8, .fields = fields,
};

struct table {
	struct utrace_hist_spec *spec;
	struct utrace_hist_hdr *prog;
	struct utrace_hist_map *map;
	uint64_t size;
};

static uint64_t emitted[8][3]; /* synth, n, params[0] */
static unsigned nr_emitted, nr_snapshots;
static uint64_t last_rec[UTRACE_HIST_PARAM_WORDS]; /* the last EMIT's words */
static struct utrace_synth *wakeup_new_test;

static void emit(void *arg, uint32_t synth, const uint64_t *params, uint32_t n)
{
	(void)arg;
	memcpy(last_rec, params, n * 8);
	if (nr_emitted < 8) {
		emitted[nr_emitted][0] = synth;
		emitted[nr_emitted][1] = n;
		emitted[nr_emitted][2] = n ? params[0] : 0;
	}
	nr_emitted++;
}

static void snapshot(void *arg)
{
	(void)arg;
	nr_snapshots++;
}

static int env_synth(void *arg, const char *name, struct utrace_hist_synth_info *out)
{
	(void)arg;
	if (wakeup_new_test && !strcmp(name, "wakeup_new_test")) {
		utrace_synth_info(wakeup_new_test, 6, out);
		return 0;
	}
	if (strcmp(name, "maxlat"))
		return UTRACE_HIST_ERR_SYNTH_EVENT_NOT_FOUND;
	*out = (struct utrace_hist_synth_info){.id = 5, .nr_fields = 2};
	return 0;
}

static const struct utrace_hist_env env = {NULL, env_synth, NULL};

/* Parses and compiles text: 0, or the error code with err filled. */
static int make(struct table *t, const char *text, struct utrace_error *err)
{
	uint32_t len;
	int code = 0;

	memset(t, 0, sizeof(*t));
	if (utrace_hist_parse(text, &t->spec, &code, err) < 0)
		return code ? code : -1;
	if (utrace_hist_compile_env(t->spec, &fmt, &env, (void **)&t->prog, &len, &code, err) < 0)
		return code ? code : -1;
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
}

static void hit(struct table *t, int next_pid, int prio, const char *comm, uint64_t lat,
		bool snapshots)
{
	struct rec r = {.pid = 1, .next_pid = next_pid, .prio = prio, .lat = lat};
	struct utrace_hist_ctx c = {.rec = (const uint8_t *)&r, .rec_len = sizeof(r),
				    .comm = "worker", .emit = emit,
				    .snapshot = snapshots ? snapshot : NULL};

	strncpy(r.next_comm, comm, sizeof(r.next_comm) - 1);
	utrace_hist_run(t->prog, t->map, &c);
}

/* The hist file of t, its entries read in slot order as the recorder
 * reads them. */
static char *render(struct table *t)
{
	uint64_t esize = utrace_hist_elt_size(t->map->key_size, t->map->nr_sums);
	uint8_t *elts = calloc(1u << t->map->bits, esize);
	struct utrace_hist_table tab = {.prog = t->prog, .drops = t->map->drops, .elts = elts,
					.snap_seq = t->map->snap_seq, .snap_val = t->map->snap_val};
	struct utrace_error err = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	for (uint32_t i = 0; i < 2u << t->map->bits; i++) {
		uint64_t w = utrace_hist_slots(t->map)[i].word;

		if (!w)
			continue;
		memcpy(elts + tab.nr_elts * esize, utrace_hist_elt(t->map, utrace_hist_slot_elt(w)),
		       esize);
		tab.hits += *(uint64_t *)(elts + tab.nr_elts++ * esize + t->map->key_size);
	}
	if (utrace_hist_print(out, t->spec, &tab, NULL, &err) < 0)
		check(0, "print: %s", err.msg);
	fclose(out);
	free(elts);
	return buf;
}

static void expect(const char *what, char *got, const char *want)
{
	check(!strcmp(got, want), "%s", what);
	if (strcmp(got, want))
		printf("# got:\n%s# want:\n%s", got, want);
	free(got);
}

/* The kernel doc's onmax().save() on wakeup latencies, here lat given. */
static void test_onmax_save(void)
{
	struct utrace_error err = {0};
	struct table t;
	int ret = make(&t,
		       "hist:keys=next_pid:wakeup_lat=lat:"
		       "onmax($wakeup_lat).save(next_comm,prio)",
		       &err);

	check(!ret, "onmax().save() compiles: %s", err.msg);
	if (ret)
		return;
	hit(&t, 7, 120, "cyclictest", 50, false);
	hit(&t, 7, 99, "other", 40, false);  /* not a new max: nothing saved */
	hit(&t, 7, 98, "cyclic2", 123, false); /* new max */
	hit(&t, 8, 100, "b", 0, false);		  /* 0 is not above 0 */
	expect("onmax().save(): max and the fields of the event that set it", render(&t),
	       "# event histogram\n#\n"
	       "# trigger info: hist:keys=next_pid:vals=hitcount:wakeup_lat=lat:sort=hitcount:"
	       "size=2048:onmax($wakeup_lat).save(next_comm,prio) [active]\n#\n\n"
	       "{ next_pid:          8 } hitcount:          1\n"
	       "\tmax:          0  next_comm:                                   prio:          0\n"
	       "{ next_pid:          7 } hitcount:          3\n"
	       "\tmax:        123  next_comm: cyclic2                           prio:         98\n"
	       "\nTotals:\n    Hits: 4\n    Entries: 2\n    Dropped: 0\n");
	drop(&t);
}

static void test_onchange_save(void)
{
	struct utrace_error err = {0};
	struct table t;
	int ret = make(&t, "hist:keys=next_pid:p=prio:onchange($p).save(next_comm,lat)", &err);

	check(!ret, "onchange().save() compiles: %s", err.msg);
	if (ret)
		return;
	hit(&t, 3, 120, "a", 1, false);
	hit(&t, 3, 120, "b", 2, false); /* the same: nothing saved */
	hit(&t, 3, 110, "c", 3, false);
	hit(&t, 3, 120, "d", 4, false);
	hit(&t, 3, 120, "e", 5, false);
	expect("onchange().save(): the last change's fields", render(&t),
	       "# event histogram\n#\n"
	       "# trigger info: hist:keys=next_pid:vals=hitcount:p=prio:sort=hitcount:size=2048:"
	       "onchange($p).save(next_comm,lat) [active]\n#\n\n"
	       "{ next_pid:          3 } hitcount:          5\n"
	       "\tchanged:        120  next_comm: d                                 lat:          4\n"
	       "\nTotals:\n    Hits: 5\n    Entries: 1\n    Dropped: 0\n");
	drop(&t);
}

static void test_onmax_trace(void)
{
	struct utrace_error err = {0};
	struct table t;
	int ret = make(&t, "hist:keys=next_pid:l=lat:onmax($l).trace(maxlat,$l,next_pid)", &err);

	check(!ret, "onmax().trace() compiles: %s", err.msg);
	if (ret)
		return;
	nr_emitted = 0;
	hit(&t, 1, 0, "x", 10, false);
	hit(&t, 1, 0, "x", 5, false);
	hit(&t, 1, 0, "x", 30, false);
	hit(&t, 2, 0, "x", 7, false);
	check(nr_emitted == 3 && emitted[0][2] == 10 && emitted[1][2] == 30 &&
		  emitted[2][2] == 7 && emitted[1][0] == 5 && emitted[1][1] == 2,
	      "each new max of its key emits maxlat($l, next_pid) (%u emitted)", nr_emitted);
	expect("onmax().trace(): max and no saved fields", render(&t),
	       "# event histogram\n#\n"
	       "# trigger info: hist:keys=next_pid:vals=hitcount:l=lat:sort=hitcount:size=2048:"
	       "onmax($l).trace(maxlat,$l,next_pid) [active]\n#\n\n"
	       "{ next_pid:          2 } hitcount:          1\n"
	       "\tmax:          7\n"
	       "{ next_pid:          1 } hitcount:          3\n"
	       "\tmax:         30\n"
	       "\nTotals:\n    Hits: 4\n    Entries: 2\n    Dropped: 0\n");
	drop(&t);
}

static void test_snapshot(void)
{
	struct utrace_error err = {0};
	struct table t;
	int ret = make(&t, "hist:keys=next_pid:l=lat:onmax($l).snapshot()", &err);

	check(!ret, "onmax().snapshot() compiles: %s", err.msg);
	if (ret)
		return;
	nr_snapshots = 0;
	hit(&t, 1, 0, "x", 10, false);
	check(nr_snapshots == 0 && !t.map->snap_seq, "no snapshot callback: nothing taken");
	hit(&t, 1, 0, "x", 20, true);
	hit(&t, 2, 0, "x", 15, true); /* a new max of key 2, not of the table */
	hit(&t, 2, 0, "x", 25, true);
	hit(&t, 1, 0, "x", 22, true); /* key 1's new max, below the table's */
	check(nr_snapshots == 2 && t.map->snap_seq == 2 && t.map->snap_val == 25,
	      "a snapshot at each new max of the whole table (%u)", nr_snapshots);
	expect("a snapshot() action's entries print no max, then the snapshot's details",
	       render(&t),
	       "# event histogram\n#\n"
	       "# trigger info: hist:keys=next_pid:vals=hitcount:l=lat:sort=hitcount:size=2048:"
	       "onmax($l).snapshot() [active]\n#\n\n"
	       "{ next_pid:          2 } hitcount:          2\n"
	       "{ next_pid:          1 } hitcount:          3\n"
	       "\nSnapshot taken (see tracing/snapshot).  Details:\n"
	       "\ttriggering value { onmax($l) }:         25\t"
	       "triggered by event with key: { next_pid:          2 }\n"
	       "\nTotals:\n    Hits: 5\n    Entries: 2\n    Dropped: 0\n");
	drop(&t);
	ret = make(&t, "hist:keys=next_pid:p=prio:onchange($p).snapshot()", &err);
	check(!ret, "onchange().snapshot() compiles: %s", err.msg);
	if (ret)
		return;
	nr_snapshots = 0;
	hit(&t, 1, 5, "x", 0, true);
	hit(&t, 2, 5, "x", 0, true); /* key 2 changed, to the last snapshot's value */
	hit(&t, 2, 6, "x", 0, true);
	check(nr_snapshots == 2 && t.map->snap_val == 6, "onchange: a snapshot per new value (%u)",
	      nr_snapshots);
	drop(&t);
}

/* The kernel doc's `wakeup_new_test pid_t pid; char comm[16]`, and a
 * char[]: strings copied into the synthetic record in the kernel's
 * layout (a char[16] in 256 bytes, a char[] as a __data_loc after). */
static void test_string_params(void)
{
	struct utrace_error err = {0};
	struct table t;
	int code, ret;
	const char *p;

	ret = utrace_synth_parse("wakeup_new_test pid_t pid; char comm[16]; char[] word", 6,
				 &wakeup_new_test, &code, &err);
	check(!ret, "char[16] and char[] synthetic fields parse: %s", err.msg);
	if (ret)
		return;
	check(strstr(wakeup_new_test->format, "\tfield:char comm[16];\toffset:16;\tsize:16;\tsigned:1;\n"
						 "\tfield:__data_loc char[] word;\toffset:272;\tsize:8;"
						 "\tsigned:1;\n") != NULL &&
		  strstr(wakeup_new_test->format, "print fmt: \"pid=%d comm=%s word=%s\", REC->pid, "
						  "REC->comm, __get_str(word)\n") != NULL,
	      "their format as the kernel's");
	ret = make(&t,
		   "hist:keys=next_pid:l=lat:"
		   "onmax($l).trace(wakeup_new_test,next_pid,next_comm,next_comm)",
		   &err);
	check(!ret, "trace() with string params compiles: %s", err.msg);
	if (!ret) {
		nr_emitted = 0;
		hit(&t, 42, 0, "cyclictest", 3, false);
		p = (const char *)last_rec;
		check(nr_emitted == 1 && emitted[0][1] == 34 + 2 && last_rec[0] == 42 &&
			  !strcmp(p + 8, "cyclictest") && last_rec[33] == (11ull << 16 | (8 + 34 * 8)) &&
			  !strcmp(p + 34 * 8, "cyclictest"),
		      "the record: pid, comm in its 256 bytes, word's __data_loc and bytes after "
		      "(%llu words)", (unsigned long long)emitted[0][1]);
	}
	drop(&t);
	ret = make(&t, "hist:keys=next_pid:l=lat:onmax($l).trace(wakeup_new_test,next_pid,lat,next_comm)",
		   &err);
	/* errpos("lat"): the first "lat" of the text, l=lat's */
	check(ret == UTRACE_HIST_ERR_SYNTH_TYPE_MISMATCH && err.column == 22,
	      "a number for a char[16]: the kernel's type mismatch (%d col %d)", ret, err.column);
	drop(&t);
	utrace_synth_free(wakeup_new_test);
	wakeup_new_test = NULL;
	{
		struct utrace_synth *a = NULL, *b = NULL;

		check(!utrace_synth_parse("s char[16] comm; char comm2[]", 1, &a, &code, &err) &&
			  !utrace_synth_parse("s char comm[16]; char[] comm2", 1, &b, &code, &err) &&
			  !strcmp(a->format, b->format),
		      "`char[16] comm` is `char comm[16]`, `char comm2[]` is `char[] comm2`");
		utrace_synth_free(a);
		utrace_synth_free(b);
		a = NULL;
		check(utrace_synth_parse("s u64 lat; char comm[257]", 1, &a, &code, &err) < 0 &&
			  code == UTRACE_SYNTH_ERR_INVALID_ARRAY_SPEC && err.column == 17 && !a,
		      "char comm[257]: the kernel's Invalid array specification, at the name (col %d)",
		      err.column);
	}
}

static void test_errors(void)
{
	static const struct {
		const char *text;
		int code, column;
	} bad[] = {
	    /* the kernel's errpos(): the first place the text is found */
	    {"hist:keys=next_pid:l=lat:onmax(l).save(prio)", UTRACE_HIST_ERR_ONX_NOT_VAR, 20},
	    {"hist:keys=next_pid:l=lat:onmax($m).save(prio)", UTRACE_HIST_ERR_ONX_VAR_NOT_FOUND, 28},
	    {"hist:keys=next_pid:l=lat:onmax($l).save(prio,nosuch)",
	     UTRACE_HIST_ERR_FIELD_NOT_FOUND, 46},
	    {"hist:keys=next_pid:l=lat:onmatch(a.b).save(prio)", UTRACE_HIST_ERR_ACTION_MISMATCH,
	     39},
	    {"hist:keys=next_pid:l=lat:onmax($l).save()", UTRACE_HIST_ERR_INVALID_PARAM, 1},
	    {"hist:keys=next_pid:l=lat:onmax($l).nosynth($l,prio)",
	     UTRACE_HIST_ERR_SYNTH_EVENT_NOT_FOUND, 26},
	    {"hist:keys=next_pid:l=lat:onmax($l).snapshot():onchange($l).snapshot()", -1, 47},
	    {"hist:keys=next_pid:l=lat:onmax($l).maxlat($l,prio):onmax($l).maxlat($l,prio):"
	     "onmax($l).maxlat($l,prio):onmax($l).maxlat($l,prio):onmax($l).maxlat($l,prio):"
	     "onmax($l).maxlat($l,prio):onmax($l).maxlat($l,prio):onmax($l).maxlat($l,prio):"
	     "onchange($l).maxlat($l,prio)",
	     -1, 0},
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct utrace_error err = {0};
		struct table t;
		int code = make(&t, bad[i].text, &err);
		int col = bad[i].column;

		if (i + 1 == sizeof(bad) / sizeof(bad[0])) /* the 9th action's column */
			col = (int)(strstr(bad[i].text, "onchange") - bad[i].text) + 1;
		check(code == bad[i].code && err.column == col,
		      "'%.60s': %s (code %d col %d)", bad[i].text, err.msg, code, err.column);
		drop(&t);
	}
}

int main(void)
{
	test_onmax_save();
	test_onchange_save();
	test_onmax_trace();
	test_snapshot();
	test_string_params();
	test_errors();
	return check_done();
}
