/* SPDX-License-Identifier: MIT */
/*
 * test_hist_print.c - the hist file (lib/hist/hist_print.c) from
 * hand-made tables: every key and value format, sorting (ascending,
 * descending, two keys, ties), nohitcount, paused, Totals.  The goldens
 * are lines of Documentation/trace/histogram.rst and of the kernel
 * commits that added .percent, .graph and nohitcount; where the
 * documentation predates the kernel's current trigger info (which lists
 * "vals=hitcount,..." since 2018), the kernel's code is the reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist_prog.h"
#include "lib/hist/hist.h"
#include "tests/unit/check.h"

#define MAX_WORDS 64

struct fixture {
	struct utrace_hist_hdr hdr;
	uint64_t rows[32 * MAX_WORDS];
	unsigned nr;
	struct utrace_hist_table t;
};

/* A table of nk number keys and nr_sums sums; rows are keys then sums. */
static void fixture_init(struct fixture *f, unsigned nk, unsigned key_words, unsigned nr_sums)
{
	memset(f, 0, sizeof(*f));
	f->hdr.magic = UTRACE_HIST_MAGIC;
	f->hdr.version = UTRACE_HIST_VERSION;
	f->hdr.key_size = 8 * key_words;
	f->hdr.nr_sums = nr_sums;
	f->hdr.nr_keys = nk;
	f->hdr.map_bits = 11;
	for (unsigned i = 0; i < nk; i++)
		f->hdr.slots[i] = (struct utrace_hist_slot){UTRACE_HSLOT_NUM, 8 * i, 8, 0};
	f->t.prog = &f->hdr;
	f->t.elts = (const uint8_t *)f->rows;
}

static void add(struct fixture *f, const uint64_t *words)
{
	unsigned n = f->hdr.key_size / 8 + f->hdr.nr_sums;

	memcpy(f->rows + f->nr * n, words, n * 8);
	f->t.nr_elts = ++f->nr;
	f->t.hits += words[f->hdr.key_size / 8];
}

static char *render(const char *trigger, struct fixture *f, const struct utrace_hist_names *nm)
{
	struct utrace_hist_spec *s = NULL;
	struct utrace_error err = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	int ret;

	if (utrace_hist_parse(trigger, &s, NULL, &err)) {
		check(0, "parse %s: %s", trigger, err.msg);
		return strdup("");
	}
	out = open_memstream(&buf, &len);
	ret = utrace_hist_print(out, s, &f->t, nm, &err);
	fclose(out);
	utrace_hist_spec_free(s);
	if (ret)
		check(0, "print %s: %s", trigger, err.msg);
	return buf;
}

static void expect(const char *what, char *got, const char *want)
{
	int ok = !strcmp(got, want);

	check(ok, "%s", what);
	if (!ok)
		printf("# got:\n%s# want:\n%s", got, want);
	free(got);
}

/* ---- name lookups ---------------------------------------------------- */

static const struct {
	int pid;
	const char *comm;
} comms[] = {{3196, "gnome-terminal"}, {1309, "Xorg"}, {2889, "compiz"}, {1, "init"},
	     {1877, "rtkit-daemon"},	{2976, "gdbus"}};

static const char *comm_of(void *arg, int pid)
{
	(void)arg;
	for (unsigned i = 0; i < sizeof(comms) / sizeof(comms[0]); i++)
		if (comms[i].pid == pid)
			return comms[i].comm;
	return NULL;
}

static const struct {
	uint64_t addr;
	const char *name, *offset;
} syms[] = {
    {0xffffffff8109bd3bull, "sched_autogroup_create_attach", NULL},
    {0xffffffffa04a580cull, "intel_crtc_page_flip [i915]", NULL},
    {0xffffffff811b1b3aull, "__kmalloc_track_caller", "__kmalloc_track_caller+0x10b/0x1a0"},
    {0xffffffff81168b00ull, "kmemdup", "kmemdup+0x20/0x50"},
    {0xffffffffa00bf1caull, "hidraw_report_event [hid]", "hidraw_report_event+0x8a/0x120 [hid]"},
};

