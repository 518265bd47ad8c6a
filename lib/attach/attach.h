/* SPDX-License-Identifier: MIT */
/*
 * lib/attach - loading libutrace.so into a process that is already
 * running (utrace record -P): the checks made before the process is
 * touched (attach_check.c), the ptrace injection (inject.c), the other
 * threads stopped while code they may be in is rewritten (quiesce.c).
 * May use: lib/base, lib/elf.
 *
 * attach.h - the target, checked, then injected.
 */
#ifndef UTRACE_LIB_ATTACH_H
#define UTRACE_LIB_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/error.h"

#define UTRACE_ATTACH_UNSAFE_MAX 8

struct utrace_attach_range {
	uint64_t lo, hi;
};

/* What the checks learn about the process, for the injection. */
struct utrace_attach_target {
	int pid; /* the process (its thread group) */
	int tid; /* the id given: a thread of it, or pid itself */
	char comm[16];
	/* in the process's address space (its libc's .dynsym) */
	uint64_t dlopen, dlsym, pthread_create, munmap;
	uint64_t vdso_lo, vdso_hi; /* where a `syscall` instruction is looked for first */
	uint64_t libc_text_lo, libc_text_hi;
	/* code a thread must not be stopped in for the hijack (libc and the
	 * dynamic loader may hold their locks there) */
	struct utrace_attach_range unsafe[UTRACE_ATTACH_UNSAFE_MAX];
	unsigned nunsafe;
};

/* The one-line reason, before anything touches it, why process (or
 * thread) id cannot be attached to with the runtime file runtime and the
 * recorder's socket sock; 0 and *t filled if it can.  err->code is -ESRCH
 * for no such process, -EPERM for the rest. */
int utrace_attach_check(int id, const char *runtime, const char *sock,
			struct utrace_attach_target *t, struct utrace_error *err);

/* The injection: one thread stopped with ptrace just long enough to map
 * the bootstrap and start a thread that loads runtime and connects to
 * sock; every register and byte of the stopped thread put back.  0 and
 * *boot (the bootstrap's address, for utrace_attach_status), or <0 (err). */
int utrace_attach_inject(const struct utrace_attach_target *t, const char *runtime,
			 const char *sock, uint64_t *boot, struct utrace_error *err);

/* The bootstrap thread's outcome: 1 while the runtime runs (or has not
 * answered yet), else what went wrong, as a one-line err; <0 (err) if the
 * process is gone. */
int utrace_attach_status(const struct utrace_attach_target *t, uint64_t boot,
			 struct utrace_error *err);

/* Every thread of process pid but except stopped, none inside bytes 1..4
 * of the n addresses (sorted here): what the runtime of an attached
 * process asks before it rewrites them (quiesce.c).  0 and *out, or <0
 * (err; nothing stays stopped; *refused: the address a thread's stack
 * points into, if that was why, else 0). */
struct utrace_attach_stopped;
int utrace_attach_quiesce(int pid, int except, uint64_t *addrs, size_t n, uint64_t *refused,
			  struct utrace_attach_stopped **out, struct utrace_error *err);
/* They run on (NULL: none). */
void utrace_attach_resume(struct utrace_attach_stopped *s);

#endif
