/* SPDX-License-Identifier: MIT */
/*
 * recorder_kprobes.c - the recorder's end of the kernel's debugfs
 * kprobes/list and sysctl debug.kprobes-optimization over the in-process
 * probes (runtime/inproc_probe_state.c), for the live tracefs.
 *
 * Only a process knows how its probes are in its text now (a jmp the
 * tool chose is written once its helper proved no thread in the way, or
 * never), so the list asks each process with a live channel
 * (INPROC_PROBE_LIST, common/proto.h) and names each address as the
 * kernel's list does, SYMBOL+OFFSET with a library as a module, from the
 * process's own objects.  Only kprobe_events' probes (p:, r:) are listed,
 * as the kernel's list has its kprobes and kretprobes, not its uprobes,
 * fprobes or tracepoint probes.  A process that does not answer within
 * REC_LIVE_WAIT_MS has its channel closed (as for any live change) and
 * lists nothing.
 *
 * The switch is the control page's ipp_noopt (0 when the sysctl is 1),
 * read by every runtime where it installs a jmp probe, so that processes
 * registering later follow it; each process is then sent INPROC_PROBE_OPT
 * and waited for, so that when the write returns the jmps are int3s again
 * (or queued to be jmps), as the kernel's sysctl handler waits for its
 * optimizer.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/scm.h"
#include "lib/elf/symtab.h"
#include "lib/probes/inproc_probe.h"
#include "lib/record/recorder_inproc_probe.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_symtab.h"

/* Whether probe key's event records nothing now: its top-level switch
 * off and no instance's on (a probe of the command line is always on). */
static bool kp_disabled(const struct utrace_recorder *r, uint32_t key)
{
	int id = key < UTRACE_INPROC_PROBE_MAX ? rec_inproc_probe_live_id(r, key) : 0;
	uint32_t b;

	if (id < UTRACE_EV_ID_BASE || id >= UTRACE_EV_ID_BASE + UTRACE_EV_STATE_MAX)
		return false;
	b = (uint32_t)(id - UTRACE_EV_ID_BASE);
	if (!(__atomic_load_n(&r->ctl->ev_state[b], __ATOMIC_ACQUIRE) & UTRACE_EVS_OFF))
		return false;
	for (unsigned k = 1; k < UTRACE_READERS; k++)
		if (__atomic_load_n(&r->ctl->reader_ev[k][b / 8], __ATOMIC_ACQUIRE) >> (b % 8) & 1)
			return false;
	return true;
}

/* Whether probe key is a kprobe (kprobe_events' p: or r:, as the kernel
 * lists its kprobes and kretprobes): not a uprobe (PATH:), nor an fprobe
 * or tracepoint probe (f:, t:), which the kernel's list has not either. */
static bool kp_is_kprobe(const struct utrace_recorder *r, uint32_t key)
{
	const struct utrace_inproc_probe *p =
	    key < r->o.nr_inproc_probes ? r->o.inproc_probes[key] : NULL;

	return p && !utrace_inproc_probe_path(p, NULL) && !utrace_inproc_probe_fprobe(p) &&
	       !utrace_inproc_probe_tracepoint(p);
}

static void kp_line(struct utrace_recorder *r, struct rec_conn *c,
		    const struct utrace_inproc_probe_entry *e,
		    void (*cb)(void *arg, const struct utrace_kprobe_line *l), void *arg)
{
	const struct rec_object *o = NULL;
	struct utrace_kprobe_line l = {.pid = c->pid,
				       .addr = e->addr,
				       .type = e->is_return ? 'r' : 'k',
				       .disabled = kp_disabled(r, e->key)};
	const struct utrace_sym *s = rec_sym_at(r, c, e->addr, &l.off, &o);

	if (s) {
		l.sym = s->raw;
		l.module = rec_object_module(o);
	}
	l.optimized = e->state == UTRACE_IPPS_JMP || e->state == UTRACE_IPPS_JMP_QUEUED;
	l.ftrace = e->state == UTRACE_IPPS_SITE;
	cb(arg, &l);
}

/* One process's list: asked, its answers read until the last. */
static int kp_conn(struct utrace_recorder *r, struct rec_conn *c,
		   struct utrace_msg_inproc_probe_list *m,
		   void (*cb)(void *arg, const struct utrace_kprobe_line *l), void *arg)
{
	struct utrace_msg_inproc_probe_list q = {{sizeof(q), UTRACE_MSG_INPROC_PROBE_LIST}, 0, 0};
	struct rec_conn ch = *c;
	int ret;

	ch.fd = c->live_fd;
	if ((ret = rec_conn_send(&ch, &q, sizeof(q), -1)) < 0)
		return ret;
	do {
		struct pollfd p = {.fd = c->live_fd, .events = POLLIN};
		int got = -1;
		long n;

		if (poll(&p, 1, REC_LIVE_WAIT_MS) <= 0)
			return -ETIMEDOUT;
		n = utrace_scm_recv(c->live_fd, m, UTRACE_MSG_MAX, MSG_DONTWAIT, &got);
		if (got >= 0)
			close(got);
		if (n < 0)
			return (int)n;
		if (n < (long)sizeof(*m) || m->hdr.type != UTRACE_MSG_INPROC_PROBE_LIST ||
		    m->n > UTRACE_IPP_LIST_PER_MSG ||
		    (size_t)n != sizeof(*m) + m->n * sizeof(m->e[0]))
			return -EPROTO;
		for (uint32_t i = 0; i < m->n; i++)
			if (kp_is_kprobe(r, m->e[i].key))
				kp_line(r, c, &m->e[i], cb, arg);
	} while (!m->last);
	return 0;
}

int utrace_recorder_kprobes_list(struct utrace_recorder *r,
				 void (*cb)(void *arg, const struct utrace_kprobe_line *l),
				 void *arg)
{
	struct utrace_msg_inproc_probe_list *m = malloc(UTRACE_MSG_MAX);
	int ret;

	if (!m)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		struct rec_conn *c = r->conns[i];

		if (c->open && c->live_fd >= 0 && (ret = kp_conn(r, c, m, cb, arg)) < 0 &&
		    !rec_live_gone(ret))
			rec_live_close(c); /* out of step: it keeps what it has */
	}
	free(m);
	return 0;
}

int utrace_recorder_kprobes_optimization(struct utrace_recorder *r, int set,
					 struct utrace_error *err)
{
	struct utrace_msg o = {sizeof(o), UTRACE_MSG_INPROC_PROBE_OPT};
	int failed = 0, ret;

	if (set < 0 || !set == !!__atomic_load_n(&r->ctl->ipp_noopt, __ATOMIC_ACQUIRE))
		return !__atomic_load_n(&r->ctl->ipp_noopt, __ATOMIC_ACQUIRE);
	__atomic_store_n(&r->ctl->ipp_noopt, set ? 0u : 1u, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		struct rec_conn *c = r->conns[i];
		struct rec_conn ch = *c;

		if (!c->open || c->live_fd < 0)
			continue;
		ch.fd = c->live_fd;
		ret = rec_conn_send(&ch, &o, sizeof(o), -1);
		if (ret >= 0)
			ret = rec_live_wait(c->live_fd);
		if (ret == -ETIMEDOUT || ret == -EPROTO)
			rec_live_close(c);
		if (ret < 0 && !rec_live_gone(ret) && !failed)
			failed = ret;
	}
	if (failed)
		return utrace_error_set(err, failed, "a traced process did not take the change: %s",
					strerror(-failed));
	return set ? 1 : 0;
}
