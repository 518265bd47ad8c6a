/* SPDX-License-Identifier: MIT */
/*
 * test_export.c - `utrace dump --chrome` (lib/export/export_chrome.c) and
 * `utrace dump --flame-graph` (lib/export/export_flame.c) on synthetic utrace.dat
 * files: the exact JSON (metadata, B/E/X/i events, microsecond times with
 * nanosecond decimals), X events for returns whose entry is not shown,
 * the --complete form, lost events, JSON string escaping, the documents
 * checked by python3 -m json.tool, and the exact folded stacks in ns and
 * us.
 */
#include <stdio.h>

#include "lib/report/callgraph.h"
#include "lib/tracefile/dat_reader.h"
#include "lib/export/export_chrome.h"
#include "lib/export/json.h"
#include "lib/export/export_diff.h"
#include "lib/export/export_flame.h"
#include "lib/export/export_pprof.h"
#include "lib/export/export_svg.h"
#include "lib/report/report_filter.h"
#include "tests/unit/trace_fixture.h"

static int chrome_add(void *arg, const struct utrace_event *ev, struct utrace_error *err)
{
	return utrace_chrome_event(arg, ev, err);
}

struct chrome_args {
	uint32_t flags;
	struct utrace_report_filter *f;
};

static int chrome_write(struct utrace_dat *d, FILE *out, void *arg, struct utrace_error *err)
{
	const struct chrome_args *a = arg;
	struct utrace_pass_stats st;
	struct utrace_chrome *c;
	int ret = utrace_chrome_begin(d, a->f, out, a->flags, &c, err);

	if (ret == 0) {
		ret = utrace_report_filter_run(a->f, d, chrome_add, c, &st, err);
		if (utrace_chrome_end(c, ret ? NULL : err) < 0)
			ret = -1;
	}
	return ret;
}

/* The JSON of path (selection key=value if key); NULL on error. */
static char *chrome(const char *path, uint32_t flags, const char *key, const char *value)
{
	struct chrome_args a = {flags, fx_filter(key, value)};
	char *text = fx_text(path, chrome_write, &a);

	utrace_report_filter_free(a.f);
	return text;
}

static int flame_write(struct utrace_dat *d, FILE *out, void *arg, struct utrace_error *err)
{
	struct utrace_callgraph *g;
	int ret = fx_callgraph(d, NULL, &g, err);

	if (ret == 0)
		ret = utrace_export_flame(g, out, *(const enum utrace_flame_unit *)arg, err);
	utrace_callgraph_free(g);
	return ret;
}

static char *flame(const char *path, enum utrace_flame_unit unit)
{
	return fx_text(path, flame_write, &unit);
}

/* Checks text with python3 -m json.tool, if python3 is here. */
static void valid_json(const char *what, const char *text)
{
	char cmd[600];

	if (!text) {
		check(0, "%s: valid JSON (no text)", what);
		return;
	}
	if (!check_have("python3")) {
		check_skip(what, "no python3");
		return;
	}
	if (check_write_file("check.json", text, strlen(text)) < 0) {
		check(0, "%s: write check.json", what);
		return;
	}
	snprintf(cmd, sizeof(cmd), "python3 -m json.tool '%s' >/dev/null",
		 check_path("check.json"));
	check(system(cmd) == 0, "%s: python3 -m json.tool accepts it", what);
}

static const char *other_data(const char *path)
{
	static char buf[700];

	snprintf(buf, sizeof(buf),
		 "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"source\":\"utrace\",\"file\":"
		 "\"%s\",\"tracer\":\"function_graph\",\"command\":\"test prog\"}}\n",
		 path);
	return buf;
}

#define META                                                                                       \
	"{\"traceEvents\":[\n"                                                                     \
	"{\"ph\":\"M\",\"pid\":100,\"tid\":100,\"name\":\"process_name\",\"args\":{\"name\":"      \
	"\"utrace-test\"}},\n"                                                                     \
	"{\"ph\":\"M\",\"pid\":100,\"tid\":100,\"name\":\"thread_name\",\"args\":{\"name\":"       \
	"\"test\"}},\n"