static const char *sym_of(void *arg, uint64_t addr, char *buf, size_t n, bool with_offset)
{
	(void)arg;
	for (unsigned i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (syms[i].addr == addr) {
			snprintf(buf, n, "%s", with_offset && syms[i].offset ? syms[i].offset
									     : syms[i].name);
			return buf;
		}
	return NULL;
}

static const char *syscall_of(void *arg, int nr)
{
	static const struct {
		int nr;
		const char *name;
	} calls[] = {{0, "sys_read"}, {16, "sys_ioctl"}, {74, "sys_fsync"}, {202, "sys_futex"}};

	(void)arg;
	for (unsigned i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (calls[i].nr == nr)
			return calls[i].name;
	return NULL;
}

static const struct utrace_hist_names names = {comm_of, sym_of, syscall_of, NULL};

/* ---- goldens ---------------------------------------------------------- */

static void test_execname(void)
{
	struct fixture f;

	fixture_init(&f, 1, 1, 2);
	add(&f, (uint64_t[]){1, 2, 2});
	add(&f, (uint64_t[]){3196, 280, 1093512});
	add(&f, (uint64_t[]){2889, 59, 254400});
	add(&f, (uint64_t[]){1309, 525, 256640});
	add(&f, (uint64_t[]){8710, 3, 66369}); /* no name known */
	expect("execname key, value sorted descending (histogram.rst)",
	       render("hist:key=common_pid.execname:val=count:sort=count.descending", &f, &names),
	       "# event histogram\n"
	       "#\n"
	       "# trigger info: hist:keys=common_pid.execname:vals=hitcount,count:"
	       "sort=count.descending:size=2048 [active]\n"
	       "#\n"
	       "\n"
	       "{ common_pid: gnome-terminal  [      3196] } hitcount:        280  count:    1093512\n"
	       "{ common_pid: Xorg            [      1309] } hitcount:        525  count:     256640\n"
	       "{ common_pid: compiz          [      2889] } hitcount:         59  count:     254400\n"
	       "{ common_pid: <...>           [      8710] } hitcount:          3  count:      66369\n"
	       "{ common_pid: init            [         1] } hitcount:          2  count:          2\n"
	       "\n"
	       "Totals:\n"
	       "    Hits: 869\n"
	       "    Entries: 5\n"
	       "    Dropped: 0\n");
}

static void test_syscall(void)
{
	struct fixture f;

	fixture_init(&f, 1, 1, 1);
	add(&f, (uint64_t[]){16, 21843});
	add(&f, (uint64_t[]){74, 1});
	add(&f, (uint64_t[]){202, 1534});
	add(&f, (uint64_t[]){58, 4});
	f.t.drops = 7;
	expect("syscall key, default sort hitcount ascending, drops (histogram.rst)",
	       render("hist:key=id.syscall:val=hitcount", &f, &names),
	       "# event histogram\n#\n"
	       "# trigger info: hist:keys=id.syscall:vals=hitcount:sort=hitcount:size=2048 [active]\n"
	       "#\n\n"
	       "{ id: sys_fsync                     [ 74] } hitcount:          1\n"
	       "{ id: unknown_syscall               [ 58] } hitcount:          4\n"
	       "{ id: sys_futex                     [202] } hitcount:       1534\n"
	       "{ id: sys_ioctl                     [ 16] } hitcount:      21843\n"
	       "\nTotals:\n    Hits: 23382\n    Entries: 4\n    Dropped: 7\n");
}

static void test_two_sort_keys(void)
{
	struct fixture f;

	/* keys id, pid; sort=id,hitcount: runs of equal id by hitcount */
	fixture_init(&f, 2, 2, 1);
	add(&f, (uint64_t[]){16, 2976, 5});
	add(&f, (uint64_t[]){0, 1877, 2});
	add(&f, (uint64_t[]){16, 1309, 1});
	add(&f, (uint64_t[]){0, 2976, 1});
	add(&f, (uint64_t[]){16, 2889, 3});
	expect("two sort keys (histogram.rst)",
	       render("hist:key=id.syscall,common_pid.execname:val=hitcount:sort=id,hitcount",
		      &f, &names),
	       "# event histogram\n#\n"
	       "# trigger info: hist:keys=id.syscall,common_pid.execname:vals=hitcount:"
	       "sort=id.syscall,hitcount:size=2048 [active]\n#\n\n"
	       "{ id: sys_read                      [  0], common_pid: gdbus           [      2976] } hitcount:          1\n"
	       "{ id: sys_read                      [  0], common_pid: rtkit-daemon    [      1877] } hitcount:          2\n"
	       "{ id: sys_ioctl                     [ 16], common_pid: Xorg            [      1309] } hitcount:          1\n"
	       "{ id: sys_ioctl                     [ 16], common_pid: compiz          [      2889] } hitcount:          3\n"
	       "{ id: sys_ioctl                     [ 16], common_pid: gdbus           [      2976] } hitcount:          5\n"
	       "\nTotals:\n    Hits: 12\n    Entries: 5\n    Dropped: 0\n");
}

static void test_sym(void)
{
	struct fixture f;

	fixture_init(&f, 1, 1, 3);
	add(&f, (uint64_t[]){0xffffffffa04a580cull, 1519, 157976, 194432});
	add(&f, (uint64_t[]){0xffffffff8109bd3bull, 2, 144, 192});
	add(&f, (uint64_t[]){0xffffffff81000010ull, 1, 7, 8});
	expect("sym key, two values, sort on the second (histogram.rst)",
	       render("hist:keys=call_site.sym:vals=bytes_req,bytes_alloc:sort=bytes_alloc.descending",
		      &f, &names),
	       "# event histogram\n#\n"
	       "# trigger info: hist:keys=call_site.sym:vals=hitcount,bytes_req,bytes_alloc:"
	       "sort=bytes_alloc.descending:size=2048 [active]\n#\n\n"
	       "{ call_site: [ffffffffa04a580c] intel_crtc_page_flip [i915]                   } hitcount:       1519  bytes_req:     157976  bytes_alloc:     194432\n"
	       "{ call_site: [ffffffff8109bd3b] sched_autogroup_create_attach                 } hitcount:          2  bytes_req:        144  bytes_alloc:        192\n"
	       "{ call_site: [ffffffff81000010] 0xffffffff81000010                            } hitcount:          1  bytes_req:          7  bytes_alloc:          8\n"
	       "\nTotals:\n    Hits: 1522\n    Entries: 3\n    Dropped: 0\n");
}

static void test_stacktrace(void)
{
	struct fixture f;
	uint64_t row[6] = {0xffffffff811b1b3aull, 0xffffffff81168b00ull, 0xffffffffa00bf1caull,
			   0, 3, 21};

	fixture_init(&f, 1, 4, 2);
	f.hdr.slots[0].len = 32;
	add(&f, row);
	expect("common_stacktrace key (histogram.rst)",
	       render("hist:keys=common_stacktrace:values=bytes_req", &f, &names),
	       "# event histogram\n#\n"
	       "# trigger info: hist:keys=common_stacktrace:vals=hitcount,bytes_req:"
	       "sort=hitcount:size=2048 [active]\n#\n\n"
	       "{ common_stacktrace:\n"
	       "         __kmalloc_track_caller+0x10b/0x1a0\n"
	       "         kmemdup+0x20/0x50\n"
	       "         hidraw_report_event+0x8a/0x120 [hid]\n"
	       "} hitcount:          3  bytes_req:         21\n"
	       "\nTotals:\n    Hits: 3\n    Entries: 1\n    Dropped: 0\n");
}

static void test_percent_graph(void)
{
	/* runtime in 1/1000 %: floor(v / 10) is the kernel commit's value */
	static const uint64_t rt[][2] = {
	    {8, 3029},	 {14, 2259},  {16, 2259},  {26, 179},	{61, 11529}, {67, 1569},
	    {68, 849},	 {76, 929},   {117, 2508}, {146, 49880}, {157, 16630}, {158, 8380},
	};
	static const char *const lines[] = {
	    "{ pid:          8 }  runtime (%):   3.02  runtime: #                   \n",
	    "{ pid:         14 }  runtime (%):   2.25  runtime:                     \n",
	    "{ pid:         16 }  runtime (%):   2.25  runtime:                     \n",
	    "{ pid:         26 }  runtime (%):   0.17  runtime:                     \n",
	    "{ pid:         61 }  runtime (%):  11.52  runtime: ####                \n",
	    "{ pid:         67 }  runtime (%):   1.56  runtime:                     \n",
	    "{ pid:         68 }  runtime (%):   0.84  runtime:                     \n",
	    "{ pid:         76 }  runtime (%):   0.92  runtime:                     \n",
	    "{ pid:        117 }  runtime (%):   2.50  runtime: #                   \n",
	    "{ pid:        146 }  runtime (%):  49.88  runtime: ####################\n",
	    "{ pid:        157 }  runtime (%):  16.63  runtime: ######              \n",
	    "{ pid:        158 }  runtime (%):   8.38  runtime: ###                 \n",
	};
	char want[4096];
	struct fixture f;
	size_t n;

	fixture_init(&f, 1, 1, 3);
	for (int i = 11; i >= 0; i--)
		add(&f, (uint64_t[]){rt[i][0], 1, rt[i][1], rt[i][1]});
	n = (size_t)snprintf(want, sizeof(want),
			     "# event histogram\n#\n"
			     "# trigger info: hist:keys=pid:vals=runtime.percent,runtime.graph:"
			     "sort=pid:size=2048:nohitcount [active]\n#\n\n");
	for (unsigned i = 0; i < 12; i++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%s", lines[i]);
	snprintf(want + n, sizeof(want) - n,
		 "\nTotals:\n    Hits: 12\n    Entries: 12\n    Dropped: 0\n");
	expect("percent, graph, nohitcount, sort on a key (kernel commit)",
	       render("hist:keys=pid:vals=runtime.percent,runtime.graph:sort=pid:NOHC", &f, &names),
	       want);
}

static void test_formats(void)
{
	struct fixture f;
	uint64_t row[6] = {0, 0x1f, 0, 4, 0xff, 2000};

	/* a string key of 16 bytes, .hex key, .log2 key; hex value */
	fixture_init(&f, 3, 4, 2);
	f.hdr.slots[0] = (struct utrace_hist_slot){UTRACE_HSLOT_STR, 0, 16, 0};
	f.hdr.slots[1].off = 16;
	f.hdr.slots[2].off = 24;
	memcpy(row, "bash", 5);
	row[2] = 0x1f;
	add(&f, row);
	f.t.paused = true;
	expect("string, hex, log2 keys; hex value; paused",
	       render("hist:keys=comm,flags.hex,len.log2:vals=bytes.hex if len > 1", &f, &names),
	       "# event histogram\n#\n"
	       "# trigger info: hist:keys=comm,flags.hex,len.log2:vals=hitcount,bytes.hex:"
	       "sort=hitcount:size=2048 if len > 1 [paused]\n#\n\n"
	       "{ comm: bash                                              , flags: 1f, len: ~ 2^4  } "
	       "hitcount:        255  bytes:        7d0\n"
	       "\nTotals:\n    Hits: 255\n    Entries: 1\n    Dropped: 0\n");

	/* sums: hitcount, t, the variables' bitmap, onmax()'s max; the
	 * saved fields are where the program's SAVE instructions say, and
	 * this hand-made program has none (test_hist_track.c prints them) */
	fixture_init(&f, 2, 2, 4);
	add(&f, (uint64_t[]){0xffffffff81168b00ull, 200, 1, 0, 0, 7});
	expect("sym-offset and buckets keys, timestamp clock, handlers in the info",
	       render("hist:keys=call_site.sym-offset,lat.buckets=100:t=common_timestamp.usecs:"
		      "onmax($t).save(prio,comm):onmatch(sched.e).trace(wake,$t,pid):"
		      "onmatch(sched.e).wake2($t):clock=mono",
		      &f, &names),
	       "# event histogram\n#\n"
	       "# trigger info: hist:keys=call_site.sym-offset,lat.buckets=100:vals=hitcount:"
	       "t=common_timestamp.usecs:sort=hitcount:size=2048:clock=mono:onmax($t).save(prio,comm)"
	       ":onmatch(sched.e).trace(wake,$t,pid):onmatch(sched.e).wake2($t) [active]\n#\n\n"
	       "{ call_site: [ffffffff81168b00] kmemdup+0x20/0x50                                      "
	       ", lat: ~ 200-299 } hitcount:          1\n"
	       "\tmax:          7\n"
	       "\nTotals:\n    Hits: 1\n    Entries: 1\n    Dropped: 0\n");
}

static void test_spec_text(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"hist:keys=pid", "hist:keys=pid:vals=hitcount:sort=hitcount:size=2048"},
	    {"hist:name=x:keys=cpu:size=200", "hist:name=x:keys=common_cpu:vals=hitcount:"
					      "sort=hitcount:size=256"},
	    {"hist:keys=pid:vals=hitcount,a:sort=a.descending,pid.ascending",
	     "hist:keys=pid:vals=hitcount,a:sort=a.descending,pid:size=2048"},
	    {"hist:keys=next_pid:l=common_timestamp.usecs-$ts0,k=x*2+1,n=-(y)",
	     "hist:keys=next_pid:vals=hitcount:l=common_timestamp.usecs-$ts0,k=x*2+1,n=-(y):"
	     "sort=hitcount:size=2048:clock=global"},
	    {"hist:keys=a:x=4/2", "hist:keys=a:vals=hitcount:x=2:sort=hitcount:size=2048"},
	};
	char buf[512];

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct utrace_hist_spec *s = NULL;
		int n = -1;

		if (!utrace_hist_parse(cases[i].in, &s, NULL, NULL))
			n = utrace_hist_spec_text(s, buf, sizeof(buf));
		check(n == (int)strlen(cases[i].out) && !strcmp(buf, cases[i].out),
		      "trigger info of %s: %s", cases[i].in, n < 0 ? "" : buf);
		if (s && i == 0) /* snprintf semantics */
			check(utrace_hist_spec_text(s, buf, 5) == n && !strcmp(buf, "hist"),
			      "trigger info truncated");
		utrace_hist_spec_free(s);
	}
}

int main(void)
{
	test_execname();
	test_syscall();
	test_two_sort_keys();
	test_sym();
	test_stacktrace();
	test_percent_graph();
	test_formats();
	test_spec_text();
	return check_done();
}
