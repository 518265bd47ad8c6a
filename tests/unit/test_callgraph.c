/* SPDX-License-Identifier: MIT */
/*
 * test_callgraph.c - `utrace graph` (lib/report/callgraph.c) on synthetic
 * utrace.dat files: the exact text of uftrace graph's layout (backtraces,
 * "+-" and "|" connectors, blank lines between callees, columns), calls
 * of a function from several paths merged, the whole graph, recursion,
 * callers missing from the stream ("[unknown]"), and a recursion deeper
 * than the printer goes.
 */
#include <errno.h>
#include <stdio.h>

#include "lib/report/callgraph.h"
#include "lib/tracefile/dat_reader.h"
#include "lib/report/report_filter.h"
#include "tests/unit/trace_fixture.h"

/* The graph of path (selection key=value if key); NULL on error. */
static struct utrace_callgraph *graph_of(const char *path, const char *key, const char *value,
					 struct utrace_dat **dp)
{
	struct utrace_dat *d = fx_open(path);
	struct utrace_report_filter *f;
	struct utrace_callgraph *g;
	struct utrace_error err;
	int ret;

	if (!d)
		return NULL;
	f = fx_filter(key, value);
	ret = fx_callgraph(d, f, &g, &err);
	utrace_report_filter_free(f);
	if (ret < 0) {
		printf("# %s\n", err.msg);
		utrace_callgraph_free(g);
		utrace_dat_close(d);
		return NULL;
	}
	*dp = d;
	return g;
}

/* func "*": the whole graph */
static char *print(struct utrace_callgraph *g, const char *func, uint32_t fields, unsigned levels)
{
	struct utrace_error err;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (func && !strcmp(func, "*"))
		ret = utrace_callgraph_print_all(g, f, fields, levels, &err);
	else
		ret = utrace_callgraph_print(g, f, func, fields, levels, &err);
	fclose(f);
	if (ret < 0) {
		printf("# %s\n", err.msg);
		free(text);
		return NULL;
	}
	return text;
}

