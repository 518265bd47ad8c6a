/* SPDX-License-Identifier: MIT */
/*
 * test_report.c - the text `utrace report` prints, against golden
 * output written from the kernel's formats (trace_functions_graph.c,
 * trace_output.c): function_graph with its default and optional columns,
 * the context-switch banner, lost events, returns without a known entry,
 * and the function tracer with its entries header.
 */
#include <stdio.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/report/report_text.h"
#include "tests/unit/trace_fixture.h"

/* Prints path with opts into a string; NULL on error. */
static char *render(const char *path, const struct utrace_report_opts *opts,
		    struct utrace_report_summary *sum)
{
	struct utrace_report_summary local = {0};
	char *text = fx_report(path, opts, sum ? sum : &local);

	if (!sum)
		utrace_report_summary_free(&local);
	return text;
}

static void test_graph(void)
{
	const char *path = check_path("graph.dat");
	struct utrace_report_opts opts;
	char *text;

	fx_write_graph_basic(path);
	utrace_report_opts_init(&opts);
	text = render(path, &opts, NULL);
	fx_golden("function_graph, default columns", text,
		  "# tracer: function_graph\n"
		  "#\n"
		  "# CPU  DURATION                  FUNCTION CALLS\n"
		  "# |     |   |                     |   |   |   |\n"
		  " 2)               |  main() {\n"
		  " 2)   0.005 us    |    foo();\n"
		  " 2)               |    bar() {\n"
		  " 2) * 16777.23 us |      0x1400();\n"
		  " 3)   0.100 us    |      foo();\n"
		  " 3) * 16777.34 us |    }\n"
		  " 3) $ 2016777 us  |  }\n");
	free(text);

	utrace_report_set_option(&opts, "funcgraph-proc", NULL);
	utrace_report_set_option(&opts, "funcgraph-abstime", NULL);
	utrace_report_set_option(&opts, "funcgraph-tail", NULL);
	text = render(path, &opts, NULL);
	fx_golden(
	    "function_graph, proc abstime tail", text,
	    "# tracer: function_graph\n"
	    "#\n"
	    "#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
	    "#      |          |     |    |           |   |                     |   |   |   |\n"
	    "    0.000001 |   2)    test-100    |               |  main() {\n"
	    "    0.000001 |   2)    test-100    |   0.005 us    |    foo();\n"
	    "    0.000001 |   2)    test-100    |               |    bar() {\n"
	    "    0.000001 |   2)    test-100    | * 16777.23 us |      0x1400();\n"
	    "    0.016778 |   3)    test-100    |   0.100 us    |      foo();\n"
	    "    0.016778 |   3)    test-100    | * 16777.34 us |    } /* bar */\n"
	    "    2.016778 |   3)    test-100    | $ 2016777 us  |  } /* main */\n");
	free(text);

	utrace_report_opts_init(&opts);
	utrace_report_set_option(&opts, "nofuncgraph-cpu", NULL);
	utrace_report_set_option(&opts, "nofuncgraph-overhead", NULL);
	text = render(path, &opts, NULL);
	fx_golden("function_graph, no cpu, no overhead", text,
		  "# tracer: function_graph\n"
		  "#\n"
		  "#  DURATION                  FUNCTION CALLS\n"
		  "#   |   |                     |   |   |   |\n"
		  "              |  main() {\n"
		  "  0.005 us    |    foo();\n"
		  "              |    bar() {\n"
		  "  16777.23 us |      0x1400();\n"
		  "  0.100 us    |      foo();\n"
		  "  16777.34 us |    }\n"
		  "  2016777 us  |  }\n");
	free(text);

	utrace_report_opts_init(&opts);
	utrace_report_set_option(&opts, "nofuncgraph-duration", NULL);
	opts.tracer = "function_graph";
	text = render(path, &opts, NULL);
	fx_golden("function_graph, no duration", text,
		  "# tracer: function_graph\n"
		  "#\n"
		  "# CPU               FUNCTION CALLS\n"
		  "# |                 |   |   |   |\n"
		  " 2) main() {\n"
		  " 2)   foo();\n"
		  " 2)   bar() {\n"
		  " 2)     0x1400();\n"
		  " 3)     foo();\n"
		  " 3)   }\n"
		  " 3) }\n");
	free(text);
}

