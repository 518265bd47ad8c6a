/* SPDX-License-Identifier: MIT */
/*
 * test_fprofile.c - trace_stat/functionN of the live tracefs
 * (lib/report/fprofile.c): the kernel's function profiler table made from
 * synthetic utrace.dat files.  The durations in the kernel's
 * trace_print_graph_duration layout (at most 7 digits, then " us "
 * padded to 8 columns), each call counted on the CPU it returned on,
 * only the calls inside the window, hits, total, average and the
 * kernel's integer s^2, longest total first, and tracing_thresh leaving
 * out the functions whose average is under it.
 */
#include <stdio.h>

#include "lib/report/fprofile.h"
#include "tests/unit/trace_fixture.h"

#define HEAD                                                                                       \
	"  Function                               Hit    Time            Avg             s^2\n"        \
	"  --------                               ---    ----            ---             ---\n"

static char *duration(uint64_t ns)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	utrace_fprofile_duration(f, ns);
	fclose(f);
	return buf;
}

static void test_duration(void)
{
	fx_golden_free("0 ns", duration(0), "0.000 us    ");
	fx_golden_free("5 ns", duration(5), "0.005 us    ");
	fx_golden_free("1234567 ns: 4 digits of us, 3 of ns", duration(1234567), "1234.567 us ");
	fx_golden_free("16777236 ns: 5 digits of us, 2 of ns", duration(16777236), "16777.23 us ");
	fx_golden_free("123456789 ns: 6 digits of us, 1 of ns", duration(123456789),
		       "123456.7 us ");
	fx_golden_free("2016777367 ns: 7 digits of us, no ns", duration(2016777367),
		       "2016777 us  ");
	fx_golden_free("12345678901 ns: 8 digits", duration(12345678901ull), "12345678 us ");
}

/* The table of cpu in path's file */
static char *table(const char *path, int cpu, uint64_t from, uint64_t to, uint64_t thresh)
{
	struct utrace_dat *d = fx_open(path);
	struct utrace_error err = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (!d || !(f = open_memstream(&buf, &len))) {
		utrace_dat_close(d);
		return NULL;
	}
	ret = utrace_fprofile_print(d, f, cpu, from, to, thresh, &err);
	fclose(f);
	utrace_dat_close(d);
	if (ret < 0) {
		printf("# %s\n", err.msg);
		free(buf);
		return NULL;
	}
	return buf;
}

/* main() { foo(); bar() { 0x1400(); [cpu 3] foo(); } } from ts 1000 on
 * cpu 2: foo 5 ns, 0x1400 16777236 ns on cpu 2; foo 100 ns, bar
 * 16777347 ns, main 2016777367 ns returned on cpu 3. */
static void test_cpus_window(void)
{
	const char *path = check_path("basic.dat");

	fx_write_graph_basic(path);
	fx_golden_free("cpu 2: the calls that returned there, longest first",
		       table(path, 2, 0, 0, 0),
		       HEAD "  0x1400                                   1    16777.23 us     16777.23 us     "
			    "0.000 us    \n"
			    "  foo                                      1    0.005 us        0.005 us        "
			    "0.000 us    \n");
	fx_golden_free("cpu 3", table(path, 3, 0, 0, 0),
		       HEAD "  main                                     1    2016777 us      2016777 us      "
			    "0.000 us    \n"
			    "  bar                                      1    16777.34 us     16777.34 us     "
			    "0.000 us    \n"
			    "  foo                                      1    0.100 us        0.100 us        "
			    "0.000 us    \n");
	fx_golden_free("cpu 3 up to 16778400: main returned after", table(path, 3, 0, 16778400, 0),
		       HEAD "  bar                                      1    16777.34 us     16777.34 us     "
			    "0.000 us    \n"
			    "  foo                                      1    0.100 us        0.100 us        "
			    "0.000 us    \n");
	fx_golden_free("cpu 2 from 1016: the first foo entered before", table(path, 2, 1016, 0, 0),
		       HEAD "  0x1400                                   1    16777.23 us     16777.23 us     "
			    "0.000 us    \n");
	fx_golden_free("a cpu without calls: the header", table(path, 0, 0, 0, 0), HEAD);
	fx_golden_free("tracing_thresh 1 us leaves foo out", table(path, 3, 0, 0, 1000),
		       HEAD "  main                                     1    2016777 us      2016777 us      "
			    "0.000 us    \n"
			    "  bar                                      1    16777.34 us     16777.34 us     "
			    "0.000 us    \n");
}

/* main() { foo() { foo() { foo(); } foo(); } } on cpu 0: main 200 ns,
 * the foo()s 90, 30, 5 and 10: 4 hits, 135 ns (every call, recursive or
 * not: the kernel times each), average 33, s^2 = (4 * 9125 - 135^2) /
 * (4 * 3 * 1000) = 1 (integer division, ns then shown as us). */
static void test_variance(void)
{
	const char *path = check_path("rec.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");

	fx_graph_recursion(w);
	fx_end(w);
	fx_golden_free("recursion: each call counted, the kernel's s^2", table(path, 0, 0, 0, 0),
		       HEAD "  main                                     1    0.200 us        0.200 us        "
			    "0.000 us    \n"
			    "  foo                                      4    0.135 us        0.033 us        "
			    "0.001 us    \n");
}

int main(void)
{
	check_begin("fprofile");
	test_duration();
	test_cpus_window();
	test_variance();
	return check_end();
}
