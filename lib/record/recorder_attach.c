/* SPDX-License-Identifier: MIT */
/*
 * recorder_attach.c - the recorder's side of attaching to running
 * processes (utrace record -P, runtime/attach.c): their detach (their
 * QUIESCE messages: recorder_quiesce.c).
 *
 * Detach goes through the control page that every process of the
 * recording maps: detach = 1 and a wake of that shared futex word; each
 * runtime answers by adding 1 to detached once it has put back every byte
 * it changed.  The buffers are drained meanwhile (a thread waiting for
 * room in no-loss mode sees tracing off and gives up waiting).
 */
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/record/recorder_internal.h"

static uint64_t attach_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int utrace_recorder_detach(struct utrace_recorder *r, uint32_t n, int timeout_ms,
			   struct utrace_error *err)
{
	uint64_t end = attach_now_ms() + (uint64_t)timeout_ms;
	uint32_t done;

	__atomic_store_n(&r->ctl->stopped, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&r->ctl->tracing_on, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&r->ctl->detach, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &r->ctl->detach, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	while ((done = __atomic_load_n(&r->ctl->detached, __ATOMIC_ACQUIRE)) < n &&
	       attach_now_ms() < end)
		if (utrace_recorder_poll(r, 1, err) < 0)
			return err->code;
	return (int)done;
}