static void test_basic(void)
{
	const char *path = check_path("basic.dat");
	struct utrace_callgraph *g;
	struct utrace_error err;
	struct utrace_dat *d;
	char head[600];
	FILE *f;

	fx_write_graph_basic(path);
	g = graph_of(path, NULL, NULL, &d);
	if (!g) {
		check(0, "basic: graph");
		return;
	}
	snprintf(head, sizeof(head), "# Function Call Graph for 'main' (%s)\n", path);
	fx_golden_free("basic: main by default (uftrace graph layout)",
		       print(g, NULL, UTRACE_PROFILE_TOTAL, 0),
		       strcat(head, "=============== BACKTRACE ===============\n"
				    " backtrace #0: hit 1, time   2.016  s\n"
				    "   [0] main (0x1100)\n"
				    "\n"
				    "========== FUNCTION CALL GRAPH ==========\n"
				    "# TOTAL TIME   FUNCTION\n"
				    "    2.016  s : (1) main\n"
				    "    0.005 us :  +-(1) foo\n"
				    "             :  | \n"
				    "   16.777 ms :  +-(1) bar\n"
				    "   16.777 ms :     +-(1) 0x1400\n"
				    "             :     | \n"
				    "    0.100 us :     +-(1) foo\n"
				    "\n"));

	snprintf(head, sizeof(head), "# Function Call Graph for 'foo' (%s)\n", path);
	fx_golden_free("basic: foo from two paths, merged",
		       print(g, "foo", UTRACE_PROFILE_TOTAL, 0),
		       strcat(head, "=============== BACKTRACE ===============\n"
				    " backtrace #0: hit 1, time   0.005 us\n"
				    "   [0] main (0x1100)\n"
				    "   [1] foo (0x1204)\n"
				    "\n"
				    " backtrace #1: hit 1, time   0.100 us\n"
				    "   [0] main (0x1100)\n"
				    "   [1] bar (0x1300)\n"
				    "   [2] foo (0x1204)\n"
				    "\n"
				    "========== FUNCTION CALL GRAPH ==========\n"
				    "# TOTAL TIME   FUNCTION\n"
				    "    0.105 us : (2) foo\n"
				    "\n"));

	snprintf(head, sizeof(head), "# Function Call Graph for 'bar' (%s)\n", path);
	fx_golden_free("basic: bar with total, self, total-avg, self-max",
		       print(g, "bar",
			     UTRACE_PROFILE_TOTAL | UTRACE_PROFILE_SELF | UTRACE_PROFILE_TOTAL_AVG |
				 UTRACE_PROFILE_SELF_MAX,
			     0),
		       strcat(head,
			      "=============== BACKTRACE ===============\n"
			      " backtrace #0: hit 1, time  16.777 ms\n"
			      "   [0] main (0x1100)\n"
			      "   [1] bar (0x1300)\n"
			      "\n"
			      "========== FUNCTION CALL GRAPH ==========\n"
			      "# TOTAL TIME   SELF TIME   TOTAL AVG    SELF MAX   FUNCTION\n"
			      "   16.777 ms    0.011 us   16.777 ms    0.011 us : (1) bar\n"
			      "   16.777 ms   16.777 ms   16.777 ms   16.777 ms :  +-(1) 0x1400\n"
			      "                                                 :  | \n"
			      "    0.100 us    0.100 us    0.100 us    0.100 us :  +-(1) foo\n"
			      "\n"));

	snprintf(head, sizeof(head), "# Function Call Graph for 'utrace-test' (%s)\n", path);
	fx_golden_free("basic: the whole graph, no columns", print(g, "*", 0, 0),
		       strcat(head, "========== FUNCTION CALL GRAPH ==========\n"
				    "(1) utrace-test\n"
				    "(1) main\n"
				    " +-(1) foo\n"
				    " | \n"
				    " +-(1) bar\n"
				    "    +-(1) 0x1400\n"
				    "    | \n"
				    "    +-(1) foo\n"
				    "\n"));

	f = fopen("/dev/null", "w");
	check(utrace_callgraph_print(g, f, "baz", UTRACE_PROFILE_TOTAL, 0, &err) == -ENOENT &&
		  strstr(err.msg, "no call of 'baz'"),
	      "basic: a function never called: %s", err.msg);
	fclose(f);
	check(utrace_callgraph_unfinished(g) == 0, "basic: nothing unfinished");
	utrace_callgraph_free(g);
	utrace_dat_close(d);

	/* the selection applies: -F bar, depths from bar */
	g = graph_of(path, "filter", "bar", &d);
	snprintf(head, sizeof(head), "# Function Call Graph for 'utrace-test' (%s)\n", path);
	fx_golden_free("-F bar: main is not in the graph",
		       g ? print(g, NULL, UTRACE_PROFILE_TOTAL, 0) : NULL,
		       strcat(head, "========== FUNCTION CALL GRAPH ==========\n"
				    "# TOTAL TIME   FUNCTION\n"
				    "   16.777 ms : (1) utrace-test\n"
				    "   16.777 ms : (1) bar\n"
				    "   16.777 ms :  +-(1) 0x1400\n"
				    "             :  | \n"
				    "    0.100 us :  +-(1) foo\n"
				    "\n"));
	utrace_callgraph_free(g);
	utrace_dat_close(d);
}

struct walked {
	char text[4096];
	size_t len;
};

static int walk_node(void *arg, const struct utrace_callgraph_node *n)
{
	struct walked *w = arg;

	w->len += (size_t)snprintf(w->text + w->len, sizeof(w->text) - w->len,
				   "%u %s calls=%llu total=%llu self=%llu\n", n->depth, n->name,
				   (unsigned long long)n->calls, (unsigned long long)n->total,
				   (unsigned long long)n->self);
	return 0;
}

/*
 * main() { foo() { foo() { foo(); } foo(); } }, then a thread whose
 * recording starts two calls deep (an --overwrite buffer): foo() under
 * callers the stream does not show, and a main that never returns.
 */
