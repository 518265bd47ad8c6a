/* SPDX-License-Identifier: MIT */
/*
 * test_stat_print.c - utrace stat without the kernel: the statistics over
 * repeated runs, the multiplexing estimate, the event-list parser and the
 * perf stat text layout on fixed numbers.  The expected lines are perf
 * 6.x's output for the same numbers, column for column.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/perf/perf_counter.h"
#include "lib/perf/stat_print.h"
#include "tests/unit/check.h"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

/* Prints t and compares with want; shows the first differing line. */
static void check_print(const struct utrace_stat_table *t, int argc, char *const argv[],
			const char *want, const char *what)
{
	struct utrace_error err = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f) {
		check(0, "%s: open_memstream", what);
		return;
	}
	ret = utrace_stat_table_print(t, f, argc, argv, &err);
	fclose(f);
	check(ret == 0, "%s: print returns 0 (%s)", what, ret ? err.msg : "");
	if (strcmp(buf, want)) {
		const char *a = buf, *b = want;

		while (*a && *a == *b)
			a++, b++;
		while (a > buf && a[-1] != '\n')
			a--, b--;
		check(0, "%s: layout differs at\n  got:  '%.*s'\n  want: '%.*s'", what,
		      (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
	} else {
		check(1, "%s: layout is perf's", what);
	}
	free(buf);
}

static void test_acc(void)
{
	static const double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	struct utrace_stat_acc a = {0};

	check(utrace_stat_acc_stddev(&a) == 0, "stddev of no value is 0");
	utrace_stat_acc_add(&a, 3);
	check(utrace_stat_acc_mean(&a) == 3 && utrace_stat_acc_stddev(&a) == 0,
	      "one value: mean 3, stddev 0");
	memset(&a, 0, sizeof(a));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		utrace_stat_acc_add(&a, v[i]);
	/* sample variance 32/7; perf prints the stddev of the mean */
	check(near(utrace_stat_acc_mean(&a), 5.0), "mean of 2 4 4 4 5 5 7 9 is 5");
	check(near(utrace_stat_acc_stddev(&a), sqrt(32.0 / 7.0 / 8.0)),
	      "stddev of the mean is sqrt(s^2/n) = %.6f", utrace_stat_acc_stddev(&a));
	check(near(utrace_stat_rel_pct(0.5, 4.0), 12.5), "relative stddev 0.5 of 4 is 12.5%%");
	check(utrace_stat_rel_pct(1.0, 0.0) == 0, "relative stddev of a 0 mean is 0");

	/* 1e12 + {0, 1, 2}: naive sum of squares would lose it all */
	memset(&a, 0, sizeof(a));
	for (int i = 0; i < 3; i++)
		utrace_stat_acc_add(&a, 1e12 + i);
	check(fabs(utrace_stat_acc_stddev(&a) - sqrt(1.0 / 3.0)) < 1e-3,
	      "variance survives large values (%.6f)", utrace_stat_acc_stddev(&a));
}

static void test_precision(void)
{
	check(utrace_stat_time_precision(0.000202) == 6, "stddev 0.000202 s: 6 decimals");
	check(utrace_stat_time_precision(0.0000224) == 7, "stddev 0.0000224 s: 7 decimals");
	check(utrace_stat_time_precision(0.5) == 3, "stddev 0.5 s: 3 decimals");
	check(utrace_stat_time_precision(1.5) == 2, "stddev 1.5 s: 2 decimals");
	check(utrace_stat_time_precision(0.0) == 9, "stddev 0: 9 decimals (ns)");
}

static void test_scale(void)
{
	struct utrace_perf_count c;

	check(utrace_perf_count_scale(100, 1000, 1000, &c) == UTRACE_PERF_COUNTED && c.value == 100,
	      "not multiplexed: value is the count");
	check(utrace_perf_count_scale(100, 1000, 250, &c) == UTRACE_PERF_COUNTED &&
		  c.value == 400 && c.raw == 100,
	      "on the PMU 25%% of the time: 100 scales to 400");
	check(utrace_perf_count_scale(7, 1000, 0, &c) == UTRACE_PERF_NOT_COUNTED && c.value == 0,
	      "never running: not counted");
	check(utrace_perf_count_scale(0, 0, 0, &c) == UTRACE_PERF_NOT_COUNTED,
	      "never enabled: not counted");
	check(utrace_perf_count_scale(3000000000ull, 3000000000ull, 1000000000ull, &c) ==
		      UTRACE_PERF_COUNTED &&
		  c.value == 9000000000ull,
	      "no overflow scaling large counts");
	check(utrace_perf_unit_scale("msec") == 1e-6 && utrace_perf_unit_scale("") == 1.0,
	      "msec scales ns by 1e-6");
}

static void test_parse(void)
{
	struct utrace_perf_counters *pc = utrace_perf_counters_new();
	struct utrace_error err = {0};
	static const char *const bad[] = {
	    "nosuch",  "cycles:x", "{cycles",	 "cycles}", "{a{b}}",  "",
	    "cycles,", ",cycles",  "{cycles}:u", "rxyz",    "cycles:",
	};
	size_t n;

	check(utrace_perf_counters_add(pc, "task-clock,cs:u,r1a2b,{cycles,instructions:k}", &err) ==
		  0,
	      "parses task-clock,cs:u,r1a2b,{cycles,instructions:k} (%s)", err.msg);
	check(utrace_perf_counters_nr(pc) == 5, "5 events");
	check(!strcmp(utrace_perf_counters_name(pc, 1), "cs:u") &&
		  utrace_perf_counters_type(pc, 1) == PERF_TYPE_SOFTWARE &&
		  utrace_perf_counters_config(pc, 1) == PERF_COUNT_SW_CONTEXT_SWITCHES,
	      "cs:u is context-switches, named as written");
	check(utrace_perf_counters_type(pc, 2) == PERF_TYPE_RAW &&
		  utrace_perf_counters_config(pc, 2) == 0x1a2b,
	      "r1a2b is raw event 0x1a2b");
	check(!strcmp(utrace_perf_counters_unit(pc, 0), "msec") &&
		  !strcmp(utrace_perf_counters_unit(pc, 3), ""),
	      "task-clock counts msec, cycles no unit");
	check(utrace_perf_counters_add(pc, UTRACE_PERF_DEFAULT_EVENTS, &err) == 0 &&
		  utrace_perf_counters_nr(pc) == 13,
	      "perf's 8 default events parse");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		check(utrace_perf_counters_add(pc, bad[i], &err) < 0 && err.msg[0] &&
			  !strchr(err.msg, '\n'),
		      "rejects '%s': %s", bad[i], err.msg);
	}
	check(utrace_perf_counters_nr(pc) == 13, "a rejected list adds no event");
	utrace_perf_counters_free(pc);

	utrace_perf_event_table(&n);
	check(n >= 40, "event table has %zu names", n);
}

