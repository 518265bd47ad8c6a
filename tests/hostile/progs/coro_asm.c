/* SPDX-License-Identifier: MIT */
/*
 * coro_asm.c - coroutines switched by a hand-written stack switch (as
 * boost::context does), not by swapcontext: utrace is told nothing.  Two
 * coroutines on heap stacks and one on a stack inside main's frame run
 * traced functions, each switch made from inside traced functions.
 * Under function_graph the thread must either stay exact or stop being
 * traced; the program must behave as untraced.  A swapcontext coroutine
 * started before them (its frames hooked) is finished after them: its
 * returns must still find their real addresses.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define NCO 3
#define ROUNDS 500
#define STACK (64 * 1024)

/* coro_switch(save, to): callee-saved registers pushed, rsp saved in
 * *save, rsp = to, registers popped, return on the new stack. */
void coro_switch(void **save, void *to);
__asm__(".text\n"
	".globl coro_switch\n"
	".type coro_switch, @function\n"
	"coro_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size coro_switch, .-coro_switch\n");

static void *main_sp, *co_sp[NCO];
static int cur;
static unsigned long sum[NCO];

__attribute__((noinline)) unsigned long asm_leaf(int id, int r)
{
	return ((unsigned long)id * 7919u + (unsigned long)r * 104729u) % 1009u;
}

__attribute__((noinline)) void asm_yield(int id)
{
	coro_switch(&co_sp[id], main_sp);
}

__attribute__((noinline)) void asm_step(int id, int r)
{
	sum[id] += asm_leaf(id, r);
	asm_yield(id);
	sum[id] ^= (unsigned long)r;
}

/* A coroutine's first frame: entered by coro_switch's ret, never returns. */
__attribute__((noinline, noreturn)) void asm_entry(void)
{
	int id = cur;

	for (int r = 0;; r++)
		asm_step(id, r);
}

static void *asm_stack_init(char *base, size_t size)
{
	uintptr_t top = ((uintptr_t)(base + size) & ~(uintptr_t)15) - 16;
	void **sp = (void **)top;

	*--sp = (void *)asm_entry; /* at a 16-byte boundary: entry rsp = 8 mod 16 */
	for (int i = 0; i < 6; i++)
		*--sp = 0;
	return sp;
}

static ucontext_t uc_main, uc_co;
static unsigned long uc_sum;

__attribute__((noinline)) void uc_pause(int i)
{
	uc_sum = uc_sum * 3 + (unsigned long)i;
	swapcontext(&uc_co, &uc_main);
}

__attribute__((noinline)) void uc_body(void)
{
	for (int i = 0; i < 4; i++)
		uc_pause(i);
}

__attribute__((noinline)) void asm_resume(int id)
{
	cur = id;
	coro_switch(&main_sp, co_sp[id]);
}

int main(void)
{
	char local_stack[STACK]; /* one coroutine's stack inside main's frame */
	unsigned long total = 0;
	char *uc_stack = malloc(STACK);

	if (!uc_stack || getcontext(&uc_co) != 0)
		return 2;
	uc_co.uc_stack.ss_sp = uc_stack;
	uc_co.uc_stack.ss_size = STACK;
	uc_co.uc_link = &uc_main;
	makecontext(&uc_co, uc_body, 0);
	swapcontext(&uc_main, &uc_co); /* uc_body waits in uc_pause(0) */

	for (int i = 0; i < NCO; i++) {
		char *s = i == NCO - 1 ? local_stack : malloc(STACK);

		if (!s)
			return 2;
		co_sp[i] = asm_stack_init(s, STACK);
	}
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < NCO; i++)
			asm_resume(i);
	for (int i = 0; i < 4; i++)
		swapcontext(&uc_main, &uc_co); /* uc_pause(1..3), then uc_body returns */
	for (int i = 0; i < NCO; i++)
		total = total * 31 + sum[i];
	printf("result: %lu %lu\n", total, uc_sum);
	return 0;
}