/* The X events of the second foo(), bar() and main(), which --complete
 * writes at their returns, in this order. */
#define X_FOO_BAR_MAIN                                                                             \
	"{\"ts\":16778.260,\"ph\":\"X\",\"pid\":100,\"tid\":100,\"name\":\"foo\","                 \
	"\"dur\":0.100},\n"                                                                        \
	"{\"ts\":1.020,\"ph\":\"X\",\"pid\":100,\"tid\":100,\"name\":\"bar\","                     \
	"\"dur\":16777.347},\n"                                                                    \
	"{\"ts\":1.000,\"ph\":\"X\",\"pid\":100,\"tid\":100,\"name\":\"main\","                    \
	"\"dur\":2016777.367}"

static void test_chrome(void)
{
	char path[512];
	char want[4096], *text;

	snprintf(path, sizeof(path), "%s", check_path("basic.dat"));
	fx_write_graph_basic(path);

	text = chrome(path, 0, NULL, NULL);
	snprintf(
	    want, sizeof(want), "%s%s%s", META,
	    "{\"ts\":1.000,\"ph\":\"B\",\"pid\":100,\"tid\":100,\"name\":\"main\"},\n"
	    "{\"ts\":1.010,\"ph\":\"X\",\"pid\":100,\"tid\":100,\"name\":\"foo\",\"dur\":0.005},\n"
	    "{\"ts\":1.020,\"ph\":\"B\",\"pid\":100,\"tid\":100,\"name\":\"bar\"},\n"
	    "{\"ts\":1.021,\"ph\":\"X\",\"pid\":100,\"tid\":100,\"name\":\"0x1400\","
	    "\"dur\":16777.236},\n"
	    "{\"ts\":16778.260,\"ph\":\"X\",\"pid\":100,\"tid\":100,\"name\":\"foo\","
	    "\"dur\":0.100},\n"
	    "{\"ts\":16778.367,\"ph\":\"E\",\"pid\":100,\"tid\":100,\"name\":\"bar\"},\n"
	    "{\"ts\":2016778.367,\"ph\":\"E\",\"pid\":100,\"tid\":100,\"name\":\"main\"}",
	    other_data(path));
	fx_golden("chrome: B/E and X events, us with ns decimals", text, want);
	valid_json("chrome", text);
	free(text);

	text = chrome(path, UTRACE_CHROME_COMPLETE, NULL, NULL);
	snprintf(
	    want, sizeof(want), "%s%s%s", META,
	    "{\"ts\":1.010,\"ph\":\"X\",\"pid\":100,\"tid\":100,\"name\":\"foo\",\"dur\":0.005},\n"
	    "{\"ts\":1.021,\"ph\":\"X\",\"pid\":100,\"tid\":100,\"name\":\"0x1400\","
	    "\"dur\":16777.236},\n" X_FOO_BAR_MAIN,
	    other_data(path));
	fx_golden("chrome --complete: one X per call, at its return", text, want);
	valid_json("chrome --complete", text);
	free(text);

	text = chrome(path, 0, "cpu", "3");
	snprintf(want, sizeof(want), "%s%s%s", META, X_FOO_BAR_MAIN, other_data(path));
	fx_golden("chrome --cpu 3: returns whose entry is filtered out become X", text, want);
	free(text);

	text = chrome(path, 0, "tid", "5");
	snprintf(want, sizeof(want), "{\"traceEvents\":[\n%s", other_data(path));
	fx_golden("chrome --tid 5: an empty document", text, want);
	valid_json("chrome, empty", text);
	free(text);
}

