/* SPDX-License-Identifier: MIT */
/*
 * test_profile.c - `utrace report --profile` (lib/report/profile.c) on synthetic
 * utrace.dat files: exact calls, total, self, min, max and average of each
 * function, uftrace's recursion rule, calls still running at the end,
 * returns without entries (--thresh), the function tracer's untimed
 * calls, sort orders and the exact table text in uftrace report's layout.
 */
#include <stdio.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/report/profile.h"
#include "lib/report/report_filter.h"
#include "tests/unit/trace_fixture.h"

/* The profile of path, f applied (NULL: all); NULL on error. */
static struct utrace_profile *profile_of(const char *path, struct utrace_report_filter *f,
					 struct utrace_dat **dp)
{
	struct utrace_dat *d = fx_open(path);
	struct utrace_profile *p = NULL;
	struct utrace_dat_iter *it;
	struct utrace_error err;
	struct utrace_event ev;
	int ret;

	if (!d)
		return NULL;
	ret = utrace_profile_new(d, &p, &err);
	if (ret == 0)
		ret = utrace_report_filter_begin(f, d, &err);
	if (ret == 0)
		ret = utrace_dat_iter_open(d, &it, &err);
	if (ret == 0) {
		while ((ret = utrace_report_filter_next(f, it, &ev, &err)) > 0)
			if ((ret = utrace_profile_add(p, &ev, &err)) < 0)
				break;
		utrace_dat_iter_close(it);
	}
	if (ret == 0)
		ret = utrace_profile_finish(p, &err);
	if (ret < 0) {
		printf("# %s\n", err.msg);
		utrace_profile_free(p);
		utrace_dat_close(d);
		return NULL;
	}
	*dp = d;
	return p;
}

static void done(struct utrace_profile *p, struct utrace_dat *d)
{
	utrace_profile_free(p);
	utrace_dat_close(d);
}

static const struct utrace_profile_entry *find(const struct utrace_profile *p, const char *name)
{
	for (unsigned i = 0; i < utrace_profile_count(p); i++)
		if (!strcmp(utrace_profile_get(p, i)->name, name))
			return utrace_profile_get(p, i);
	return NULL;
}

/* Checks one function's numbers; min and max are of the total time. */
static void expect(const struct utrace_profile *p, const char *name, uint64_t calls, uint64_t total,
		   uint64_t self, uint64_t min, uint64_t max, uint64_t sum, const char *what)
{
	const struct utrace_profile_entry *e = find(p, name);

	if (!e) {
		check(0, "%s: %s listed", what, name);
		return;
	}
	check(e->calls == calls && e->total == total && e->self == self && e->total_min == min &&
		  e->total_max == max && e->total_sum == sum,
	      "%s: %s calls %llu total %llu self %llu min %llu max %llu sum %llu", what, name,
	      (unsigned long long)calls, (unsigned long long)total, (unsigned long long)self,
	      (unsigned long long)min, (unsigned long long)max, (unsigned long long)sum);
	if (e->calls != calls || e->total != total || e->self != self || e->total_min != min ||
	    e->total_max != max || e->total_sum != sum)
		printf("# got calls %llu total %llu self %llu min %llu max %llu sum %llu\n",
		       (unsigned long long)e->calls, (unsigned long long)e->total,
		       (unsigned long long)e->self, (unsigned long long)e->total_min,
		       (unsigned long long)e->total_max, (unsigned long long)e->total_sum);
}

static char *print(const struct utrace_profile *p, uint32_t fields)
{
	struct utrace_error err;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (utrace_profile_print(p, f, fields, &err) < 0)
		printf("# %s\n", err.msg);
	fclose(f);
	return text;
}

