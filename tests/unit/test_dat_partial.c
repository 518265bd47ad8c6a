/* SPDX-License-Identifier: MIT */
/*
 * test_dat_partial.c - a sub-buffer saved more than once (a read of the
 * live trace saves the part its thread had committed, then the recorder
 * saves it again, longer or finished: lib/record/recorder_drain.c
 * rec_drain_partial).  The reader keeps the newest version in place of
 * the first (lib/tracefile/dat_reader.c index_page): every event once,
 * no gap taken for lost events, the partial file alone readable; and a
 * bookmark taken on the partial version still holds on the longer one
 * (dat_resume.c: a sub-buffer's identity is its first version's offset).
 *
 * One thread, 1 tick = 1 ns:
 *   seq 0  1000  main() {
 *   seq 1  2000  foo() 5 ns                 <- partial copy ends here
 *   seq 1  2000  foo() 5 ns  2015 bar() {   <- the same sub-buffer, longer
 *   seq 2  3000  } bar  4000 } main
 */
#include <fcntl.h>
#include <unistd.h>

#include "lib/tracefile/dat_reader.h"
#include "tests/unit/dat_fixture.h"

#define MAX_EV 32

struct evs {
	struct utrace_event ev[MAX_EV];
	int n;
};

/* The file, with (partial) or without the partial copy of seq 1; *cut:
 * where that copy ends (the partial file is the first *cut bytes). */
static const char *write_file(const char *name, bool partial, uint64_t *cut)
{
	const char *path = check_path(name);
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p = {1000, 0, 0, 1, 0, 0};
	struct wl l = {0};

	fx_buffer(w, 0, 100, "partial");
	wl_entry(&l, 0, 0);
	fx_page(w, 0, &p, &l);
	p = (struct fx_page){2000, 1, 0, 1, 0, 1};
	l.n = 0;
	wl_entry(&l, 1, 0);
	wl_exit(&l, 5);
	if (partial)
		fx_page(w, 0, &p, &l);
	if (cut)
		*cut = utrace_dat_writer_bytes(w);
	wl_entry(&l, 2, 10);
	fx_page(w, 0, &p, &l);
	p = (struct fx_page){3000, 2, 0, 1, 0, 2};
	l.n = 0;
	wl_exit(&l, 0);
	wl_exit(&l, 1000);
	fx_page(w, 0, &p, &l);
	fx_end(w);
	return path;
}

static void read_events(const char *path, struct utrace_dat_resume *rs, uint64_t since_ns,
			struct evs *out)
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
		if (ev.ts >= since_ns)
			out->ev[out->n++] = ev;
	utrace_dat_iter_close(it);
	utrace_dat_close(d);
}

static bool same(const struct evs *a, const struct evs *b, uint32_t ignore)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++) {
		const struct utrace_event *x = &a->ev[i], *y = &b->ev[i];

		if (x->kind != y->kind || x->ts != y->ts || x->id != y->id ||
		    x->depth != y->depth || x->duration != y->duration ||
		    (x->flags ^ y->flags) & ~ignore)
			return false;
	}
	return true;
}

static int count(const struct evs *e, enum utrace_event_kind k, uint32_t id)
{
	int n = 0;

	for (int i = 0; i < e->n; i++)
		n += e->ev[i].kind == k && (k == UTRACE_EV_LOST || e->ev[i].id == id);
	return n;
}

static const struct utrace_event *at(const struct evs *e, uint64_t ts, enum utrace_event_kind k)
{
	for (int i = 0; i < e->n; i++)
		if (e->ev[i].ts == ts && e->ev[i].kind == k)
			return &e->ev[i];
	return NULL;
}

/* The first n bytes of src, as a file of their own (the recording as it
 * was when the trace was read). */
static const char *prefix(const char *src, uint64_t n, const char *name)
{
	const char *path = check_path(name);
	static char buf[1 << 16];
	int in = open(src, O_RDONLY), out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t len = n <= sizeof(buf) ? (size_t)n : 0;
	ssize_t got = in >= 0 ? read(in, buf, len) : -1;

	check(len && got == (ssize_t)len && out >= 0 && write(out, buf, len) == got,
	      "copy %llu bytes", (unsigned long long)n);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return path;
}

int main(void)
{
	struct utrace_dat_resume *rs;
	const struct utrace_event *ret;
	struct evs got, ref, part;
	const char *with, *without, *early;
	uint64_t cut = 0;

	check_begin("dat-partial");
	with = write_file("partial.dat", true, &cut);
	without = write_file("whole.dat", false, NULL);
	read_events(with, NULL, 0, &got);
	read_events(without, NULL, 0, &ref);
	check(ref.n > 0 && same(&got, &ref, 0),
	      "a sub-buffer saved twice reads as saved once: %d events, %d expected", got.n, ref.n);
	check(count(&got, UTRACE_EV_LEAF, 1) == 1 && count(&got, UTRACE_EV_LOST, 0) == 0,
	      "foo() once (%d), no lost events taken for a gap (%d)", count(&got, UTRACE_EV_LEAF, 1),
	      count(&got, UTRACE_EV_LOST, 0));

	early = prefix(with, cut, "partial-early.dat");
	read_events(early, NULL, 0, &part);
	check(at(&part, 1000, UTRACE_EV_ENTRY) && at(&part, 2000, UTRACE_EV_LEAF) && part.n == 2,
	      "the recording as read then: main() { and foo() (%d events)", part.n);

	if (utrace_dat_resume_new(&rs) < 0) {
		check(0, "out of memory");
		return check_end();
	}
	/* every record of the partial copy lies before 2500: the bookmark
	 * is where it starts, main() open */
	read_events(early, rs, 2500, &part);
	read_events(with, rs, 2500, &got);
	read_events(with, NULL, 2500, &ref);
	ret = at(&got, 4000, UTRACE_EV_EXIT);
	check(same(&got, &ref, UTRACE_EVF_NO_ENTRY) && ret && (ret->flags & UTRACE_EVF_NO_ENTRY),
	      "the bookmark on the partial copy holds on the longer one (main's return from it)");
	utrace_dat_resume_free(rs);
	return check_end();
}
