/* SPDX-License-Identifier: MIT */
/*
 * crash_dump.c - record --dump-on-crash's dump: the last calls of the
 * thread that died, the kernel's ftrace_dump_on_oops made from the file.
 *
 * The kernel prints its buffers from the oops handler.  A user program's
 * buffers outlive it (shared memory the recorder drains after the process
 * is gone), so the dump is made once the file is whole, where the reader
 * and the report already are: a first pass finds, per thread of the dead
 * process, its crash signal record (runtime/crash.c) and the time of the
 * Nth last call before it; a second is utrace report's own pass, limited
 * to that thread and time range, so the dump reads as `utrace report`
 * prints those calls.  The signal kept is the thread's last fault
 * (si_code > 0), else its last: a handler of the program that re-raises
 * after a fault leaves two, and the fault is where it died.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/record.h"
#include "lib/base/grow.h"
#include "lib/report/report_filter.h"
#include "lib/report/report_signal.h"
#include "lib/report/report_text.h"

struct cd_thread {
	int tid;
	uint64_t *ring; /* the start times of its last calls */
	unsigned n, head;
	bool has_sig, fault;
	uint64_t sig_ts, from; /* its signal, the first of the calls before it */
	char text[256];	       /* the signal as report prints it */
};

struct cd_state {
	const struct utrace_crash_dump_opts *o;
	struct utrace_dat *d;
	struct cd_thread *t;
	size_t nr, cap, last;
};

static uint64_t cd_oldest(const struct cd_thread *t)
{
	return t->n ? t->ring[t->head] : UINT64_MAX; /* head stays 0 until the ring is full */
}

static struct cd_thread *cd_thread(struct cd_state *s, int tid)
{
	if (s->last < s->nr && s->t[s->last].tid == tid)
		return &s->t[s->last];
	for (s->last = 0; s->last < s->nr; s->last++)
		if (s->t[s->last].tid == tid)
			return &s->t[s->last];
	if (UTRACE_GROW(s->t, s->cap, s->nr + 1) < 0)
		return NULL;
	memset(&s->t[s->nr], 0, sizeof(s->t[0]));
	s->t[s->nr].tid = tid;
	if (!(s->t[s->nr].ring = calloc(s->o->calls, sizeof(uint64_t))))
		return NULL;
	s->last = s->nr;
	return &s->t[s->nr++];
}

static int cd_event(void *arg, const struct utrace_event *ev, struct utrace_error *err)
{
	struct cd_state *s = arg;
	struct cd_thread *t;
	struct urec_signal rec;

	if (ev->pid != s->o->pid)
		return 0;
	if (!(t = cd_thread(s, ev->tid)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	switch (ev->kind) {
	case UTRACE_EV_ENTRY:
	case UTRACE_EV_LEAF:
	case UTRACE_EV_FUNC:
		if (t->n < s->o->calls) {
			t->ring[t->n++] = ev->ts;
		} else {
			t->ring[t->head] = ev->ts;
			t->head = (t->head + 1) % t->n;
		}
		break;
	case UTRACE_EV_SIGNAL:
		memset(&rec, 0, sizeof(rec));
		memcpy(&rec, ev->data, ev->data_len < sizeof(rec) ? ev->data_len : sizeof(rec));
		if ((int)ev->id != s->o->sig || (t->fault && rec.code <= 0))
			break;
		t->has_sig = true;
		t->fault = rec.code > 0;
		t->sig_ts = ev->ts;
		t->from = t->n ? cd_oldest(t) : ev->ts;
		utrace_report_signal_text(s->d, ev, t->text, sizeof(t->text));
		break;
	default:
		break;
	}
	return 0;
}

/* utrace report's pass over one thread's events in [from, to] (to 0: to
 * its end). */
static int cd_print(struct cd_state *s, FILE *out, int tid, uint64_t from, uint64_t to,
		    struct utrace_error *err)
{
	struct utrace_report_opts ro;
	struct utrace_report_filter *f;
	char v[48];
	int ret;

	if ((ret = utrace_report_filter_new(&f, err)) < 0)
		return ret;
	utrace_report_opts_init(&ro);
	ro.filter = f;
	snprintf(v, sizeof(v), "%d", tid);
	ret = utrace_report_filter_add(f, "tid", v, err);
	snprintf(v, sizeof(v), "%" PRIu64 ".%09" PRIu64, from / 1000000000, from % 1000000000);
	if (!ret && from != UINT64_MAX)
		ret = utrace_report_filter_add(f, "from", v, err);
	snprintf(v, sizeof(v), "%" PRIu64 ".%09" PRIu64, to / 1000000000, to % 1000000000);
	if (!ret && to)
		ret = utrace_report_filter_add(f, "to", v, err);
	if (!ret)
		ret = utrace_report_print(s->d, out, &ro, NULL, err);
	utrace_report_filter_free(f);
	return ret;
}

static int cd_thread_dump(struct cd_state *s, FILE *out, const struct cd_thread *t,
			  struct utrace_error *err)
{
	int ret;

	if (t->has_sig)
		fprintf(out, "thread %d: signal: %s\n", t->tid, t->text);
	fprintf(out, "Dumping the last %u calls of thread %d%s:\n", t->n, t->tid,
		t->has_sig ? " before its signal" : "");
	fputs("---------------------------------\n", out);
	ret = cd_print(s, out, t->tid, t->has_sig ? t->from : cd_oldest(t),
		       t->has_sig ? t->sig_ts : 0, err);
	fputs("---------------------------------\n", out);
	return ret;
}

static int cd_dump(struct cd_state *s, FILE *out, struct utrace_error *err)
{
	const struct cd_thread *crashed = NULL;
	char name[32];
	int ret = 0;

	for (size_t i = 0; i < s->nr; i++)
		if (s->t[i].has_sig && (!crashed || s->t[i].sig_ts > crashed->sig_ts))
			crashed = &s->t[i];
	if (!crashed && s->o->need_signal)
		return 0;
	utrace_report_signal_name(s->o->sig, name, sizeof(name));
	if (crashed)
		fprintf(out, "utrace: pid %d died of %s in thread %d\n", s->o->pid, name,
			crashed->tid);
	else
		fprintf(out,
			"utrace: pid %d died of %s with no signal record (the signal was blocked, "
			"or a stack overflow had no alternate stack for the handler): every "
			"thread's last calls\n",
			s->o->pid, name);
	if (!s->nr)
		fprintf(out, "utrace: the file has no calls of pid %d\n", s->o->pid);
	for (size_t i = 0; ret >= 0 && i < s->nr; i++)
		if (&s->t[i] != crashed && (s->o->all || !crashed))
			ret = cd_thread_dump(s, out, &s->t[i], err);
	if (ret >= 0 && crashed)
		ret = cd_thread_dump(s, out, crashed, err);
	return ret;
}

int utrace_report_crash_dump(struct utrace_dat *d, FILE *out,
			     const struct utrace_crash_dump_opts *o, struct utrace_error *err)
{
	struct cd_state s = {.o = o, .d = d};
	struct utrace_pass_stats st;
	int ret;

	if (!o->calls)
		return utrace_error_set(err, -EINVAL, "a dump of 0 calls");
	ret = utrace_report_filter_run(NULL, d, cd_event, &s, &st, err);
	if (ret >= 0)
		ret = cd_dump(&s, out, err);
	for (size_t i = 0; i < s.nr; i++)
		free(s.t[i].ring);
	free(s.t);
	return ret;
}
