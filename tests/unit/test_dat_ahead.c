/* SPDX-License-Identifier: MIT */
/*
 * test_dat_ahead.c - the buffers decoded ahead by worker threads
 * (lib/tracefile/dat_ahead.c) give what the iterator gives decoding
 * them itself: the same events in the same order (payloads included), the
 * same damaged sub-buffers with the same first message.  The file has
 * four threads of a few thousand records each (many batches a queue, so
 * the workers wait on full queues), printed texts, and damaged
 * sub-buffers in two threads.  The reference pass decodes in the
 * iterator (no worker threads allowed, the default).
 */

#include "lib/tracefile/dat_reader.h"
#include "tests/unit/dat_fixture.h"

#define THREADS 4
#define PAGES 12

/* One sub-buffer of thread t: calls main > foo > bar, a print, and in
 * some pages a record of no known type (the rest of the page is lost). */
static void thread_page(struct utrace_dat_writer *w, uint32_t t, uint32_t seq)
{
	struct fx_page p = {1000 + seq * 100000 + t * 7, seq, 0, t, 0, 0};
	struct wl l = {.n = 0};

	for (uint32_t i = 0; i < 150; i++) {
		wl_entry(&l, 0, 3 + t);
		wl_entry(&l, 1, 2);
		wl_entry(&l, 2, 1);
		wl_exit(&l, 5 + i % 3); /* bar(); a leaf */
		wl_exit(&l, 4);
		if (i % 50 == 7) {
			wl_put(&l, urec_ext(UEXT_PRINT, 2));
			wl_put(&l, 1);
			wl_put(&l, 5);
			wl_put(&l, 'p' | 'a' << 8 | 'g' << 16 | 'e' << 24);
			wl_put(&l, '0' + seq % 10);
		}
		if ((t == 1 && seq == 3 && i == 90) || (t == 2 && seq == 5 && i == 20))
			wl_put(&l, urec_ext((enum utrace_ext_type)63, 0)); /* no such type */
		wl_exit(&l, 6);
	}
	fx_page(w, 10 + t, &p, &l);
}

static const char *write_file(void)
{
	const char *path = check_path("ahead.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");

	for (uint32_t t = 0; t < THREADS; t++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "t%u", t);
		fx_buffer(w, 10 + t, 200 + (int32_t)t, comm);
	}
	for (uint32_t seq = 0; seq < PAGES; seq++)
		for (uint32_t t = 0; t < THREADS; t++)
			thread_page(w, t, seq);
	fx_end(w);
	return path;
}

struct pass {
	struct utrace_event *ev;
	uint8_t **data;
	size_t n, cap;
	uint64_t warnings, unread, unknown;
	char first[512];
};

static void read_all(const char *path, struct pass *p)
{
	struct utrace_dat_iter *it;
	struct utrace_error err;
	struct utrace_event ev;
	struct utrace_dat *d;
	int ret;

	memset(p, 0, sizeof(*p));
	if (utrace_dat_open(path, &d, &err) < 0 || utrace_dat_iter_open(d, &it, &err) < 0)
		fx_die(&err);
	while ((ret = utrace_dat_iter_next(it, &ev, &err)) > 0) {
		if (p->n == p->cap) {
			p->cap = p->cap ? p->cap * 2 : 1024;
			p->ev = realloc(p->ev, p->cap * sizeof(*p->ev));
			p->data = realloc(p->data, p->cap * sizeof(*p->data));
			if (!p->ev || !p->data)
				exit(2);
		}
		p->data[p->n] = ev.data_len ? malloc(ev.data_len) : NULL;
		if (ev.data_len)
			memcpy(p->data[p->n], ev.data, ev.data_len);
		ev.data = NULL;
		p->ev[p->n++] = ev;
	}
	if (ret < 0)
		fx_die(&err);
	p->warnings = utrace_dat_iter_warnings(it);
	p->unread = utrace_dat_iter_unread(it, &p->unknown);
	if (utrace_dat_iter_warning(it))
		snprintf(p->first, sizeof(p->first), "%s", utrace_dat_iter_warning(it));
	utrace_dat_iter_close(it);
	utrace_dat_close(d);
}