static void test_basic(void)
{
	const char *path = check_path("basic.dat");
	struct utrace_error err;
	struct utrace_profile *p;
	struct utrace_dat *d;

	fx_write_graph_basic(path);
	p = profile_of(path, NULL, &d);
	if (!p) {
		check(0, "basic: profile");
		return;
	}
	check(utrace_profile_count(p) == 4, "basic: 4 functions");
	/* main() { foo(); bar() { 0x1400(); foo(); } } */
	expect(p, "main", 1, 2016777367, 2016777367 - 5 - 16777347, 2016777367, 2016777367,
	       2016777367, "basic");
	expect(p, "bar", 1, 16777347, 11, 16777347, 16777347, 16777347, "basic");
	expect(p, "0x1400", 1, 16777236, 16777236, 16777236, 16777236, 16777236, "basic");
	expect(p, "foo", 2, 105, 105, 5, 100, 105, "basic");
	check(find(p, "foo") && find(p, "foo")->self_min == 5 && find(p, "foo")->self_max == 100,
	      "basic: foo self min 5 max 100");
	check(utrace_profile_unfinished(p) == 0 && utrace_profile_untimed(p) == 0,
	      "basic: nothing unfinished or untimed");

	fx_golden_free("basic: default table (uftrace report)",
		       print(p, UTRACE_PROFILE_DEFAULT_FIELDS),
		       "  Total time   Self time       Calls  Function\n"
		       "  ==========  ==========  ==========  ====================\n"
		       "    2.016  s    2.000  s           1  main\n"
		       "   16.777 ms    0.011 us           1  bar\n"
		       "   16.777 ms   16.777 ms           1  0x1400\n"
		       "    0.105 us    0.105 us           2  foo\n");

	check(utrace_profile_sort(p, "calls,name", &err) == 0, "basic: sort calls,name");
	fx_golden_free(
	    "basic: all columns, by calls then name", print(p, UTRACE_PROFILE_ALL_FIELDS),
	    "  Total time   Total avg   Total min   Total max   Self time    Self avg    Self min"
	    "    Self max       Calls  Function\n"
	    "  ==========  ==========  ==========  ==========  ==========  ==========  =========="
	    "  ==========  ==========  ====================\n"
	    "    0.105 us    0.052 us    0.005 us    0.100 us    0.105 us    0.052 us    0.005 us"
	    "    0.100 us           2  foo\n"
	    "   16.777 ms   16.777 ms   16.777 ms   16.777 ms   16.777 ms   16.777 ms   16.777 ms"
	    "   16.777 ms           1  0x1400\n"
	    "   16.777 ms   16.777 ms   16.777 ms   16.777 ms    0.011 us    0.011 us    0.011 us"
	    "    0.011 us           1  bar\n"
	    "    2.016  s    2.016  s    2.016  s    2.016  s    2.000  s    2.000  s    2.000  s"
	    "    2.000  s           1  main\n");

	check(utrace_profile_sort(p, "self", &err) == 0, "basic: sort self");
	check(!strcmp(utrace_profile_get(p, 0)->name, "main") &&
		  !strcmp(utrace_profile_get(p, 1)->name, "0x1400") &&
		  !strcmp(utrace_profile_get(p, 2)->name, "foo") &&
		  !strcmp(utrace_profile_get(p, 3)->name, "bar"),
	      "basic: by self: main 0x1400 foo bar");
	check(utrace_profile_sort(p, "name", &err) == 0 &&
		  !strcmp(utrace_profile_get(p, 0)->name, "0x1400") &&
		  !strcmp(utrace_profile_get(p, 3)->name, "main"),
	      "basic: by name");
	check(utrace_profile_sort(p, "max", &err) == 0 &&
		  !strcmp(utrace_profile_get(p, 3)->name, "foo"),
	      "basic: by max, foo last");
	check(utrace_profile_sort(p, "bogus", &err) < 0 && strstr(err.msg, "bogus"),
	      "basic: unknown sort key refused: %s", err.msg);
	check(utrace_profile_sort_fields("avg,self-max") ==
		  (UTRACE_PROFILE_TOTAL_AVG | UTRACE_PROFILE_SELF_MAX),
	      "basic: sort keys name their columns");
	done(p, d);
}

/*
 * main() { foo() { foo() { foo(); } foo(); } }: foo's total counts the
 * outermost call only (90), its average all four (135 / 4).
 */
