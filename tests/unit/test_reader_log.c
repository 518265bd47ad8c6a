/* SPDX-License-Identifier: MIT */
/*
 * test_reader_log.c - the control page's log of an instance's trigger
 * firings (common/proto.h: utrace_ctl_reader_log_put/_get, read by
 * lib/record/recorder_reader.c's utrace_recorder_reader_fired).
 *
 * Firings come back in order with their fields; one not yet published
 * stops the read until it is; past UTRACE_READER_LOG behind, the newest
 * are kept; a slot being written (seq 0) is not read; and under a writer
 * thread that laps the log again and again, no firing read is torn (its
 * fields all from one firing) and none comes twice or out of order.
 */
#include <pthread.h>
#include <stdlib.h>

#include "lib/record/recorder.h"
#include "lib/record/recorder_internal.h"
#include "tests/unit/check.h"

/* Firing n's fields, all derived from n, so a torn copy shows. */
static struct utrace_reader_fire fire_of(uint64_t n)
{
	return (struct utrace_reader_fire){.tsc = 1000 + n, .reader = 1 + n % 7,
					   .cmd = (uint32_t)(n * 3),
					   .target = (int32_t)(n * 5), .was_on = n & 1};
}

static bool fired_is(const struct utrace_reader_fired *f, uint64_t n)
{
	struct utrace_reader_fire v = fire_of(n);

	return f->reader == v.reader && f->cmd == v.cmd && f->target == v.target &&
	       f->was_on == (bool)v.was_on && f->ns == v.tsc;
}

static void put(struct utrace_control *c, uint64_t n)
{
	struct utrace_reader_fire v = fire_of(n);

	utrace_ctl_reader_log_put(c, n, &v);
}

static void in_order(struct utrace_recorder *r)
{
	struct utrace_reader_fired f[8];
	uint64_t done = 0;
	unsigned n;

	r->ctl->reader_next = 3;
	put(r->ctl, 0);
	put(r->ctl, 2); /* 1 taken, not published yet */
	n = utrace_recorder_reader_fired(r, &done, f, 8);
	check(n == 1 && done == 1 && fired_is(&f[0], 0),
	      "firing 0 read, 2 waits for 1 (%u, done %llu)", n, (unsigned long long)done);
	put(r->ctl, 1);
	n = utrace_recorder_reader_fired(r, &done, f, 8);
	check(n == 2 && done == 3 && fired_is(&f[0], 1) && fired_is(&f[1], 2),
	      "then 1 and 2, in order (%u)", n);
}

static void overflow(struct utrace_recorder *r)
{
	struct utrace_reader_fired f[UTRACE_READER_LOG + 8];
	uint64_t done = 3, last = 3 + UTRACE_READER_LOG + 20;
	unsigned n;
	bool ok = true;

	for (uint64_t i = 3; i < last; i++)
		put(r->ctl, i);
	r->ctl->reader_next = last;
	n = utrace_recorder_reader_fired(r, &done, f, UTRACE_READER_LOG + 8);
	for (unsigned i = 0; i < n; i++)
		ok &= fired_is(&f[i], last - UTRACE_READER_LOG + i);
	check(n == UTRACE_READER_LOG && ok && done == last,
	      "%d behind: the newest %d kept (%u)", UTRACE_READER_LOG + 20, UTRACE_READER_LOG, n);

	/* firing `last` being written: its slot's seq is 0 */
	r->ctl->reader_next = last + 1;
	r->ctl->reader_log[last % UTRACE_READER_LOG].seq = 0;
	n = utrace_recorder_reader_fired(r, &done, f, 8);
	check(n == 0 && done == last, "a slot being written is not read (%u)", n);
	put(r->ctl, last);
	n = utrace_recorder_reader_fired(r, &done, f, 8);
	check(n == 1 && fired_is(&f[0], last), "and is once published (%u)", n);
}

struct lap {
	struct utrace_control *c;
	uint64_t stop;
};

static void *lapper(void *arg)
{
	struct lap *l = arg;

	for (;;) {
		uint64_t n = __atomic_fetch_add(&l->c->reader_next, 1, __ATOMIC_ACQ_REL);

		if (n >= l->stop)
			return NULL;
		put(l->c, n);
	}
}

static void laps(struct utrace_recorder *r)
{
	struct lap l = {r->ctl, 0};
	struct utrace_reader_fired f[16];
	uint64_t done, prev = 0, got = 0, torn = 0, order = 0;
	pthread_t th;

	memset(r->ctl->reader_log, 0, sizeof(r->ctl->reader_log));
	r->ctl->reader_next = 0;
	l.stop = 2000000;
	done = 0;
	if (pthread_create(&th, NULL, lapper, &l)) {
		check(0, "pthread_create");
		return;
	}
	while (done < l.stop) {
		unsigned n = utrace_recorder_reader_fired(r, &done, f, 16);

		for (unsigned i = 0; i < n; i++) {
			uint64_t id = f[i].ns - 1000;

			torn += !fired_is(&f[i], id);
			order += got && id <= prev;
			prev = id;
			got++;
		}
	}
	pthread_join(th, NULL);
	check(got > 0 && !torn && !order,
	      "a writer lapping the log: %llu read, %llu torn, %llu out of order",
	      (unsigned long long)got, (unsigned long long)torn, (unsigned long long)order);
}

int main(void)
{
	struct utrace_recorder *r = calloc(1, sizeof(*r));

	r->ctl = calloc(1, sizeof(*r->ctl));
	/* tsc1 <= tsc0: times pass as ns0 + (tsc - tsc0), i.e. unchanged */
	in_order(r);
	overflow(r);
	laps(r);
	free(r->ctl);
	free(r);
	return check_done();
}
