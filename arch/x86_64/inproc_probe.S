/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe.S - the in-process probes' entry points (runtime/inproc_probes.c).
 *
 * Both build a struct utrace_fetch_regs (common/fetch_prog.h: 21 words in
 * the kernel's regoffset_table order) on the stack, as a trap would have
 * saved them, and call C with it.  Flags are saved for $flags but not
 * restored: they are dead at a function's entry and at its return (the
 * ABI keeps none across a call).  Vector registers are not touched: the
 * runtime is built with -mgeneral-regs-only and its slow paths go through
 * utrace_call_preserving_fpu.
 *
 * utrace_inproc_probe_site_tramp: a call site patched to `call slot`, the slot
 * doing `push $k; jmp *this`.  On entry:
 *      rsp+16  the function's return address
 *      rsp+8   return address into the function (site + 5)
 *      rsp+0   k, the probe site's index
 * rsp = 8 mod 16 (the function is entered at 8, the call and the push).
 * rt_inproc_probe_site_hit(regs, k) returns where to go on: 0 into the function,
 * else an address that expects the site's call, reached with `ret` over
 * k's word (today always 0: the tracer's entry is called from C).
 *
 * The lean way (issue 25): a site whose probes read only what
 * rt_ipp_site_lean[k] vouches for (inproc_probes.c, set when the table
 * is published: argument registers, rax, r10, r11, sp, ip, memory through
 * them, immediates, symbols) saves only the caller-saved registers, which
 * are all the C code may clobber; the callee-saved ones stay in their
 * registers (the C code keeps them), the flags are dead at a function's
 * entry.  Its frame has struct utrace_fetch_regs' layout with only those
 * words filled.  rt_inproc_probe_site_lean(regs, k) takes the common hit
 * (returns 0) or hands it over (1): then the rest of the frame is filled
 * (the callee-saved registers still hold the program's values; the flags
 * are those the C code left, DF clear as at the call) and the full way
 * runs.  The test of the byte is a jrcxz, so that a site taking the full
 * way saves the flags it was entered with.
 *
 * A site with a stub (rt_ipp_site_jit[k], inproc_probe_jit.c: the plain
 * hit compiled) goes there first, with rax and rcx saved in the frame; the
 * stub returns into the function itself, or jumps back to
 * utrace_inproc_probe_site_nojit with every register as it came.  No flag
 * is written before that jump either.
 *
 * utrace_inproc_retprobe_tramp: a return address that a return probe replaced.
 * On entry rsp = the slot + 8 (0 mod 16), rax/rdx hold the return value.
 * rt_inproc_retprobe_hit(regs) returns the real return address.  The
 * flags come back as the function left them (popfq).
 */
	.text

#define R_R15	0
#define R_R14	8
#define R_R13	16
#define R_R12	24
#define R_R11	32
#define R_R10	40
#define R_R9	48
#define R_R8	56
#define R_BX	64
#define R_CX	72
#define R_DX	80
#define R_SI	88
#define R_DI	96
#define R_BP	104
#define R_AX	112
#define R_ORIG	120
#define R_IP	128
#define R_CS	136
#define R_FLAGS	144
#define R_SP	152
#define R_SS	160
#define R_SIZE	168

/* the caller-saved ones but rax and rcx (saved first by the site's way) */
.macro SAVE_SCRATCH
	movq	%r11, R_R11(%rsp)
	movq	%r10, R_R10(%rsp)
	movq	%r9, R_R9(%rsp)
	movq	%r8, R_R8(%rsp)
	movq	%rdx, R_DX(%rsp)
	movq	%rsi, R_SI(%rsp)
	movq	%rdi, R_DI(%rsp)
.endm

