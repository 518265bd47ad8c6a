/* SPDX-License-Identifier: MIT */
/*
 * quiesce.c - every other thread of an attached process stopped while its
 * runtime rewrites bytes a thread may be in the middle of (common/proto.h
 * QUIESCE; runtime/attach.c asks, lib/record/recorder_attach.c answers).
 *
 * The int3-first protocol of runtime/text_poke.c makes a rewrite safe for
 * a thread that reaches its first byte, not for one already past it:
 * gcc's five 1-byte NOPs, or the first instructions of a function whose
 * entry becomes a jmp, may hold a thread stopped (preempted, or in a
 * system call) at byte 1, 2, 3 or 4.  The kernel waits for such threads
 * with RCU-tasks; here each other thread is stopped with ptrace and, if
 * its rip is inside one of those ranges, single-stepped out of it (a few
 * instructions at most: they are NOPs or a prologue).  The threads stay
 * stopped until the batch is written (RESUME), so none can enter a range
 * meanwhile; threads the process creates meanwhile are stopped too (the
 * list of /proc/PID/task is read until it holds no new one).
 *
 * A thread blocked in a system call whose return address is outside the
 * ranges is left alone: when it wakes it can only reach a range at its
 * first byte, which the int3 covers.  Stopping it would end some of its
 * system calls early (epoll_wait returns EINTR when ptrace interrupts it).
 *
 * A thread can also come back into bytes 1..4 later without being there
 * now: through a return address (a call among an entry's displaced
 * instructions) or a signal frame saved there (a handler that interrupted
 * them runs, or sleeps).  So every thread's stack, from its stack pointer
 * to the end of its mapping, is read too, and a word that points into a
 * range refuses the batch (inproc_probe_opt.c's rule: a stray value only
 * refuses more; the runtime then takes its slower way).  A handler on a
 * sigaltstack keeps the interrupted frame on that stack, which is the
 * one read.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "lib/attach/attach.h"
#include "lib/attach/attach_ptrace.h"

#define QUIESCE_STEPS 64	    /* single steps to leave a range */
#define QUIESCE_SCAN_MAX (16u << 20) /* bytes of a stack read */

struct utrace_attach_stopped {
	size_t n, cap;
	struct stopped t[];
};

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The address of the sorted ones whose bytes 1..4 hold v, or 0. */
static uint64_t range_of(const uint64_t *addrs, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first address >= v */
		size_t mid = (lo + hi) / 2;

		if (addrs[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && v - addrs[lo - 1] < 5 ? addrs[lo - 1] : 0;
}

/* Whether rip is in bytes 1..4 of one of the sorted addresses. */
static bool in_range(const uint64_t *addrs, size_t n, uint64_t rip)
{
	return range_of(addrs, n, rip) != 0;
}

/* Whether tid sleeps in a system call that returns outside the ranges
 * (/proc/PID/task/TID/syscall: "NR ARGS... SP PC" while in one); *sp its
 * stack pointer. */
static bool blocked_outside(int pid, int tid, const uint64_t *addrs, size_t n, uint64_t *sp)
{
	char path[96], buf[256];
	unsigned long long pc;
	const char *last, *prev;
	FILE *f;
	long nr;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
	if (!(f = fopen(path, "r")))
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	if (sscanf(buf, "%ld", &nr) != 1 || nr < 0 || !(last = strrchr(buf, ' ')))
		return false;
	pc = strtoull(last + 1, NULL, 16);
	for (prev = last - 1; prev > buf && *prev != ' '; prev--)
		;
	*sp = strtoull(prev + 1, NULL, 16);
	return !in_range(addrs, n, pc);
}

/* The end of the mapping of process pid that holds sp, 0 if none. */
static uint64_t stack_end(int pid, uint64_t sp)
{
	char path[64], line[512];
	unsigned long long lo, hi, end = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (!end && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && sp >= lo && sp < hi)
			end = hi;
	fclose(f);
	return end;
}

/* Whether a word of the stack at sp points into bytes 1..4 of a range
 * (a return address or a saved signal frame there: *hit, its address),
 * or the stack cannot be read: then it may (*hit 0). */
static bool stack_refers(int pid, uint64_t sp, const uint64_t *addrs, size_t n, uint64_t *hit)
{
	uint64_t end = stack_end(pid, sp), buf[512];

	*hit = 0;
	sp &= ~7ull;
	if (!end || end - sp > QUIESCE_SCAN_MAX)
		return true;
	while (sp < end) {
		size_t len = end - sp < sizeof(buf) ? end - sp : sizeof(buf);
		struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)sp, len};

		if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)len)
			return true;
		for (size_t k = 0; k < len / 8; k++)
			if ((*hit = range_of(addrs, n, buf[k])))
				return true;
		sp += len;
	}
	return false;
}