static void test_graph_switch_lost(void)
{
	const char *path = check_path("switch.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page a1 = {100, 0, 0, 0, 0, 0}, a2 = {400, 1, 5, 0, UTRACE_SB_CONTEXT, 2};
	struct fx_page b1 = {200, 0, 0, 0, 0, 0};
	struct wl l1 = {.n = 0}, l2 = {.n = 0}, l3 = {.n = 0};
	struct utrace_report_summary sum;
	struct utrace_report_opts opts;
	char *text;

	fx_buffer(w, 1, 100, "test");
	fx_buffer(w, 2, 101, "a-long-worker-name");
	wl_entry(&l1, 0, 0);  /* main @100 */
	wl_entry(&l1, 1, 50); /* foo @150, exit lost */
	fx_page(w, 1, &a1, &l1);
	wl_entry(&l2, 2, 0);
	wl_exit(&l2, 12345); /* bar(); on the same cpu */
	fx_page(w, 2, &b1, &l2);
	wl_ext(&l3, UEXT_CONTEXT, 1);
	wl_put(&l3, 2);
	wl_put(&l3, 1);
	wl_exit(&l3, 10); /* foo: entry time unknown */
	wl_exit(&l3, 10); /* main: nothing known */
	fx_page(w, 1, &a2, &l3);
	fx_end(w);

	utrace_report_opts_init(&opts);
	text = render(path, &opts, &sum);
	fx_golden("function_graph, task switch and lost events", text,
		  "# tracer: function_graph\n"
		  "#\n"
		  "# CPU  DURATION                  FUNCTION CALLS\n"
		  "# |     |   |                     |   |   |   |\n"
		  " 0)               |  main() {\n"
		  " 0)               |    foo() {\n"
		  " ------------------------------------------\n"
		  " 0)    test-100    =>  a-long--101  \n"
		  " ------------------------------------------\n"
		  "\n"
		  " 0) + 12.345 us   |  bar();\n"
		  "CPU:0 [LOST 5 EVENTS] in test-100\n"
		  " ------------------------------------------\n"
		  " 0)  a-long--101   =>    test-100   \n"
		  " ------------------------------------------\n"
		  "\n"
		  " 0)               |    } /* foo */\n"
		  " 0)               |  }\n");
	free(text);
	check(sum.lost == 5 && sum.nr_bufs == 2 && sum.buf_lost[0] == 5 && sum.buf_lost[1] == 0 &&
		  sum.events == 5 && sum.warnings == 0,
	      "summary: 5 lost in the first thread, 5 events");
	utrace_report_summary_free(&sum);
}

static void test_function(void)
{
	const char *path = check_path("function.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function");
	struct fx_page p = {5000000123ull, 0, 0, 1, 0, 0};
	struct utrace_report_opts opts;
	struct wl l = {.n = 0};
	char *text;

	fx_buffer(w, 4, 100, "test");
	wl_func(&l, 0, 0, FX_BIAS + 0x210);
	wl_ext(&l, UEXT_FUNC_LONG, 0);
	wl_put(&l, 1);
	wl_put(&l, 1000);
	wl_u64(&l, 0);
	wl_func(&l, 2, 500, 0xdead);
	fx_page(w, 4, &p, &l);
	fx_stats(w, 4, 10, 7);
	fx_end(w);

	utrace_report_opts_init(&opts);
	text = render(path, &opts, NULL);
	fx_golden("function tracer", text,
		  "# tracer: function\n"
		  "#\n"
		  "# entries-in-buffer/entries-written: 3/10   #P:2\n"
		  "#\n"
		  "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		  "#              | |         |   |||||     |         |\n"
		  "            test-100     [001] .....     5.000000: main <-foo\n"
		  "            test-100     [001] .....     5.000001: foo\n"
		  "            test-100     [001] .....     5.000002: bar <-0xdead\n"
		  /* STATS says 7 lost that no sub-buffer told: the last LOST */
		  "CPU:1 [LOST 7 EVENTS] in test-100\n");
	free(text);

	utrace_report_set_option(&opts, "noprint-parent", NULL);
	text = render(path, &opts, NULL);
	check(text && strstr(text, "5.000000: main\n"), "function tracer, noprint-parent");
	free(text);
	check(utrace_report_set_option(&opts, "bogus", NULL) < 0, "unknown option refused");
}

static void test_nop_empty(void)
{
	const char *path = check_path("nop.dat");
	struct utrace_dat_writer *w = fx_begin(path, "nop");
	struct utrace_report_opts opts;
	char *text;

	fx_end(w);
	utrace_report_opts_init(&opts);
	text = render(path, &opts, NULL);
	fx_golden("nop tracer, empty", text,
		  "# tracer: nop\n"
		  "#\n"
		  "# entries-in-buffer/entries-written: 0/0   #P:1\n"
		  "#\n"
		  "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		  "#              | |         |   |||||     |         |\n");
	free(text);
}

int main(void)
{
	check_begin("report");
	test_graph();
	test_graph_switch_lost();
	test_function();
	test_nop_empty();
	return check_end();
}
