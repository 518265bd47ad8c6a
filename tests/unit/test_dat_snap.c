/* SPDX-License-Identifier: MIT */
/*
 * test_dat_snap.c - snapshots and stack records in utrace.dat: the
 * SNAPSHOT list, a file opened as one snapshot (its SNAP_PAGEs in place
 * of the trace's PAGEs, its records cut at the snapshot's TSC, a missing
 * id refused), the trace opened as before (SNAP_PAGEs ignored), and the
 * stacktrace trigger's UEXT_STACK record decoded and printed as the
 * kernel's <stack trace> block.
 */
#include <errno.h>

#include "lib/report/report_stack.h"
#include "lib/tracefile/dat_reader.h"
#include "tests/unit/dat_fixture.h"

#define MAX_EVENTS 32

struct evlist {
	struct utrace_event ev[MAX_EVENTS];
	uint64_t frames[MAX_EVENTS][4];
	int n;
};

/* Opens path as snapshot id (0: the trace) and reads every event. */
static int read_snap(const char *path, unsigned id, struct evlist *l, struct utrace_dat **dp,
		     struct utrace_error *err)
{
	struct utrace_dat_iter *it;
	struct utrace_dat *d;
	struct utrace_event ev;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = utrace_dat_open_snapshot(path, id, &d, err);
	if (ret < 0)
		return ret;
	ret = utrace_dat_iter_open(d, &it, err);
	while (ret == 0 && (ret = utrace_dat_iter_next(it, &ev, err)) > 0) {
		if (l->n == MAX_EVENTS)
			continue;
		if (ev.kind == UTRACE_EV_STACK && ev.data_len <= sizeof(l->frames[0])) {
			memcpy(l->frames[l->n], ev.data, ev.data_len);
			ev.data = l->frames[l->n]; /* ev.data lasts until the next event */
		}
		l->ev[l->n++] = ev;
		ret = 0;
	}
	if (ret >= 0)
		utrace_dat_iter_close(it);
	if (dp && ret >= 0)
		*dp = d;
	else
		utrace_dat_close(d);
	return ret;
}

static void wl_stack(struct wl *l, uint32_t delta, const uint64_t *pc, uint32_t n, bool ret)
{
	wl_ext(l, UEXT_STACK, 2 * n);
	wl_put(l, delta);
	wl_put(l, n | (ret ? UREC_STACK_RET : 0) << 16);
	for (uint32_t i = 0; i < n; i++)
		wl_u64(l, pc[i]);
}

static void snap_page(struct utrace_dat_writer *w, uint32_t id, const struct wl *l)
{
	struct utrace_dat_page pg = {7, id};
	struct utrace_subbuf sb = {1000, l->n * 4, 0, 0, 2, 0, 0, 0};
	struct iovec iov[3] = {{&pg, sizeof(pg)}, {&sb, sizeof(sb)}, {(void *)l->w, l->n * 4}};
	struct utrace_error err;

	if (utrace_dat_write(w, UTRACE_DAT_SNAP_PAGE, iov, 3, &err) < 0)
		fx_die(&err);
}

static void snapshot(struct utrace_dat_writer *w, uint32_t id, uint64_t tsc)
{
	struct utrace_dat_snapshot s = {
	    .id = id, .event = 32770, .tid = 100, .pages = 1, .tsc = tsc};

	fx_write(w, UTRACE_DAT_SNAPSHOT, &s, sizeof(s), NULL, 0);
}

/* main's and foo's return addresses into them, one no symbol covers */
static const uint64_t stack[3] = {FX_BIAS + 0x210, FX_BIAS + 0x120, 0x99999};