static bool known(const struct utrace_attach_stopped *s, int tid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].tid == tid)
			return true;
	return false;
}

/* Steps s out of the ranges; 0, or -EBUSY (it stays: in a system call
 * there, or it does not leave). */
static int step_out(struct stopped *s, const uint64_t *addrs, size_t n)
{
	struct user_regs_struct r = s->saved;

	for (int i = 0; i < QUIESCE_STEPS && in_range(addrs, n, r.rip); i++) {
		int sig;

		if ((long long)r.orig_rax >= 0)
			return -EBUSY; /* it would restart the system call, and block */
		if (s->pending == SIGTRAP)
			return -EBUSY; /* its handler may want it where it is */
		if (ptrace(PTRACE_SINGLESTEP, s->tid, NULL, NULL) < 0 ||
		    attach_wait_stop(s, 1000, &sig) < 0 ||
		    ptrace(PTRACE_GETREGS, s->tid, NULL, &r) < 0)
			return -EBUSY;
	}
	s->saved = r; /* where it is now (its stack is read from there) */
	return in_range(addrs, n, r.rip) ? -EBUSY : 0;
}

/* One pass over /proc/PID/task: the threads not stopped yet; how many. */
static int stop_new(int pid, int except, struct utrace_attach_stopped **sp, const uint64_t *addrs,
		    size_t n, uint64_t *hit, struct utrace_error *err)
{
	char path[64];
	struct dirent *d;
	int added = 0, refused = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (!(dir = opendir(path)))
		return utrace_error_set(err, -ESRCH, "process %d has gone", pid);
	while ((d = readdir(dir))) {
		struct utrace_attach_stopped *s = *sp;
		int tid = atoi(d->d_name), ret;
		uint64_t stk;

		if (tid <= 0 || tid == except || known(s, tid))
			continue;
		if (s->n == s->cap) {
			size_t cap = s->cap * 2;

			if (!(s = realloc(s, sizeof(*s) + cap * sizeof(s->t[0])))) {
				closedir(dir);
				return utrace_error_set(err, -ENOMEM, "out of memory");
			}
			s->cap = cap;
			*sp = s;
		}
		if (blocked_outside(pid, tid, addrs, n, &stk)) {
			s->t[s->n++] =
			    (struct stopped){.tid = tid, .pending = -1}; /* not stopped */
			added++;
			if (stack_refers(pid, stk, addrs, n, hit)) {
				refused = tid;
				break;
			}
			continue;
		}
		if ((ret = attach_stop(&s->t[s->n], tid)) == -ESRCH)
			continue; /* it ended */
		if (ret < 0) {
			closedir(dir);
			return utrace_error_set(err, ret, "thread %d: ptrace: %s", tid,
						strerror(-ret));
		}
		s->n++;
		added++;
		if (step_out(&s->t[s->n - 1], addrs, n) < 0) {
			closedir(dir);
			return utrace_error_set(err, -EBUSY,
						"thread %d is stopped inside code being "
						"patched",
						tid);
		}
		if (stack_refers(pid, s->t[s->n - 1].saved.rsp, addrs, n, hit)) {
			refused = tid;
			break;
		}
	}
	closedir(dir);
	if (refused)
		return utrace_error_set(err, -EBUSY,
					"thread %d may return or resume inside code being patched",
					refused);
	return added;
}

int utrace_attach_quiesce(int pid, int except, uint64_t *addrs, size_t n, uint64_t *refused,
			  struct utrace_attach_stopped **out, struct utrace_error *err)
{
	struct utrace_attach_stopped *s = malloc(sizeof(*s) + 16 * sizeof(s->t[0]));
	int ret;

	*out = NULL;
	if (!s)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	s->n = 0;
	s->cap = 16;
	qsort(addrs, n, sizeof(*addrs), u64_cmp);
	*refused = 0;
	while ((ret = stop_new(pid, except, &s, addrs, n, refused, err)) > 0)
		;
	if (ret < 0) {
		utrace_attach_resume(s);
		return ret;
	}
	*out = s;
	return 0;
}

void utrace_attach_resume(struct utrace_attach_stopped *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].pending >= 0) /* -1: left alone */
			attach_release(&s->t[i], 0);
	free(s);
}
