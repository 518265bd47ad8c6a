/* SPDX-License-Identifier: MIT */
/*
 * test_dat.c - utrace.dat writer and reader: synthetic files built with
 * the writer from hand-encoded record words (tests/unit/dat_fixture.h) are
 * read back through the iterator and checked event by event (kinds,
 * times, durations, depths, LEAF folding, CONTEXT, LOST, TIME_EXTEND,
 * EXIT_UNWIND, GRAPH_LEAF, the merge of buffers by time), symbol lookup,
 * and errors.  Damaged files are test_dat_damage.c's.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/report/report_text.h"
#include "lib/elf/symtab.h"
#include "tests/unit/dat_fixture.h"

#define MAX_EVENTS 256

struct evlist {
	struct utrace_event ev[MAX_EVENTS];
	int n;
	uint64_t warnings;
	char warning[512];
};

/* Opens path and reads every event; returns the open error or 0. */
static int read_all(const char *path, struct evlist *l, struct utrace_dat **dp)
{
	struct utrace_dat_iter *it;
	struct utrace_error err;
	struct utrace_dat *d;
	struct utrace_event ev;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = utrace_dat_open(path, &d, &err);
	if (ret < 0) {
		printf("# open: %s\n", err.msg);
		return ret;
	}
	ret = utrace_dat_iter_open(d, &it, &err);
	if (ret < 0) {
		utrace_dat_close(d);
		return ret;
	}
	while ((ret = utrace_dat_iter_next(it, &ev, &err)) > 0)
		if (l->n < MAX_EVENTS)
			l->ev[l->n++] = ev;
	l->warnings = utrace_dat_iter_warnings(it);
	if (l->warnings)
		snprintf(l->warning, sizeof(l->warning), "%s", utrace_dat_iter_warning(it));
	utrace_dat_iter_close(it);
	if (dp)
		*dp = d;
	else
		utrace_dat_close(d);
	return ret;
}

static const char *kind_name(uint32_t k)
{
	static const char *const names[] = {"?", "ENTRY", "EXIT", "LEAF", "FUNC", "LOST"};

	return k < 6 ? names[k] : "?";
}

/* Checks one event: kind, ts, duration, id, depth (-1: don't care). */
static void expect(const struct evlist *l, int i, uint32_t kind, uint64_t ts, int64_t dur,
		   int64_t id, int64_t depth, const char *what)
{
	const struct utrace_event *e;
	int ok;

	if (i >= l->n) {
		check(0, "%s: event %d missing (only %d)", what, i, l->n);
		return;
	}
	e = &l->ev[i];
	ok = e->kind == kind && e->ts == ts && (dur < 0 || e->duration == (uint64_t)dur) &&
	     (id < 0 || e->id == (uint32_t)id) && (depth < 0 || e->depth == (uint32_t)depth);
	check(ok,
	      "%s: event %d is %s ts %llu dur %lld id %lld depth %lld (got %s ts %llu dur %llu "
	      "id %u depth %u)",
	      what, i, kind_name(kind), (unsigned long long)ts, (long long)dur, (long long)id,
	      (long long)depth, kind_name(e->kind), (unsigned long long)e->ts,
	      (unsigned long long)e->duration, e->id, e->depth);
}

