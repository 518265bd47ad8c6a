/* SPDX-License-Identifier: MIT */
/*
 * test_report_filter.c - the selections of `utrace report` (lib/report_
 * filter.c) through the text report: a function and its subtree with
 * depths counted from it (-F), depth limits (-D), CPUs (a return whose
 * entry ran elsewhere names its function), threads by tid, pid and comm,
 * time ranges absolute and elapsed, nanosecond timestamps (-t), --stat,
 * and the errors for malformed selections.
 */
#include <stdio.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/report/report_filter.h"
#include "lib/report/report_text.h"
#include "tests/unit/trace_fixture.h"

/* The report of path with one selection key=value (key NULL: none). */
static char *render(const char *path, const char *key, const char *value, uint32_t flags, int nsecs)
{
	struct utrace_report_opts opts;
	char *text;

	utrace_report_opts_init(&opts);
	opts.flags |= flags;
	opts.nsecs = nsecs;
	opts.filter = fx_filter(key, value);
	text = fx_report(path, &opts, NULL);
	utrace_report_filter_free(opts.filter);
	return text;
}

#define GRAPH_HEADER                                                                               \
	"# tracer: function_graph\n"                                                               \
	"#\n"                                                                                      \
	"# CPU  DURATION                  FUNCTION CALLS\n"                                        \
	"# |     |   |                     |   |   |   |\n"

static void test_graph_selections(void)
{
	const char *path = check_path("graph.dat");
	char *all;

	fx_write_graph_basic(path);
	all = render(path, NULL, NULL, 0, 0);
	if (!all)
		all = strdup("(error)");

	fx_golden_free("-F bar: its subtree, depths from bar", render(path, "filter", "bar", 0, 0),
		       GRAPH_HEADER " 2)               |  bar() {\n"
				    " 2) * 16777.23 us |    0x1400();\n"
				    " 3)   0.100 us    |    foo();\n"
				    " 3) * 16777.34 us |  }\n");
	fx_golden_free("-F 'f?o': foo's two calls", render(path, "filter", "f?o", 0, 0),
		       GRAPH_HEADER " 2)   0.005 us    |  foo();\n"
				    " 3)   0.100 us    |  foo();\n");
	/* a call at the limit whose callees are hidden is one line, with its
	 * duration, as record --max-graph-depth and uftrace replay -D show it */
	fx_golden_free("-D 2: two levels, bar at the limit as one line",
		       render(path, "depth", "2", 0, 0),
		       GRAPH_HEADER " 2)               |  main() {\n"
				    " 2)   0.005 us    |    foo();\n"
				    " 2) * 16777.34 us |    bar();\n"
				    " 3) $ 2016777 us  |  }\n");
	fx_golden_free("-D 1: main alone, as one line", render(path, "depth", "1", 0, 0),
		       GRAPH_HEADER " 2) $ 2016777 us  |  main();\n");
	fx_golden_free("--cpu 3: returns of calls entered on cpu 2 named",
		       render(path, "cpu", "3", 0, 0),
		       GRAPH_HEADER " 3)   0.100 us    |      foo();\n"
				    " 3) * 16777.34 us |    } /* bar */\n"
				    " 3) $ 2016777 us  |  } /* main */\n");
	fx_golden_free("--cpu 0-1,4: nothing", render(path, "cpu", "0-1,4", 0, 0), GRAPH_HEADER);
	fx_golden_free("--tid 100: the thread", render(path, "tid", "99,100", 0, 0), all);
	fx_golden_free("--pid 7: no such process", render(path, "pid", "7", 0, 0), GRAPH_HEADER);
	fx_golden_free("--comm 'te*': the thread", render(path, "comm", "te*", 0, 0), all);
	/* foo (0.016778260, 100 ns) returns in the range: its return, as
	 * bar's, though its entry and return were one line */
	fx_golden_free("--time-range absolute: foo's, bar's and main's returns",
		       render(path, "time-range", "0.016778300~", 0, 0),
		       GRAPH_HEADER " 3)   0.100 us    |      } /* foo */\n"
				    " 3) * 16777.34 us |    } /* bar */\n"
				    " 3) $ 2016777 us  |  } /* main */\n");
	fx_golden_free("--to 20ns elapsed", render(path, "to", "20ns", 0, 0),
		       GRAPH_HEADER " 2)               |  main() {\n"
				    " 2)   0.005 us    |    foo();\n"
				    " 2)               |    bar() {\n");
	fx_golden_free("-t with funcgraph-abstime",
		       render(path, "filter", "bar", UTRACE_REPORT_ABSTIME, 1),
		       "# tracer: function_graph\n"
		       "#\n"
		       "#     TIME           CPU  DURATION                  FUNCTION CALLS\n"
		       "#      |             |     |   |                     |   |   |   |\n"
		       "    0.000001020 |   2)               |  bar() {\n"
		       "    0.000001021 |   2) * 16777.23 us |    0x1400();\n"
		       "    0.016778260 |   3)   0.100 us    |    foo();\n"
		       "    0.016778367 |   3) * 16777.34 us |  }\n");
	free(all);
}