/* Two threads of one process, events lost in one, a --thresh return. */
static void test_chrome_threads_lost(void)
{
	char path[512];
	struct utrace_dat_writer *w;
	struct fx_page p1 = {3000, 0, 0, 0, 0, 0}, p2 = {4000, 0, 0, 1, 0, 0};
	struct wl l1 = {.n = 0}, l2 = {.n = 0};
	char want[4096], *text;

	snprintf(path, sizeof(path), "%s", check_path("lost.dat"));
	w = fx_begin(path, "function_graph");
	fx_buffer(w, 1, 100, "test");
	fx_buffer(w, 2, 101, "work\"er");
	wl_entry(&l1, 1, 0); /* foo @3000 */
	wl_ext(&l1, UEXT_LOST, 0);
	wl_u64(&l1, 3);
	wl_exit(&l1, 10); /* @3010 */
	fx_page(w, 1, &p1, &l1);
	wl_leaf(&l2, 50, 2, 0, 40); /* bar ended @4050 after 40 */
	fx_page(w, 2, &p2, &l2);
	fx_end(w);

	text = chrome(path, 0, NULL, NULL);
	snprintf(
	    want, sizeof(want), "%s%s",
	    "{\"traceEvents\":[\n"
	    "{\"ph\":\"M\",\"pid\":100,\"tid\":100,\"name\":\"thread_name\",\"args\":{\"name\":"
	    "\"test\"}},\n"
	    "{\"ph\":\"M\",\"pid\":100,\"tid\":101,\"name\":\"process_name\",\"args\":{\"name\":"
	    "\"utrace-test\"}},\n"
	    "{\"ph\":\"M\",\"pid\":100,\"tid\":101,\"name\":\"thread_name\",\"args\":{\"name\":"
	    "\"work\\\"er\"}},\n"
	    "{\"ts\":3.000,\"ph\":\"B\",\"pid\":100,\"tid\":100,\"name\":\"foo\"},\n"
	    "{\"ts\":3.000,\"ph\":\"i\",\"pid\":100,\"tid\":100,\"name\":\"LOST 3 EVENTS\","
	    "\"s\":\"t\"},\n"
	    "{\"ts\":3.010,\"ph\":\"E\",\"pid\":100,\"tid\":100,\"name\":\"foo\"},\n"
	    "{\"ts\":4.010,\"ph\":\"X\",\"pid\":100,\"tid\":101,\"name\":\"bar\","
	    "\"dur\":0.040}",
	    other_data(path));
	fx_golden("chrome: threads named, lost events, a thresh return", text, want);
	valid_json("chrome, threads", text);
	free(text);
}

static void test_json_string(void)
{
	char *text = NULL, doc[256];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	utrace_json_string(out, "a\"b\\c\n\x01\xff\xc3\xa9\xe2\x82 ns::f(int, char const*)");
	fclose(out);
	fx_golden("json: escapes, bad UTF-8 replaced, good kept", text,
		  "a\\\"b\\\\c\\u000a\\u0001\\ufffd\xc3\xa9\\ufffd\\ufffd ns::f(int, char const*)");
	snprintf(doc, sizeof(doc), "{\"s\":\"%s\"}\n", text ? text : "");
	valid_json("json: escaped string", doc);
	free(text);
}

static void test_flame(void)
{
	char path[512];
	char *text;

	snprintf(path, sizeof(path), "%s", check_path("flame.dat"));
	fx_write_graph_basic(path);
	text = flame(path, UTRACE_FLAME_NS);
	fx_golden("flame: folded stacks, self time in ns", text,
		  "main 2000000015\n"
		  "main;foo 5\n"
		  "main;bar 11\n"
		  "main;bar;0x1400 16777236\n"
		  "main;bar;foo 100\n");
	free(text);
	text = flame(path, UTRACE_FLAME_US);
	fx_golden("flame: in us, paths under 1 us left out", text,
		  "main 2000000\n"
		  "main;bar;0x1400 16777\n");
	free(text);
}

