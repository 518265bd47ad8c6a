/* SPDX-License-Identifier: MIT */
/*
 * probe_jit.c - functions whose entry probes are compiled to stubs
 * (runtime/inproc_probe_jit.c): each argument register and rax (a
 * variadic function's count of vector registers) must reach the function
 * as the caller left them, so the program's results (printed) are the
 * same traced; the probes read arguments of every size, fields of a
 * struct through a pointer (of each load size, a bit-field, a signed
 * one), a pointer that faults and an offset past 32 bits, and the program
 * prints what each should read; flagsy's probe mid-function sits where
 * the flags are live, dfy's where DF is set, flagret returns a condition
 * in them.
 */
#include <stdarg.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "progs.h"

struct rec {
	uint8_t a;
	uint16_t b;
	uint32_t c;
	uint64_t d;
	unsigned lo : 3, mid : 7;
	int neg;
};

TRACED long six(long a, long b, long c, long d, long e, long f)
{
	BARRIER();
	return a * 1 + b * 3 + c * 5 + d * 7 + e * 11 + f * 13;
}

/* n pairs of a long and a double: the doubles come in vector registers,
 * which the prologue saves only if al (their count) says so */
TRACED double vmix(int n, ...)
{
	double s = 0;
	va_list ap;

	va_start(ap, n);
	while (n-- > 0) {
		s += (double)va_arg(ap, long);
		s *= va_arg(ap, double);
	}
	va_end(ap);
	return s;
}

TRACED long fields(const struct rec *r, long k)
{
	BARRIER();
	return k + (r == (const struct rec *)16 ? 0 : r->a);
}

/* The flags a probe mid-function finds live: the add sets all six
 * arithmetic ones, the 5-byte nop is the probe's place (its jmp's), seto
 * and lahf read them after it: the detour and its stub must hand them
 * over as they were.  OF in bit 0, SF ZF AF PF CF in bits 15-8. */
TRACED unsigned long flagsy(long a, long b)
{
	unsigned long f;

	__asm__ volatile("addq %2, %1\n\t"
			 ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t" /* nopl 0(%%rax,%%rax,1) */
			 "seto %%al\n\t"
			 "lahf"
			 : "=&a"(f), "+r"(a)
			 : "r"(b)
			 : "cc");
	return f & 0xd501;
}

/* A probe mid-function where DF is set (between std and cld, as a
 * backward string copy is): the handler's C code must not run so (its
 * rep stos would write backwards), and the program must find DF still
 * set after it.  Returns a + b and DF (0x400). */
TRACED long dfy(long a, long b)
{
	unsigned long f;

	__asm__ volatile("std\n\t"
			 ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t" /* the probe's place */
			 "lea -128(%%rsp), %%rsp\n\t"		/* over the red zone */
			 "pushfq\n\t"
			 "popq %0\n\t"
			 "lea 128(%%rsp), %%rsp\n\t"
			 "cld"
			 : "=r"(f)
			 :
			 : "cc", "memory");
	return a + b + (long)(f & 0x400);
}

/* A function written to return a condition in the flags, as hand-written
 * code may to its own callers (flagret: cmp), and its caller, which reads
 * them after the call: a return probe's way back must hand them over as
 * the function left them.  flagcall returns them as flagsy does. */
__asm__(".text\n"
	".globl flagret\n"
	".type flagret, @function\n"
	"flagret:\n\t"
	"movq %rdi, %rax\n\t"
	"cmpq %rsi, %rdi\n\t"
	"ret\n"
	".size flagret, .-flagret\n"
	".globl flagcall\n"
	".type flagcall, @function\n"
	"flagcall:\n\t"
	"subq $8, %rsp\n\t" /* the stack aligned at the call, as C's */
	"call flagret\n\t"
	"seto %al\n\t"
	"lahf\n\t"
	"movzwl %ax, %eax\n\t"
	"andl $0xd501, %eax\n\t"
	"addq $8, %rsp\n\t"
	"ret\n"
	".size flagcall, .-flagcall\n");
unsigned long flagcall(long a, long b);

int main(void)
{
	static const long fa[] = {LONG_MAX, -1, 1, 0, LONG_MIN, 0x7f};
	static const long fb[] = {1, 1, 2, -2, -1, 0x11};

	struct rec r = {0, 0, 0, 0, 0, 0, 0};

	for (int i = 0; i < 3; i++) {
		long b = (long)opaque(i + 1) << 33;

		printf("six %ld\n", six(b + 1, b + 2, b + 3, b + 4, b + 5, b - 6));
		printf("want a=%ld b=%u c=%u d=%u e=%#lx f=%u k=7\n", b + 1, (unsigned)(b + 2),
		       (unsigned)(uint16_t)(b + 3), (unsigned)(uint8_t)(b + 4), (unsigned long)(b + 5),
		       (unsigned)(uint8_t)(b - 6));
		printf("vmix %.2f\n", vmix(opaque(3), 1L, 0.5 * i, 2L, 1.25, (long)i, 2.0));
		r = (struct rec){(uint8_t)(0xf0 + i), (uint16_t)(0xabc0 + i), 0x12345678u + (unsigned)i,
				 0x1122334455667788ull + (unsigned)i, (unsigned)(5 + i) & 7, 99u + (unsigned)i,
				 -1000 - i};
		printf("fields %ld\n", fields(opaque(i) == 1 ? (const struct rec *)16 : &r, i));
		if (i == 1)
			printf("want a=0 b=0 c=0 d=0 lo=0 mid=0 neg=0 far=0 k=1\n");
		else
			printf("want a=%u b=%u c=%u d=%llu lo=%u mid=%u neg=%d far=0 k=%d\n", r.a, r.b, r.c,
			       (unsigned long long)r.d, r.lo, r.mid, r.neg, i);
	}
	for (int i = 0; i < 6; i++)
		printf("flagsy %#lx\n", flagsy(fa[opaque(i)], fb[opaque(i)]));
	for (int i = 0; i < 3; i++)
		printf("dfy %ld\n", dfy(opaque(i), 10));
	for (int i = 0; i < 6; i++)
		printf("flagcall %#lx\n", flagcall(fa[opaque(i)], fb[opaque(i)]));
	return 0;
}