static void test_basic(void)
{
	const char *path = check_path("basic.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct utrace_dat *d;
	struct evlist l;
	uint64_t off = 0;
	const char *s;

	fx_graph_basic(w);
	fx_end(w);
	if (read_all(path, &l, &d) < 0) {
		check(0, "basic: open");
		return;
	}
	check(l.n == 7, "basic: 7 events (got %d)", l.n);
	expect(&l, 0, UTRACE_EV_ENTRY, 1000, -1, 0, 0, "basic");
	expect(&l, 1, UTRACE_EV_LEAF, 1010, 5, 1, 1, "basic");
	expect(&l, 2, UTRACE_EV_ENTRY, 1020, -1, 2, 1, "basic");
	expect(&l, 3, UTRACE_EV_LEAF, 1021, 16777236, 3, 2, "basic: TIME_EXTEND");
	expect(&l, 4, UTRACE_EV_LEAF, 16778260, 100, 1, 2, "basic");
	expect(&l, 5, UTRACE_EV_EXIT, 16778367, 16777347, 2, 1, "basic");
	expect(&l, 6, UTRACE_EV_EXIT, 2016778367, 2016777367, 0, 0, "basic: EXIT_LONG");
	check(l.n == 7 && l.ev[0].cpu == 2 && l.ev[4].cpu == 3 && l.ev[5].cpu == 3,
	      "basic: cpu from the header, then from a CPU record");
	check(l.n == 7 && l.ev[0].tid == 100 && l.ev[0].pid == 100 && l.ev[0].image == FX_IMAGE,
	      "basic: pid, tid and image from the BUFFER record");
	check(l.warnings == 0, "basic: no warnings");
	check(utrace_dat_finished(d) && utrace_dat_warning_count(d) == 0,
	      "basic: finished, no open warnings");

	s = utrace_dat_meta(d, "tracer");
	check(s && !strcmp(s, "function_graph"), "meta tracer");
	s = utrace_dat_meta(d, "command");
	check(s && !strcmp(s, "test prog"), "meta command");
	check(!utrace_dat_meta(d, "nosuch"), "meta missing key");
	check(utrace_dat_buffer_count(d) == 1 && !strcmp(utrace_dat_buffer_get(d, 0)->comm, "test"),
	      "buffer comm");
	check(utrace_dat_image_count(d) == 1 && !strcmp(utrace_dat_image_get(d, 0)->exe, FX_EXE),
	      "image exe");
	check(utrace_dat_nr_cpus(d) == 3, "nr_cpus from the sub-buffer headers");

	s = utrace_dat_func_name(d, FX_IMAGE, 0);
	check(!strcmp(s, "main"), "func name: site at the symbol (%s)", s);
	s = utrace_dat_func_name(d, FX_IMAGE, 1);
	check(!strcmp(s, "foo"), "func name: site after endbr64 (%s)", s);
	s = utrace_dat_func_name(d, FX_IMAGE, 2);
	check(!strcmp(s, "bar"), "func name: size-0 symbol (%s)", s);
	s = utrace_dat_func_name(d, FX_IMAGE, 3);
	check(!strcmp(s, "0x1400"), "func name: no symbol gives the address (%s)", s);
	check(utrace_dat_func_name(d, FX_IMAGE, 3) == s, "func name: cached");
	s = utrace_dat_func_name(d, FX_IMAGE, 99);
	check(!strcmp(s, "<id 99>"), "func name: unknown id (%s)", s);
	s = utrace_dat_func_name(d, 42, 0);
	check(!strcmp(s, "<id 0>"), "func name: unknown image (%s)", s);
	s = utrace_dat_addr_name(d, FX_IMAGE, FX_BIAS + 0x110, &off);
	check(s && !strcmp(s, "main") && off == 0x10, "addr name: main+0x10");
	s = utrace_dat_addr_name(d, FX_IMAGE, FX_BIAS + 0x350, &off);
	check(s && !strcmp(s, "bar") && off == 0x50, "addr name: size-0 symbol covers to the next");
	check(!utrace_dat_addr_name(d, FX_IMAGE, FX_BIAS + 0x395, NULL), "addr name: past the end");
	check(!utrace_dat_addr_name(d, FX_IMAGE, 0x10, NULL), "addr name: below the object");
	s = utrace_dat_addr_name(d, FX_IMAGE, FX_LIB_BIAS + 0x120, &off);
	check(s && !strcmp(s, "libc_start") && off == 0x20, "addr name: in a library");
	utrace_dat_close(d);
}

static void test_context_lost(void)
{
	const char *path = check_path("context.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p1 = {100, 0, 0, 0, 0, 0};
	struct fx_page p2 = {500, 1, 12, 0, UTRACE_SB_CONTEXT, 2};
	struct fx_page p3 = {600, 3, 0, 0, 0, 0};
	struct fx_page p4 = {700, 4, 0, 1, UTRACE_SB_CONTEXT, 3};
	struct wl l1 = {.n = 0}, l2 = {.n = 0}, l3 = {.n = 0}, l4 = {.n = 0};
	struct evlist l;

	fx_buffer(w, 8, 200, "ctx");
	wl_entry(&l1, 0, 0);  /* main @100 */
	wl_entry(&l1, 1, 10); /* foo @110, its exit lost */
	fx_page(w, 8, &p1, &l1);
	/* 12 lost; the producer says main and foo are open */
	wl_ext(&l2, UEXT_CONTEXT, 2);
	wl_put(&l2, 2);
	wl_put(&l2, 0);
	wl_put(&l2, 1);
	wl_exit(&l2, 10); /* foo @510 */
	wl_ext(&l2, UEXT_LOST, 0);
	wl_u64(&l2, 3);
	wl_exit(&l2, 5); /* main @515 */
	fx_page(w, 8, &p2, &l2);
	/* seq 2 is missing */
	wl_entry(&l3, 2, 0);
	wl_exit(&l3, 1);
	fx_page(w, 8, &p3, &l3);
	/* depth 3, only the innermost id known */
	wl_ext(&l4, UEXT_CONTEXT, 1);
	wl_put(&l4, 3);
	wl_put(&l4, 1);
	wl_exit(&l4, 1);
	wl_exit(&l4, 1);
	wl_exit(&l4, 1);
	wl_exit(&l4, 1); /* one more than open */
	fx_page(w, 8, &p4, &l4);
	fx_end(w);

	if (read_all(path, &l, NULL) < 0) {
		check(0, "context: open");
		return;
	}
	check(l.n == 12, "context: 12 events (got %d)", l.n);
	expect(&l, 0, UTRACE_EV_ENTRY, 100, -1, 0, 0, "context");
	expect(&l, 1, UTRACE_EV_ENTRY, 110, -1, 1, 1, "context: no fold across a loss");
	expect(&l, 2, UTRACE_EV_LOST, 500, -1, -1, -1, "context: lost_before");
	check(l.n > 2 && l.ev[2].lost == 12 && !(l.ev[2].flags & UTRACE_EVF_LOST_UNKNOWN),
	      "context: 12 lost");
	expect(&l, 3, UTRACE_EV_EXIT, 510, 0, 1, 1, "context: exit of a CONTEXT frame");
	check(l.n > 3 && (l.ev[3].flags & UTRACE_EVF_NO_DURATION) &&
		  (l.ev[3].flags & UTRACE_EVF_NO_ENTRY) && !(l.ev[3].flags & UTRACE_EVF_NO_ID),
	      "context: NO_DURATION, id known");
	expect(&l, 4, UTRACE_EV_LOST, 510, -1, -1, -1, "context: LOST record");
	check(l.n > 4 && l.ev[4].lost == 3, "context: 3 lost");
	expect(&l, 5, UTRACE_EV_EXIT, 515, 0, 0, 0, "context: outer CONTEXT frame");
	expect(&l, 6, UTRACE_EV_LOST, 600, -1, -1, -1, "context: seq gap");
	check(l.n > 6 && (l.ev[6].flags & UTRACE_EVF_LOST_UNKNOWN), "context: gap count unknown");
	expect(&l, 7, UTRACE_EV_LEAF, 600, 1, 2, 0, "context: after the gap");
	expect(&l, 8, UTRACE_EV_EXIT, 701, 0, 1, 2, "context: depth 3, innermost id");
	check(l.n > 8 && l.ev[8].cpu == 1, "context: cpu of the page");
	expect(&l, 9, UTRACE_EV_EXIT, 702, 0, UTRACE_DAT_NO_ID, 1, "context: unknown frame");
	check(l.n > 9 && (l.ev[9].flags & UTRACE_EVF_NO_ID), "context: NO_ID");
	expect(&l, 10, UTRACE_EV_EXIT, 703, 0, UTRACE_DAT_NO_ID, 0, "context: unknown frame");
	expect(&l, 11, UTRACE_EV_EXIT, 704, 0, UTRACE_DAT_NO_ID, 0, "context: empty stack");
	check(l.n > 11 && (l.ev[11].flags & UTRACE_EVF_NO_DURATION), "context: empty stack flags");
}

/*
 * Two program stacks in one thread: main (0) calls f (1), switches to
 * stack 5 where g (2) starts, back to stack 0 where f returns, to 5 where
 * g returns, to 0 where main returns: each exit pairs with the entry of
 * its own stack, durations included.  Then a switch to a stack whose
 * entries were never seen (9): its frames are what the record names.
 */
static void test_switch(void)
{
	const char *path = check_path("switch.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p1 = {100, 0, 0, 0, 0, 0};
	struct wl l1 = {.n = 0};
	static const uint32_t main_f[] = {0, 1}, g[] = {2}, m[] = {0}, far[] = {3, 4};
	struct evlist l;

	fx_buffer(w, 8, 200, "co");
	wl_entry(&l1, 0, 0);			/* main @100 */
	wl_entry(&l1, 1, 10);			/* f @110 */
	wl_switch(&l1, 10, 0, 5, 0, 0, NULL);	/* @120 */
	wl_entry(&l1, 2, 10);			/* g @130 */
	wl_switch(&l1, 10, 5, 0, 2, 2, main_f); /* @140 */
	wl_exit(&l1, 10);			/* f @150 */
	wl_switch(&l1, 10, 0, 5, 1, 1, g);	/* @160 */
	wl_exit(&l1, 10);			/* g @170 */
	wl_switch(&l1, 10, 5, 0, 1, 1, m);	/* @180 */
	wl_switch(&l1, 0, 0, 9, 2, 2, far);	/* @180 */
	wl_exit(&l1, 10);			/* 4 @190 */
	wl_switch(&l1, 0, 9, 0, 1, 1, m);	/* @190 */
	wl_exit(&l1, 10);			/* main @200 */
	fx_page(w, 8, &p1, &l1);
	fx_end(w);

	if (read_all(path, &l, NULL) < 0) {
		check(0, "switch: open");
		return;
	}
	check(l.n == 7, "switch: 7 events (got %d)", l.n);
	expect(&l, 0, UTRACE_EV_ENTRY, 100, -1, 0, 0, "switch: main");
	expect(&l, 1, UTRACE_EV_ENTRY, 110, -1, 1, 1, "switch: f");
	expect(&l, 2, UTRACE_EV_ENTRY, 130, -1, 2, 0, "switch: g on its own stack");
	expect(&l, 3, UTRACE_EV_EXIT, 150, 40, 1, 1, "switch: f returns, timed");
	expect(&l, 4, UTRACE_EV_EXIT, 170, 40, 2, 0, "switch: g returns, timed");
	expect(&l, 5, UTRACE_EV_EXIT, 190, 0, 4, 1, "switch: a stack not seen: its named frame");
	check(l.n > 5 && (l.ev[5].flags & UTRACE_EVF_NO_DURATION), "switch: not seen: no duration");
	expect(&l, 6, UTRACE_EV_EXIT, 200, 100, 0, 0, "switch: main returns, timed");
}

static void test_unwind_thresh(void)
{
	const char *path = check_path("unwind.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p1 = {1000, 0, 0, 0, 0, 0};
	struct fx_page p2 = {2000, 0, 0, 0, 0, 0};
	struct wl l1 = {.n = 0}, l2 = {.n = 0};
	struct evlist l;

	fx_buffer(w, 9, 300, "unwind");
	wl_entry(&l1, 0, 0); /* main @1000 */
	wl_entry(&l1, 1, 1); /* foo @1001 */
	wl_entry(&l1, 2, 1); /* bar @1002 */
	wl_ext(&l1, UEXT_EXIT_UNWIND, 3);
	wl_put(&l1, 7); /* all three end @1009 */
	fx_page(w, 9, &p1, &l1);

	fx_buffer(w, 10, 301, "thresh");
	wl_ext(&l2, UEXT_GRAPH_LEAF, 50);
	wl_put(&l2, 1);
	wl_put(&l2, 3);
	wl_u64(&l2, 40); /* foo ended @2050 after 40 */
	fx_page(w, 10, &p2, &l2);
	fx_end(w);

	if (read_all(path, &l, NULL) < 0) {
		check(0, "unwind: open");
		return;
	}
	check(l.n == 6, "unwind: 6 events (got %d)", l.n);
	expect(&l, 0, UTRACE_EV_ENTRY, 1000, -1, 0, 0, "unwind");
	expect(&l, 1, UTRACE_EV_ENTRY, 1001, -1, 1, 1, "unwind");
	expect(&l, 2, UTRACE_EV_LEAF, 1002, 7, 2, 2, "unwind: innermost folds");
	expect(&l, 3, UTRACE_EV_EXIT, 1009, 8, 1, 1, "unwind");
	expect(&l, 4, UTRACE_EV_EXIT, 1009, 9, 0, 0, "unwind");
	check(l.n == 6 && (l.ev[2].flags & UTRACE_EVF_UNWIND) &&
		  (l.ev[4].flags & UTRACE_EVF_UNWIND),
	      "unwind: flagged");
	expect(&l, 5, UTRACE_EV_EXIT, 2050, 40, 1, 3, "thresh: GRAPH_LEAF");
	check(l.n == 6 && (l.ev[5].flags & UTRACE_EVF_THRESH) &&
		  (l.ev[5].flags & UTRACE_EVF_NO_ENTRY),
	      "thresh: flags");
}

static void test_thresh_timestamp(void)
{
	const char *path = check_path("thresh.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p = {2000, 0, 0, 0, 0, 0};
	struct wl l1 = {.n = 0};
	struct evlist l;

	fx_buffer(w, 10, 301, "thresh");
	wl_ext(&l1, UEXT_TIME_STAMP, 0);
	wl_u64(&l1, 9000);
	wl_ext(&l1, UEXT_GRAPH_LEAF, 0);
	wl_put(&l1, 0);
	wl_put(&l1, 0);
	wl_u64(&l1, 10000);
	fx_page(w, 10, &p, &l1);
	fx_end(w);
	if (read_all(path, &l, NULL) < 0) {
		check(0, "thresh: open");
		return;
	}
	check(l.n == 1, "thresh: 1 event (got %d)", l.n);
	expect(&l, 0, UTRACE_EV_EXIT, 9000, 10000, 0, 0, "thresh: TIME_STAMP, long duration");
}

/* funcgraph-args / -retval: ARGS after an ENTRY, RETVAL after an EXIT
 * belong to them (a LEAF gets both); elsewhere they are skipped. */
static void test_args_retval(void)
{
	const char *path = check_path("args.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p = {3000, 0, 0, 0, 0, 0};
	struct wl l1 = {.n = 0};
	struct evlist l;

	fx_buffer(w, 11, 302, "args");
	wl_entry(&l1, 0, 0); /* main(7, -1) @3000 */
	wl_ext(&l1, UEXT_ARGS, 12);
	for (uint64_t i = 0; i < 6; i++)
		wl_u64(&l1, i == 1 ? UINT64_MAX : 7 + i);
	wl_entry(&l1, 1, 1); /* foo @3001, no ARGS */
	wl_exit(&l1, 2);     /* foo returns 0x2a @3003 */
	wl_ext(&l1, UEXT_RETVAL, 0);
	wl_u64(&l1, 0x2a);
	wl_ext(&l1, UEXT_RETVAL, 0); /* a stray one: skipped */
	wl_u64(&l1, 5);
	wl_exit(&l1, 4); /* main @3007, no RETVAL */
	fx_page(w, 11, &p, &l1);
	fx_end(w);
	if (read_all(path, &l, NULL) < 0) {
		check(0, "args: open");
		return;
	}
	check(l.n == 3, "args: 3 events (got %d, %llu warnings)", l.n,
	      (unsigned long long)l.warnings);
	expect(&l, 0, UTRACE_EV_ENTRY, 3000, -1, 0, 0, "args: main");
	check(l.n > 0 && l.ev[0].has_args && l.ev[0].nargs == 6 && l.ev[0].args[0] == 7 &&
		  l.ev[0].args[1] == UINT64_MAX && l.ev[0].args[5] == 12 && !l.ev[0].has_retval,
	      "args: main's six registers");
	expect(&l, 1, UTRACE_EV_LEAF, 3001, 2, 1, 1, "args: foo folds");
	check(l.n > 1 && !l.ev[1].has_args && l.ev[1].has_retval && l.ev[1].retval == 0x2a,
	      "args: the LEAF has its exit's rax, no arguments");
	expect(&l, 2, UTRACE_EV_EXIT, 3007, 7, 0, 0, "args: main's exit after a stray RETVAL");
	check(l.n > 2 && !l.ev[2].has_retval && !l.warnings, "args: no rax, no warning");
}

static void test_merge(void)
{
	const char *path = check_path("merge.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page a1 = {100, 0, 0, 0, 0, 0}, a2 = {300, 1, 0, 0, 0, 0};
	struct fx_page b1 = {200, 0, 0, 1, 0, 0}, b2 = {300, 1, 0, 1, 0, 0};
	struct wl l1 = {.n = 0}, l2 = {.n = 0}, l3 = {.n = 0}, l4 = {.n = 0};
	struct evlist l;

	fx_buffer(w, 11, 400, "a");
	fx_buffer(w, 12, 401, "b");
	wl_entry(&l1, 0, 0);
	wl_exit(&l1, 10);
	wl_entry(&l1, 1, 190); /* @300 */
	wl_exit(&l1, 10);
	wl_entry(&l2, 2, 0);
	wl_exit(&l2, 1);
	wl_entry(&l3, 3, 0);
	wl_exit(&l3, 1);
	wl_entry(&l4, 0, 0); /* @300 */
	wl_exit(&l4, 1);
	/* b's pages come first in the file */
	fx_page(w, 12, &b1, &l3);
	fx_page(w, 11, &a1, &l1);
	fx_page(w, 12, &b2, &l4);
	fx_page(w, 11, &a2, &l2);
	fx_end(w);
	if (read_all(path, &l, NULL) < 0) {
		check(0, "merge: open");
		return;
	}
	check(l.n == 5, "merge: 5 events (got %d)", l.n);
	expect(&l, 0, UTRACE_EV_LEAF, 100, 10, 0, 0, "merge");
	expect(&l, 1, UTRACE_EV_LEAF, 200, 1, 3, 0, "merge");
	expect(&l, 2, UTRACE_EV_LEAF, 300, 10, 1, 0, "merge: a tie goes to the first buffer");
	expect(&l, 3, UTRACE_EV_LEAF, 300, 1, 2, 0, "merge: a tie goes to the first buffer");
	expect(&l, 4, UTRACE_EV_LEAF, 300, 1, 0, 0, "merge");
	check(l.n == 5 && l.ev[0].tid == 400 && l.ev[1].tid == 401 && l.ev[1].cpu == 1,
	      "merge: tid and cpu follow the buffer");
}

static void test_long_forms(void)
{
	const char *path = check_path("long.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function");
	struct fx_page p = {50, 0, 0, 0, 0, 0};
	struct wl l1 = {.n = 0};
	struct evlist l;

	fx_buffer(w, 1, 10, "long");
	wl_ext(&l1, UEXT_ENTRY_LONG, 0);
	wl_put(&l1, 300000);
	wl_put(&l1, 5000);		   /* @5050 */
	wl_exit(&l1, UREC_EXIT_DELTA_MAX); /* @5050 + 2^30 - 1 */
	wl_func(&l1, 2, 7, 0x1234);
	wl_ext(&l1, UEXT_FUNC_LONG, 0);
	wl_put(&l1, 400000);
	wl_put(&l1, 3);
	wl_u64(&l1, 0xffff00001111ull);
	fx_page(w, 1, &p, &l1);
	fx_end(w);
	if (read_all(path, &l, NULL) < 0) {
		check(0, "long: open");
		return;
	}
	check(l.n == 3, "long: 3 events (got %d)", l.n);
	expect(&l, 0, UTRACE_EV_LEAF, 5050, UREC_EXIT_DELTA_MAX, 300000, 0, "long: ENTRY_LONG");
	expect(&l, 1, UTRACE_EV_FUNC, 5050 + UREC_EXIT_DELTA_MAX + 7, -1, 2, -1, "long: FUNC");
	expect(&l, 2, UTRACE_EV_FUNC, 5050 + UREC_EXIT_DELTA_MAX + 10, -1, 400000, -1,
	       "long: FUNC_LONG");
	check(l.n == 3 && l.ev[1].parent_ip == 0x1234 && l.ev[2].parent_ip == 0xffff00001111ull,
	      "long: parent ips");
}

static void test_corrupt_records(void)
{
	const char *path = check_path("corrupt.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p1 = {10, 0, 0, 0, 0, 0}, p2 = {20, 1, 0, 0, 0, 0}, p3 = {30, 2, 0, 0, 0, 1};
	struct wl l1 = {.n = 0}, l2 = {.n = 0}, l3 = {.n = 0};
	struct evlist l;

	fx_buffer(w, 1, 10, "bad");
	wl_entry(&l1, 0, 0);
	wl_ext(&l1, (enum utrace_ext_type)60, 0);
	wl_entry(&l1, 1, 0);
	fx_page(w, 1, &p1, &l1);
	wl_entry(&l2, 1, 0);
	wl_exit(&l2, 1);
	wl_put(&l2, urec_func(1, 0)); /* needs 2 more words */
	wl_put(&l2, 0);
	fx_page(w, 1, &p2, &l2);
	wl_exit(&l3, 5); /* the header says depth 1: exits main */
	wl_ext(&l3, UEXT_CONTEXT, 5);
	wl_put(&l3, 2); /* 5 ids, depth 2: impossible */
	fx_page(w, 1, &p3, &l3);
	fx_end(w);
	if (read_all(path, &l, NULL) < 0) {
		check(0, "corrupt: open");
		return;
	}
	check(l.warnings == 3, "corrupt: 3 sub-buffers cut short (got %llu: %s)",
	      (unsigned long long)l.warnings, l.warning);
	check(strstr(l.warning, "unknown record type 60") != NULL, "corrupt: says why: %s",
	      l.warning);
	check(l.n == 3, "corrupt: 3 events (got %d)", l.n);
	expect(&l, 0, UTRACE_EV_ENTRY, 10, -1, 0, 0, "corrupt");
	expect(&l, 1, UTRACE_EV_LEAF, 20, 1, 1, 0, "corrupt: next page from its header");
	expect(&l, 2, UTRACE_EV_EXIT, 35, 0, UTRACE_DAT_NO_ID, 0, "corrupt: depth from header");
}

static void test_clock(void)
{
	const char *path = check_path("clock.dat");
	struct utrace_dat_clock c = {1000, 5000, 3000, 6000, 0};
	struct utrace_dat_writer *w;
	struct utrace_error err;
	struct utrace_dat *d;

	if (utrace_dat_writer_open(path, &w, &err) < 0)
		fx_die(&err);
	fx_write(w, UTRACE_DAT_CLOCK, &c, sizeof(c), NULL, 0);
	c.tsc1 = 1000;
	fx_write(w, UTRACE_DAT_CLOCK, &c, sizeof(c), NULL, 0);
	c.tsc1 = 3000;
	fx_write(w, UTRACE_DAT_CLOCK, &c, sizeof(c), NULL, 0); /* the last one counts */
	fx_end(w);
	if (utrace_dat_open(path, &d, &err) < 0) {
		check(0, "clock: open: %s", err.msg);
		return;
	}
	check(utrace_dat_tsc_to_ns(d, 2000) == 5500 && utrace_dat_tsc_to_ns(d, 3000) == 6000 &&
		  utrace_dat_tsc_to_ns(d, 0) == 4500 && utrace_dat_tsc_to_ns(d, 1001) == 5000,
	      "clock: linear map between the two points");
	check(utrace_dat_tsc_to_ns(d, UINT64_MAX) > 6000, "clock: far tsc does not wrap");
	check(utrace_dat_nr_cpus(d) == 1 && utrace_dat_buffer_count(d) == 0, "clock: no buffers");
	utrace_dat_close(d);
}

static void test_writer(void)
{
	const char *path = check_path("writer.dat");
	struct utrace_dat_writer *w;
	struct utrace_error err;
	uint64_t before;
	struct stat st;
	static char big[3 << 20];
	struct iovec iov[2] = {{big, sizeof(big)}, {"abc", 3}};

	check(utrace_dat_writer_open(check_path("no/such/dir/x.dat"), &w, &err) < 0 &&
		  strstr(err.msg, "no/such/dir") != NULL,
	      "writer: open error names the file (%s)", err.msg);
	if (utrace_dat_writer_open(path, &w, &err) < 0)
		fx_die(&err);
	memset(big, 0x5a, sizeof(big));
	check(utrace_dat_write(w, UTRACE_DAT_NOTICE, iov, 2, &err) == 0,
	      "writer: a record larger than the buffer");
	before = utrace_dat_writer_bytes(w);
	check(before == sizeof(struct utrace_dat_header) + 8 + ((sizeof(big) + 3 + 7) & ~7ul),
	      "writer: bytes counts header, record and padding");
	fx_end(w);
	check(stat(path, &st) == 0 && (uint64_t)st.st_size == before + 8,
	      "writer: END record appended at close");
}

static void test_errors(void)
{
	const char *path = check_path("errors.dat");
	struct utrace_dat_header h;
	struct utrace_error err;
	struct utrace_dat *d;
	FILE *f;

	check(utrace_dat_open(check_path("missing.dat"), &d, &err) < 0 &&
		  strstr(err.msg, "missing.dat: No such file") != NULL,
	      "open: missing file (%s)", err.msg);
	f = fopen(path, "w");
	fputs("hello, world, this is not a trace file at all, no no no no no no no", f);
	fclose(f);
	check(utrace_dat_open(path, &d, &err) < 0 && strstr(err.msg, "bad magic") != NULL,
	      "open: bad magic (%s)", err.msg);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, UTRACE_DAT_MAGIC, 8);
	h.size = sizeof(h);
	h.version = 99;
	h.subbuf_size = UTRACE_SUBBUF_SIZE;
	f = fopen(path, "w");
	fwrite(&h, sizeof(h), 1, f);
	fclose(f);
	check(utrace_dat_open(path, &d, &err) < 0 && strstr(err.msg, "version 99") != NULL,
	      "open: newer version (%s)", err.msg);
	check(utrace_dat_open(check_tmpdir(), &d, &err) < 0, "open: a directory (%s)", err.msg);
}

/* A file cut before its SYMTAB records: names come from the object's file
 * on disk (this test program itself). */
static __attribute__((noinline)) void test_disk_syms(void)
{
	const char *path = check_path("disk.dat");
	struct utrace_dat_object obj = {7, 0, 1, 0, 1, 0, 0};
	struct utrace_dat_sites st = {7, 0, 0, 1};
	const struct utrace_sym *sym = NULL;
	struct utrace_symtab *tab;
	struct utrace_dat_writer *w;
	struct utrace_error err;
	struct utrace_dat *d;
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *name;

	if (n <= 0 || utrace_symtab_load((exe[n] = '\0', exe), &tab, &err) < 0) {
		check(0, "disk symbols: load this program's symbols");
		return;
	}
	for (size_t i = 0; i < utrace_symtab_count(tab); i++)
		if (!strcmp(utrace_symtab_get(tab, i)->name, "test_disk_syms"))
			sym = utrace_symtab_get(tab, i);
	if (!sym) {
		check(0, "disk symbols: this test has a symbol");
		utrace_symtab_free(tab);
		return;
	}
	if (utrace_dat_writer_open(path, &w, &err) < 0)
		fx_die(&err);
	fx_write(w, UTRACE_DAT_OBJECT, &obj, sizeof(obj), exe, strlen(exe) + 1);
	fx_write(w, UTRACE_DAT_SITES, &st, sizeof(st), &sym->vaddr, 8);
	utrace_symtab_free(tab);
	fx_end(w);
	if (utrace_dat_open(path, &d, &err) < 0) {
		check(0, "disk symbols: open: %s", err.msg);
		return;
	}
	check(utrace_dat_warning_count(d) == 0, "disk symbols: no warning before a lookup");
	name = utrace_dat_func_name(d, 7, 0);
	check(!strcmp(name, "test_disk_syms"), "disk symbols: name from the file (%s)", name);
	check(utrace_dat_warning_count(d) == 1 &&
		  strstr(utrace_dat_warning(d, 0), "symbol tables missing"),
	      "disk symbols: says so");
	utrace_dat_close(d);
}

int main(void)
{
	if (check_tmpdir_init("dat") < 0) {
		perror("mkdtemp");
		return 2;
	}
	test_basic();
	test_context_lost();
	test_switch();
	test_unwind_thresh();
	test_thresh_timestamp();
	test_args_retval();
	test_merge();
	test_long_forms();
	test_corrupt_records();
	test_clock();
	test_writer();
	test_errors();
	test_disk_syms();
	check_tmpdir_cleanup();
	return check_done();
}
