/* SPDX-License-Identifier: MIT */
/*
 * trampoline.S - what a patched call site jumps to.
 *
 * A site is patched to `call stub_i`; the stub pushes the site's function
 * id and jumps (through its region's far jump) here.  On entry:
 *
 *      rsp+16  return address into the caller     ("parent ip", hooked by fgraph)
 *      rsp+8   return address into the function  (site + 5)
 *      rsp+0   function id                       (pushed by the stub)
 *
 * The traced function has not run a single instruction yet: its arguments
 * are live in rdi rsi rdx rcx r8 r9, rax (vector count of a variadic call)
 * and r10 (static chain), so those are saved, and r11 too: a function
 * patched at its entry (runtime/func_patch.c) was compiled without the
 * flags, and gcc's -fipa-ra lets its callers keep values in any register
 * the function does not write, scratch ones included.  The callee-saved
 * ones (rbx rbp r12-r15: Go's goroutine in r14, V8's roots in r13) the C
 * handler keeps.  Vector registers are not touched (xmm15, Go's zero,
 * included): the runtime is compiled with -mgeneral-regs-only, and
 * anything that may call into libc goes through utrace_call_preserving_fpu
 * below.
 *
 * The flags: at a compiler site (-fpatchable-function-entry, mcount) the
 * function is C, whose flags are dead at entry and after its return, with
 * DF clear; its stubs lead to the plain trampolines.  A function patched
 * at its entry (an object without compiler sites: Go's assembly, V8's
 * code, hand-written asm) may take a condition in them or be entered with
 * DF set, which the C handler must not see: its stubs lead to the
 * _keepflags ones, which save them (pushfq), clear DF and put them back
 * (RESTORE_FLAGS); runtime/ftrace.c picks per object.  Both come from
 * ENTRY_TRAMP, as the two return trampolines from GRAPH_RETURN.
 *
 * Stack alignment: the function was entered with rsp = 8 mod 16; the site
 * call makes it 0, the stub's push 8.  Nine saved registers bring it back
 * to 0 at our `call`, as the ABI requires (keepflags: the flags and an
 * 8-byte pad before them).  After RESTORE_FLAGS, nothing may change a
 * flag: mov and lea, not add.
 */
	.text

#include "arch/x86_64/args.h"

/* the arguments, then r11 (see above) */
.macro SAVE_ARGS
	PUSH_ARGS
	pushq	%r11
.endm

.macro RESTORE_ARGS
	popq	%r11
	POP_ARGS
.endm

/*
 * The flags pushfq saved at \at(%rsp) back, without popfq (microcoded:
 * it cost function_graph 17 ns a call on fib): DF by std where it was
 * set, OF by an add that overflows exactly when it was set, SF ZF AF PF
 * CF by sahf.  Clobbers rax, which the caller then reloads with a mov
 * (no flag changes).  TF, IF and the rest cannot change in user mode.
 */
.macro RESTORE_FLAGS at
	movl	\at(%rsp), %eax
	testb	$4, %ah			/* DF, flags bit 10 */
	jz	1f
	std
1:	shrb	$3, %ah			/* OF (bit 11) to bit 0; IOPL and NT are 0 */
	rolw	$8, %ax			/* al: OF, ah: SF ZF AF PF CF as sahf takes them */
	addb	$0x7f, %al		/* overflows iff al was 1 */
	sahf
.endm

/* offsets from rsp after SAVE_ARGS: 9 words saved, above them (keep = 1)
 * a pad and the flags */
#define FRAME_ID(keep)		(72 + 16 * (keep))
#define FRAME_PARENT(keep)	(88 + 16 * (keep))

/*
 * ENTRY_TRAMP name, handler, parent, keep[, fp]: calls handler(id, parent, regs[, rbp])
 * with parent = the caller's return address (func) or its address (graph),
 * and regs = rsp, where SAVE_ARGS left the argument registers
 * (funcgraph-args reads them there: rdi at regs[8] ... r9 at regs[3],
 * runtime/rt.h).  keep = 1: the flags are kept (see above).
 */
.macro ENTRY_TRAMP name, handler, parent_insn, keep, fp=0
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 4
\name:
	.cfi_startproc
	.cfi_adjust_cfa_offset 16
.if \keep
	pushfq
	leaq	-8(%rsp), %rsp		/* the pad */
	.cfi_adjust_cfa_offset 16
	cld
.endif
	SAVE_ARGS
	.cfi_adjust_cfa_offset 72
	movq	FRAME_ID(\keep)(%rsp), %rdi
	\parent_insn	FRAME_PARENT(\keep)(%rsp), %rsi
	movq	%rsp, %rdx
.if \fp
	movq	%rbp, %rcx		/* the caller's frame (the stack tracer's walk) */
.endif
	call	\handler
	RESTORE_ARGS
	.cfi_adjust_cfa_offset -72
.if \keep
	movq	%rax, (%rsp)		/* the pad holds rax meanwhile */
	RESTORE_FLAGS 8
	movq	(%rsp), %rax
	leaq	24(%rsp), %rsp		/* the pad, the flags, the id */
	.cfi_adjust_cfa_offset -24
.else
	addq	$8, %rsp		/* drop the id */
	.cfi_adjust_cfa_offset -8
.endif
	ret				/* into the function body */
	.cfi_endproc
	.size	\name, .-\name
