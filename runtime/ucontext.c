/* SPDX-License-Identifier: MIT */
/*
 * ucontext.c - makecontext, swapcontext and setcontext interposed, so that
 * function_graph's shadow stack follows the program's stack
 * (fgraph_stacks.c).
 *
 * makecontext gives a stack to a context: that stack's shadow stack
 * starts empty.  It is variadic (the entry function's arguments), and a
 * C function cannot pass on a variable argument list: the interposer is a
 * few instructions that keep every argument register, call
 * ucontext_made with ucp and jump to the real one with the registers
 * and the stack as the program left them.
 *
 * swapcontext and setcontext switch the shadow stack to that of the
 * stack holding the target's stack pointer before the real call; into
 * the stack already running (a context saved by getcontext in an outer
 * frame), they are a longjmp: the frames below the target die.  A switch
 * made inside libc (a coroutine's function returning to its uc_link) is
 * seen by fgraph.c at the next entry or return.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <ucontext.h>

#include "runtime/rt.h"

#define RT_EXPORT __attribute__((visibility("default")))

void *ucontext_real_make RT_HIDDEN;
void ucontext_made(ucontext_t *ucp) RT_HIDDEN;

void ucontext_made(ucontext_t *ucp)
{
	uint64_t lo = (uint64_t)(uintptr_t)ucp->uc_stack.ss_sp;
	int saved_errno = errno;

	if (!ucontext_real_make)
		ucontext_real_make = dlsym(RTLD_NEXT, "makecontext");
	if (!(rt_self.state & RT_TS_BUSY))
		rt_fstack_register(lo, lo + ucp->uc_stack.ss_size);
	errno = saved_errno;
}

/* rsp is 8 mod 16 at entry: seven pushes make the call aligned. */
__asm__(".text\n"
	".globl makecontext\n"
	".type makecontext, @function\n"
	".p2align 4\n"
	"makecontext:\n"
	"	pushq %rdi\n"
	"	pushq %rsi\n"
	"	pushq %rdx\n"
	"	pushq %rcx\n"
	"	pushq %r8\n"
	"	pushq %r9\n"
	"	pushq %rax\n"
	"	call ucontext_made\n"
	"	popq %rax\n"
	"	popq %r9\n"
	"	popq %r8\n"
	"	popq %rcx\n"
	"	popq %rdx\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"	jmp *ucontext_real_make(%rip)\n"
	".size makecontext, .-makecontext\n");

static uint64_t ucontext_sp(const ucontext_t *ucp)
{
	return (uint64_t)ucp->uc_mcontext.gregs[REG_RSP];
}

/* Before the thread, on the stack at here, goes on at ucp. */
static void ucontext_leave(const ucontext_t *ucp, uint64_t here)
{
	struct rt_thread *t = &rt_self;
	uint64_t sp = ucontext_sp(ucp);
	int saved_errno = errno;

	if (!t->stack || (t->state & RT_TS_BUSY) || rt_fstack_switch_to(t, sp))
		goto out;
	/* a context saved further up this stack: the frames below it die */
	if (rt_fgraph_depth(t) && !(t->state & RT_TS_LOST_STACK) && here <= sp &&
	    rt_fstack_same(t, (const uint64_t *)here, (const uint64_t *)sp))
		rt_fgraph_unwind_to(t, sp);
out:
	errno = saved_errno;
}

/* Back on the stack at here (resumed, or the call failed): the shadow
 * stack is this one's if the switch to us went round this file. */
static void ucontext_back(uint64_t here)
{
	struct rt_thread *t = &rt_self;
	int saved_errno = errno; /* the real call's */

	if (t->stack && !(t->state & RT_TS_BUSY) && rt_fstack_away(t, (const uint64_t *)here))
		rt_fstack_switch_to(t, here);
	errno = saved_errno;
}

RT_EXPORT int swapcontext(ucontext_t *restrict oucp, const ucontext_t *restrict ucp)
{
	static int (*real)(ucontext_t *restrict, const ucontext_t *restrict);
	uint64_t here = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	int r;

	if (!real)
		real = (int (*)(ucontext_t *restrict, const ucontext_t *restrict))dlsym(
		    RTLD_NEXT, "swapcontext");
	ucontext_leave(ucp, here);
	r = real(oucp, ucp);
	ucontext_back(here);
	return r;
}

RT_EXPORT int setcontext(const ucontext_t *ucp)
{
	static int (*real)(const ucontext_t *);
	uint64_t here = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	int r;

	if (!real)
		real = (int (*)(const ucontext_t *))dlsym(RTLD_NEXT, "setcontext");
	ucontext_leave(ucp, here);
	r = real(ucp);
	ucontext_back(here);
	return r;
}
