/* SPDX-License-Identifier: MIT */
/*
 * test_latency.c - the histogram of utrace latency (lib/report/latency.c)
 * on durations made up by hand: the bucket edges (0, 1, 2, 3 us, the
 * powers of two, past the last bucket), nanosecond buckets, --hide-empty,
 * --bucket-range with its defaults and its millisecond labels, the
 * option checks.  The expected text is perf ftrace latency's layout
 * (tools/perf/builtin-ftrace.c, display_histogram) for those counts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/latency.h"
#include "tests/unit/check.h"

/* Counts the durations (ns) with options o, prints, compares with want;
 * shows the first differing line. */
static void check_hist(const struct utrace_latency_opts *o, const uint64_t *ns, size_t n,
		       const char *want, const char *what)
{
	struct utrace_error err = {0};
	struct utrace_latency h;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (utrace_latency_init(&h, o, &err) < 0) {
		check(0, "%s: init (%s)", what, err.msg);
		return;
	}
	for (size_t i = 0; i < n; i++)
		utrace_latency_add(&h, ns[i]);
	f = open_memstream(&buf, &len);
	if (!f) {
		check(0, "%s: open_memstream", what);
		utrace_latency_free(&h);
		return;
	}
	utrace_latency_print(&h, f);
	fclose(f);
	if (strcmp(buf, want)) {
		const char *a = buf, *b = want;

		while (*a && *a == *b)
			a++, b++;
		while (a > buf && a[-1] != '\n')
			a--, b--;
		check(0, "%s: differs at\n  got:  '%.*s'\n  want: '%.*s'", what,
		      (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
	} else {
		check(1, "%s", what);
	}
	free(buf);
	utrace_latency_free(&h);
}

/* 2 under 1 us, 2 in [1, 2), 3 in [2, 4) (3 us included), 1 at 4 us,
 * either side of 1024 us and of 2^20 us, and 5 s, past the last edge.
 * Bars: 46 * count / 13, rounded down; statistics in whole us. */
static const char want_log2_us[] =
    "#   DURATION     |      COUNT | GRAPH                                          |\n"
    "     0 -    1 us |          2 | #######                                        |\n"
    "     1 -    2 us |          2 | #######                                        |\n"
    "     2 -    4 us |          3 | ##########                                     |\n"
    "     4 -    8 us |          1 | ###                                            |\n"
    "     8 -   16 us |          0 |                                                |\n"
    "    16 -   32 us |          0 |                                                |\n"
    "    32 -   64 us |          0 |                                                |\n"
    "    64 -  128 us |          0 |                                                |\n"
    "   128 -  256 us |          0 |                                                |\n"
    "   256 -  512 us |          0 |                                                |\n"
    "   512 - 1024 us |          1 | ###                                            |\n"
    "     1 -    2 ms |          1 | ###                                            |\n"
    "     2 -    4 ms |          0 |                                                |\n"
    "     4 -    8 ms |          0 |                                                |\n"
    "     8 -   16 ms |          0 |                                                |\n"
    "    16 -   32 ms |          0 |                                                |\n"
    "    32 -   64 ms |          0 |                                                |\n"
    "    64 -  128 ms |          0 |                                                |\n"
    "   128 -  256 ms |          0 |                                                |\n"
    "   256 -  512 ms |          0 |                                                |\n"
    "   512 - 1024 ms |          1 | ###                                            |\n"
    "     1 - ...  s  |          2 | #######                                        |\n"
    "\n"
    "# statistics  (in usec)\n"
    "  total time:              7099212\n"
    "    avg time:               546093\n"
    "    max time:              5000000\n"
    "    min time:                    0\n"
    "       count:                   13\n";

static void test_log2_us(void)
{
	static const uint64_t ns[] = {0,	  999,	      1000,	 1999,	  2000,
				      3000,	  3999,	      4000,	 1023999, 1024000,
				      1048575999, 1048576000, 5000000000};
	struct utrace_latency_opts o = {0};

	check_hist(&o, ns, sizeof(ns) / sizeof(ns[0]), want_log2_us,
		   "log2 us: the edges 0 1 2 3 4 us, 1024 us, 2^20 us, beyond the last");
}

/* -n: the same edges in ns (labels in us past 1024 ns, the last one in
 * ms), --hide-empty: only the six buckets that counted. */
static const char want_ns_hide[] =
    "#   DURATION     |      COUNT | GRAPH                                          |\n"
    "     0 -    1 ns |          1 | #######                                        |\n"
    "     1 -    2 ns |          1 | #######                                        |\n"
    "     2 -    4 ns |          1 | #######                                        |\n"
    "   512 - 1024 ns |          1 | #######                                        |\n"
    "     1 -    2 us |          1 | #######                                        |\n"
    "     1 - ...  ms |          1 | #######                                        |\n"
    "\n"
    "# statistics  (in nsec)\n"
    "  total time:              1050628\n"
    "    avg time:               175105\n"
    "    max time:              1048577\n"
    "    min time:                    0\n"
    "       count:                    6\n";

static void test_ns_hide(void)
{
	static const uint64_t ns[] = {0, 1, 3, 1023, 1024, 1048577};
	struct utrace_latency_opts o = {.use_nsec = true, .hide_empty = true};

	check_hist(&o, ns, sizeof(ns) / sizeof(ns[0]), want_ns_hide,
		   "-n --hide-empty: ns buckets, empty ones left out");
}

/* --bucket-range 10: min defaults to 10, max to 10 + 20 * 10; exactly
 * min stays in the first bucket, as in perf; max goes to the last. */
static const char want_range[] =
    "#   DURATION     |      COUNT | GRAPH                                          |\n"
    "     0 -   10 us |          2 | #############                                  |\n"
    "    10 -   20 us |          2 | #############                                  |\n"
    "    20 -   30 us |          1 | ######                                         |\n"
    "    30 -   40 us |          0 |                                                |\n"
    "    40 -   50 us |          0 |                                                |\n"
    "    50 -   60 us |          0 |                                                |\n"
    "    60 -   70 us |          0 |                                                |\n"
    "    70 -   80 us |          0 |                                                |\n"
    "    80 -   90 us |          0 |                                                |\n"
    "    90 -  100 us |          0 |                                                |\n"
    "   100 -  110 us |          0 |                                                |\n"
    "   110 -  120 us |          0 |                                                |\n"
    "   120 -  130 us |          0 |                                                |\n"
    "   130 -  140 us |          0 |                                                |\n"
    "   140 -  150 us |          0 |                                                |\n"
    "   150 -  160 us |          0 |                                                |\n"
    "   160 -  170 us |          0 |                                                |\n"
    "   170 -  180 us |          0 |                                                |\n"
    "   180 -  190 us |          0 |                                                |\n"
    "   190 -  200 us |          0 |                                                |\n"
    "   200 -  210 us |          1 | ######                                         |\n"
    "   210 -  ... us |          1 | ######                                         |\n"
    "\n"
    "# statistics  (in usec)\n"
    "  total time:                  478\n"
    "    avg time:                   68\n"
    "    max time:                  210\n"
    "    min time:                    0\n"
    "       count:                    7\n";

static void test_range(void)
{
	static const uint64_t ns[] = {0, 10000, 10500, 19999, 20000, 209999, 210000};
	struct utrace_latency_opts o = {.bucket_range = 10};

	check_hist(&o, ns, sizeof(ns) / sizeof(ns[0]), want_range,
		   "--bucket-range 10: default min and max, their edges");
}

/* Buckets from 1000 us print in ms with two decimals; --max-latency sets
 * the number of buckets, (2500 - 1000) / 500 + 2. */
static const char want_range_ms[] =
    "#   DURATION     |      COUNT | GRAPH                                          |\n"
    "     0 - 1000 us |          2 | ##################                             |\n"
    "  1.00 - 1.50 ms |          1 | #########                                      |\n"
    "  1.50 - 2.00 ms |          0 |                                                |\n"
    "  2.00 - 2.50 ms |          1 | #########                                      |\n"
    "  2.50 - ...  ms |          1 | #########                                      |\n"
    "\n"
    "# statistics  (in usec)\n"
    "  total time:                 8497\n"
    "    avg time:                 1699\n"
    "    max time:                 2500\n"
    "    min time:                  999\n"
    "       count:                    5\n";

static void test_range_ms(void)
{
	static const uint64_t ns[] = {999000, 1000000, 1499999, 2499000, 2500000};
	struct utrace_latency_opts o = {
	    .bucket_range = 500, .min_latency = 1000, .max_latency = 2500};

	check_hist(&o, ns, sizeof(ns) / sizeof(ns[0]), want_range_ms,
		   "--bucket-range 500 --min-latency 1000 --max-latency 2500: ms labels");
}

static void test_empty(void)
{
	struct utrace_latency_opts o = {0};

	check_hist(&o, NULL, 0, "No data found\n", "no call: perf's 'No data found'");
}

/* perf's checks of the bucket options, with its messages. */
static void test_bad_opts(void)
{
	static const struct {
		struct utrace_latency_opts o;
		const char *msg;
	} bad[] = {
	    {{.min_latency = 5}, "--min-latency works only with --bucket-range"},
	    {{.max_latency = 5}, "--max-latency works only with --bucket-range"},
	    {{.bucket_range = 10, .min_latency = 100, .max_latency = 109},
	     "--max-latency must be larger than min-latency + bucket-range"},
	};
	struct utrace_latency_opts ok = {
	    .bucket_range = 10, .min_latency = 100, .max_latency = 110};
	struct utrace_error err = {0};
	struct utrace_latency h;
	int ret;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = utrace_latency_init(&h, &bad[i].o, &err);
		check(ret == -EINVAL && !strcmp(err.msg, bad[i].msg), "refused: %s (got %d '%s')",
		      bad[i].msg, ret, ret ? err.msg : "");
	}
	ret = utrace_latency_init(&h, &ok, &err);
	check(ret == 0 && h.nbuckets == 3,
	      "max = min + range: one bucket between the outliers (%d, %u buckets)", ret,
	      h.nbuckets);
	utrace_latency_free(&h);
}

int main(void)
{
	test_log2_us();
	test_ns_hide();
	test_range();
	test_range_ms();
	test_empty();
	test_bad_opts();
	return check_done();
}
