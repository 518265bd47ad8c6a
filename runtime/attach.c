/* SPDX-License-Identifier: MIT */
/*
 * attach.c - the runtime loaded into a process that is already running
 * (utrace record -P PID), and its detach.
 *
 * The tool (lib/attach/) makes one of the process's threads start a fresh
 * thread, which dlopens libutrace.so and calls __utrace_attach (init.c)
 * with the recorder's socket.  That thread registers the process as the
 * constructor would (connect, CONFIG, objects, patches) and then stays,
 * asleep, for the recording's length:
 *
 *   recorder                              attach thread (async signals blocked)
 *   ctl->detach = 1, futex wake  ------>  tracing off; GOT slots back;
 *                                         every poked byte back (text_poke.c's
 *                                         log, int3 first); buffers retired
 *                               <------   ctl->detached += 1, futex wake
 *   finish the file, close       ------>  (hang-up seen) socket closed;
 *                                         its bootstrap unmapped; thread ends
 *
 * A recorder that goes away without asking (killed) is seen the same way,
 * by the hang-up of the socket, and the process is put back alike.
 *
 * A child the process forks while attached puts its own code back at once
 * (rt_attach_forked, from the fork handler of init.c).
 *
 * What stays: libutrace.so, dormant (rt.enabled = 0), and its stub and
 * detour regions, since a thread may still be inside one, or return
 * through function_graph's return hook (its shadow stack stays too).  A
 * later attach registers everything again from scratch; the threads' old
 * buffers are STALE (ring_buffer.c) and replaced at their next record.
 *
 * A process started by `utrace record` (UTRACE_SOCK in its environment)
 * is not attached to: its runtime's state belongs to that recording.
 */
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arch/x86_64/insn.h"
#include "runtime/rt.h"

#define ATTACH_GRACE_NS 20000000L /* a thread past its tracing_on check writes within this */
#define ATTACH_HUP_WAIT_MS 5000	  /* the recorder closes once its file is written */
#define ATTACH_BUSY_WAIT_MS 2000  /* for the last attach's thread to end */

static bool attach_busy;

static long attach_futex(uint32_t *word, int op, uint32_t val, long timeout_ns)
{
	struct timespec ts = {timeout_ns / 1000000000L, timeout_ns % 1000000000L};

	return syscall(SYS_futex, word, op, val, timeout_ns ? &ts : NULL, NULL, 0);
}

/* Whether the recorder has closed its end of the socket. */
static bool attach_hangup(int timeout_ms)
{
	int fd = rt_fd_use(&rt.sock);
	struct pollfd p = {.fd = fd, .events = 0};
	bool hup =
	    fd < 0 || (poll(&p, 1, timeout_ms) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)));

	rt_fd_done();
	return hup;
}

/* Whether a thread may be between bytes 1 and 4 of the poke at p: the 5
 * bytes are not one instruction already (the 5-byte NOP, a call or a jmp
 * of ours) but gcc's 1-byte NOPs or a function's own first instructions. */
static bool attach_hazard(const uint8_t *p)
{
	return memcmp(p, insn_nop5, INSN_SITE_SIZE) && p[0] != 0xe8 && p[0] != 0xe9;
}

static int attach_quiesce_send(struct utrace_msg_quiesce *q, const struct rt_poke *pokes, size_t n)
{
	size_t i = 0;
	int ret = 0;

	do {
		q->count = 0;
		for (; i < n && q->count < UTRACE_QUIESCE_PER_MSG; i++)
			if (attach_hazard(pokes[i].addr))
				q->addr[q->count++] = (uint64_t)(uintptr_t)pokes[i].addr;
		q->flags = i < n ? UTRACE_QUIESCE_MORE : 0;
		q->hdr.size = (uint32_t)(sizeof(*q) + q->count * sizeof(uint64_t));
		ret = rt_send(q, q->hdr.size, -1);
	} while (ret >= 0 && i < n);
	return ret;
}

/*
 * rt_text_poke_quiesce_hook: before a batch that rewrites what a thread
 * may be in the middle of, the recorder stops every other thread (with
 * ptrace, out of those bytes: common/proto.h QUIESCE); after it, RESUME.
 * The message is allocated before the threads stop, never after.
 */