.endm

	/* function_graph: the handler may replace the return address */
	ENTRY_TRAMP utrace_graph_tramp, utrace_graph_entry, leaq, 0
	ENTRY_TRAMP utrace_graph_tramp_keepflags, utrace_graph_entry_keepflags, leaq, 1
	/* function: the handler records the return address (parent ip) */
	ENTRY_TRAMP utrace_func_tramp, utrace_func_entry, movq, 0
	ENTRY_TRAMP utrace_func_tramp_keepflags, utrace_func_entry, movq, 1
	/* the stack tracer on (runtime/stack_tracer.c): the stack checked,
	 * then the tracer's handler; as function_graph's, the slot's address,
	 * and %rbp at the entry as a fourth argument */
	ENTRY_TRAMP utrace_stack_tramp, utrace_stack_entry, leaq, 0, 1
	ENTRY_TRAMP utrace_stack_tramp_keepflags, utrace_stack_entry_keepflags, leaq, 1, 1

/*
 * The graph tracer replaced the caller's return address with one of
 * these: utrace_graph_return_keepflags for a function patched at its
 * entry (utrace_graph_entry_keepflags hooked it), which may return a
 * condition in the flags (code outside the C convention), the plain one
 * for a compiler site's, whose flags are dead after the return.  The
 * function has returned: rax/rdx (and xmm0/xmm1, st0/st1) hold its return
 * value and must survive; rsp is back to 0 mod 16.  utrace_graph_exit
 * takes the address of the slot the return address was in (rsp - 8 at
 * this point, which identifies the frame) and rax (funcgraph-retval), and
 * gives back the real return address, which goes back into that slot,
 * where our final `jmp` reads it.  Every scratch register is kept, not only the return value's:
 * the caller of a function patched at its entry may have been compiled
 * with -fipa-ra, which keeps values across a call in the registers the
 * callee does not write (runtime/func_patch.c).  Nine pushes after the
 * slot's 8 bytes (keep: and after the flags and a pad) keep the `call`
 * 16-byte aligned; after RESTORE_FLAGS only mov, lea and jmp, which
 * change no flag.
 *
 * No CFI can describe this frame (the real return address lives in the
 * shadow stack), which is why unwinders are kept away from it: the
 * runtime restores the real addresses before an exception unwinds
 * (see runtime/unwind.c).  Whatever recognises a hooked return address
 * must know both (rt_is_graph_return, runtime/rt.h).
 */
.macro GRAPH_RETURN name, keep
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 4
\name:
	leaq	-8(%rsp), %rsp		/* the slot: the real return address goes back there */
.if \keep
	pushfq
	leaq	-8(%rsp), %rsp		/* the pad */
	cld
.endif
	pushq	%rax
	pushq	%rdx
	pushq	%rcx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	leaq	(72 + 16 * \keep)(%rsp), %rdi	/* slot address: rsp before the pushes, minus 8 */
	movq	%rax, %rsi		/* the return value */
	call	utrace_graph_exit
	movq	%rax, (72 + 16 * \keep)(%rsp)
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rcx
	popq	%rdx
	popq	%rax
.if \keep
	movq	%rax, (%rsp)		/* the pad holds rax meanwhile */
	RESTORE_FLAGS 8
	movq	(%rsp), %rax
.endif
	/* jmp, not ret: a ret would pop a second return-stack-buffer entry
	 * for this one return (the function's ret popped the first) and
	 * every return above would then be mispredicted.  The target is
	 * read below rsp, in the red zone, which signal frames skip. */
	leaq	(8 + 16 * \keep)(%rsp), %rsp	/* (the pad, the flags,) the slot */
	jmp	*-8(%rsp)
	.size	\name, .-\name
.endm

	GRAPH_RETURN utrace_graph_return, 0
	GRAPH_RETURN utrace_graph_return_keepflags, 1

/*
 * long utrace_call_preserving_fpu(long (*fn)(void *), void *arg)
 *
 * Calls fn(arg) with the whole extended state (x87, SSE, AVX, ...) saved
 * around it, for slow paths taken inside a trampoline that must call libc
 * (whose string functions use vector registers) while the traced
 * function's vector arguments or return value are live.  The xsave area
 * size comes from CPUID leaf 0xd (utrace_xsave_size, set at start-up).
 */
	.globl	utrace_call_preserving_fpu
	.hidden	utrace_call_preserving_fpu
	.type	utrace_call_preserving_fpu, @function
	.p2align 4
utrace_call_preserving_fpu:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%rbx
	pushq	%r12
	movq	%rdi, %rbx
	movq	%rsi, %r12
	movl	utrace_xsave_size(%rip), %ecx
	subq	%rcx, %rsp
	andq	$-64, %rsp
	/* xsave requires a zeroed header (bytes 512..575) */
	xorl	%eax, %eax
	movq	%rax, 512(%rsp)
	movq	%rax, 520(%rsp)
	movq	%rax, 528(%rsp)
	movq	%rax, 536(%rsp)
	movq	%rax, 544(%rsp)
	movq	%rax, 552(%rsp)
	movq	%rax, 560(%rsp)
	movq	%rax, 568(%rsp)
	movl	$-1, %eax
	movl	$-1, %edx
	xsave64	(%rsp)
	movq	%r12, %rdi
	call	*%rbx
	movq	%rax, %rbx
	movl	$-1, %eax
	movl	$-1, %edx
	xrstor64 (%rsp)
	movq	%rbx, %rax
	leaq	-16(%rbp), %rsp
	popq	%r12
	popq	%rbx
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	utrace_call_preserving_fpu, .-utrace_call_preserving_fpu

	.section .note.GNU-stack,"",@progbits
