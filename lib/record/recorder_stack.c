/* SPDX-License-Identifier: MIT */
/*
 * recorder_stack.c - the recorder's end of the stack tracer
 * (runtime/stack_tracer.c): the deepest stack the traced threads had at a
 * traced entry, which the runtimes keep in the control page
 * (utrace_control.stack), read and named here for the live tracefs's
 * stack_trace, and stack_max_size set (its reset) under the same lock.
 * Switching it on and off, and stack_trace_filter, are live changes
 * (recorder_live.c utrace_recorder_live_stack).
 *
 * The lock is the runtimes' spin lock: a thread holds it for one stack
 * copy.  One killed while it held it would hold it for ever, so the
 * recorder waits REC_STACK_WAIT_MS at most, then takes it over.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/elf/symtab.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_symtab.h"

#define REC_STACK_WAIT_MS 100

static void stack_lock(struct utrace_stack_max *m)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		uint32_t free = 0;

		if (__atomic_compare_exchange_n(&m->lock, &free, UINT32_MAX, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >
		    REC_STACK_WAIT_MS) {
			__atomic_store_n(&m->lock, UINT32_MAX, __ATOMIC_SEQ_CST); /* its holder died */
			return;
		}
		sched_yield();
	}
}

static void stack_unlock(struct utrace_stack_max *m)
{
	__atomic_store_n(&m->lock, 0, __ATOMIC_RELEASE);
}

uint64_t utrace_recorder_stack_max(struct utrace_recorder *r, bool set, uint64_t size)
{
	struct utrace_stack_max *m = &r->ctl->stack;

	if (!set)
		return __atomic_load_n(&m->max_size, __ATOMIC_RELAXED);
	stack_lock(m);
	__atomic_store_n(&m->max_size, size, __ATOMIC_RELAXED);
	stack_unlock(m);
	return size;
}

bool utrace_recorder_stack_enabled(const struct utrace_recorder *r)
{
	return __atomic_load_n(&r->ctl->stack.enabled, __ATOMIC_ACQUIRE) != 0;
}

/* The process pid's connection with objects (the last one: a pid reused
 * is the newest process's), NULL if none. */
static struct rec_conn *conn_of(struct utrace_recorder *r, int32_t pid)
{
	for (uint32_t i = r->nr_conns; i-- > 0;)
		if (r->conns[i]->pid == pid && r->conns[i]->nr_objs)
			return r->conns[i];
	return NULL;
}

/* addr of process c as the kernel's %pS prints a symbol:
 * "NAME+0xOFF/0xSIZE", a library's with " [LIB]" (as utrace.kallsyms
 * lists its symbols as a module's); "0xADDR" if no symbol holds it. */
static void stack_name(struct utrace_recorder *r, struct rec_conn *c, uint64_t addr, char *out,
		       size_t n)
{
	const struct rec_object *o;
	const struct utrace_sym *s;
	const char *lib;
	uint64_t off;

	if (!(s = rec_sym_at(r, c, addr, &off, &o))) {
		snprintf(out, n, "0x%" PRIx64, addr);
		return;
	}
	if (!(lib = rec_object_module(o)))
		snprintf(out, n, "%s+0x%" PRIx64 "/0x%" PRIx64, s->raw, off, s->size);
	else
		snprintf(out, n, "%s+0x%" PRIx64 "/0x%" PRIx64 " [%s]", s->raw, off, s->size, lib);
}

int utrace_recorder_stack(struct utrace_recorder *r,
			  void (*cb)(void *arg, uint32_t depth, const char *loc), void *arg)
{
	struct utrace_stack_max *m = &r->ctl->stack;
	uint64_t *addr = malloc(UTRACE_STACK_ENTRIES * sizeof(*addr));
	uint32_t *depth = malloc(UTRACE_STACK_ENTRIES * sizeof(*depth)), nr;
	struct rec_conn *c;
	char loc[512];
	int32_t pid;

	if (!addr || !depth) {
		free(addr);
		free(depth);
		return -ENOMEM;
	}
	stack_lock(m);
	nr = m->nr_entries < UTRACE_STACK_ENTRIES ? m->nr_entries : UTRACE_STACK_ENTRIES;
	pid = m->pid;
	memcpy(addr, m->addr, nr * sizeof(*addr));
	memcpy(depth, m->depth, nr * sizeof(*depth));
	stack_unlock(m);
	c = conn_of(r, pid);
	for (uint32_t i = 0; i < nr; i++) {
		stack_name(r, c, addr[i], loc, sizeof(loc));
		cb(arg, depth[i], loc);
	}
	free(addr);
	free(depth);
	return (int)nr;
}
