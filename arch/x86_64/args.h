/* SPDX-License-Identifier: MIT */
/*
 * args.h - the argument registers a trampoline saves before it calls C,
 * for trampoline.S (call sites) and plt_tramp.S (library calls), which
 * hand the same layout to the tracers (runtime/rt.h's RT_REG_*).
 *
 * The function has not started: its arguments are live in rdi rsi rdx rcx
 * r8 r9, rax (vector count of a variadic call) and r10 (static chain).
 * PUSH_ARGS pushes them so that, one word further down (r11 in
 * trampoline.S, a pad in plt_tramp.S), rdi is regs[8] ... r10 regs[1].
 */
#ifndef UTRACE_ARCH_X86_64_ARGS_H
#define UTRACE_ARCH_X86_64_ARGS_H

.macro PUSH_ARGS
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	pushq	%rax
	pushq	%r10
.endm

.macro POP_ARGS
	popq	%r10
	popq	%rax
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
.endm

#endif
