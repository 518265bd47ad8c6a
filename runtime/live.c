/* SPDX-License-Identifier: MIT */
/*
 * live.c - the live channel: changes the recorder makes while the program
 * runs (utrace record --tracefs: `echo function > current_tracer`).
 *
 * The registration socket is request/answer, driven by the program's own
 * threads; the recorder cannot speak on it first.  So with
 * UTRACE_CFG_LIVE the runtime makes a socketpair, hands one end to the
 * recorder (a LIVE message) and serves the other from a thread of its own
 * (common/proto.h has the conversation): a TRACER, the SELECTs of every
 * object, a LIVE_DONE; ftrace.c then patches in one text_poke batch and
 * the thread answers LIVE_DONE with the result.  A probe added while
 * running comes as its event's ENABLE, then per object a INPROC_PROBE_SLOT
 * (answered) and its INPROC_PROBE, and a last INPROC_PROBE that installs them
 * (inproc_probe_live.c) and is answered with a LIVE_DONE.  A synthetic event
 * defined while running is its ENABLE alone, answered.  An
 * INPROC_PROBE_LIST is answered with the probes as the text has them,
 * an INPROC_PROBE_OPT (the kprobes-optimization switch changed) with a
 * LIVE_DONE once the probes follow it (inproc_probe_state.c).
 *
 * The thread runs only runtime code (nothing of it is instrumented) with
 * every signal blocked, so the program's handlers never run on it.  Its
 * descriptor is guarded like the main socket (fd_guard.c).  A fork child
 * has no such thread: init.c starts a new one after it reconnects.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/scm.h"
#include "runtime/rt.h"
#include "runtime/trace_events.h"

static int live_fd = -1;

/* One message from the recorder (and its descriptor in *got, else -1),
 * waiting for it in slices so that a move of the descriptor (fd_guard.c)
 * is seen; <= 0 when it has gone. */
static long live_recv(void *buf, uint32_t size, int *got)
{
	for (;;) {
		int fd = rt_fd_use(&live_fd);
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long n = -ENOTCONN;

		*got = -1;
		if (fd >= 0 && poll(&p, 1, 0) > 0)
			n = utrace_scm_recv(fd, buf, size, MSG_DONTWAIT, got);
		else if (fd >= 0)
			n = -EAGAIN;
		rt_fd_done();
		if (n != -EAGAIN && n != -EINTR)
			return n;
		if (*got >= 0)
			close(*got);
		p.fd = fd;
		poll(&p, 1, 200);
	}
}

static void live_answer(int status)
{
	struct utrace_msg_live_done d = {{sizeof(d), UTRACE_MSG_LIVE_DONE}, status, 0};
	int fd = rt_fd_use(&live_fd);

	if (fd >= 0)
		utrace_scm_send(fd, &d, sizeof(d), -1);
	rt_fd_done();
}

/* INPROC_PROBE_SLOT: the answer is the question filled in. */
static void live_slot(struct utrace_msg_inproc_probe_slot *m)
{
	int fd;

	if (rt.enabled)
		rt_inproc_probe_live_slot(m);
	else
		m->slot = UINT32_MAX;
	m->hdr.size = sizeof(*m);
	fd = rt_fd_use(&live_fd);
	if (fd >= 0)
		utrace_scm_send(fd, m, sizeof(*m), -1);
	rt_fd_done();
}

/* A probe added while running (dynamic_events): its INPROC_PROBEs, each object
 * in turn; the DONE installs them and is answered, with the first error
 * of its ENABLE or INPROC_PROBEs (the probe then runs where it could). */
static void live_inproc_probe(const struct utrace_msg_inproc_probe *m, uint32_t n, int *status)
{
	int ret = rt.enabled ? rt_inproc_probe_live_take(m, n) : -EBADF;

	if (ret < 0 && !*status)
		*status = ret;
	if (m->key == UTRACE_ENABLE_DONE) {
		live_answer(*status);
		*status = 0;
	}
}

/* INPROC_PROBE_LIST: the probes as the text has them now
 * (inproc_probe_state.c), in messages of UTRACE_IPP_LIST_PER_MSG entries,
 * the last one said; none if the state cannot be read. */
static void live_list(void)
{
	struct utrace_inproc_probe_entry *e = NULL;
	int n = rt.enabled ? rt_inproc_probe_states(&e) : 0;
	struct utrace_msg_inproc_probe_list *m = malloc(UTRACE_MSG_MAX);
	size_t i = 0;
	int fd;

	if (n < 0)
		n = 0;
	if (m) {
		do {
			size_t k = (size_t)n - i < UTRACE_IPP_LIST_PER_MSG ? (size_t)n - i
									 : UTRACE_IPP_LIST_PER_MSG;

			m->n = (uint32_t)k;
			m->last = i + k == (size_t)n;
			m->hdr = (struct utrace_msg){(uint32_t)(sizeof(*m) + k * sizeof(*e)),
						     UTRACE_MSG_INPROC_PROBE_LIST};
			if (k)
				memcpy(m->e, e + i, k * sizeof(*e));
			fd = rt_fd_use(&live_fd);
			if (fd >= 0)
				utrace_scm_send(fd, m, m->hdr.size, -1);
			rt_fd_done();
			i += k;
		} while (i < (size_t)n);
	}
	free(m);
	free(e);
}

/* trace_events.c's utrace_printf writer: the record goes into this
 * thread's own buffer, made on its first record like any thread's. */

