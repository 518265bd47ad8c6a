/* SPDX-License-Identifier: MIT */
/*
 * test_dat_refresh.c - a growing file kept open (utrace_dat_refresh,
 * lib/tracefile/dat_reader.c): read, grown, refreshed, it answers as a
 * fresh open of the file as it is then.
 *
 * The whole recording is written once; the growing file is made of its
 * first bytes, more at each step, cut at record boundaries and in the
 * middle of records (a recorder whose buffer was half written out).  At
 * each step the refreshed reading and a fresh open must give the same
 * events (every field, the data bytes), buffers (their order, threads,
 * names), task names, formats, windows of utrace's own work, warnings
 * and finished flag.  The steps add what a live recording adds: kernel
 * pages with new tasks, a new CPU, a user buffer's pages, formats, a
 * notice, an OWN window, statistics; then a user buffer of a thread the
 * kernel pages named before (a fresh open puts the kernel tasks'
 * buffers last: read anew), and last what a recording writes when it
 * ends (KTASKS, a second CLOCK, END: read anew).  A step that only adds
 * pages reads about what was added, not the file.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/tracefile/dat_reader.h"
#include "tests/unit/dat_fixture.h"

#define KEV_ID 7
#define MAX_EV 4096

static const char kev_format[] = FX_KEV_FORMAT;

static const char print_format[] =
    "name: print\n"
    "ID: 5\n"
    "format:\n" FX_COMMON_FIELDS "\n"
    "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n"
    "\n"
    "print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

/* A kernel page: u64 time_stamp, u64 commit, 12-byte events (kev). */
static void kpage(struct utrace_dat_writer *w, uint32_t cpu, uint64_t ts, const int32_t *pids,
		  int n, int32_t value)
{
	uint8_t b[4096];
	uint32_t len = 0;
	uint16_t type = KEV_ID;
	struct utrace_dat_kpage kp = {cpu, 0};
	uint64_t commit;

	for (int i = 0; i < n; i++) {
		uint32_t hdr = 3u | (i ? 10u : 0u) << 5; /* 10 ns apart */
		int32_t v = value + i;

		memcpy(b + 16 + len, &hdr, 4);
		memcpy(b + 16 + len + 4, &type, 2);
		memset(b + 16 + len + 6, 0, 2);
		memcpy(b + 16 + len + 8, &pids[i], 4);
		memcpy(b + 16 + len + 12, &v, 4);
		len += 16;
	}
	commit = len;
	memcpy(b, &ts, 8);
	memcpy(b + 8, &commit, 8);
	fx_write(w, UTRACE_DAT_KPAGE, &kp, sizeof(kp), b, 16 + len);
}

static void event_format(struct utrace_dat_writer *w, uint32_t id, const char *sys,
			 const char *text)
{
	struct utrace_dat_event_format ef = {id, 0};
	struct iovec iov[3] = {
	    {&ef, sizeof(ef)}, {(void *)sys, strlen(sys) + 1}, {(void *)text, strlen(text) + 1}};
	struct utrace_error err;

	if (utrace_dat_write(w, UTRACE_DAT_EVENT_FORMAT, iov, 3, &err) < 0)
		fx_die(&err);
}

/* One user sub-buffer of buffer buf at ts: foo() called and returned. */
static void upage(struct utrace_dat_writer *w, uint32_t buf, uint64_t ts, uint32_t seq)
{
	struct fx_page p = {ts, seq, 0, 0, 0, 0};
	struct wl l = {.n = 0};

	wl_entry(&l, 1, 0);
	wl_exit(&l, 5);
	fx_page(w, buf, &p, &l);
}

#define MAX_CUTS 32

struct cuts {
	uint64_t at[MAX_CUTS];
	int n;
};

static void cut(struct utrace_dat_writer *w, struct cuts *c)
{
	struct utrace_error err;

	if (utrace_dat_writer_flush(w, &err) < 0)
		fx_die(&err);
	c->at[c->n++] = utrace_dat_writer_bytes(w);
}

