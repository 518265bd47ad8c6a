/* SPDX-License-Identifier: MIT */
/*
 * test_dat_damage.c - damaged utrace.dat files: every truncation of a
 * file (each 7th byte), a few thousand random byte flips (fixed seed) and
 * sub-buffers of random words must open with an error or read with a
 * warning, through the iterator and the report printer, and never crash
 * (run it under `make SAN=1`).
 */
#include <unistd.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/report/report_text.h"
#include "tests/unit/dat_fixture.h"

static void spill(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len) {
		perror(path);
		exit(2);
	}
	fclose(f);
}

/* Opens, iterates, prints; 0 if opened cleanly, 1 with warnings, 2 refused,
 * -1 if something a damaged file must never cause happened. */
static int try_damaged(const char *path, FILE *sink)
{
	struct utrace_report_summary sum;
	struct utrace_report_opts opts;
	struct utrace_dat_iter *it;
	struct utrace_error err;
	struct utrace_event ev;
	struct utrace_dat *d;
	uint64_t n = 0, warns;
	int ret;

	if (utrace_dat_open(path, &d, &err) < 0)
		return err.msg[0] ? 2 : -1;
	ret = utrace_dat_iter_open(d, &it, &err);
	if (ret < 0) {
		utrace_dat_close(d);
		return -1;
	}
	while ((ret = utrace_dat_iter_next(it, &ev, &err)) > 0 && n < 1000000) {
		n++;
		(void)utrace_dat_func_name(d, ev.image, ev.id);
		(void)utrace_dat_addr_name(d, ev.image, ev.parent_ip, NULL);
	}
	warns = utrace_dat_iter_warnings(it) + utrace_dat_warning_count(d);
	utrace_dat_iter_close(it);
	if (ret < 0) {
		utrace_dat_close(d);
		return -1;
	}
	utrace_report_opts_init(&opts);
	opts.flags |= UTRACE_REPORT_PROC | UTRACE_REPORT_ABSTIME;
	ret = utrace_report_print(d, sink, &opts, &sum, &err);
	utrace_report_summary_free(&sum);
	utrace_dat_close(d);
	if (ret < 0 && !strstr(err.msg, "unknown tracer"))
		return -1;
	return warns ? 1 : 0;
}

