/* SPDX-License-Identifier: MIT */
/*
 * report_sched.c - off-CPU time under the call that slept.
 *
 * Design: uftrace records the scheduler's switches of the traced threads
 * and shows the time a thread was switched out as a call of its own,
 * `linux:schedule();`, nested in the function that was running: where a
 * usleep() or a read() spent its time is then in the graph.  utrace has
 * the same facts when the kernel's sched:sched_switch is recorded (-e): a
 * record whose prev_pid is the thread takes it off the CPU, at the depth
 * of its open calls; the thread is back at the sched_switch whose
 * next_pid it is (recorded when the other task is, as with -a) or, at the
 * latest, at its own next event.  The printer streams, so a span is
 * noted at its start (the event itself still prints, as a comment with
 * its fields) and handed back, complete, at its end: it prints
 * there, as a leaf of the kernel's function_graph prints at its return
 * (before the thread's next event; after the other task's sched_switch,
 * which stays next to what the kernel recorded with it).
 * A switch-out of a dead task (prev_state X or Z) is the end of the
 * thread, not a wait: it stays an event; so do the switches of tasks that
 * are not traced (the recorder, the other side of a switch, -a's).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/events/event_format.h"
#include "lib/report/report_sched.h"

#define SCHED_DEAD 0x30 /* TASK_REPORT's EXIT_DEAD | EXIT_ZOMBIE */

struct sched_field {
	uint32_t off, size; /* in ev->data (after the common fields) */
};

struct pending {
	uint64_t ts;
	uint32_t cpu, depth;
	int32_t tid;
	bool on; /* switched out, not back yet */
};

struct utrace_report_sched {
	const struct utrace_dat *d;
	uint32_t id; /* sched_switch's */
	struct sched_field prev_pid, prev_state, next_pid;
	struct pending *bufs; /* by buffer */
	size_t nr_bufs;
	size_t npending;
	size_t left; /* utrace_report_sched_left's place */
};

static int sched_field(const struct utrace_event_format *f, const char *name,
		       struct sched_field *out)
{
	const struct utrace_event_field *fl = utrace_event_field_find(f, name);

	if (!fl || fl->kind != UTRACE_EF_INT || fl->offset < 8 ||
	    (fl->size != 4 && fl->size != 8))
		return -1;
	*out = (struct sched_field){fl->offset - 8, fl->size};
	return 0;
}

/* The sched:sched_switch format of d, parsed into s; -1 if none. */
static int sched_find(struct utrace_dat *d, struct utrace_report_sched *s)
{
	for (unsigned i = 0; i < utrace_dat_event_format_count(d); i++) {
		const char *sys, *text = NULL;
		struct utrace_event_format *f;
		struct utrace_error err;
		int id, ok;

		text = utrace_dat_event_format(d, i, &id, &sys);
		if (!text || id < 0 || !sys || strcmp(sys, "sched") ||
		    strncmp(text, "name: sched_switch\n", 19))
			continue;
		if (utrace_event_format_parse(sys, text, &f, &err) < 0)
			return -1;
		ok = sched_field(f, "prev_pid", &s->prev_pid) == 0 &&
		     sched_field(f, "prev_state", &s->prev_state) == 0 &&
		     sched_field(f, "next_pid", &s->next_pid) == 0;
		utrace_event_format_free(f);
		s->id = (uint32_t)id;
		return ok ? 0 : -1;
	}
	return -1;
}

int utrace_report_sched_new(struct utrace_dat *d, struct utrace_report_sched **out)
{
	struct utrace_report_sched *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	if (sched_find(d, s) < 0) {
		free(s);
		return 0;
	}
	s->d = d;
	*out = s;
	return 0;
}

void utrace_report_sched_free(struct utrace_report_sched *s)
{
	if (!s)
		return;
	free(s->bufs);
	free(s);
}

static int64_t field_value(const struct utrace_event *ev, const struct sched_field *f)
{
	int32_t v4;
	int64_t v8;

	if (f->off + f->size > ev->data_len)
		return -1;
	if (f->size == 4) {
		memcpy(&v4, (const uint8_t *)ev->data + f->off, 4);
		return v4;
	}
	memcpy(&v8, (const uint8_t *)ev->data + f->off, 8);
	return v8;
}

static bool is_switch(const struct utrace_report_sched *s, const struct utrace_event *ev)
{
	return ev->kind == UTRACE_EV_EVENT && ev->id == s->id && ev->data;
}

static void span_of(struct utrace_report_sched *s, uint32_t buf, uint64_t end,
		    struct utrace_sched_span *span)
{
	struct pending *pd = &s->bufs[buf];

	*span = (struct utrace_sched_span){.ts = pd->ts, .dur = end > pd->ts ? end - pd->ts : 0,
					   .buf = buf, .cpu = pd->cpu, .depth = pd->depth,
					   .tid = pd->tid, .ended = true};
	pd->on = false;
	s->npending--;
}

bool utrace_report_sched_end(struct utrace_report_sched *s, const struct utrace_event *ev,
			     bool own, struct utrace_sched_span *span)
{
	int64_t next;

	if (!s || !s->npending)
		return false;
	if (own) {
		if (ev->buf >= s->nr_bufs || !s->bufs[ev->buf].on)
			return false;
		span_of(s, ev->buf, ev->ts, span);
		return true;
	}
	if (!is_switch(s, ev) || (next = field_value(ev, &s->next_pid)) <= 0)
		return false;
	for (size_t i = 0; i < s->nr_bufs; i++) /* rare: a switch to a waiting thread */
		if (s->bufs[i].on && s->bufs[i].tid == next) {
			span_of(s, (uint32_t)i, ev->ts, span);
			return true;
		}
	return false;
}

bool utrace_report_sched_begin(struct utrace_report_sched *s, const struct utrace_event *ev)
{
	int64_t state;

	const struct utrace_dat_buffer_info *bi;

	if (!s || !is_switch(s, ev) || field_value(ev, &s->prev_pid) != ev->tid || ev->tid <= 0)
		return false;
	/* a traced thread's: not a task only kernel events name (the
	 * recorder, the other side of a switch, any task with -a) */
	if (!(bi = utrace_dat_buffer_get(s->d, ev->buf)) || bi->kernel)
		return false;
	state = field_value(ev, &s->prev_state);
	if (state < 0 || (state & SCHED_DEAD))
		return false;
	if (ev->buf >= s->nr_bufs && UTRACE_GROW_ZERO(s->bufs, s->nr_bufs, (size_t)ev->buf + 1) < 0)
		return false; /* out of memory: the event prints as it is */
	s->bufs[ev->buf] = (struct pending){ev->ts, ev->cpu, ev->depth, ev->tid, true};
	s->npending++;
	return true;
}

bool utrace_report_sched_left(struct utrace_report_sched *s, struct utrace_sched_span *span)
{
	for (; s && s->npending && s->left < s->nr_bufs; s->left++)
		if (s->bufs[s->left].on) {
			span_of(s, (uint32_t)s->left, 0, span);
			span->ended = false;
			return true;
		}
	return false;
}