/* The recording, and where its steps end. */
static void write_full(const char *path, struct cuts *c)
{
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct utrace_dat_kheader h = {4096, 0, "x86-tsc"};
	struct utrace_dat_ktask tasks[2] = {{555, 550, "kworker/0:1"}, {556, 556, "cat"}};
	struct utrace_dat_clock clk = {0, 0, 2000000000, 2000000000, 0};
	struct utrace_dat_own own = {557, 1, 30000, 30005};
	const int32_t a[3] = {100, 555, 0}, b[2] = {556, 557}, e[2] = {559, 100};
	int32_t many[4];

	cut(w, c); /* no kernel records yet */
	fx_write(w, UTRACE_DAT_KHEADER, &h, sizeof(h), "hp\0he", 6);
	event_format(w, KEV_ID, "test", kev_format);
	fx_buffer(w, 1, 100, "traced");
	upage(w, 1, 1000, 0);
	kpage(w, 0, 1005, a, 3, 0);
	/* a long start: a fresh open reads a header per record of it */
	for (int i = 0; i < 300; i++) {
		for (int k = 0; k < 4; k++)
			many[k] = 1000 + (i * 4 + k) % 64;
		kpage(w, 0, 10000 + 10ull * i, many, 4, 100 + 4 * i);
	}
	cut(w, c);
	/* new tasks, a new CPU */
	kpage(w, 0, 20000, b, 2, 2000);
	kpage(w, 1, 20005, e, 2, 2010);
	cut(w, c);
	/* a format, a notice, a window of utrace's own work (557 at 30000),
	 * statistics, the user buffer's next page, more tasks */
	event_format(w, 5, "ftrace", print_format);
	fx_write(w, UTRACE_DAT_NOTICE, "a notice", 8, NULL, 0);
	fx_write(w, UTRACE_DAT_OWN, &own, sizeof(own), NULL, 0);
	fx_stats(w, 1, 10, 0);
	upage(w, 1, 25000, 1);
	kpage(w, 1, 30000, b, 2, 3000);
	kpage(w, 0, 30010, e, 1, 3010);
	cut(w, c);
	kpage(w, 1, 31000, (const int32_t[]){560, 561}, 2, 3100);
	cut(w, c);
	/* a user buffer of a thread the kernel pages named already */
	fx_buffer(w, 2, 556, "cat");
	upage(w, 2, 40000, 0);
	kpage(w, 0, 40005, b, 2, 4000);
	cut(w, c);
	kpage(w, 1, 41000, (const int32_t[]){562}, 1, 4100);
	cut(w, c);
	/* the end of the recording */
	fx_write(w, UTRACE_DAT_KTASKS, tasks, sizeof(tasks), NULL, 0);
	fx_write(w, UTRACE_DAT_CLOCK, &clk, sizeof(clk), NULL, 0);
	fx_end(w);
	{
		struct stat st;

		if (stat(path, &st) == 0)
			c->at[c->n++] = (uint64_t)st.st_size;
	}
}

/* What a reading gives, to compare. */
struct reading {
	struct utrace_event ev[MAX_EV];
	unsigned char data[MAX_EV][16];
	int n;
};

static int read_all(struct utrace_dat *d, struct reading *out)
{
	struct utrace_dat_iter *it;
	struct utrace_error err;
	struct utrace_event ev;
	int ret;

	out->n = 0;
	if (utrace_dat_iter_open(d, &it, &err) < 0)
		return -1;
	while ((ret = utrace_dat_iter_next(it, &ev, &err)) > 0 && out->n < MAX_EV) {
		memset(out->data[out->n], 0, 16);
		if (ev.data)
			memcpy(out->data[out->n], ev.data, ev.data_len < 16 ? ev.data_len : 16);
		ev.data = NULL;
		out->ev[out->n++] = ev;
	}
	utrace_dat_iter_close(it);
	return ret < 0 ? -1 : 0;
}