static void test_recursion_unknown(void)
{
	const char *path = check_path("rec.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p2 = {5000, 0, 0, 1, UTRACE_SB_CONTEXT, 2};
	struct walked walked = {"", 0};
	struct wl l2 = {.n = 0};
	struct utrace_callgraph *g;
	struct utrace_dat *d;
	char head[600];

	fx_graph_recursion(w);

	fx_buffer(w, 2, 101, "late");
	wl_ext(&l2, UEXT_CONTEXT, 0);
	wl_put(&l2, 2);	     /* two frames open, unknown */
	wl_entry(&l2, 1, 0); /* foo @5000, depth 2 */
	wl_exit(&l2, 7);     /* @5007 */
	wl_exit(&l2, 3);     /* depth 1, unknown: @5010 */
	wl_entry(&l2, 0, 0); /* main @5010, depth 1, never returns */
	wl_entry(&l2, 2, 10);
	wl_exit(&l2, 10); /* bar @5020-5030 */
	fx_page(w, 2, &p2, &l2);
	fx_end(w);

	g = graph_of(path, NULL, NULL, &d);
	if (!g) {
		check(0, "recursion: graph");
		return;
	}
	check(utrace_callgraph_walk(g, walk_node, &walked) == 0, "walk: done");
	fx_golden_free("walk: paths, calls, total and self", strdup(walked.text),
		       "0 main calls=1 total=200 self=110\n"
		       "1 foo calls=1 total=90 self=50\n"
		       "2 foo calls=2 total=40 self=35\n"
		       "3 foo calls=1 total=5 self=5\n"
		       "0 [unknown] calls=2 total=0 self=0\n"
		       "1 foo calls=1 total=7 self=7\n"
		       "1 main calls=1 total=20 self=10\n"
		       "2 bar calls=1 total=10 self=10\n");
	check(utrace_callgraph_unfinished(g) == 1, "unfinished: main of the second thread");

	snprintf(head, sizeof(head), "# Function Call Graph for 'main' (%s)\n", path);
	fx_golden_free("recursion: main from two paths", print(g, NULL, UTRACE_PROFILE_TOTAL, 0),
		       strcat(head, "=============== BACKTRACE ===============\n"
				    " backtrace #0: hit 1, time   0.200 us\n"
				    "   [0] main (0x1100)\n"
				    "\n"
				    " backtrace #1: hit 1, time   0.020 us\n"
				    "   [0] [unknown]\n"
				    "   [1] main (0x1100)\n"
				    "\n"
				    "========== FUNCTION CALL GRAPH ==========\n"
				    "# TOTAL TIME   FUNCTION\n"
				    "    0.220 us : (2) main\n"
				    "    0.090 us :  +-(1) foo\n"
				    "    0.040 us :  | (2) foo\n"
				    "    0.005 us :  | (1) foo\n"
				    "             :  | \n"
				    "    0.010 us :  +-(1) bar\n"
				    "\n"));
	utrace_callgraph_free(g);
	utrace_dat_close(d);
}

/* 3000 nested calls of foo: printing stops at --levels, nothing overflows. */
static void test_deep(void)
{
	const char *path = check_path("deep.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct utrace_callgraph *g;
	struct utrace_dat *d;
	char *text;

	fx_graph_deep(w, 3000);
	fx_end(w);
	g = graph_of(path, NULL, NULL, &d);
	if (!g) {
		check(0, "deep: graph");
		return;
	}
	text = print(g, "foo", 0, 5);
	check(text && strstr(text, "(1) foo\n(1) foo\n(1) foo\n(1) foo\n(1) foo ...\n\n"),
	      "deep: 5 levels, the cut marked");
	free(text);
	text = print(g, "foo", UTRACE_PROFILE_TOTAL, 0);
	check(text && strstr(text, "(1) foo ...\n") && !strstr(text, "(2)"),
	      "deep: default 1000 levels");
	free(text);
	utrace_callgraph_free(g);
	utrace_dat_close(d);
}

/*
 * Coroutines: main() calls foo(), which switches to another program stack
 * where bar() starts; foo returns on main's stack, bar on its own, main
 * last.  bar is a root of its own, and no callee's time is credited to a
 * frame of the other stack.
 */
static void test_coroutines(void)
{
	const char *path = check_path("coro.dat");
	struct walked walked = {"", 0};
	struct utrace_callgraph *g;
	struct utrace_dat *d;

	fx_write_coro(path);
	g = graph_of(path, NULL, NULL, &d);
	if (!g) {
		check(0, "coroutines: graph");
		return;
	}
	check(utrace_callgraph_walk(g, walk_node, &walked) == 0, "coroutines: walk");
	fx_golden_free("coroutines: each stack's calls under its own root", strdup(walked.text),
		       "0 main calls=1 total=100 self=60\n"
		       "1 foo calls=1 total=40 self=40\n"
		       "0 bar calls=1 total=40 self=40\n");
	check(utrace_callgraph_unfinished(g) == 0, "coroutines: nothing unfinished");
	utrace_callgraph_free(g);
	utrace_dat_close(d);
}

int main(void)
{
	check_begin("callgraph");
	test_basic();
	test_recursion_unknown();
	test_coroutines();
	test_deep();
	return check_end();
}
