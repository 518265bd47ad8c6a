/* SPDX-License-Identifier: MIT */
/*
 * plt_tramp.S - where a hooked GOT slot leads (--libcall, runtime/plt.c).
 *
 * The program calls printf through its PLT (`jmp *GOT`) or straight
 * through the slot (`call *GOT`); the slot now holds the address of the
 * import's stub, which loads the real target into r11, pushes the import's
 * function id and jumps here.  On entry:
 *
 *      rsp+8   return address into the caller    (hooked by fgraph)
 *      rsp+0   function id                       (pushed by the stub)
 *      r11     the library function               (the slot's old value)
 *
 * The library function has not started: its arguments are live in rdi rsi
 * rdx rcx r8 r9, rax (vector count of a variadic call like printf), r10,
 * and in the vector registers (libm's doubles), which the runtime never
 * touches (-mgeneral-regs-only; see trampoline.S).  r11 is scratch at a
 * call (the PLT and the lazy resolver use it freely), so it carries the
 * target; it is saved around the handler.  The handlers are the tracers'
 * own (utrace_graph_entry hooks the return address at rsp+8, so the
 * library function returns into utrace_graph_return as a traced function
 * does), then we jump to the target with the stack as the caller left it.
 *
 * Alignment: the call left rsp = 8 mod 16; the stub's push makes it 0,
 * r11's 8, SAVE_ARGS' 72 bytes 0 again at our `call`.  The saved registers
 * are laid out as trampoline.S's SAVE_ARGS (rt.h's RT_REG_*).
 */
	.text

#include "arch/x86_64/args.h"

/* r11 is pushed before: a pad where trampoline.S has it */
.macro SAVE_ARGS
	PUSH_ARGS
	subq	$8, %rsp
.endm

.macro RESTORE_ARGS
	addq	$8, %rsp
	POP_ARGS
.endm

/* from rsp after SAVE_ARGS: 9 words, then r11, the id, the return address */
#define FRAME_ID	80
#define FRAME_RET	88

.macro PLT_TRAMP name, handler, parent_insn
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 4
\name:
	.cfi_startproc
	.cfi_adjust_cfa_offset 8
	pushq	%r11
	.cfi_adjust_cfa_offset 8
	SAVE_ARGS
	.cfi_adjust_cfa_offset 72
	movq	FRAME_ID(%rsp), %rdi
	\parent_insn	FRAME_RET(%rsp), %rsi
	movq	%rsp, %rdx
	call	\handler
	RESTORE_ARGS
	.cfi_adjust_cfa_offset -72
	popq	%r11
	.cfi_adjust_cfa_offset -8
	addq	$8, %rsp		/* drop the id */
	.cfi_adjust_cfa_offset -8
	jmp	*%r11			/* into the library function */
	.cfi_endproc
	.size	\name, .-\name
.endm

	/* function_graph: the handler replaces the return address */
	PLT_TRAMP utrace_plt_graph_tramp, utrace_graph_entry, leaq
	/* function: the handler records the return address (parent ip) */
	PLT_TRAMP utrace_plt_func_tramp, utrace_func_entry, movq

	.section .note.GNU-stack,"",@progbits
