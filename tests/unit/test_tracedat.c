/* SPDX-License-Identifier: MIT */
/*
 * test_tracedat.c - the trace.dat writer (lib/export/tracedat.c): synthetic
 * utrace.dat files (tests/unit/dat_fixture.h) are converted, then read
 * back twice: by a small trace.dat v6 reader here (header, kallsyms,
 * saved_cmdlines, options, and every ring-buffer record with its time),
 * and, when it is installed, by the real `trace-cmd report`, whose
 * function_graph lines, task names and "EVENTS DROPPED" lines are
 * checked.  Also: kallsyms names of C++ functions, and errors.
 */
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/export/tracedat.h"
#include "tests/unit/dat_fixture.h"

#define MAX_REC 4096
#define MAX_CPU 16

struct rec {
	uint32_t cpu;
	uint64_t ts;
	uint16_t type;
	int32_t pid, depth;
	uint64_t func, parent, calltime, rettime; /* func is ip for "function" */
	int64_t missed;				  /* first record of a page: dropped before it */
};

/* A trace.dat as read back. */
struct td {
	char *buf;
	size_t len, pos;
	const char *why; /* the first thing wrong, NULL if none */
	char version[4];
	uint32_t page_size, nr_formats, nr_cpus, cpucount;
	uint32_t nr_systems, nr_sys_formats; /* event systems other than ftrace */
	char system0[32];		     /* the first one's name */
	char *format0;			     /* its first format's text */
	char *kallsyms, *cmdlines, clock_opt[32], clock[32];
	uint64_t off[MAX_CPU], size[MAX_CPU];
	struct rec r[MAX_REC];
	int n;
};

static const void *take(struct td *t, size_t n, const char *what)
{
	const void *p = t->buf + t->pos;

	if (t->why)
		return NULL;
	if (t->len - t->pos < n) {
		t->why = what;
		return NULL;
	}
	t->pos += n;
	return p;
}

static uint64_t take_num(struct td *t, size_t n, const char *what)
{
	const void *p = take(t, n, what);
	uint64_t v = 0;
	uint32_t v4 = 0;
	uint16_t v2 = 0;

	if (!p)
		return 0;
	if (n == 8)
		memcpy(&v, p, 8);
	else if (n == 4)
		memcpy(&v4, p, 4), v = v4;
	else
		memcpy(&v2, p, 2), v = v2;
	return v;
}

static char *take_text(struct td *t, size_t n, const char *what)
{
	const char *p = take(t, n, what);
	char *s = malloc(n + 1);

	if (s && p)
		memcpy(s, p, n);
	if (s)
		s[p ? n : 0] = '\0';
	return s;
}