/* the callee-saved ones, the constants and the flags */
.macro SAVE_KEPT
	movq	%r15, R_R15(%rsp)
	movq	%r14, R_R14(%rsp)
	movq	%r13, R_R13(%rsp)
	movq	%r12, R_R12(%rsp)
	movq	%rbx, R_BX(%rsp)
	movq	%rbp, R_BP(%rsp)
	movq	$0, R_ORIG(%rsp)
	movq	$0x33, R_CS(%rsp)
	movq	$0x2b, R_SS(%rsp)
	pushfq
	popq	R_FLAGS(%rsp)
.endm

/* every register and the flags as they came (lea: no flag written) */
.macro SAVE_REGS
	leaq	-R_SIZE(%rsp), %rsp
	movq	%rax, R_AX(%rsp)
	movq	%rcx, R_CX(%rsp)
	SAVE_SCRATCH
	SAVE_KEPT
.endm

/* the caller-saved ones: the C code keeps the others */
.macro RESTORE_REGS
	movq	R_R11(%rsp), %r11
	movq	R_R10(%rsp), %r10
	movq	R_R9(%rsp), %r9
	movq	R_R8(%rsp), %r8
	movq	R_CX(%rsp), %rcx
	movq	R_DX(%rsp), %rdx
	movq	R_SI(%rsp), %rsi
	movq	R_DI(%rsp), %rdi
	movq	R_AX(%rsp), %rax
.endm

/* The frame made, rax and rcx saved, k read at \k(%rsp): to the probe's
 * stub (rt_ipp_site_jit[k], inproc_probe_jit.c) if it has one, which
 * jumps back to \nojit, defined here, when it does not take the hit. */
.macro TO_STUB k, nojit
	subq	$R_SIZE, %rsp
	movq	%rax, R_AX(%rsp)
	movq	%rcx, R_CX(%rsp)
	movl	\k(%rsp), %eax
	leaq	rt_ipp_site_jit(%rip), %rcx
	movq	(%rcx,%rax,8), %rcx
	jrcxz	\nojit
	jmp	*%rcx
	.globl	\nojit
	.hidden	\nojit
\nojit:
.endm

	.globl	utrace_inproc_probe_site_tramp
	.hidden	utrace_inproc_probe_site_tramp
	.type	utrace_inproc_probe_site_tramp, @function
	.p2align 4
utrace_inproc_probe_site_tramp:
	TO_STUB	R_SIZE, utrace_inproc_probe_site_nojit	/* k: below IPP_SITES_MAX */
	movl	R_SIZE(%rsp), %eax
	leaq	rt_ipp_site_lean(%rip), %rcx
	movzbl	(%rcx,%rax), %ecx	/* no flag written before SAVE_KEPT's pushfq */
	jrcxz	2f
	SAVE_SCRATCH
	leaq	R_SIZE+16(%rsp), %rax	/* the function's rsp at its site */
	movq	%rax, R_SP(%rsp)
	movq	R_SIZE+8(%rsp), %rax
	leaq	-5(%rax), %rax		/* the site */
	movq	%rax, R_IP(%rsp)
	movq	%rsp, %rdi
	movl	R_SIZE(%rsp), %esi
	call	rt_inproc_probe_site_lean
	testl	%eax, %eax
	jz	1f
	jmp	3f			/* handed over: the rest of the frame */
2:	SAVE_SCRATCH
	leaq	R_SIZE+16(%rsp), %rax
	movq	%rax, R_SP(%rsp)
	movq	R_SIZE+8(%rsp), %rax
	leaq	-5(%rax), %rax
	movq	%rax, R_IP(%rsp)
3:	SAVE_KEPT
	movq	%rsp, %rdi
	movl	R_SIZE(%rsp), %esi
	call	rt_inproc_probe_site_hit
	testq	%rax, %rax
	jz	1f
	movq	%rax, R_SIZE(%rsp)	/* go on through the site's own stub */
	RESTORE_REGS
	addq	$R_SIZE, %rsp
	ret