static const char *write_file(void)
{
	const char *path = check_path("snap.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p = {1000, 0, 0, 2, 0, 0};
	struct wl l = {.n = 0};

	fx_buffer(w, 7, 100, "test");
	/* the trace: main() { <stack> } */
	wl_entry(&l, 0, 0);
	wl_stack(&l, 10, stack, 3, true);
	wl_exit(&l, 10);
	fx_page(w, 7, &p, &l);
	/* snapshot 1, cut at 1012: main() { <stack> foo() {  [cut] } } */
	l.n = 0;
	wl_entry(&l, 0, 0);		  /* 1000 */
	wl_stack(&l, 5, stack, 2, false); /* 1005 */
	wl_entry(&l, 1, 5);		  /* 1010 */
	wl_exit(&l, 5);			  /* 1015: after the cut */
	wl_exit(&l, 15);		  /* 1030 */
	snap_page(w, 1, &l);
	snapshot(w, 1, 1012);
	/* snapshot 2: the same page, cut after everything */
	snap_page(w, 2, &l);
	snapshot(w, 2, 5000);
	fx_end(w);
	return path;
}

static void test_trace(const char *path)
{
	struct utrace_error err = {0};
	struct utrace_dat *d;
	struct evlist l;

	if (read_snap(path, 0, &l, &d, &err) < 0) {
		check(0, "open the trace: %s", err.msg);
		return;
	}
	check(utrace_dat_snapshot_count(d) == 2, "two snapshots listed (%u)",
	      utrace_dat_snapshot_count(d));
	check(utrace_dat_snapshot_get(d, 0)->id == 1 &&
		  utrace_dat_snapshot_get(d, 0)->tsc == 1012 &&
		  utrace_dat_snapshot_get(d, 0)->event == 32770 &&
		  utrace_dat_snapshot_get(d, 0)->tid == 100 && !utrace_dat_snapshot_get(d, 2),
	      "the first one's id, time, event and thread");
	check(l.n == 3 && l.ev[0].kind == UTRACE_EV_ENTRY && l.ev[1].kind == UTRACE_EV_STACK &&
		  l.ev[2].kind == UTRACE_EV_EXIT,
	      "the trace: its own page only (entry, stack, exit; %d events)", l.n);
	check(l.ev[1].ts == 1010 && l.ev[1].data_len == 24 && l.ev[1].depth == 1 &&
		  (l.ev[1].flags & UTRACE_EVF_STACK_RET) && !memcmp(l.frames[1], stack, 24),
	      "the stack: at 1010, inside main, three return addresses");
	{
		char *buf = NULL;
		size_t n = 0;
		bool ok;
		FILE *f = open_memstream(&buf, &n);

		utrace_report_print_stack(f, d, &l.ev[1], false);
		utrace_report_print_stack(f, d, &l.ev[1], true);
		fclose(f);
		ok = buf && !strcmp(buf, "<stack trace>\n => foo\n => main\n => 0x99999\n"
					 "<stack trace>\n => foo\n => main\n => 0x99999 */\n");
		check(ok, "printed as the kernel's block, and in a function_graph comment");
		if (!ok)
			printf("# got:\n%s", buf ? buf : "");
		free(buf);
	}
	utrace_dat_close(d);
}

static void test_snapshots(const char *path)
{
	struct utrace_error err = {0};
	struct evlist l;
	struct utrace_dat *d;
	int ret;

	if (read_snap(path, 1, &l, NULL, &err) < 0) {
		check(0, "open snapshot 1: %s", err.msg);
		return;
	}
	check(l.n == 3 && l.ev[0].kind == UTRACE_EV_ENTRY && l.ev[1].kind == UTRACE_EV_STACK &&
		  l.ev[2].kind == UTRACE_EV_ENTRY && l.ev[2].ts == 1010,
	      "snapshot 1: its page, up to its moment (entry, stack, entry; %d events)", l.n);
	check(!(l.ev[1].flags & UTRACE_EVF_STACK_RET) && l.ev[1].data_len == 16,
	      "a shadow-stack stack: two function starts");
	if (read_snap(path, 2, &l, NULL, &err) < 0) {
		check(0, "open snapshot 2: %s", err.msg);
		return;
	}
	check(l.n == 4 && l.ev[2].kind == UTRACE_EV_LEAF && l.ev[3].kind == UTRACE_EV_EXIT,
	      "snapshot 2: the whole page (%d events)", l.n);
	ret = utrace_dat_open_snapshot(path, 3, &d, &err);
	check(ret == -ENOENT && strstr(err.msg, "no snapshot 3"), "a missing snapshot: %s",
	      err.msg);
}

int main(void)
{
	const char *path;

	check_begin("dat-snap");
	path = write_file();
	test_trace(path);
	test_snapshots(path);
	return check_end();
}