static void expect_str(struct td *t, const char *s, size_t n, const char *what)
{
	const char *p = take(t, n, what);

	if (p && memcmp(p, s, n))
		t->why = what;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Decodes the pages of one CPU as kbuffer does. */
static void read_cpu(struct td *t, uint32_t cpu)
{
	uint64_t last = 0;

	for (uint64_t at = t->off[cpu]; at < t->off[cpu] + t->size[cpu]; at += t->page_size) {
		const unsigned char *pg = (const unsigned char *)t->buf + at;
		uint64_t ts = rd64(pg), commit = rd64(pg + 8);
		uint32_t size = commit & ((1u << 27) - 1), i = 0;
		int64_t missed = 0;
		bool first = true;

		if (at + t->page_size > t->len || size > t->page_size - 16) {
			t->why = "a page past the end, or a commit too large";
			return;
		}
		if (commit & (1ull << 31))
			missed = commit & (1ull << 30) ? (int64_t)rd64(pg + 16 + size) : -1;
		while (i < size) {
			const unsigned char *e = pg + 16 + i;
			uint32_t w = rd32(e), type_len = w & 31, delta = w >> 5, len;
			const unsigned char *d;
			struct rec *r;

			if (type_len == 30) {
				ts += ((uint64_t)rd32(e + 4) << 27) + delta;
				i += 8;
				first = false;
				continue;
			}
			if (type_len == 29 || type_len == 31) {
				t->why = "padding or time stamp records";
				return;
			}
			ts += delta;
			len = type_len ? type_len * 4 : rd32(e + 4) - 4;
			d = e + (type_len ? 4 : 8);
			i += (uint32_t)(d - e) + len;
			if (ts < last)
				t->why = "time goes back on a CPU";
			last = ts;
			if (t->n == MAX_REC)
				continue;
			r = &t->r[t->n++];
			memset(r, 0, sizeof(*r));
			r->cpu = cpu;
			r->ts = ts;
			r->missed = first ? missed : 0;
			first = false;
			memcpy(&r->type, d, 2);
			memcpy(&r->pid, d + 4, 4);
			r->func = rd64(d + 8);
			if (r->type == UTRACE_TRACEDAT_FUNCTION) {
				r->parent = rd64(d + 16);
			} else {
				memcpy(&r->depth, d + 16, 4);
				if (r->type == UTRACE_TRACEDAT_FUNCGRAPH_EXIT) {
					r->calltime = rd64(d + 24);
					r->rettime = rd64(d + 32);
				}
			}
		}
	}
}

/* Reads a whole trace.dat; t->why says what was wrong, if anything. */
static void td_read(struct td *t, const char *path)
{
	static const char magic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
	uint32_t n;

	memset(t, 0, sizeof(*t));
	t->buf = check_slurp(path, &t->len);
	if (!t->buf) {
		t->why = "cannot read the file";
		return;
	}
	expect_str(t, magic, sizeof(magic), "magic");
	expect_str(t, "6", 2, "version 6");
	expect_str(t, "\0\10", 2, "little endian, 8-byte long");
	t->page_size = (uint32_t)take_num(t, 4, "page size");
	expect_str(t, "header_page", 12, "header_page");
	free(take_text(t, take_num(t, 8, "header_page size"), "header_page"));
	expect_str(t, "header_event", 13, "header_event");
	free(take_text(t, take_num(t, 8, "header_event size"), "header_event"));
	t->nr_formats = (uint32_t)take_num(t, 4, "ftrace formats");
	for (uint32_t i = 0; i < t->nr_formats && !t->why; i++)
		free(take_text(t, take_num(t, 8, "format size"), "format"));
	t->nr_systems = (uint32_t)take_num(t, 4, "event systems");
	for (uint32_t i = 0; i < t->nr_systems && !t->why; i++) {
		char *name = take_text(t, strnlen(t->buf + t->pos, t->len - t->pos) + 1, "system");
		uint32_t nev = (uint32_t)take_num(t, 4, "system events");

		if (name && i == 0)
			snprintf(t->system0, sizeof(t->system0), "%s", name);
		free(name);
		t->nr_sys_formats += nev;
		for (uint32_t j = 0; j < nev && !t->why; j++) {
			char *text = take_text(t, take_num(t, 8, "format size"), "format");

			if (i == 0 && j == 0)
				t->format0 = text;
			else
				free(text);
		}
	}
	t->kallsyms = take_text(t, take_num(t, 4, "kallsyms size"), "kallsyms");
	free(take_text(t, take_num(t, 4, "printk size"), "printk"));
	t->cmdlines = take_text(t, take_num(t, 8, "cmdlines size"), "cmdlines");
	t->nr_cpus = (uint32_t)take_num(t, 4, "cpus");
	expect_str(t, "options  ", 10, "options");
	while (!t->why && (n = (uint32_t)take_num(t, 2, "option id")) != 0) {
		uint32_t size = (uint32_t)take_num(t, 4, "option size");
		char *data = take_text(t, size, "option");

		if (n == 4 && data)
			snprintf(t->clock_opt, sizeof(t->clock_opt), "%s", data);
		if (n == 8 && data && size == 4)
			memcpy(&t->cpucount, data, 4);
		free(data);
	}
	expect_str(t, "flyrecord", 10, "flyrecord");
	for (uint32_t c = 0; c < t->nr_cpus && !t->why; c++) {
		uint64_t off = take_num(t, 8, "cpu offset"), size = take_num(t, 8, "cpu size");

		if (c < MAX_CPU) {
			t->off[c] = off;
			t->size[c] = size;
		}
		if ((size && off % t->page_size) || size % t->page_size || off + size > t->len)
			t->why = "cpu data not in whole pages within the file";
	}
	n = (uint32_t)take_num(t, 8, "clock size");
	if (!t->why && n < sizeof(t->clock)) {
		char *clock = take_text(t, n, "clock");

		snprintf(t->clock, sizeof(t->clock), "%s", clock ? clock : "");
		free(clock);
	}
	for (uint32_t c = 0; c < t->nr_cpus && c < MAX_CPU && !t->why; c++)
		read_cpu(t, c);
}

static void td_free(struct td *t)
{
	free(t->buf);
	free(t->kallsyms);
	free(t->cmdlines);
	free(t->format0);
}

static const char *type_name(uint16_t type)
{
	return type == UTRACE_TRACEDAT_FUNCGRAPH_ENTRY	? "entry"
	       : type == UTRACE_TRACEDAT_FUNCGRAPH_EXIT ? "exit"
	       : type == UTRACE_TRACEDAT_FUNCTION	? "function"
							: "?";
}

/* Checks record i: cpu, time, type, func, and for an exit its times. */
static void expect_rec(const struct td *t, int i, uint32_t cpu, uint64_t ts, uint16_t type,
		       uint64_t func, uint64_t calltime, uint64_t rettime, const char *what)
{
	const struct rec *r = i < t->n ? &t->r[i] : NULL;

	check(r && r->cpu == cpu && r->ts == ts && r->type == type && r->func == func &&
		  (type != UTRACE_TRACEDAT_FUNCGRAPH_EXIT ||
		   (r->calltime == calltime && r->rettime == rettime)),
	      "%s: record %d is cpu %u ts %llu %s func %#llx (got cpu %u ts %llu %s func %#llx "
	      "call %llu ret %llu)",
	      what, i, cpu, (unsigned long long)ts, type_name(type), (unsigned long long)func,
	      r ? r->cpu : 0, r ? (unsigned long long)r->ts : 0, r ? type_name(r->type) : "none",
	      r ? (unsigned long long)r->func : 0, r ? (unsigned long long)r->calltime : 0,
	      r ? (unsigned long long)r->rettime : 0);
}

/* Converts dat into a trace.dat; 0 or -1 (a failed check). */
static int convert(const char *dat, const char *out, struct utrace_tracedat_stats *st)
{
	struct utrace_error err;
	struct utrace_dat *d;
	int ret;

	if (utrace_dat_open(dat, &d, &err) < 0) {
		check(0, "open %s: %s", dat, err.msg);
		return -1;
	}
	ret = utrace_tracedat_convert(d, out, st, &err);
	check(ret == 0, "convert %s: %s", dat, ret ? err.msg : "ok");
	utrace_dat_close(d);
	return ret;
}

/* ---- trace-cmd report ---- */

static int have_trace_cmd = -1;

/*
 * Runs `trace-cmd report ARGS FILE`; checks its exit status and that it
 * warned about nothing; returns its stdout (malloc'ed) or NULL.
 */
static char *trace_cmd_report(const char *file, const char *args, const char *what)
{
	char cmd[1024], *out, *err;
	size_t len;
	int rc;

	if (have_trace_cmd < 0)
		have_trace_cmd = check_have("trace-cmd");
	if (!have_trace_cmd) {
		check_skip(what, "trace-cmd not installed");
		return NULL;
	}
	snprintf(cmd, sizeof(cmd), "trace-cmd report %s '%s' >'%s' 2>'%s'", args, file,
		 check_path("report.out"), check_path("report.err"));
	rc = system(cmd);
	out = check_slurp(check_path("report.out"), &len);
	if (out)
		out[len] = '\0';
	err = check_slurp(check_path("report.err"), &len);
	if (err)
		err[len] = '\0';
	check(rc == 0 && out, "%s: trace-cmd report exits 0 (status %d)", what, rc);
	check(err && !strcasestr(err, "warning") && !strcasestr(err, "error") &&
		  !strcasestr(err, "failed"),
	      "%s: trace-cmd report says nothing on stderr (%s)", what, err ? err : "?");
	free(err);
	return out;
}

/*
 * s with each run of blanks made one space, except after the last '|' of
 * a line, where function_graph indents the calls (malloc'ed).
 */
static char *squeeze(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	while (out && *s) {
		const char *eol = strchr(s, '\n'), *bar;

		if (!eol)
			eol = s + strlen(s);
		bar = memrchr(s, '|', (size_t)(eol - s));
		for (; s < eol; s++)
			if ((bar && s > bar) || *s != ' ' || o == out || o[-1] != ' ')
				*o++ = *s;
		if (*s)
			*o++ = *s++;
	}
	if (out)
		*o = '\0';
	return out;
}

/*
 * Checks that the lines contain each of want[], in order, one a line;
 * the widths of trace-cmd's columns do not matter.
 */
static void expect_lines(const char *out, const char *const *want, size_t n, const char *what)
{
	char *text = out ? squeeze(out) : NULL;
	const char *p = text;

	for (size_t i = 0; p && i < n; i++) {
		char *w = squeeze(want[i]);
		const char *hit = w ? strstr(p, w) : NULL;

		check(hit != NULL, "%s: trace-cmd prints '%s'", what, w ? w : want[i]);
		free(w);
		if (!hit) {
			printf("# trace-cmd report printed:\n%s", out);
			break;
		}
		p = strchr(hit, '\n');
		if (!p)
			p = hit + strlen(hit);
	}
	free(text);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; p && (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* ---- Tests ---- */

static void test_graph(void)
{
	const char *dat = check_path("graph.dat"), *out = check_path("graph.trace.dat");
	struct utrace_dat_writer *w = fx_begin(dat, "function_graph");
	struct utrace_tracedat_stats st;
	struct td t;
	char *text;

	fx_graph_basic(w);
	fx_end(w);
	if (convert(dat, out, &st) < 0)
		return;
	td_read(&t, out);
	check(!t.why, "graph: a well-formed trace.dat (%s)", t.why ? t.why : "ok");
	check(t.page_size == 4096 && t.nr_formats == 5 && t.nr_systems == 0,
	      "graph: 4096-byte pages, 5 ftrace formats (kernel_stack too), no other system");
	check(t.nr_cpus == 4 && t.cpucount == 4 && st.nr_cpus == 4,
	      "graph: 4 CPUs, CPUCOUNT option (got %u, %u)", t.nr_cpus, t.cpucount);
	check(!strcmp(t.clock_opt, "[mono]") && !strcmp(t.clock, "[mono]"),
	      "graph: TRACECLOCK [mono] (got '%s', '%s')", t.clock_opt, t.clock);
	check(t.kallsyms && !strcmp(t.kallsyms, "0000000000001100 T main\n"
						"0000000000001204 T foo\n"
						"0000000000001300 T bar\n"
						"0000000000001400 T 0x1400\n"
						"0000000000001401 T _etext\n"),
	      "graph: kallsyms of the call sites, sorted, with an end marker");
	check(t.cmdlines && !strcmp(t.cmdlines, "100 test\n"), "graph: saved_cmdlines");
	check(t.size[0] == 0 && t.size[1] == 0 && t.size[2] == 4096 && t.size[3] == 4096,
	      "graph: one page on cpus 2 and 3");
	check(t.n == 10 && st.events == 10, "graph: 10 records (got %d, %llu)", t.n,
	      (unsigned long long)st.events);
	expect_rec(&t, 0, 2, 1000, UTRACE_TRACEDAT_FUNCGRAPH_ENTRY, 0x1100, 0, 0, "graph");
	expect_rec(&t, 1, 2, 1010, UTRACE_TRACEDAT_FUNCGRAPH_ENTRY, 0x1204, 0, 0, "graph");
	expect_rec(&t, 2, 2, 1015, UTRACE_TRACEDAT_FUNCGRAPH_EXIT, 0x1204, 1010, 1015,
		   "graph: a leaf's exit follows its entry");
	expect_rec(&t, 3, 2, 1020, UTRACE_TRACEDAT_FUNCGRAPH_ENTRY, 0x1300, 0, 0, "graph");
	expect_rec(&t, 4, 2, 1021, UTRACE_TRACEDAT_FUNCGRAPH_ENTRY, 0x1400, 0, 0, "graph");
	expect_rec(&t, 5, 2, 16778257, UTRACE_TRACEDAT_FUNCGRAPH_EXIT, 0x1400, 1021, 16778257,
		   "graph");
	expect_rec(&t, 6, 3, 16778260, UTRACE_TRACEDAT_FUNCGRAPH_ENTRY, 0x1204, 0, 0,
		   "graph: on the next CPU");
	expect_rec(&t, 7, 3, 16778360, UTRACE_TRACEDAT_FUNCGRAPH_EXIT, 0x1204, 16778260, 16778360,
		   "graph");
	expect_rec(&t, 8, 3, 16778367, UTRACE_TRACEDAT_FUNCGRAPH_EXIT, 0x1300, 1020, 16778367,
		   "graph");
	expect_rec(&t, 9, 3, 2016778367, UTRACE_TRACEDAT_FUNCGRAPH_EXIT, 0x1100, 1000, 2016778367,
		   "graph: a gap over 2^27 ns (TIME_EXTEND)");
	check(t.n == 10 && t.r[0].pid == 100 && t.r[4].depth == 2 && t.r[9].depth == 0,
	      "graph: common_pid is the tid, depth");
	td_free(&t);

	text = trace_cmd_report(out, "", "graph");
	{
		static const char *const want[] = {
		    "test-100 [002] 0.000001: funcgraph_entry: |  main() {",
		    "test-100 [002] 0.000001: funcgraph_entry: 0.005 us |    foo();",
		    "test-100 [002] 0.000001: funcgraph_entry: |    bar() {",
		    "test-100 [002] 0.000001: funcgraph_entry: # 16777.236 us |      0x1400();",
		    "test-100 [003] 0.016778: funcgraph_entry: 0.100 us |      foo();",
		    "test-100 [003] 0.016778: funcgraph_exit: # 16777.347 us |    }",
		    "test-100 [003] 2.016778: funcgraph_exit: $ 2016777 us |  }",
		};

		expect_lines(text, want, sizeof(want) / sizeof(want[0]), "graph");
		check(!text || count(text, "funcgraph_") == 7, "graph: 7 lines, the leaves folded");
	}
	free(text);
}

/* main() { foo() {, 12 lost, } (exit of foo), 3 lost, } (main), lost, bar(); } */
static void test_lost(void)
{
	const char *dat = check_path("lost.dat"), *out = check_path("lost.trace.dat");
	struct utrace_dat_writer *w = fx_begin(dat, "function_graph");
	struct fx_page p1 = {100, 0, 0, 0, 0, 0};
	struct fx_page p2 = {500, 1, 12, 0, UTRACE_SB_CONTEXT, 2};
	struct fx_page p3 = {600, 3, 0, 0, 0, 0};
	struct wl l1 = {.n = 0}, l2 = {.n = 0}, l3 = {.n = 0};
	struct utrace_tracedat_stats st;
	struct td t;
	char *text;

	fx_buffer(w, 8, 200, "ctx");
	wl_entry(&l1, 0, 0);  /* main @100 */
	wl_entry(&l1, 1, 10); /* foo @110 */
	fx_page(w, 8, &p1, &l1);
	wl_ext(&l2, UEXT_CONTEXT, 2);
	wl_put(&l2, 2);
	wl_put(&l2, 0);
	wl_put(&l2, 1);
	wl_exit(&l2, 10); /* foo @510 */
	wl_ext(&l2, UEXT_LOST, 0);
	wl_u64(&l2, 3);
	wl_exit(&l2, 5); /* main @515 */
	fx_page(w, 8, &p2, &l2);
	wl_entry(&l3, 2, 0); /* after a gap in the sequence: bar @600 */
	wl_exit(&l3, 1);
	fx_page(w, 8, &p3, &l3);
	fx_end(w);
	if (convert(dat, out, &st) < 0)
		return;
	td_read(&t, out);
	check(!t.why, "lost: a well-formed trace.dat (%s)", t.why ? t.why : "ok");
	check(st.lost == 15 && st.lost_unknown == 1, "lost: 15 counted, 1 unknown");
	check(t.size[0] == 4 * 4096, "lost: a page for each run between losses");
	check(t.n == 6, "lost: 6 records (got %d)", t.n);
	expect_rec(&t, 2, 0, 510, UTRACE_TRACEDAT_FUNCGRAPH_EXIT, 0, 510, 510,
		   "lost: an exit after a loss does not pair with the entry before it");
	check(t.n == 6 && t.r[0].missed == 0 && t.r[2].missed == 12 && t.r[3].missed == 3 &&
		  t.r[4].missed == -1 && t.r[5].missed == 0,
	      "lost: counts stored in the pages after the losses, -1 for unknown");
	expect_rec(&t, 3, 0, 515, UTRACE_TRACEDAT_FUNCGRAPH_EXIT, 0x1100, 515, 515, "lost");
	td_free(&t);

	text = trace_cmd_report(out, "", "lost");
	{
		static const char *const want[] = {
		    "ctx-200 [000] 0.000000: funcgraph_entry: |  main() {",
		    "ctx-200 [000] 0.000000: funcgraph_entry: |    foo() {",
		    "CPU:0 [12 EVENTS DROPPED]",
		    "ctx-200 [000] 0.000001: funcgraph_exit: 0.000 us |    }",
		    "CPU:0 [3 EVENTS DROPPED]",
		    "ctx-200 [000] 0.000001: funcgraph_exit: 0.000 us |  }",
		    "CPU:0 [EVENTS DROPPED]",
		    "ctx-200 [000] 0.000001: funcgraph_entry: 0.001 us |  bar();",
		};

		expect_lines(text, want, sizeof(want) / sizeof(want[0]), "lost");
	}
	free(text);
}

static void test_function(void)
{
	const char *dat = check_path("function.dat"), *out = check_path("function.trace.dat");
	struct utrace_dat_writer *w = fx_begin(dat, "function");
	struct fx_page p = {5000000123ull, 0, 0, 1, 0, 0};
	struct wl l = {.n = 0};
	struct td t;
	char *text;

	fx_buffer(w, 4, 100, "test");
	wl_func(&l, 0, 0, FX_BIAS + 0x210);	  /* main from foo+0x10 */
	wl_func(&l, 2, 500, FX_LIB_BIAS + 0x120); /* bar from libc_start+0x20 */
	wl_func(&l, 1, 500, 0xdead);		  /* foo from an unknown place */
	fx_page(w, 4, &p, &l);
	fx_end(w);
	if (convert(dat, out, NULL) < 0)
		return;
	td_read(&t, out);
	check(!t.why, "function: a well-formed trace.dat (%s)", t.why ? t.why : "ok");
	check(t.kallsyms && !strcmp(t.kallsyms, "0000000000001100 T main\n"
						"0000000000001200 T foo\n"
						"0000000000001204 T foo\n"
						"0000000000001300 T bar\n"
						"000000000000dead T 0xdead\n"
						"000000007f000100 T libc_start\n"
						"000000007f000121 T _etext\n"),
	      "function: kallsyms lists the callers' symbols, an unknown caller by address");
	check(t.n == 3 && t.r[0].type == UTRACE_TRACEDAT_FUNCTION && t.r[0].func == 0x1100 &&
		  t.r[0].parent == FX_BIAS + 0x210 && t.r[2].parent == 0xdead &&
		  t.r[2].ts == 5000001123ull,
	      "function: ip and parent_ip");
	td_free(&t);

	text = trace_cmd_report(out, "-O parent", "function");
	{
		static const char *const want[] = {
		    "test-100 [001] 5.000000: function: main <-- foo",
		    "test-100 [001] 5.000001: function: bar <-- libc_start",
		    "test-100 [001] 5.000001: function: foo <-- 0xdead",
		};

		expect_lines(text, want, sizeof(want) / sizeof(want[0]), "function");
	}
	free(text);
}

/*
 * Two threads on two CPUs with records at the same time: trace-cmd reads
 * the lower CPU first on a tie, and must still find each leaf's exit
 * right after its entry.  Also many pages: 600 leaves on one CPU.
 */
static void test_ties_pages(void)
{
	const char *dat = check_path("ties.dat"), *out = check_path("ties.trace.dat");
	struct utrace_dat_writer *w = fx_begin(dat, "function_graph");
	struct fx_page p0 = {1000, 0, 0, 0, 0, 0}, p1 = {1000, 0, 0, 1, 0, 0};
	struct wl l0 = {.n = 0}, l1 = {.n = 0};
	struct td t;
	char *text;

	fx_buffer(w, 1, 301, "one");
	fx_buffer(w, 2, 302, "two");
	/* cpu 1: main() { 600 x bar(); } */
	wl_entry(&l1, 0, 0);
	for (int i = 0; i < 600; i++) {
		wl_entry(&l1, 2, 1);
		wl_exit(&l1, 1);
	}
	wl_exit(&l1, 1);
	/* cpu 0: foo(); at the same times as cpu 1's records */
	wl_entry(&l0, 0, 0);
	for (int i = 0; i < 600; i++) {
		wl_entry(&l0, 1, 1);
		wl_exit(&l0, 2);
	}
	wl_exit(&l0, 1);
	fx_page(w, 2, &p1, &l1);
	fx_page(w, 1, &p0, &l0);
	fx_end(w);
	if (convert(dat, out, NULL) < 0)
		return;
	td_read(&t, out);
	check(!t.why, "ties: a well-formed trace.dat (%s)", t.why ? t.why : "ok");
	check(t.size[0] > 4096 && t.size[1] > 4096, "ties: several pages a CPU");
	check(!strcmp(t.cmdlines ? t.cmdlines : "", "301 one\n302 two\n"), "ties: two tasks");
	td_free(&t);

	text = trace_cmd_report(out, "", "ties");
	check(!text || (count(text, "bar();") == 600 && count(text, "foo();") == 600 &&
			count(text, "() {") == 2),
	      "ties: trace-cmd prints every leaf as one line (%zu bar();, %zu foo();, %zu {)",
	      count(text, "bar();"), count(text, "foo();"), count(text, "() {"));
	check(!text || (count(text, "one-301") == 602 && count(text, "two-302") == 602),
	      "ties: task names");
	free(text);
}

static void test_symbol_names(void)
{
	static const char *const cases[][2] = {
	    {"main", "main"},
	    {"foo.cold", "foo.cold"},
	    {"ns::Foo::bar(int, char const*) const", "ns::Foo::bar"},
	    {"Guard::~Guard()", "Guard::~Guard"},
	    {"void ns::f<int, long>(int)", "ns::f<int,long>"},
	    {"std::vector<std::vector<int> >::push_back(int const&)",
	     "std::vector<std::vector<int>>::push_back"},
	    {"foo(int) [clone .constprop.0] [clone .cold]", "foo.constprop.0.cold"},
	    {"(anonymous namespace)::helper(int)", "(anonymous_namespace)::helper"},
	    {"operator new(unsigned long)", "operator_new"},
	    {"Foo::operator()(int) &&", "Foo::operator()"},
	    {"<id 99>", "<id_99>"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = utrace_tracedat_symbol_name(cases[i][0]);

		check(s && !strcmp(s, cases[i][1]), "symbol name '%s' -> '%s' (got '%s')",
		      cases[i][0], cases[i][1], s ? s : "(null)");
		free(s);
	}
}

/* An EVENT_FORMAT record: the kernel's format text of event id. */
static void fx_event_format(struct utrace_dat_writer *w, int id, const char *sys, const char *text)
{
	struct utrace_dat_event_format ef = {(uint32_t)id, 0};
	struct iovec iov[3] = {
	    {&ef, sizeof(ef)}, {(void *)sys, strlen(sys) + 1}, {(void *)text, strlen(text)}};
	struct utrace_error err;

	if (utrace_dat_write(w, UTRACE_DAT_EVENT_FORMAT, iov, 3, &err) < 0)
		fx_die(&err);
}

#define EV_COMMON                                                                                  \
	"format:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"            \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"             \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/*
 * Tracepoints, kernel events and utrace_printf text: every event of the
 * recording with its own format, under its system (issue: convert wrote
 * the function records only).  Buffer 7 (test-100, cpu 2):
 *   main() { demo_word(count=7) "hello" sys_x(x=5) <id without format> }
 */
static void test_events(void)
{
	const char *dat = check_path("events.dat"), *out = check_path("events.trace.dat");
	struct utrace_dat_writer *w = fx_begin(dat, "function_graph");
	struct fx_page p = {1000, 0, 0, 2, 0, 0};
	struct utrace_tracedat_stats st;
	struct wl l = {.n = 0};
	struct td t;
	char *text;

	fx_event_format(w, 32768, "demo",
			"name: demo_word\nID: 32768\n" EV_COMMON
			"\tfield:int count;\toffset:8;\tsize:4;\tsigned:1;\n\n"
			"print fmt: \"count=%d\", REC->count\n");
	fx_event_format(w, 300, "kern",
			"name: sys_x\nID: 300\n" EV_COMMON
			"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
			"print fmt: \"x=%d\", REC->x\n");
	/* ftrace's own ids are the file's function events: left out */
	fx_event_format(w, 1, "ftrace", "name: function\nID: 1\n" EV_COMMON "\nprint fmt: \"\"\n");
	fx_buffer(w, 7, 100, "test");
	wl_entry(&l, 0, 0); /* main @1000 */
	wl_put(&l, urec_ext(UEXT_EVENT, 1));
	wl_put(&l, 10);		      /* @1010 */
	wl_put(&l, 32768 | 4u << 16); /* demo_word, 4 bytes */
	wl_put(&l, 7);		      /* count */
	wl_put(&l, urec_ext(UEXT_PRINT, 2));
	wl_put(&l, 10); /* @1020 */
	wl_put(&l, 5);	/* "hello" */
	wl_put(&l, 'h' | 'e' << 8 | 'l' << 16 | 'l' << 24);
	wl_put(&l, 'o');
	wl_put(&l, urec_ext(UEXT_EVENT, 1));
	wl_put(&l, 10);		    /* @1030 */
	wl_put(&l, 300 | 4u << 16); /* sys_x */
	wl_put(&l, 5);
	wl_put(&l, urec_ext(UEXT_EVENT, 1));
	wl_put(&l, 10);		      /* @1040 */
	wl_put(&l, 12345 | 4u << 16); /* no format */
	wl_put(&l, 9);
	wl_exit(&l, 10); /* @1050 */
	fx_page(w, 7, &p, &l);
	fx_end(w);
	if (convert(dat, out, &st) < 0)
		return;
	check(st.tracepoints == 3 && st.skipped == 1 && st.events == 5,
	      "events: 3 events and the print written, the one without a format left out "
	      "(tracepoints %llu, skipped %llu, events %llu)",
	      (unsigned long long)st.tracepoints, (unsigned long long)st.skipped,
	      (unsigned long long)st.events);
	td_read(&t, out);
	check(!t.why, "events: a well-formed trace.dat (%s)", t.why ? t.why : "ok");
	check(t.nr_systems == 2 && t.nr_sys_formats == 2 && !strcmp(t.system0, "demo"),
	      "events: the formats of systems demo and kern (%u systems, %u formats, first %s)",
	      t.nr_systems, t.nr_sys_formats, t.system0);
	check(t.n == 5 && t.r[1].type == 301 && t.r[1].pid == 100 && t.r[1].ts == 1010 &&
		  t.r[2].type == UTRACE_TRACEDAT_PRINT && t.r[3].type == 300 && t.r[4].ts == 1050,
	      "events: common_type is the event id (a user event's after the kernel's highest, "
	      "below 32768 for KernelShark: %d), common_pid the thread, in time order",
	      t.n > 1 ? t.r[1].type : -1);
	check(t.format0 && strstr(t.format0, "name: demo_word\nID: 301\nformat:"),
	      "events: the user event's format says its id in the file");
	check(t.kallsyms && strstr(t.kallsyms, " T utrace_printf\n"),
	      "events: kallsyms names the print events' ip utrace_printf");
	td_free(&t);

	text = trace_cmd_report(out, "", "events");
	{
		static const char *const want[] = {
		    "test-100 [002] 0.000001: demo_word: count=7",
		    "test-100 [002] 0.000001: print: utrace_printf: hello",
		    "test-100 [002] 0.000001: sys_x: x=5",
		};

		expect_lines(text, want, sizeof(want) / sizeof(want[0]), "events");
	}
	free(text);
}

static void test_errors(void)
{
	const char *dat = check_path("err.dat");
	struct utrace_dat_writer *w = fx_begin(dat, "function_graph");
	struct utrace_error err;
	struct utrace_dat *d;
	struct stat sb;

	fx_graph_basic(w);
	fx_end(w);
	if (utrace_dat_open(dat, &d, &err) < 0) {
		check(0, "errors: open");
		return;
	}
	check(utrace_tracedat_convert(d, dat, NULL, &err) < 0 && strstr(err.msg, "is the input"),
	      "errors: the output cannot be the input (%s)", err.msg);
	check(stat(dat, &sb) == 0 && sb.st_size > 0, "errors: the input is left alone");
	check(utrace_tracedat_convert(d, "/nonexistent/dir/trace.dat", NULL, &err) < 0 &&
		  strstr(err.msg, "/nonexistent/dir/trace.dat: cannot create"),
	      "errors: a directory that does not exist (%s)", err.msg);
	check(utrace_tracedat_convert(d, "/dev/null", NULL, &err) < 0 &&
		  strstr(err.msg, "not a regular file") && stat("/dev/null", &sb) == 0,
	      "errors: not a regular file (%s)", err.msg);
	utrace_dat_close(d);
}

int main(void)
{
	if (check_tmpdir_init("tracedat") < 0) {
		perror("mkdtemp");
		return 2;
	}
	test_graph();
	test_lost();
	test_function();
	test_ties_pages();
	test_symbol_names();
	test_events();
	test_errors();
	check_tmpdir_cleanup();
	return check_done();
}