static bool same_event(const struct utrace_event *a, const struct utrace_event *b)
{
	return a->kind == b->kind && a->flags == b->flags && a->ts == b->ts &&
	       a->duration == b->duration && a->buf == b->buf && a->image == b->image &&
	       a->id == b->id && a->cpu == b->cpu && a->depth == b->depth && a->pid == b->pid &&
	       a->tid == b->tid && a->data_len == b->data_len && a->lost == b->lost;
}

static struct reading ra, rb;

/* d (refreshed) against a fresh open of path: 1 if they agree. */
static int compare(struct utrace_dat *d, const char *path, const char *step)
{
	struct utrace_dat *f;
	struct utrace_error err;
	const int32_t pids[] = {0, 100, 555, 556, 557, 559, 560, 561, 562, 1000, 1063, 9999};
	int ok = 1;

	if (utrace_dat_open(path, &f, &err) < 0) {
		check(0, "%s: fresh open: %s", step, err.msg);
		return 0;
	}
	if (read_all(d, &ra) < 0 || read_all(f, &rb) < 0) {
		check(0, "%s: read", step);
		utrace_dat_close(f);
		return 0;
	}
	if (ra.n != rb.n) {
		printf("# %s: %d events, fresh %d\n", step, ra.n, rb.n);
		ok = 0;
	}
	for (int i = 0; ok && i < ra.n; i++)
		if (!same_event(&ra.ev[i], &rb.ev[i]) || memcmp(ra.data[i], rb.data[i], 16)) {
			printf("# %s: event %d differs (ts %llu/%llu buf %u/%u)\n", step, i,
			       (unsigned long long)ra.ev[i].ts, (unsigned long long)rb.ev[i].ts,
			       ra.ev[i].buf, rb.ev[i].buf);
			ok = 0;
		}
	if (utrace_dat_buffer_count(d) != utrace_dat_buffer_count(f)) {
		printf("# %s: %u buffers, fresh %u\n", step, utrace_dat_buffer_count(d),
		       utrace_dat_buffer_count(f));
		ok = 0;
	}
	for (unsigned i = 0; ok && i < utrace_dat_buffer_count(d); i++) {
		const struct utrace_dat_buffer_info *x = utrace_dat_buffer_get(d, i),
						    *y = utrace_dat_buffer_get(f, i);

		if (x->buf != y->buf || x->tid != y->tid || x->pid != y->pid ||
		    x->kernel != y->kernel || x->nr_pages != y->nr_pages ||
		    x->has_stats != y->has_stats || strcmp(x->comm, y->comm)) {
			printf("# %s: buffer %u differs (%u/%u %d/%d %s/%s)\n", step, i, x->buf,
			       y->buf, x->tid, y->tid, x->comm, y->comm);
			ok = 0;
		}
	}
	for (size_t i = 0; i < sizeof(pids) / sizeof(pids[0]); i++) {
		const char *x = utrace_dat_comm(d, pids[i]), *y = utrace_dat_comm(f, pids[i]);

		if ((!x) != (!y) || (x && strcmp(x, y)) ||
		    utrace_dat_tgid(d, pids[i]) != utrace_dat_tgid(f, pids[i])) {
			printf("# %s: pid %d named %s/%s\n", step, pids[i], x ? x : "-", y ? y : "-");
			ok = 0;
		}
	}
	if (utrace_dat_event_format_count(d) != utrace_dat_event_format_count(f) ||
	    utrace_dat_notice_count(d) != utrace_dat_notice_count(f) ||
	    utrace_dat_own_windows(d) != utrace_dat_own_windows(f) ||
	    utrace_dat_finished(d) != utrace_dat_finished(f) ||
	    utrace_dat_nr_cpus(d) != utrace_dat_nr_cpus(f) ||
	    utrace_dat_file_size(d) != utrace_dat_file_size(f) ||
	    utrace_dat_clock(d)->tsc1 != utrace_dat_clock(f)->tsc1) {
		printf("# %s: formats, notices, windows, end, cpus, size or clock differ\n", step);
		ok = 0;
	}
	if (utrace_dat_warning_count(d) != utrace_dat_warning_count(f)) {
		printf("# %s: %u warnings, fresh %u\n", step, utrace_dat_warning_count(d),
		       utrace_dat_warning_count(f));
		ok = 0;
	}
	for (unsigned i = 0; ok && i < utrace_dat_warning_count(d) && utrace_dat_warning(d, i); i++)
		if (strcmp(utrace_dat_warning(d, i), utrace_dat_warning(f, i))) {
			printf("# %s: warning %s / %s\n", step, utrace_dat_warning(d, i),
			       utrace_dat_warning(f, i));
			ok = 0;
		}
	utrace_dat_close(f);
	return ok;
}