static int same_event(const struct utrace_event *a, const struct utrace_event *b)
{
	return a->kind == b->kind && a->flags == b->flags && a->ts == b->ts &&
	       a->duration == b->duration && a->buf == b->buf && a->image == b->image &&
	       a->id == b->id && a->cpu == b->cpu && a->depth == b->depth && a->stack == b->stack &&
	       a->pid == b->pid && a->tid == b->tid && a->parent_ip == b->parent_ip &&
	       a->lost == b->lost && a->data_len == b->data_len && a->has_args == b->has_args &&
	       a->nargs == b->nargs && a->has_retval == b->has_retval && a->retval == b->retval &&
	       a->tsc == b->tsc && !memcmp(a->args, b->args, sizeof(a->args));
}

static void compare(const struct pass *seq, const struct pass *par)
{
	size_t bad = SIZE_MAX, prints = 0;

	for (size_t i = 0; i < seq->n && i < par->n && bad == SIZE_MAX; i++) {
		if (!same_event(&seq->ev[i], &par->ev[i]) ||
		    (seq->ev[i].data_len &&
		     memcmp(seq->data[i], par->data[i], seq->ev[i].data_len)))
			bad = i;
		prints += seq->ev[i].kind == UTRACE_EV_PRINT;
	}
	check(seq->n > 20000 && prints > 100, "the file reads: %zu events, %zu prints", seq->n,
	      prints);
	check(seq->n == par->n && bad == SIZE_MAX,
	      "decoded ahead: the same %zu events as decoded by the iterator (got %zu, first "
	      "difference at %zu)",
	      seq->n, par->n, bad == SIZE_MAX ? (size_t)0 : bad);
	check(seq->warnings == 2 && par->warnings == seq->warnings && par->unread == seq->unread &&
		  par->unknown == seq->unknown,
	      "decoded ahead: the same damaged sub-buffers (%llu, unread %llu/%llu; got %llu, "
	      "%llu/%llu)",
	      (unsigned long long)seq->warnings, (unsigned long long)seq->unread,
	      (unsigned long long)seq->unknown, (unsigned long long)par->warnings,
	      (unsigned long long)par->unread, (unsigned long long)par->unknown);
	check(!strcmp(seq->first, par->first) && strstr(seq->first, "t1-201"),
	      "decoded ahead: the same first warning, the earlier damage's (%s | %s)", seq->first,
	      par->first);
}

/* An iterator closed while its workers still decode (report --limit,
 * an error in the caller) stops them and frees everything. */
static void close_early(const char *path)
{
	struct utrace_dat_iter *it;
	struct utrace_error err;
	struct utrace_event ev;
	struct utrace_dat *d;
	int n = 0;

	if (utrace_dat_open(path, &d, &err) < 0 || utrace_dat_iter_open(d, &it, &err) < 0)
		fx_die(&err);
	while (n < 1000 && utrace_dat_iter_next(it, &ev, &err) > 0)
		n++;
	utrace_dat_iter_close(it);
	utrace_dat_close(d);
	check(n == 1000, "closed after 1000 of its events, the workers still decoding");
}

static void free_pass(struct pass *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->data[i]);
	free(p->data);
	free(p->ev);
}

int main(void)
{
	struct pass seq, par;
	const char *path;

	if (check_tmpdir_init("ahead") < 0) {
		perror("mkdtemp");
		return 2;
	}
	path = write_file();
	read_all(path, &seq);
	/* two workers for four buffers: each serves two queues */
	utrace_dat_read_threads(2);
	read_all(path, &par);
	close_early(path);
	utrace_dat_read_threads(0);
	compare(&seq, &par);
	free_pass(&seq);
	free_pass(&par);
	check_tmpdir_cleanup();
	return check_done();
}
