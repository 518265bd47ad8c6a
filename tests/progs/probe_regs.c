/* SPDX-License-Identifier: MIT */
/*
 * probe_regs.c - the registers a probe reads at a function's entry, each
 * set to a value of its own by regs_call (assembly: C cannot place values
 * in the callee-saved registers) and printed by the program: regs_lean's
 * probe names every caller-saved register (runtime/inproc_probes.c's lean
 * trampoline saves only those), regs_kept's the callee-saved ones (the
 * full trampoline).  A register saved in the wrong word, or a callee-saved
 * one not saved, reads another value.
 */
#include <stdio.h>

#include "progs.h"

void regs_call(long base);

TRACED long regs_lean(long a, long b, long c, long d, long e, long f)
{
	BARRIER();
	return a ^ b ^ c ^ d ^ e ^ f;
}

TRACED long regs_kept(long a)
{
	BARRIER();
	return a + 1;
}

/* every general register but rsp: base + its number below */
#define SET_REGS                                                                                   \
	"	lea 1(%rdi), %rbx\n"                                                                     \
	"	lea 2(%rdi), %rbp\n"                                                                     \
	"	lea 3(%rdi), %r12\n"                                                                     \
	"	lea 4(%rdi), %r13\n"                                                                     \
	"	lea 5(%rdi), %r14\n"                                                                     \
	"	lea 6(%rdi), %r15\n"                                                                     \
	"	lea 7(%rdi), %rsi\n"                                                                     \
	"	lea 8(%rdi), %rdx\n"                                                                     \
	"	lea 9(%rdi), %rcx\n"                                                                     \
	"	lea 10(%rdi), %r8\n"                                                                     \
	"	lea 11(%rdi), %r9\n"                                                                     \
	"	lea 12(%rdi), %rax\n"                                                                    \
	"	lea 13(%rdi), %r10\n"                                                                    \
	"	lea 14(%rdi), %r11\n"                                                                    \
	"	add $15, %rdi\n"

/* clang-format off */
__asm__(".text\n"
	".globl regs_call\n"
	".type regs_call, @function\n"
	"regs_call:\n"
	"	push %rbx\n"
	"	push %rbp\n"
	"	push %r12\n"
	"	push %r13\n"
	"	push %r14\n"
	"	push %r15\n"
	"	push %rdi\n" /* base; rsp 0 mod 16 at the calls */
	SET_REGS
	"	call regs_lean\n"
	"	mov (%rsp), %rdi\n"
	SET_REGS
	"	call regs_kept\n"
	"	pop %rdi\n"
	"	pop %r15\n"
	"	pop %r14\n"
	"	pop %r13\n"
	"	pop %r12\n"
	"	pop %rbp\n"
	"	pop %rbx\n"
	"	ret\n"
	".size regs_call, .-regs_call\n");
/* clang-format on */

int main(void)
{
	for (int i = 0; i < 3; i++) {
		unsigned long b = (unsigned long)opaque(0x5a + i) << 32 | (unsigned long)i << 8;

		regs_call((long)b);
		printf("lean di=%lu si=%lu dx=%lu cx=%lu r8=%lu r9=%lu ax=%lu r10=%lu r11=%lu\n",
		       b + 15, b + 7, b + 8, b + 9, b + 10, b + 11, b + 12, b + 13, b + 14);
		printf("kept bx=%lu bp=%lu r12=%lu r13=%lu r14=%lu r15=%lu di=%lu\n", b + 1, b + 2,
		       b + 3, b + 4, b + 5, b + 6, b + 15);
	}
	return 0;
}