/* path's call graph as a gzipped pprof profile in out; 0 or -1. */
static int pprof_file(const char *path, const char *out)
{
	struct utrace_callgraph *g = NULL;
	struct utrace_error err;
	struct utrace_dat *d;
	FILE *fp;
	int ret = -1;

	if (utrace_dat_open(path, &d, &err) < 0) {
		check(0, "open %s: %s", path, err.msg);
		return -1;
	}
	fp = fopen(out, "w");
	if (fp && fx_callgraph(d, NULL, &g, &err) == 0)
		ret = utrace_export_pprof(g, "/nonexistent/utrace-test", fp, &err);
	if (fp && fclose(fp) != 0)
		ret = -1;
	check(ret == 0, "pprof: export %s (%s)", path, ret ? err.msg : "ok");
	utrace_callgraph_free(g);
	utrace_dat_close(d);
	return ret;
}

/* Blanks squeezed to one, so that column widths do not matter. */
static char *squeeze_blanks(char *s)
{
	char *w = s;

	for (char *r = s; s && *r; r++)
		if (*r != ' ' || (w > s && w[-1] != ' ' && w[-1] != '\n'))
			*w++ = *r;
	if (s)
		*w = 0;
	return s;
}

/*
 * The profile read back by the real `go tool pprof -raw`: one sample per
 * call path, leaf first, [calls, self ns] as the flame graph's weights;
 * a location and a function per name; the program as the mapping.
 */
static void test_pprof(void)
{
	char path[512], out[600], txt[700], cmd[1600];
	char *text;
	size_t len;

	snprintf(path, sizeof(path), "%s", check_path("pprof.dat"));
	snprintf(out, sizeof(out), "%s.pb.gz", path);
	snprintf(txt, sizeof(txt), "%s.txt", path);
	fx_write_graph_basic(path);
	if (pprof_file(path, out) < 0)
		return;
	text = check_slurp(out, &len);
	check(text && len > 18 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b,
	      "pprof: a gzip file");
	free(text);
	if (!check_have("go")) {
		check_skip("pprof: go tool pprof reads it", "go is not installed");
		return;
	}
	snprintf(cmd, sizeof(cmd), "go tool pprof -raw '%s' >'%s' 2>/dev/null", out, txt);
	check(system(cmd) == 0, "pprof: go tool pprof -raw exits 0");
	text = squeeze_blanks(check_slurp(txt, &len));
	fx_golden("pprof: samples, locations and mapping as go tool pprof reads them", text,
		  "PeriodType: time nanoseconds\n"
		  "Period: 1\n"
		  "Samples:\n"
		  "calls/count time/nanoseconds[dflt]\n"
		  "1 2000000015: 1 \n"
		  "1 5: 2 1 \n"
		  "1 11: 3 1 \n"
		  "1 16777236: 4 3 1 \n"
		  "1 100: 2 3 1 \n"
		  "Locations\n"
		  "1: 0x0 M=1 main :0 s=0\n"
		  "2: 0x0 M=1 foo :0 s=0\n"
		  "3: 0x0 M=1 bar :0 s=0\n"
		  "4: 0x0 M=1 0x1400 :0 s=0\n"
		  "Mappings\n"
		  "1: 0x0/0x0/0x0 /nonexistent/utrace-test [FN]\n");
	free(text);
}

/* 1100 nested calls: the stacks stop at UTRACE_FLAME_MAX_DEPTH frames. */
static void test_flame_deep(void)
{
	char path[512];
	struct utrace_dat_writer *w;
	size_t lines = 0, frames = 0;
	char *text;

	snprintf(path, sizeof(path), "%s", check_path("deep.dat"));
	w = fx_begin(path, "function_graph");
	fx_graph_deep(w, 1100);
	fx_end(w);
	text = flame(path, UTRACE_FLAME_NS);
	for (const char *s = text ? text : ""; *s; s++) {
		lines += *s == '\n';
		frames += *s == ';' && lines == UTRACE_FLAME_MAX_DEPTH - 1;
	}
	check(lines == UTRACE_FLAME_MAX_DEPTH && frames == UTRACE_FLAME_MAX_DEPTH - 1,
	      "flame: %zu lines, the last %zu frames deep", lines, frames + 1);
	free(text);
}

