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
 *   recorder                              attach thread (signals blocked)
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
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/rt.h"

#define ATTACH_GRACE_NS 20000000L /* a thread past its tracing_on check writes within this */
#define ATTACH_HUP_WAIT_MS 5000	  /* the recorder closes once its file is written */

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
	bool hup = fd < 0 || (poll(&p, 1, timeout_ms) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)));

	rt_fd_done();
	return hup;
}

/* 0 if this process may be attached to: the state of a past attach is
 * dropped (its sites were put back at its detach). */
int rt_attach_begin(void)
{
	const char *sock = getenv(UTRACE_ENV_SOCK);

	if ((sock && *sock) || __atomic_exchange_n(&attach_busy, true, __ATOMIC_ACQ_REL))
		return -EBUSY;
	if (rt.enabled) { /* linked with -lutrace and started by a recorder */
		attach_busy = false;
		return -EBUSY;
	}
	if (rt.sock >= 0)
		rt_fd_release(&rt.sock);
	rt.attached = true;
	rt_objects_forget();
	rt_text_poke_log(true);
	return 0;
}

/* Tracing off and every byte we changed put back; 0 or -errno. */
int rt_attach_undo(void)
{
	struct timespec grace = {0, ATTACH_GRACE_NS};
	int ret, ret2;

	__atomic_store_n(&rt.enabled, 0, __ATOMIC_SEQ_CST);
	__utrace_marker_on = 0;
	ret = rt_plt_unhook();
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

/* The attach is over (detached, or failed): the socket closed, the
 * process may be attached to again. */
void rt_attach_end(void)
{
	if (rt.sock >= 0)
		rt_fd_release(&rt.sock);
	rt_live_forget();
	rt.attached = false;
	__atomic_store_n(&attach_busy, false, __ATOMIC_RELEASE);
}