static int add(struct utrace_stat_table *t, const char *name, uint32_t type, uint64_t config)
{
	const char *unit = type == PERF_TYPE_SOFTWARE && (config == PERF_COUNT_SW_TASK_CLOCK ||
							  config == PERF_COUNT_SW_CPU_CLOCK)
			       ? "msec"
			       : "";

	return utrace_stat_table_add_counter(t, name, unit, utrace_perf_unit_scale(unit), type,
					     config, NULL);
}

/* One run of perf's defaults on a VM: software counted, hardware not. */
static void test_single_run(void)
{
	struct utrace_stat_table *t = utrace_stat_table_new();
	char *argv[] = {"ls", "-l", NULL};
	int tc = add(t, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	int cs = add(t, "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	int pf = add(t, "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	int cy = add(t, "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);

	utrace_stat_table_add_count(t, tc, UTRACE_STAT_COUNTED, 1250000, 1250000, 1250000);
	utrace_stat_table_add_count(t, cs, UTRACE_STAT_COUNTED, 0, 1250000, 1250000);
	utrace_stat_table_add_count(t, pf, UTRACE_STAT_COUNTED, 113, 1250000, 1250000);
	utrace_stat_table_add_count(t, cy, UTRACE_STAT_NOT_SUPPORTED, 0, 0, 0);
	utrace_stat_table_add_run(t, 1981000, 0.002059, 0.0);
	check_print(t, 2, argv,
		    "\n"
		    " Performance counter stats for 'ls -l':\n"
		    "\n"
		    "              1.25 msec task-clock                       #    0.631 CPUs "
		    "utilized          \n"
		    "                 0      context-switches                 #    0.000 /sec     "
		    "              \n"
		    "               113      page-faults                      #   90.400 K/sec    "
		    "              \n"
		    "   <not supported>      cycles                                               "
		    "       \n"
		    "\n"
		    "       0.001981000 seconds time elapsed\n"
		    "\n"
		    "       0.002059000 seconds user\n"
		    "       0.000000000 seconds sys\n"
		    "\n"
		    "\n",
		    "single run");
	utrace_stat_table_free(t);
}

/* Three runs: means, "( +- x% )" where the values vary, "avg +- sd". */
static void test_repeat(void)
{
	static const uint64_t clock[] = {1000000, 1100000, 1200000};
	static const uint64_t faults[] = {100, 100, 103};
	static const uint64_t wall[] = {2000000, 2200000, 2400000};
	struct utrace_stat_table *t = utrace_stat_table_new();
	char *argv[] = {"true", NULL};
	int tc = add(t, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	int pf = add(t, "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	int cs = add(t, "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);

	for (int r = 0; r < 3; r++) {
		utrace_stat_table_add_count(t, tc, UTRACE_STAT_COUNTED, clock[r], 1, 1);
		utrace_stat_table_add_count(t, pf, UTRACE_STAT_COUNTED, faults[r], 1, 1);
		utrace_stat_table_add_count(t, cs, UTRACE_STAT_COUNTED, 0, 1, 1);
		utrace_stat_table_add_run(t, wall[r], 0.001, 0.001);
	}
	check_print(t, 1, argv,
		    "\n"
		    " Performance counter stats for 'true' (3 runs):\n"
		    "\n"
		    "              1.10 msec task-clock                       #    0.500 CPUs "
		    "utilized            ( +-  5.25% )\n"
		    "               101      page-faults                      #   91.818 K/sec    "
		    "                ( +-  0.99% )\n"
		    "                 0      context-switches                 #    0.000 /sec     "
		    "              \n"
		    "\n"
		    "          0.002200 +- 0.000115 seconds time elapsed  ( +-  5.25% )\n"
		    "\n",
		    "3 runs");
	utrace_stat_table_free(t);
}

/* The metrics between counters, a multiplexed and a never-running one. */
static void test_metrics(void)
{
	struct utrace_stat_table *t = utrace_stat_table_new();
	char *argv[] = {"./app", NULL};
	struct {
		const char *name;
		uint32_t type;
		uint64_t config, value, enabled, running;
		enum utrace_stat_state st;
	} c[] = {
	    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1000000, 1000, 1000,
	     UTRACE_STAT_COUNTED},
	    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 2500000, 1000, 750,
	     UTRACE_STAT_COUNTED},
	    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 5000000, 1000, 1000,
	     UTRACE_STAT_COUNTED},
	    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1000000, 1000, 1000,
	     UTRACE_STAT_COUNTED},
	    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 10000, 1000, 1000,
	     UTRACE_STAT_COUNTED},
	    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 200000, 1000,
	     1000, UTRACE_STAT_COUNTED},
	    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 5000, 1000, 1000,
	     UTRACE_STAT_COUNTED},
	    {"L1-dcache-load-misses", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(L1D, READ, MISS), 0,
	     500, 0, UTRACE_STAT_NOT_COUNTED},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int idx = add(t, c[i].name, c[i].type, c[i].config);

		utrace_stat_table_add_count(t, idx, c[i].st, c[i].value, c[i].enabled,
					    c[i].running);
	}
	utrace_stat_table_add_run(t, 1000000, 0.001, 0.0);
	check_print(t, 1, argv,
		    "\n"
		    " Performance counter stats for './app':\n"
		    "\n"
		    "              1.00 msec task-clock                       #    1.000 CPUs "
		    "utilized          \n"
		    "           2500000      cycles                           #    2.500 GHz      "
		    "                (75.00%)\n"
		    "           5000000      instructions                     #    2.00  insn per "
		    "cycle         \n"
		    "           1000000      branches                         # 1000.000 M/sec    "
		    "              \n"
		    "             10000      branch-misses                    #    1.00% of all "
		    "branches        \n"
		    "            200000      cache-references                 #  200.000 M/sec    "
		    "              \n"
		    "              5000      cache-misses                     #    2.500 % of all "
		    "cache refs    \n"
		    "     <not counted>      L1-dcache-load-misses                                "
		    "         (0.00%)\n"
		    "\n"
		    "       0.001000000 seconds time elapsed\n"
		    "\n"
		    "       0.001000000 seconds user\n"
		    "       0.000000000 seconds sys\n"
		    "\n"
		    "\n",
		    "metrics and multiplexing");
	utrace_stat_table_free(t);
}