/* The SVG of path's graph against base_path's (--diff). */
static int diff_write(struct utrace_dat *d, FILE *out, void *arg, struct utrace_error *err)
{
	struct utrace_callgraph *g = NULL, *bg = NULL;
	struct utrace_svg_opts o = {NULL, false, 0, NULL};
	struct utrace_dat *base;
	int ret = utrace_dat_open(arg, &base, err);

	if (ret < 0)
		return ret;
	ret = fx_callgraph(base, NULL, &bg, err);
	if (ret == 0)
		ret = utrace_flame_diff_new(bg, &o.diff, err);
	if (ret == 0)
		ret = fx_callgraph(d, NULL, &g, err);
	if (ret == 0)
		ret = utrace_export_svg(g, &o, out, err);
	utrace_flame_diff_free(o.diff);
	utrace_callgraph_free(g);
	utrace_callgraph_free(bg);
	utrace_dat_close(base);
	return ret;
}

/* The fill of the frame whose title starts with title, "" if none. */
static const char *fill_of(const char *svg, const char *title, char buf[32])
{
	const char *t = svg ? strstr(svg, title) : NULL, *f = t ? strstr(t, "fill=\"") : NULL;

	buf[0] = '\0';
	if (f)
		sscanf(f, "fill=\"%31[^\"]", buf);
	return buf;
}

/*
 * A differential flame graph of the basic fixture (main: self 2000000015
 * ns; foo 5; bar 11, under it 0x1400 16777236 and foo 100) against the
 * recursion one (main: self 110; foo 50; foo;foo 35; foo;foo;foo 5).
 * flamegraph.pl's colours, with the largest change main's 1999999905:
 * red 255,0,0 for main; growth g = b = int(210 * (max - d) / max), so
 * 209 for bar's +11 and 208 for 0x1400's +16777236.  The other way
 * round main is full blue, and bar, only in the base, is not drawn.
 */
static void test_flame_diff(void)
{
	char path[512], base[512], buf[32];
	char *text;

	snprintf(path, sizeof(path), "%s", check_path("diff-new.dat"));
	snprintf(base, sizeof(base), "%s", check_path("diff-base.dat"));
	fx_write_graph_basic(path);
	{
		struct utrace_dat_writer *w = fx_begin(base, "function_graph");

		fx_graph_recursion(w);
		fx_end(w);
	}
	text = fx_text(path, diff_write, base);
	check(text && strstr(text, ">Differential Flame Graph<"), "diff: titled as such");
	check(!strcmp(fill_of(text, "<title>main (", buf), "rgb(255,0,0)"),
	      "diff: the largest growth is full red (%s)", buf);
	check(!strcmp(fill_of(text, "<title>bar (", buf), "rgb(255,209,209)"),
	      "diff: a frame new in the graph is red as its self time (%s)", buf);
	check(!strcmp(fill_of(text, "<title>0x1400 (", buf), "rgb(255,208,208)"),
	      "diff: a larger growth is a deeper red (%s)", buf);
	check(text && strstr(text, "<title>bar (1 calls, 16777.347 us") &&
		  strstr(text, "base: 0 calls, 0.000 us, self 0.000 us; self +0.011 us"),
	      "diff: a path the base lacks has zeros there");
	free(text);
	/* the other way round: main's self time shrank the most */
	text = fx_text(base, diff_write, path);
	check(!strcmp(fill_of(text, "<title>main (", buf), "rgb(0,0,255)"),
	      "diff: the largest shrink is full blue (%s)", buf);
	check(text && strstr(text, "<title>foo (1 calls, 0.090 us, 45.00%, self 0.050 us; base: "
				   "1 calls, 0.005 us, self 0.005 us; self +0.045 us, +22.50%)"),
	      "diff: the tooltip has both recordings' times and the change");
	check(text && !strstr(text, "<title>bar ("), "diff: a path only in the base is not drawn");
	free(text);
}

int main(void)
{
	check_begin("export");
	test_chrome();
	test_chrome_threads_lost();
	test_json_string();
	test_flame();
	test_pprof();
	test_flame_deep();
	test_flame_diff();
	return check_end();
}