1:	RESTORE_REGS
	addq	$R_SIZE+8, %rsp
	ret
	.size	utrace_inproc_probe_site_tramp, .-utrace_inproc_probe_site_tramp

	.globl	utrace_inproc_retprobe_tramp
	.hidden	utrace_inproc_retprobe_tramp
	.type	utrace_inproc_retprobe_tramp, @function
	.p2align 4
utrace_inproc_retprobe_tramp:
	/* lea, not sub, until the flags are saved and after they are back:
	 * hand-written code may return a condition in them (tests/progs/
	 * probe_jit.c's flagret), which the kernel's uretprobe keeps too */
	leaq	-8(%rsp), %rsp		/* the real return address goes here */
	SAVE_REGS
	cld				/* as C wants it; popfq puts DF back */
	leaq	R_SIZE+8(%rsp), %rax
	movq	%rax, R_SP(%rsp)
	movq	%rsp, %rdi
	call	rt_inproc_retprobe_hit
	movq	%rax, R_SIZE(%rsp)
	pushq	R_FLAGS(%rsp)		/* (its address taken before the push) */
	popfq
	RESTORE_REGS
	leaq	R_SIZE(%rsp), %rsp
	ret
	.size	utrace_inproc_retprobe_tramp, .-utrace_inproc_retprobe_tramp

/*
 * utrace_inproc_probe_detour_tramp: a jump-optimised probe (runtime/inproc_probes.c).
 * The probed instruction became `jmp detour`; the detour moved rsp below
 * the red zone (the 128 bytes under rsp that the interrupted code may
 * use), pushed its index k and called here:
 *      rsp+16  (128 bytes of red zone, untouched), then the program's rsp
 *      rsp+8   k
 *      rsp+0   return into the detour
 * Mid-function nothing is dead: every register and the flags are saved
 * and restored, the stack is aligned for the call whatever it was, and
 * `ret $8` drops k on the way back; the detour then puts rsp back, runs
 * the displaced instructions and jumps back after them.
 *
 * The flags' word above the frame is first written in lahf's form (ah:
 * SF ZF AF PF CF, al: OF by seto; the others, DF among them, no
 * instruction here changes): pushfq and popfq cost a probe stub's hit a
 * fifth of its time, `addb $0x7f, %al; sahf` puts the six back for a
 * few cycles (0x7f + 1 overflows, 0x7f + 0 does not).  A probe with a
 * stub (inproc_probe_jit.c) goes there with the word so and rax, rcx
 * saved; the stub returns so (its own sahf, `ret $8`), or jumps back to
 * utrace_inproc_probe_detour_nojit with every register as it came,
 * which makes the word pushfq's (the C way reads it as $flags), clears
 * DF for C (mid-function it may be set: a probe between std and cld; C
 * code's rep stos would run backwards) and returns with popfq.
 */
	.globl	utrace_inproc_probe_detour_tramp
	.hidden	utrace_inproc_probe_detour_tramp
	.type	utrace_inproc_probe_detour_tramp, @function
	.p2align 4
utrace_inproc_probe_detour_tramp:
	leaq	-(R_SIZE+8)(%rsp), %rsp	/* the frame, the flags' word: no flag written */
	movq	%rax, R_AX(%rsp)
	seto	%al
	lahf
	movq	%rax, R_SIZE(%rsp)	/* the flags, lahf's form */
	movq	%rcx, R_CX(%rsp)
	movl	R_SIZE+16(%rsp), %eax	/* k */
	leaq	rt_ipp_site_jit(%rip), %rcx
	movq	(%rcx,%rax,8), %rcx
	jrcxz	utrace_inproc_probe_detour_nojit
	jmp	*%rcx
	.globl	utrace_inproc_probe_detour_nojit
	.hidden	utrace_inproc_probe_detour_nojit