static const char *damage_source(void)
{
	const char *path = check_path("source.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p = {100, 0, 0, 0, 0, 0}, q = {150, 1, 4, 1, UTRACE_SB_CONTEXT, 1};
	struct wl l1 = {.n = 0}, l2 = {.n = 0};

	fx_graph_basic(w);
	fx_buffer(w, 3, 7, "other");
	wl_entry(&l1, 0, 0);
	wl_func(&l1, 1, 2, FX_BIAS + 0x210);
	wl_ext(&l1, UEXT_EXIT_UNWIND, 1);
	wl_put(&l1, 3);
	fx_page(w, 3, &p, &l1);
	wl_ext(&l2, UEXT_CONTEXT, 1);
	wl_put(&l2, 1);
	wl_put(&l2, 2);
	wl_ext(&l2, UEXT_GRAPH_LEAF, 4);
	wl_put(&l2, 1);
	wl_put(&l2, 1);
	wl_u64(&l2, 3);
	wl_exit(&l2, 1);
	fx_page(w, 3, &q, &l2);
	fx_stats(w, 3, 10, 4);
	fx_end(w);
	return path;
}

static void test_truncated(FILE *sink)
{
	size_t len;
	char *buf = check_slurp(damage_source(), &len);
	const char *path = check_path("cut.dat");
	int counts[3] = {0, 0, 0}, bad = 0, no_end = 0;
	struct utrace_error err;
	struct utrace_dat *d;

	if (!buf) {
		check(0, "truncated: source file");
		return;
	}
	for (size_t cut = 0; cut < len; cut += 7) {
		int r;

		spill(path, buf, cut);
		r = try_damaged(path, sink);
		if (r < 0 || r == 0)
			bad++;
		else
			counts[r]++;
	}
	check(bad == 0,
	      "truncated: %d cuts refused with an error, %d read with a warning, %d "
	      "unexpected",
	      counts[2], counts[1], bad);
	spill(path, buf, len - 8);
	if (utrace_dat_open(path, &d, &err) == 0) {
		no_end = utrace_dat_warning_count(d) == 1 &&
			 strstr(utrace_dat_warning(d, 0), "no END record") != NULL;
		utrace_dat_close(d);
	}
	check(no_end, "truncated: missing END record is a warning");
	spill(path, buf, len - 13);
	if (utrace_dat_open(path, &d, &err) == 0) {
		const char *wmsg = utrace_dat_warning(d, 0);

		check(wmsg && strstr(wmsg, "truncated at offset") &&
			  strstr(wmsg, "recording did not finish"),
		      "truncated: says where (%s)", wmsg ? wmsg : "none");
		utrace_dat_close(d);
	} else {
		check(0, "truncated: opens");
	}
	free(buf);
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static void test_flips(FILE *sink)
{
	size_t len;
	char *buf = check_slurp(check_path("source.dat"), &len), *copy;
	const char *path = check_path("flip.dat");
	int counts[3] = {0, 0, 0}, bad = 0, variants = 3000;

	if (!buf) {
		check(0, "flips: source file");
		return;
	}
	copy = malloc(len);
	for (int v = 0; v < variants; v++) {
		int nflips = 1 + (int)(rng() % 4), r;

		memcpy(copy, buf, len);
		for (int i = 0; i < nflips; i++) {
			size_t pos = rng() % len;

			/* half the time past the header, where it gets deep */
			if (v & 1)
				pos = sizeof(struct utrace_dat_header) +
				      rng() % (len - sizeof(struct utrace_dat_header));
			if (rng() & 1)
				copy[pos] ^= (char)(1u << (rng() % 8));
			else
				copy[pos] = (char)rng();
		}
		spill(path, copy, len);
		r = try_damaged(path, sink);
		if (r < 0)
			bad++;
		else
			counts[r]++;
	}
	check(bad == 0, "flips: %d variants: %d clean, %d with warnings, %d refused, %d unexpected",
	      variants, counts[0], counts[1], counts[2], bad);
	free(copy);
	free(buf);
}

/* Sub-buffers of random words, half of them with valid record kinds. */
static void test_random_pages(FILE *sink)
{
	const char *path = check_path("random.dat");
	int counts[3] = {0, 0, 0}, bad = 0, variants = 500;

	for (int v = 0; v < variants; v++) {
		struct utrace_dat_writer *w = fx_begin(path, v & 1 ? "function" : "function_graph");
		struct wl l;
		int r;

		fx_buffer(w, 1, 10, "r1");
		fx_buffer(w, 2, 11, "r2");
		for (uint32_t i = 0; i < 6; i++) {
			struct fx_page p = {rng() % 5000, i / 2 + (rng() % 8 == 0),
					    rng() % 3,	  rng() % 4,
					    rng() % 2,	  rng() % 70};

			l.n = rng() % 200;
			for (uint32_t k = 0; k < l.n; k++) {
				l.w[k] = rng() ^ (rng() << 16);
				/* extended records with small types and payloads */
				if ((v & 2) && !(l.w[k] & 3))
					l.w[k] &= 0x00000f3fu;
			}
			fx_page(w, 1 + i % 2, &p, &l);
		}
		fx_end(w);
		r = try_damaged(path, sink);
		if (r < 0)
			bad++;
		else
			counts[r]++;
	}
	check(bad == 0, "random sub-buffers: %d files: %d clean, %d with warnings, %d unexpected",
	      variants, counts[0], counts[1], bad);
}

/* fx_page with the writer's count of records in the header */
static void page_counted(struct utrace_dat_writer *w, uint32_t buf, uint32_t seq,
			 uint32_t records, const struct wl *l)
{
	struct utrace_dat_page pg = {buf, 0};
	struct utrace_subbuf sb = {1000 + seq, l->n * 4, seq, 0, 0, 0, 0, records};
	struct iovec iov[3] = {{&pg, sizeof(pg)}, {&sb, sizeof(sb)}, {(void *)l->w, l->n * 4}};
	struct utrace_error err;

	if (utrace_dat_write(w, UTRACE_DAT_PAGE, iov, 3, &err) < 0)
		fx_die(&err);
}

/*
 * What a bad record costs is counted: a sub-buffer whose header says 5
 * records, of which 3 come before the bad word (a TIME_EXTEND between
 * them is not a record), leaves 2 unread; one whose header gives no count
 * (a thread's last, partial one) is counted apart.
 */
static void test_unread_count(void)
{
	const char *path = check_path("unread.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function");
	struct wl a = {.n = 0}, b = {.n = 0};
	struct utrace_dat_iter *it;
	struct utrace_error err;
	struct utrace_event ev;
	struct utrace_dat *d;
	uint64_t events = 0, unread, unknown = 99;

	fx_buffer(w, 1, 10, "t");
	wl_func(&a, 1, 1, FX_BIAS + 0x210);
	wl_func(&a, 2, 1, FX_BIAS + 0x210);
	wl_ext(&a, UEXT_TIME_EXTEND, 5);
	wl_put(&a, 0);
	wl_func(&a, 1, 1, FX_BIAS + 0x210);
	wl_put(&a, urec_ext((enum utrace_ext_type)63, 0)); /* no such type */
	wl_func(&a, 2, 1, FX_BIAS + 0x210);
	wl_func(&a, 1, 1, FX_BIAS + 0x210);
	page_counted(w, 1, 0, 5, &a);
	wl_func(&b, 1, 1, FX_BIAS + 0x210);
	wl_put(&b, urec_ext((enum utrace_ext_type)63, 0));
	wl_func(&b, 2, 1, FX_BIAS + 0x210);
	page_counted(w, 1, 1, 0, &b);
	fx_end(w);
	if (utrace_dat_open(path, &d, &err) < 0 || utrace_dat_iter_open(d, &it, &err) < 0)
		fx_die(&err);
	while (utrace_dat_iter_next(it, &ev, &err) > 0)
		events += ev.kind == UTRACE_EV_FUNC;
	unread = utrace_dat_iter_unread(it, &unknown);
	check(events == 4 && utrace_dat_iter_warnings(it) == 2,
	      "damaged sub-buffers: 4 records read (got %llu), 2 cut short (got %llu)",
	      (unsigned long long)events, (unsigned long long)utrace_dat_iter_warnings(it));
	check(unread == 2 && unknown == 1,
	      "unread records: 2 counted (got %llu), 1 sub-buffer without a count (got %llu)",
	      (unsigned long long)unread, (unsigned long long)unknown);
	utrace_dat_iter_close(it);
	utrace_dat_close(d);
}

int main(void)
{
	FILE *sink;

	if (check_tmpdir_init("damage") < 0) {
		perror("mkdtemp");
		return 2;
	}
	sink = fopen("/dev/null", "w");
	test_truncated(sink);
	test_flips(sink);
	test_random_pages(sink);
	test_unread_count();
	fclose(sink);
	check_tmpdir_cleanup();
	return check_done();
}