static int attach_quiesce(const struct rt_poke *pokes, size_t n, bool stop)
{
	struct utrace_msg_quiesce *q;
	struct {
		struct utrace_msg_quiesce q;
		uint64_t addr; /* refused: where a thread would come back */
	} ans;
	size_t hazards = 0;
	int ret;

	if (!stop) {
		struct utrace_msg resume = {sizeof(resume), UTRACE_MSG_RESUME};

		rt_send(&resume, sizeof(resume), -1);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		hazards += attach_hazard(pokes[i].addr);
	if (!hazards)
		return 0;
	if (!(q = malloc(UTRACE_MSG_MAX)))
		return -ENOMEM;
	memset(q, 0, sizeof(*q));
	q->hdr.type = UTRACE_MSG_QUIESCE;
	q->tid = gettid();
	ret = attach_quiesce_send(q, pokes, n);
	free(q);
	if (ret >= 0)
		ret = rt_recv(&ans, sizeof(ans), NULL);
	if (ret < (int)sizeof(ans.q) || ans.q.hdr.type != UTRACE_MSG_QUIESCE)
		return ret < 0 ? ret : -EPROTO;
	if (ans.q.status < 0 && ans.q.count == 1 && ret >= (int)sizeof(ans))
		rt_text_poke_set_refused(ans.addr);
	return ans.q.status < 0 ? ans.q.status : 1;
}

/* 0 if this process may be attached to: the state of a past attach is
 * dropped (its sites were put back at its detach). */
int rt_attach_begin(void)
{
	const char *sock = getenv(UTRACE_ENV_SOCK);

	if ((sock && *sock) || rt.enabled) /* started by a recorder, or attached */
		return -EBUSY;
	/* the last attach's thread may still be waiting for its recorder's
	 * hang-up (it has gone, and this one is its successor) */
	for (int i = 0; __atomic_exchange_n(&attach_busy, true, __ATOMIC_ACQ_REL); i++) {
		struct timespec ms = {0, 1000000};

		if (rt.enabled || i == ATTACH_BUSY_WAIT_MS)
			return -EBUSY;
		nanosleep(&ms, NULL);
	}
	if (rt.sock >= 0)
		rt_fd_release(&rt.sock);
	rt.attached = true;
	rt_objects_forget();
	rt_text_poke_log(true);
	rt_text_poke_quiesce_hook(attach_quiesce);
	return 0;
}

/* Tracing off and every byte we changed put back; 0 or -errno. */
int rt_attach_undo(void)
{
	struct timespec grace = {0, ATTACH_GRACE_NS};
	int ret, ret2;

	__atomic_store_n(&rt.enabled, 0, __ATOMIC_SEQ_CST);
	__utrace_marker_on = 0;
	/* putting the program's bytes back needs no quiesce: what is there
	 * is one instruction of ours, or an int3 before the program's own
	 * bytes, which a thread inside them keeps running */
	rt_text_poke_quiesce_hook(NULL);
	/* the program's dlclose is not ours while attached (late_bind.c):
	 * an object it unloaded meanwhile is forgotten now, so that nothing
	 * below writes where it was */
	rt_objects_forget_unloaded();
	ret = rt_plt_unhook();
	if (rt_late_unbind() < 0)
		rt_log("detach: some of the program's GOT slots keep the runtime's interposers "
		       "(dormant: they pass every call on)");
	ret2 = rt_text_poke_restore();
	/* no thread enters the tracer now; one that was in it when tracing
	 * went off has left it after this */
	nanosleep(&grace, NULL);
	rt_rb_retire_all();
	return ret < 0 ? ret : ret2;
}

/* Sleeps until the recorder asks to detach (or has gone), detaches, says
 * so, waits for the recorder to close, closes. */
void rt_attach_serve(void)
{
	uint32_t *detach = &rt.ctl->detach;

	while (!__atomic_load_n(detach, __ATOMIC_ACQUIRE)) {
		attach_futex(detach, FUTEX_WAIT, 0, 100000000L);
		if (attach_hangup(0))
			break;
	}
	if (rt_attach_undo() < 0)
		rt_log("detach: some patched bytes could not be put back");
	__atomic_add_fetch(&rt.ctl->detached, 1, __ATOMIC_RELEASE);
	attach_futex(&rt.ctl->detached, FUTEX_WAKE, INT32_MAX, 0);
	attach_hangup(ATTACH_HUP_WAIT_MS);
	rt_attach_end();
}

/* A fork child of an attached process: it has no recorder of its own
 * (nothing in its environment) and one thread, so its code is put back at
 * once, with no thread to wait for or stop. */
void rt_attach_forked(void)
{
	__atomic_store_n(&rt.enabled, 0, __ATOMIC_SEQ_CST);
	__utrace_marker_on = 0;
	rt_text_poke_quiesce_hook(NULL);
	rt_plt_unhook();
	rt_text_poke_restore();
	rt.attached = false;
	attach_busy = false;
}

/* The attach is over (detached, or failed): the socket closed, the
 * process may be attached to again. */
void rt_attach_end(void)
{
	if (rt.sock >= 0)
		rt_fd_release(&rt.sock);
	rt_live_forget();
	rt_text_poke_quiesce_hook(NULL);
	rt.attached = false;
	__atomic_store_n(&attach_busy, false, __ATOMIC_RELEASE);
}