/* The growing file: bytes [from, to) of the whole one appended. */
static int grow(const char *full, const char *path, uint64_t from, uint64_t to)
{
	static char buf[1 << 16];
	int in = open(full, O_RDONLY), out = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	int ok = in >= 0 && out >= 0;

	while (ok && from < to) {
		size_t n = to - from < sizeof(buf) ? (size_t)(to - from) : sizeof(buf);
		ssize_t r = pread(in, buf, n, (off_t)from);

		ok = r > 0 && write(out, buf, (size_t)r) == r;
		from += r > 0 ? (uint64_t)r : 0;
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ok ? 0 : -1;
}

/* What a fresh open of path reads. */
static uint64_t fresh_bytes(const char *path)
{
	struct utrace_dat *f;
	struct utrace_error err;
	uint64_t n = 0;

	if (utrace_dat_open(path, &f, &err) == 0) {
		n = utrace_dat_bytes_read(f);
		utrace_dat_close(f);
	}
	return n;
}

static void test_refresh(void)
{
	const char *full = check_path("refresh-full.dat");
	const char *path = check_path("refresh.dat");
	struct utrace_dat *d = NULL;
	struct utrace_error err;
	struct cuts c = {.n = 0};
	uint64_t at = 0, open_bytes = 0;
	int bad = 0, steps = 0, small = 1;

	write_full(full, &c);
	unlink(path);
	check(c.n == 8, "refresh: the recording written (%d steps)", c.n);
	for (int i = 0; i < c.n; i++) {
		/* each step cut in the middle of a record first, then whole */
		uint64_t ends[2] = {c.at[i] - 20, c.at[i]};

		for (int k = 0; k < 2; k++) {
			char step[64];
			uint64_t before = d ? utrace_dat_bytes_read(d) : 0;

			snprintf(step, sizeof(step), "step %d%s", i, k ? "" : " (cut short)");
			if (ends[k] <= at || grow(full, path, at, ends[k]) < 0)
				continue;
			at = ends[k];
			if (!d) {
				if (utrace_dat_open(path, &d, &err) < 0) {
					check(0, "refresh: open: %s", err.msg);
					return;
				}
			} else if (utrace_dat_refresh(d, &err) < 0) {
				check(0, "refresh: %s: %s", step, err.msg);
				utrace_dat_close(d);
				return;
			}
			/* steps 2 to 4 add pages and tables only */
			if (i >= 2 && i <= 4 && utrace_dat_bytes_read(d) - before > open_bytes / 4) {
				printf("# %s: read %llu bytes (the open %llu)\n", step,
				       (unsigned long long)(utrace_dat_bytes_read(d) - before),
				       (unsigned long long)open_bytes);
				small = 0;
			}
			if (i == 1 && k)
				open_bytes = fresh_bytes(path);
			bad += !compare(d, path, step);
			steps++;
		}
	}
	check(steps == 2 * c.n && !bad, "refresh: each of %d readings of the growing file is a "
					"fresh open's (%d differ)",
	      steps, bad);
	check(small && open_bytes > 10000,
	      "refresh: adding pages reads what was added, not the file (open: %llu bytes)",
	      (unsigned long long)open_bytes);
	check(d && utrace_dat_finished(d), "refresh: the last reading sees the END record");
	check(d && utrace_dat_refresh(d, &err) == 0 && compare(d, path, "again"),
	      "refresh: a file that did not grow: nothing changes");
	utrace_dat_close(d);
}

int main(void)
{
	test_refresh();
	return check_end();
}