static void test_function_selections(void)
{
	const char *path = check_path("function.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function");
	struct fx_page p = {5000000000ull, 0, 0, 1, 0, 0};
	struct utrace_error err;
	struct utrace_dat *d;
	struct wl l = {.n = 0};
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	fx_buffer(w, 4, 100, "test");
	wl_func(&l, 0, 0, FX_BIAS + 0x210);
	wl_func(&l, 1, 1500, FX_BIAS + 0x110);
	wl_func(&l, 2, 500, 0xdead);
	fx_page(w, 4, &p, &l);
	fx_stats(w, 4, 10, 7);
	fx_end(w);
	fx_golden_free("function tracer: -F 'ba*', -t", render(path, "filter", "ba*", 0, 1),
		       "# tracer: function\n"
		       "#\n"
		       "# entries-in-buffer/entries-written: 1/10   #P:2\n"
		       "#\n"
		       "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		       "#              | |         |   |||||     |         |\n"
		       "            test-100     [001] .....     5.000002000: bar <-0xdead\n"
		       "CPU:1 [LOST 7 EVENTS] in test-100\n");

	if (utrace_dat_open(path, &d, &err) < 0) {
		check(0, "stat: open");
		return;
	}
	out = open_memstream(&text, &len);
	check(utrace_report_print_stat(d, out, NULL, &err) == 0, "stat: printed");
	fclose(out);
	fx_golden_free(
	    "stat: per thread", text,
	    "# buffer statistics: one buffer per traced thread\n"
	    "#               COMM-TID      PID      RECORDS         LOST    PAGES  OVERRUN\n"
	    "                test-100      100           10            7        1        0\n"
	    "# total: 1 thread, 10 records, 7 lost, 1 page, 0 overrun\n");
	utrace_dat_close(d);
}

static void test_errors(void)
{
	static const struct {
		const char *key, *value, *msg;
	} bad[] = {
	    {"cpu", "x", "--cpu 'x': expected CPU numbers like 0,2-3"},
	    {"cpu", "3-1", "--cpu '3-1': range ends before it starts"},
	    {"tid", "12a", "--tid '12a': expected numbers separated by commas"},
	    {"depth", "0", "--depth '0': expected a depth of 1 or more"},
	    {"filter", "", "--filter '': empty pattern"},
	    {"time-range", "5", "--time-range '5': expected START~END"},
	    {"time-range", "~", "--time-range '~': give a start, an end or both"},
	    {"time-range", "5~2", "--time-range '5~2': the start is after the end"},
	    {"time-range", "5ms~2ms", "--time-range '5ms~2ms': the start is after the end"},
	    {"from", "1.5xs",
	     "--from '1.5xs': expected a timestamp in seconds (12345.678901) or "
	     "an elapsed time with a unit (ns us ms s m h)"},
	    {"bogus", "1", "unknown selection 'bogus'"},
	};
	struct utrace_report_filter *f;
	struct utrace_error err;

	utrace_report_filter_new(&f, &err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = utrace_report_filter_add(f, bad[i].key, bad[i].value, &err);

		check(ret < 0 && !strcmp(err.msg, bad[i].msg), "refused: --%s '%s'", bad[i].key,
		      bad[i].value);
		if (ret >= 0 || strcmp(err.msg, bad[i].msg))
			printf("# got: %s\n", ret < 0 ? err.msg : "(accepted)");
	}
	check(!utrace_report_filter_active(f), "nothing selected after errors");
	check(utrace_report_filter_add(f, "filter", "[abc", &err) < 0, "bad glob refused: %s",
	      err.msg);
	check(utrace_report_filter_add(f, "time-range", "1.5ms~2h", &err) == 0 &&
		  utrace_report_filter_active(f),
	      "elapsed range accepted");
	check(utrace_report_filter_add(f, "from", "3h", &err) < 0 &&
		  !strcmp(err.msg, "--from '3h': after --to"),
	      "--from after --to refused: %s", err.msg);
	check(utrace_report_filter_add(f, "to", "1ms", &err) < 0 &&
		  !strcmp(err.msg, "--to '1ms': before --from"),
	      "--to before --from refused: %s", err.msg);
	check(utrace_report_filter_add(f, "from", "1h", &err) == 0,
	      "a refused end left the range as it was: --from 1h (before 2h) accepted");
	utrace_report_filter_free(f);
	check(!strcmp(utrace_report_filter_short_key('F'), "filter") &&
		  !utrace_report_filter_short_key('x'),
	      "short options");
}

int main(void)
{
	check_begin("report-filter");
	test_graph_selections();
	test_function_selections();
	test_errors();
	return check_end();
}