static void test_recursion(void)
{
	const char *path = check_path("recursion.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct utrace_profile *p;
	struct utrace_dat *d;
	char *text;

	fx_graph_recursion(w);
	fx_end(w);
	p = profile_of(path, NULL, &d);
	if (!p) {
		check(0, "recursion: profile");
		return;
	}
	expect(p, "foo", 4, 90, 5 + 25 + 10 + 50, 5, 90, 135, "recursion");
	expect(p, "main", 1, 200, 110, 200, 200, 200, "recursion");
	check(find(p, "foo") && find(p, "foo")->self_max == 50, "recursion: foo self max 50");
	text = print(p, UTRACE_PROFILE_TOTAL | UTRACE_PROFILE_TOTAL_AVG | UTRACE_PROFILE_CALLS);
	fx_golden_free("recursion: average over every call", text,
		       "  Total time   Total avg       Calls  Function\n"
		       "  ==========  ==========  ==========  ====================\n"
		       "    0.200 us    0.200 us           1  main\n"
		       "    0.090 us    0.033 us           4  foo\n");
	done(p, d);
}

/*
 * Two threads: one whose main never returns (timed up to its last
 * event, as uftrace does), one recorded with --thresh (returns only,
 * GRAPH_LEAF records): foo (40 ns) inside main (100 ns).
 */
static void test_unfinished_thresh(void)
{
	const char *path = check_path("unfinished.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p1 = {5000, 0, 0, 0, 0, 0}, p2 = {2000, 0, 0, 1, 0, 0};
	struct wl l1 = {.n = 0}, l2 = {.n = 0};
	struct utrace_profile *p;
	struct utrace_dat *d;

	fx_buffer(w, 1, 100, "exits");
	wl_entry(&l1, 0, 0);  /* main @5000, never returns */
	wl_entry(&l1, 1, 10); /* foo @5010 */
	wl_exit(&l1, 10);     /* @5020 */
	fx_page(w, 1, &p1, &l1);
	fx_buffer(w, 2, 101, "thresh");
	wl_leaf(&l2, 50, 1, 1, 40);  /* foo, depth 1, ended @2050 after 40 */
	wl_leaf(&l2, 50, 0, 0, 100); /* main, depth 0, ended @2100 after 100 */
	fx_page(w, 2, &p2, &l2);
	fx_end(w);
	p = profile_of(path, NULL, &d);
	if (!p) {
		check(0, "unfinished: profile");
		return;
	}
	check(utrace_profile_unfinished(p) == 1, "unfinished: one call still running");
	/* main: 100 (thresh) + 20 (5000 to the last event, 5020) */
	expect(p, "main", 2, 120, 60 + 10, 20, 100, 120, "unfinished+thresh");
	expect(p, "foo", 2, 50, 50, 10, 40, 50, "unfinished+thresh");
	done(p, d);
}

/* The function tracer: calls without times; blank time columns. */
static void test_function_tracer(void)
{
	const char *path = check_path("function.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function");
	struct fx_page pg = {5000000000ull, 0, 0, 1, 0, 0};
	struct wl l = {.n = 0};
	struct utrace_profile *p;
	struct utrace_dat *d;

	fx_buffer(w, 4, 100, "test");
	wl_func(&l, 0, 0, FX_BIAS + 0x210);
	wl_func(&l, 1, 10, FX_BIAS + 0x110);
	wl_func(&l, 1, 10, FX_BIAS + 0x110);
	fx_page(w, 4, &pg, &l);
	fx_end(w);
	p = profile_of(path, NULL, &d);
	if (!p) {
		check(0, "function tracer: profile");
		return;
	}
	check(find(p, "foo") && find(p, "foo")->calls == 2 && find(p, "foo")->timed == 0,
	      "function tracer: foo 2 calls, untimed");
	fx_golden_free("function tracer: blank times", print(p, UTRACE_PROFILE_DEFAULT_FIELDS),
		       "  Total time   Self time       Calls  Function\n"
		       "  ==========  ==========  ==========  ====================\n"
		       "                                   2  foo\n"
		       "                                   1  main\n");
	done(p, d);
}

/* Selections feed the profile: -F bar, --cpu 3, a time range. */
static void test_selected(void)
{
	const char *path = check_path("selected.dat");
	struct utrace_report_filter *f;
	struct utrace_error err;
	struct utrace_profile *p;
	struct utrace_dat *d;

	fx_write_graph_basic(path);

	utrace_report_filter_new(&f, &err);
	utrace_report_filter_add(f, "filter", "bar", &err);
	p = profile_of(path, f, &d);
	if (p) {
		check(utrace_profile_count(p) == 3 && !find(p, "main"), "-F bar: bar and below");
		expect(p, "bar", 1, 16777347, 11, 16777347, 16777347, 16777347, "-F bar");
		expect(p, "foo", 1, 100, 100, 100, 100, 100, "-F bar");
		done(p, d);
	} else {
		check(0, "-F bar: profile");
	}
	utrace_report_filter_free(f);

	/* on cpu 3: foo(), and the returns of bar and main; 0x1400 ran on 2 */
	utrace_report_filter_new(&f, &err);
	utrace_report_filter_add(f, "cpu", "3", &err);
	p = profile_of(path, f, &d);
	if (p) {
		check(utrace_profile_count(p) == 3 && !find(p, "0x1400"), "--cpu 3: 3 functions");
		expect(p, "bar", 1, 16777347, 16777347 - 100, 16777347, 16777347, 16777347,
		       "--cpu 3");
		expect(p, "main", 1, 2016777367, 2016777367 - 16777347, 2016777367, 2016777367,
		       2016777367, "--cpu 3");
		done(p, d);
	} else {
		check(0, "--cpu 3: profile");
	}
	utrace_report_filter_free(f);

	/* 15 ns to 20 ms after the first event (1000): bar's whole call, and
	 * the first foo, which returns in it */
	utrace_report_filter_new(&f, &err);
	check(utrace_report_filter_add(f, "time-range", "15ns~20ms", &err) == 0,
	      "time range 15ns~20ms accepted");
	p = profile_of(path, f, &d);
	if (p) {
		check(utrace_profile_count(p) == 3 && !find(p, "main"),
		      "time range: bar, 0x1400, foo");
		expect(p, "bar", 1, 16777347, 11, 16777347, 16777347, 16777347, "time range");
		expect(p, "foo", 2, 105, 105, 5, 100, 105, "time range");
		done(p, d);
	} else {
		check(0, "time range: profile");
	}
	utrace_report_filter_free(f);
}

/* Coroutines: main() calls foo(), which switches to another program stack
 * where bar() starts; foo returns on main's stack, bar on its own, main
 * last.  Each stack has its own calls: bar's time is not foo's or
 * main's. */
static void test_coroutines(void)
{
	const char *path = check_path("coro.dat");
	struct utrace_profile *p;
	struct utrace_dat *d;

	fx_write_coro(path);
	p = profile_of(path, NULL, &d);
	if (!p) {
		check(0, "coroutines: profile");
		return;
	}
	check(utrace_profile_unfinished(p) == 0, "coroutines: nothing unfinished");
	expect(p, "main", 1, 100, 60, 100, 100, 100, "coroutines");
	expect(p, "foo", 1, 40, 40, 40, 40, 40, "coroutines");
	expect(p, "bar", 1, 40, 40, 40, 40, 40, "coroutines");
	done(p, d);
}

/* A coroutine that moves: bar starts on stack 7 in one thread, which
 * switches away; another thread resumes stack 7 later and bar returns
 * there.  One call of bar, not also one still running in the first. */
static void test_coroutine_moves(void)
{
	const char *path = check_path("coro_moves.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p1 = {100, 0, 0, 0, 0, 0}, p2 = {200, 0, 0, 0, 0, 0};
	static const uint32_t m[] = {0}, bar[] = {2};
	struct wl l1 = {.n = 0}, l2 = {.n = 0};
	struct utrace_profile *p;
	struct utrace_dat *d;

	fx_buffer(w, 1, 100, "one");
	wl_entry(&l1, 0, 0);		      /* main @100 */
	wl_switch(&l1, 10, 0, 7, 0, 0, NULL); /* @110 */
	wl_entry(&l1, 2, 10);		      /* bar @120 */
	wl_switch(&l1, 10, 7, 0, 1, 1, m);    /* @130 */
	wl_exit(&l1, 20);		      /* main @150 */
	fx_page(w, 1, &p1, &l1);
	fx_buffer(w, 2, 101, "two");
	wl_switch(&l2, 0, 0, 7, 1, 1, bar); /* @200 */
	wl_exit(&l2, 10);		    /* bar @210 */
	wl_switch(&l2, 0, 7, 0, 0, 0, NULL);
	fx_page(w, 2, &p2, &l2);
	fx_end(w);
	p = profile_of(path, NULL, &d);
	if (!p) {
		check(0, "coroutine moves: profile");
		return;
	}
	check(utrace_profile_unfinished(p) == 0, "coroutine moves: nothing unfinished");
	check(find(p, "bar") && find(p, "bar")->calls == 1, "coroutine moves: bar called once");
	done(p, d);
}

int main(void)
{
	check_begin("profile");
	test_coroutines();
	test_coroutine_moves();
	test_basic();
	test_recursion();
	test_unfinished_thresh();
	test_function_tracer();
	test_selected();
	return check_end();
}