/* Without a clock there is no rate; a counter missing in one run. */
static void test_no_clock(void)
{
	struct utrace_stat_table *t = utrace_stat_table_new();
	struct utrace_error err = {0};
	char *argv[] = {"x", NULL};
	int pf = add(t, "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	FILE *f = fopen("/dev/null", "w");

	check(utrace_stat_table_print(t, f, 1, argv, &err) == -EINVAL && err.msg[0],
	      "no run: error '%s'", err.msg);
	if (f)
		fclose(f);
	utrace_stat_table_add_count(t, pf, UTRACE_STAT_COUNTED, 48, 1, 1);
	utrace_stat_table_add_run(t, 1000, 0, 0);
	check_print(t, 1, argv,
		    "\n"
		    " Performance counter stats for 'x':\n"
		    "\n"
		    "                48      page-faults                                          "
		    "              \n"
		    "\n"
		    "       0.000001000 seconds time elapsed\n"
		    "\n"
		    "       0.000000000 seconds user\n"
		    "       0.000000000 seconds sys\n"
		    "\n"
		    "\n",
		    "no clock, no rate");
	utrace_stat_table_free(t);
}

int main(void)
{
	test_acc();
	test_precision();
	test_scale();
	test_parse();
	test_single_run();
	test_repeat();
	test_metrics();
	test_no_clock();
	return check_done();
}