/* An ENABLE of a probe or synthetic event added while running
 * (dynamic_events, synthetic_events); the others (RECONF) carry an
 * event's new filter and triggers (the events/ files). */
static bool live_new_event(const struct utrace_msg *m, long n)
{
	const struct utrace_msg_enable *e = (const void *)m;

	return m->type == UTRACE_MSG_ENABLE && n >= (long)sizeof(*e) &&
	       (e->obj == UTRACE_INPROC_PROBE_OBJ || e->obj == UTRACE_SYNTH_OBJ) &&
	       !(e->flags & UTRACE_ENABLE_RECONF);
}

static void *live_main(void *arg)
{
	struct utrace_msg *m = arg;
	struct utrace_msg_tracer t = {.tracer = rt.cfg.tracer,
				      .flags = rt.cfg.flags & (UTRACE_CFG_GRAPH_FUNCS |
							       UTRACE_CFG_GRAPH_RETVAL),
				      .max_depth = rt.cfg.max_depth,
				      .thresh_us = (uint32_t)(rt.cfg.thresh_ns / 1000)};
	int status = 0, ipp_status = 0, fd;
	bool sites = false; /* a TRACER or SELECT came: the sites change */
	long n;

	rt_self.state |= RT_TS_OWN; /* its library calls are ours */
	rt_own_send(UTRACE_OWN_THREAD, 0); /* its kernel events are ours */
	while ((n = live_recv(m, UTRACE_MSG_MAX, &fd)) >= (long)sizeof(*m)) {
		if (m->type == UTRACE_MSG_TRACER && n >= (long)sizeof(struct utrace_msg_tracer)) {
			t = *(struct utrace_msg_tracer *)m;
			sites = true;
		} else if (m->type == UTRACE_MSG_SELECT &&
			   n >= (long)sizeof(struct utrace_msg_select)) {
			sites = true;
			if (rt_objects_live_select((void *)m, (uint32_t)n) < 0)
				status = -EPROTO;
		} else if (live_new_event(m, n)) {
			/* a probe's or synthetic event's key, new: said at the
			 * probe's DONE; a synthetic event's now */
			if (rt_event_live_enable((void *)m, (uint32_t)n) < 0)
				ipp_status = -EPROTO;
			if (((struct utrace_msg_enable *)m)->obj == UTRACE_SYNTH_OBJ) {
				live_answer(ipp_status);
				ipp_status = 0;
			}
		} else if (m->type == UTRACE_MSG_ENABLE || m->type == UTRACE_MSG_HIST ||
			   m->type == UTRACE_MSG_TABLE || m->type == UTRACE_MSG_TRIGGER) {
			/* an event's new filter and triggers (trace_events.c) */
			rt_objects_lock(); /* dlopen and dlclose change them */
			if (rt.enabled && rt_events_live(m, n, fd) < 0 && !status)
				status = -EPROTO;
			rt_objects_unlock();
		} else if (m->type == UTRACE_MSG_MARKER &&
			   n >= (long)sizeof(struct utrace_msg_marker)) {
			const struct utrace_msg_marker *mk = (const void *)m;

			if (rt.enabled) {
				rt_marker_write((const char *)(mk + 1),
						(unsigned)(n - (long)sizeof(*mk)), mk->reader);
				rt_rb_flush(&rt_self); /* readable at once */
			}
			live_answer(rt.enabled ? 0 : -EBADF);
		} else if (m->type == UTRACE_MSG_INPROC_PROBE_SLOT &&
			   n >= (long)sizeof(struct utrace_msg_inproc_probe_slot)) {
			live_slot((void *)m);
		} else if (m->type == UTRACE_MSG_INPROC_PROBE &&
			   n >= (long)sizeof(struct utrace_msg_inproc_probe)) {
			live_inproc_probe((void *)m, (uint32_t)n, &ipp_status);
		} else if (m->type == UTRACE_MSG_INPROC_PROBE_LIST) {
			live_list();
		} else if (m->type == UTRACE_MSG_INPROC_PROBE_OPT) {
			live_answer(rt.enabled ? rt_inproc_probe_opt_apply() : -EBADF);
		} else if (m->type == UTRACE_MSG_LIVE_DONE) {
			if (!status && rt.enabled && sites)
				status = rt_objects_live_apply(&t);
			live_answer(status);
			status = 0;
			sites = false;
		}
		if (fd >= 0)
			close(fd);
	}
	free(m);
	return NULL;
}

/* After registration (init.c), when the recorder asked for it. */
void rt_live_start(void)
{
	struct utrace_msg hello = {sizeof(hello), UTRACE_MSG_LIVE};
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;
	void *buf;
	int sv[2];

	if (!(rt.cfg.flags & UTRACE_CFG_LIVE) || !rt.enabled)
		return;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return;
	live_fd = sv[0];
	rt_fd_guard(&live_fd);
	if (rt_send(&hello, sizeof(hello), sv[1]) < 0 || !(buf = malloc(UTRACE_MSG_MAX))) {
		close(sv[1]);
		rt_fd_release(&live_fd);
		return;
	}
	close(sv[1]);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread inherits it */
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &attr, live_main, buf) != 0) {
		free(buf);
		rt_fd_release(&live_fd);
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Fork child: the parent's channel is the parent's. */
void rt_live_forget(void)
{
	if (live_fd >= 0)
		rt_fd_release(&live_fd);
}
