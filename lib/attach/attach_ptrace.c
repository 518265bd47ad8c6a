/* SPDX-License-Identifier: MIT */
/*
 * attach_ptrace.c - threads of another process stopped and resumed with
 * ptrace (PTRACE_SEIZE, so that a signal-delivery stop and our own
 * interrupt are told apart), for inject.c and quiesce.c.  A signal that
 * arrives for a stopped thread is held back and delivered when it is let
 * go, so the program sees it as if nothing had happened.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/attach/attach_ptrace.h"

#define ATTACH_CALL_TIMEOUT_MS 2000

int attach_mem_rw(int pid, uint64_t addr, void *buf, size_t len, int write)
{
	struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};
	ssize_t n = write ? process_vm_writev(pid, &local, 1, &remote, 1, 0)
			  : process_vm_readv(pid, &local, 1, &remote, 1, 0);

	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
}

void attach_sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

/*
 * Waits for tid's next stop; *sig is the signal of a signal-delivery
 * stop (held back: saved in s->pending), 0 for our own stops.  Returns
 * 0, or -ESRCH if the thread is gone, -ETIMEDOUT.
 */
int attach_wait_stop(struct stopped *s, int timeout_ms, int *sig)
{
	int status;

	for (long waited = 0;; waited += 100) {
		pid_t r = waitpid(s->tid, &status, __WALL | WNOHANG);

		if (r < 0)
			return -errno;
		if (r == s->tid && !WIFSTOPPED(status))
			return -ESRCH; /* exited */
		if (r == s->tid)
			break;
		if (waited / 1000 >= timeout_ms)
			return -ETIMEDOUT;
		attach_sleep_us(100);
	}
	*sig = 0;
	if (status >> 16 == PTRACE_EVENT_STOP)
		return 0; /* the interrupt, or a group stop */
	if (WSTOPSIG(status) != SIGTRAP) {
		if (!s->pending)
			s->pending = WSTOPSIG(status);
		*sig = WSTOPSIG(status);
	}
	return 0;
}

/* Resumes with req until the thread stops at rip want; its registers. */
int attach_run_until(struct stopped *s, int req, uint64_t want, struct user_regs_struct *regs)
{
	for (int i = 0; i < 64; i++) {
		int sig, ret;

		if (ptrace(req, s->tid, NULL, NULL) < 0)
			return -errno;
		if ((ret = attach_wait_stop(s, ATTACH_CALL_TIMEOUT_MS, &sig)) < 0)
			return ret;
		if (ptrace(PTRACE_GETREGS, s->tid, NULL, regs) < 0)
			return -errno;
		if (!sig && regs->rip == want)
			return 0;
	}
	return -EIO;
}

int attach_stop(struct stopped *s, int tid)
{
	int sig;

	memset(s, 0, sizeof(*s));
	s->tid = tid;
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0)
		return -errno;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0 || attach_wait_stop(s, 1000, &sig) < 0 ||
	    ptrace(PTRACE_GETREGS, tid, NULL, &s->saved) < 0) {
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		return -ESRCH;
	}
	return 0;
}

int attach_release(struct stopped *s, int restore_regs)
{
	int ret = 0;

	if (restore_regs && ptrace(PTRACE_SETREGS, s->tid, NULL, &s->saved) < 0)
		ret = -errno;
	if (ptrace(PTRACE_DETACH, s->tid, NULL, (void *)(long)s->pending) < 0 && !ret)
		ret = -errno;
	return ret;
}
