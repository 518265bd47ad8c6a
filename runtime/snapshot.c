/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - the `snapshot` trigger and the hist snapshot() action:
 * asking the recorder to save every thread's buffer as it is now, the
 * kernel's snapshot buffer (tracefs `snapshot`), while recording goes on.
 *
 * The kernel swaps the live buffer with a spare in place.  Here the
 * buffers are the recorder's to read (it maps every one), so the request
 * is only a note on the control page every process maps (common/proto.h,
 * struct utrace_control): take a ticket n from snap_next with one atomic
 * add, fill slot n % UTRACE_SNAP_SLOTS with the TSC of this moment, the
 * event and the thread, then publish the slot's seq (n + 1) with a
 * release store, so a recorder that sees seq sees the rest.  The
 * recorder looks at the next ticket on every poll (at most a millisecond
 * apart), copies every buffer and keeps, of what it copied, the records
 * up to this TSC (lib/record/recorder_snap.c, docs/utrace-dat.md).
 *
 * Then the thread that asked waits until the recorder says it took it
 * (snap_done, a futex word of the shared page, as a no-loss buffer waits
 * for tail): otherwise a thread writing fast could overwrite the records
 * right before the trigger, the very ones a flight recorder is for, in
 * the millisecond before the recorder looks.  Other threads go on.  The
 * wait is bounded (UTRACE_SNAP_WAIT_MS: a recorder that is stopped or
 * gone) and is a system call, so it is fine in a signal handler too.
 *
 * Signal-safe (atomics and plain stores into shared memory, futex), no
 * allocation, errno kept.  A recorder that falls more than
 * UTRACE_SNAP_SLOTS requests behind finds the slots it missed overwritten
 * and counts them lost.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/rt.h"

/* Wait until the recorder took request n (snap_done passed n): at most
 * UTRACE_SNAP_WAIT_MS waits of at most 1 ms each. */
static void snap_wait(struct utrace_control *ctl, uint64_t n)
{
	int saved = errno;

	for (int tries = 0; tries < UTRACE_SNAP_WAIT_MS; tries++) {
		uint32_t done = __atomic_load_n(&ctl->snap_done, __ATOMIC_ACQUIRE);
		struct timespec ts = {0, 1000000}; /* 1 ms a wait: bounded in all */

		if ((int32_t)(done - (uint32_t)n) > 0)
			break;
		/* FUTEX_WAIT, not _PRIVATE: the page is shared with the recorder */
		syscall(SYS_futex, &ctl->snap_done, FUTEX_WAIT, done, &ts, NULL, 0);
	}
	errno = saved;
}

void rt_snapshot_request(int32_t event_id, int32_t tid, uint32_t reader)
{
	struct utrace_control *ctl = rt.ctl;
	struct utrace_snap_slot *s;
	uint32_t cpu;
	uint64_t n;

	if (!ctl || !rt.enabled)
		return;
	n = __atomic_fetch_add(&ctl->snap_next, 1, __ATOMIC_RELAXED);
	s = &ctl->snap[n % UTRACE_SNAP_SLOTS];
	/* the slot is being rewritten: a reader that raced with us and saw
	 * the old seq must not take these fields for it */
	__atomic_store_n(&s->seq, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->tsc = rt_clock(&cpu);
	s->id = event_id;
	s->tid = tid;
	s->reader = reader;
	/* release: tsc, id and tid are visible before seq says so */
	__atomic_store_n(&s->seq, n + 1, __ATOMIC_RELEASE);
	snap_wait(ctl, n);
}
