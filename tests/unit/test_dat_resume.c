/* SPDX-License-Identifier: MIT */
/*
 * test_dat_resume.c - bookmarks (lib/tracefile/dat_resume.c): a reading
 * that starts at them gives the events from its time on as a whole
 * reading does, with the calls open at the bookmark returning with their
 * durations and NO_ENTRY; it skips what lies before the bookmark; and a
 * reading from an earlier time forgets them.
 *
 * One thread, four sub-buffers (1 tick = 1 ns):
 *   1000  main() {  1010 foo() 5 ns  1025 bar() {
 *   2000  foo() 5 ns  2015 foo() 5 ns
 *   3000  } bar (1975 ns)  3010 foo() 5 ns
 *   4000  } main (3000 ns)
 */
#include "lib/tracefile/dat_reader.h"
#include "tests/unit/dat_fixture.h"

#define MAX_EV 64

struct evs {
	struct utrace_event ev[MAX_EV];
	int n;
};

static const char *write_file(void)
{
	const char *path = check_path("resume.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p = {1000, 0, 0, 1, 0, 0};
	struct wl l = {0};

	fx_buffer(w, 0, 100, "resume");
	wl_entry(&l, 0, 0);
	wl_entry(&l, 1, 10);
	wl_exit(&l, 5);
	wl_entry(&l, 2, 10);
	fx_page(w, 0, &p, &l);
	p = (struct fx_page){2000, 1, 0, 1, 0, 2};
	l.n = 0;
	wl_entry(&l, 1, 0);
	wl_exit(&l, 5);
	wl_entry(&l, 1, 10);
	wl_exit(&l, 5);
	fx_page(w, 0, &p, &l);
	p = (struct fx_page){3000, 2, 0, 1, 0, 2};
	l.n = 0;
	wl_exit(&l, 0);
	wl_entry(&l, 1, 10);
	wl_exit(&l, 5);
	fx_page(w, 0, &p, &l);
	p = (struct fx_page){4000, 3, 0, 1, 0, 1};
	l.n = 0;
	wl_exit(&l, 0);
	fx_page(w, 0, &p, &l);
	fx_end(w);
	return path;
}

/* The events of a reading (rs NULL: whole) from since_ns on, or all of
 * them (all). */
static void read_events(const char *path, struct utrace_dat_resume *rs, uint64_t since_ns,
			bool all, struct evs *out)
{
	struct utrace_dat *d;
	struct utrace_dat_iter *it;
	struct utrace_error err;
	struct utrace_event ev;

	out->n = 0;
	if (utrace_dat_open(path, &d, &err) < 0 || utrace_dat_iter_open(d, &it, &err) < 0) {
		check(0, "open %s: %s", path, err.msg);
		return;
	}
	if (rs && utrace_dat_iter_resume(it, rs, since_ns, &err) < 0)
		check(0, "resume: %s", err.msg);
	while (utrace_dat_iter_next(it, &ev, &err) > 0 && out->n < MAX_EV)
		if (all || ev.ts >= since_ns)
			out->ev[out->n++] = ev;
	utrace_dat_iter_close(it);
	utrace_dat_close(d);
}

/* Same events, but for the NO_ENTRY a resumed return carries. */
static bool same(const struct evs *a, const struct evs *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++) {
		const struct utrace_event *x = &a->ev[i], *y = &b->ev[i];

		if (x->kind != y->kind || x->ts != y->ts || x->id != y->id ||
		    x->depth != y->depth || x->duration != y->duration ||
		    (x->flags ^ y->flags) & ~(uint32_t)UTRACE_EVF_NO_ENTRY)
			return false;
	}
	return true;
}

static const struct utrace_event *at(const struct evs *e, uint64_t ts, enum utrace_event_kind k)
{
	for (int i = 0; i < e->n; i++)
		if (e->ev[i].ts == ts && e->ev[i].kind == k)
			return &e->ev[i];
	return NULL;
}

static void keep_from(struct evs *e, uint64_t since_ns)
{
	int k = 0;

	for (int i = 0; i < e->n; i++)
		if (e->ev[i].ts >= since_ns)
			e->ev[k++] = e->ev[i];
	e->n = k;
}

int main(void)
{
	struct utrace_dat_resume *rs;
	const struct utrace_event *ret;
	struct evs whole, got, every;
	const char *path;
	uint64_t first = UINT64_MAX;

	check_begin("dat-resume");
	path = write_file();
	if (utrace_dat_resume_new(&rs) < 0) {
		check(0, "out of memory");
		return check_end();
	}
	/* the first reading has no bookmark yet: it reads all and leaves one
	 * at the second sub-buffer, the last wholly before 2500 */
	read_events(path, rs, 2500, false, &got);
	read_events(path, NULL, 2500, false, &whole);
	check(whole.n == 3 && same(&got, &whole), "from 2500, no bookmark yet: %d events as whole",
	      got.n);

	read_events(path, rs, 2900, true, &got);
	for (int i = 0; i < got.n; i++)
		if (got.ev[i].ts < first)
			first = got.ev[i].ts;
	check(got.n && first >= 2000,
	      "from 2900: starts at the bookmark (first event %llu, nothing of 1000-1025)",
	      (unsigned long long)first);
	read_events(path, NULL, 2900, false, &whole);
	keep_from(&got, 2900);
	check(same(&got, &whole), "from 2900: the events of a whole reading (%d)", whole.n);
	ret = at(&got, 3000, UTRACE_EV_EXIT);
	check(ret && ret->duration == 1975 && (ret->flags & UTRACE_EVF_NO_ENTRY) && ret->depth == 1,
	      "bar, entered before the bookmark, returns after 1975 ns with NO_ENTRY at depth 1");
	ret = at(&got, 4000, UTRACE_EV_EXIT);
	check(ret && ret->duration == 3000 && (ret->flags & UTRACE_EVF_NO_ENTRY),
	      "main returns after 3000 ns");

	read_events(path, rs, 1500, true, &every);
	read_events(path, NULL, 0, true, &whole);
	check(same(&every, &whole) && at(&every, 1010, UTRACE_EV_LEAF),
	      "from 1500, earlier: the bookmarks are forgotten, every event comes out (%d)",
	      every.n);
	utrace_dat_resume_free(rs);
	return check_end();
}