utrace_inproc_probe_detour_nojit:
	movq	R_SIZE(%rsp), %rax
	addb	$0x7f, %al		/* OF */
	sahf				/* SF ZF AF PF CF: the program's flags again */
	pushfq
	popq	R_SIZE(%rsp)		/* the word as pushfq makes it */
	cld				/* for C (the popfq below puts DF back) */
	SAVE_SCRATCH
	SAVE_KEPT
	movq	R_SIZE(%rsp), %rax
	movq	%rax, R_FLAGS(%rsp)	/* the program's flags, pushed first */
	leaq	R_SIZE+8+16+128(%rsp), %rax
	movq	%rax, R_SP(%rsp)
	movq	%rsp, %rbx
	andq	$-16, %rsp
	movq	%rbx, %rdi
	movl	R_SIZE+16(%rbx), %esi
	call	rt_inproc_probe_detour_hit
	movq	%rbx, %rsp
	RESTORE_REGS
	movq	R_BX(%rsp), %rbx
	addq	$R_SIZE, %rsp
	popfq
	ret	$8
	.size	utrace_inproc_probe_detour_tramp, .-utrace_inproc_probe_detour_tramp

/*
 * int utrace_fetch_load(uint64_t addr, unsigned size, uint64_t *out):
 * the one routine that reads memory for fetch-args.  A fault on one of
 * the loads between utrace_safe_load_begin and _end is caught by the
 * runtime's SIGSEGV/SIGBUS handler, which resumes at the fixup: -1.
 * The kernel's exception tables do the same for copy_from_user.
 */
	.globl	utrace_fetch_load
	.hidden	utrace_fetch_load
	.type	utrace_fetch_load, @function
	.p2align 4
utrace_fetch_load:
	cmpl	$8, %esi
	je	8f
	cmpl	$4, %esi
	je	4f
	cmpl	$2, %esi
	je	2f
	.globl	utrace_safe_load_begin
	.hidden	utrace_safe_load_begin
utrace_safe_load_begin:
	movzbl	(%rdi), %eax
	jmp	9f
2:	movzwl	(%rdi), %eax
	jmp	9f
4:	movl	(%rdi), %eax
	jmp	9f
8:	movq	(%rdi), %rax
	.globl	utrace_safe_load_end
	.hidden	utrace_safe_load_end
utrace_safe_load_end:
9:	movq	%rax, (%rdx)
	xorl	%eax, %eax
	ret
	.globl	utrace_safe_load_fixup
	.hidden	utrace_safe_load_fixup
utrace_safe_load_fixup:
	movl	$-1, %eax
	ret
	.size	utrace_fetch_load, .-utrace_fetch_load

/*
 * The stubs' memory reads (inproc_probe_jit.c): the address in rax, the
 * value back in rax (zero-extended), nothing else touched, not even the
 * stack's alignment assumed.  A fault on the one load of each is resumed
 * at utrace_jit_load_fixup (fetch_fault.c), which gives 0, as a fault in
 * utrace_fetch_load gives the C way's copies.
 */
	.globl	utrace_jit_load1, utrace_jit_load2, utrace_jit_load4, utrace_jit_load8
	.hidden	utrace_jit_load1, utrace_jit_load2, utrace_jit_load4, utrace_jit_load8
	.globl	utrace_jit_load_begin, utrace_jit_load_end, utrace_jit_load_fixup
	.hidden	utrace_jit_load_begin, utrace_jit_load_end, utrace_jit_load_fixup
	.type	utrace_jit_load1, @function
	.p2align 4
utrace_jit_load_begin:
utrace_jit_load1:
	movzbl	(%rax), %eax
	ret
utrace_jit_load2:
	movzwl	(%rax), %eax
	ret
utrace_jit_load4:
	movl	(%rax), %eax
	ret
utrace_jit_load8:
	movq	(%rax), %rax
	ret
utrace_jit_load_end:
utrace_jit_load_fixup:
	xorl	%eax, %eax
	ret
	.size	utrace_jit_load1, .-utrace_jit_load1

	.section .note.GNU-stack,"",@progbits
