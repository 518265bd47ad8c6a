/* SPDX-License-Identifier: MIT */
/*
 * attach_ptrace.h - what inject.c and quiesce.c share: threads stopped
 * with ptrace (attach_ptrace.c).
 */
#ifndef UTRACE_LIB_ATTACH_PTRACE_H
#define UTRACE_LIB_ATTACH_PTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

/* A thread stopped by us, and the signal it got meanwhile (0: none). */
struct stopped {
	int tid;
	int pending;
	uint64_t own_trap; /* where our own int3 stops it (rip after it), 0 */
	struct user_regs_struct saved;
};

/* Reads or writes len bytes of process pid at addr; 0 or -errno. */
int attach_mem_rw(int pid, uint64_t addr, void *buf, size_t len, int write);
void attach_sleep_us(long us);
/* Waits for s->tid's next stop (a signal it got is held in s->pending,
 * *sig); 0, -ESRCH (gone), -ETIMEDOUT. */
int attach_wait_stop(struct stopped *s, int timeout_ms, int *sig);
/* Resumes with req (PTRACE_CONT, PTRACE_SINGLESTEP) until the thread
 * stops at rip want; its registers; 0 or <0. */
int attach_run_until(struct stopped *s, int req, uint64_t want, struct user_regs_struct *regs);
/* Seizes and interrupts tid: 0 once it is stopped (its registers in
 * s->saved), or -errno of PTRACE_SEIZE, -ESRCH. */
int attach_stop(struct stopped *s, int tid);
/* Lets it go, with the signal held back; 0 or -errno. */
int attach_release(struct stopped *s, int restore_regs);

#endif
