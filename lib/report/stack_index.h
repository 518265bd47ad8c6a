/* SPDX-License-Identifier: MIT */
/*
 * stack_index.h - which call stack an event belongs to, for the consumers
 * that keep one per thread (profile.c, callgraph.c): a thread that runs
 * coroutines has one per program stack (utrace_event.stack), each its own.
 */
#ifndef UTRACE_LIB_REPORT_STACK_INDEX_H
#define UTRACE_LIB_REPORT_STACK_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct stack_index {
	uint64_t *keys; /* buf << 32 | stack of the stacks after the threads' own */
	uint64_t *used; /* when each was last used, in events given to stack_index */
	size_t nr, cap, last;
	uint64_t clock;
};

/*
 * The index, in the array *arr of per-call-stack states (elem bytes each,
 * nbuf + s->nr of them: first the threads' own by buffer, then the other
 * program stacks'), of the call stack of buffer buf's program stack
 * `stack` (0: the thread's own).  One not seen before is added, zeroed
 * (*arr grows).  -1: out of memory.
 */
long stack_index(struct stack_index *s, void **arr, size_t elem, unsigned nbuf, uint32_t buf,
		 uint32_t stack);
/* Whether the stack at index nbuf + i went on in another thread after this
 * one last ran it (a coroutine resumed by another thread): the calls it
 * left open here are that thread's to end, not unfinished here. */
int stack_index_moved(const struct stack_index *s, size_t i);
void stack_index_free(struct stack_index *s);

#endif
