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
 * A SIGTRAP stop is ours (a single step, or the end of a system call
 * stepped over: si_code TRAP_*) or the program's: an int3 it ran
 * (SI_KERNEL) or one sent to it (SI_USER, SI_TKILL).  Letting the thread
 * go without the program's would lose it: after an int3 of the runtime
 * (a patched entry's, text_poke.c), the thread would run the entry's
 * bytes after its first one, whose first instruction the int3 stands for
 * (`push %rbx` skipped: the function returns to a wrong address).  An
 * int3's thread is put back on it (rip - 1: it runs it again, and traps
 * again, when it goes on, or meets what replaced it meanwhile), which
 * also takes it out of bytes 1..4 of the entry; a SIGTRAP not from an
 * int3 still there is held back as any other signal.  Returns the signal
 * to hold back, 0 if none.
 */
static int trap_kind(struct stopped *s)
{
	struct user_regs_struct r;
	siginfo_t si;
	long word;

	if (ptrace(PTRACE_GETSIGINFO, s->tid, NULL, &si) < 0)
		return 0;
	if (si.si_code > 0 && si.si_code != SI_KERNEL)
		return 0; /* TRAP_TRACE, TRAP_BRKPT: our single step */
	if (si.si_code == SI_KERNEL && ptrace(PTRACE_GETREGS, s->tid, NULL, &r) == 0) {
		if (s->own_trap && r.rip == s->own_trap)
			return 0; /* inject.c's, where its call returns */
		errno = 0;
		word = ptrace(PTRACE_PEEKTEXT, s->tid, (void *)(uintptr_t)(r.rip - 1), NULL);
		if (!errno && (word & 0xff) == 0xcc) {
			r.rip--;
			if (ptrace(PTRACE_SETREGS, s->tid, NULL, &r) == 0)
				return 0;
		}
	}
	return SIGTRAP;
}

/*
 * Waits for tid's next stop; *sig is the signal of a signal-delivery
 * stop (held back: saved in s->pending), 0 for our own stops and for an
 * int3's SIGTRAP, undone instead (trap_kind).  Returns 0, or -ESRCH if
 * the thread is gone, -ETIMEDOUT.
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
	*sig = WSTOPSIG(status) == SIGTRAP ? trap_kind(s) : WSTOPSIG(status);
	if (*sig && !s->pending)
		s->pending = *sig;
	return 0;
}

/* Resumes with req until the thread stops at rip want; its registers. */
int attach_run_until(struct stopped *s, int req, uint64_t want, struct user_regs_struct *regs)
{
	int ret = -EIO;

	s->own_trap = want; /* an int3 of ours before want stops it there */
	for (int i = 0; i < 64; i++) {
		int sig;

		if (ptrace(req, s->tid, NULL, NULL) < 0) {
			ret = -errno;
			break;
		}
		if ((ret = attach_wait_stop(s, ATTACH_CALL_TIMEOUT_MS, &sig)) < 0)
			break;
		if (ptrace(PTRACE_GETREGS, s->tid, NULL, regs) < 0) {
			ret = -errno;
			break;
		}
		ret = -EIO;
		if (!sig && regs->rip == want) {
			ret = 0;
			break;
		}
	}
	s->own_trap = 0;
	return ret;
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
