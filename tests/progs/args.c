/* SPDX-License-Identifier: MIT */
/*
 * args.c - the x86-64 calling convention through the tracer's hooks: the
 * entry hook runs before the callee reads its arguments and the return
 * hook after it set its results, so every argument and result register
 * must come through unchanged.
 *
 *  - 8 integer arguments (6 in registers, 2 on the stack), the static
 *    chain-free case of "the stack layout the callee sees is untouched";
 *  - 10 double arguments (8 in xmm0-7, 2 on the stack), a float result;
 *  - a varargs function (%al = number of vector registers used);
 *  - results in rax:rdx (16-byte struct, __int128), in xmm0:xmm1 (struct
 *    of two doubles), in st(0) (long double), in memory (large struct, the
 *    hidden pointer in %rdi);
 *  - a struct passed by value on the stack.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "progs.h"

struct pair {
	long a, b;
};
struct dpair {
	double x, y;
};
struct big {
	long v[8];
};

TRACED long int8(long a, long b, long c, long d, long e, long f, long g, long h)
{
	BARRIER();
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

TRACED double dbl10(double a, double b, double c, double d, double e, double f, double g,
		    double h, double i, double j)
{
	BARRIER();
	return a + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8 + i * 9 + j * 10;
}

TRACED float mixed(int a, float b, long c, double d, char e, float f)
{
	BARRIER();
	return (float)(a + b + c + d + e + f);
}

TRACED double vsum(int n, ...)
{
	va_list ap;
	double s = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, double);
	va_end(ap);
	BARRIER();
	return s;
}

TRACED struct pair ret_pair(long a)
{
	struct pair p = {a, -a * 3};

	BARRIER();
	return p;
}

TRACED __int128 ret_i128(long a)
{
	BARRIER();
	return ((__int128)a << 64) | (unsigned long)(a * 5);
}

TRACED struct dpair ret_dpair(double x)
{
	struct dpair p = {x / 2, x * 4};

	BARRIER();
	return p;
}

TRACED long double ret_ld(long double x)
{
	BARRIER();
	return x * 3 + 0.25L;
}

TRACED struct big ret_big(long base)
{
	struct big b;

	for (int i = 0; i < 8; i++)
		b.v[i] = base + i * i;
	BARRIER();
	return b;
}

TRACED long by_value(struct big b, long k)
{
	long s = 0;

	for (int i = 0; i < 8; i++)
		s += b.v[i] * k;
	BARRIER();
	return s;
}

int main(void)
{
	struct pair p;
	struct dpair dp;
	struct big b;
	__int128 w;

	printf("int8 = %ld\n", int8(1, 2, 3, 4, 5, 6, 7, opaque(8)));
	printf("dbl10 = %.3f\n", dbl10(0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, opaque(9) + 0.5));
	printf("mixed = %.3f\n", mixed(1, 2.25f, 3, 4.5, 5, opaque(6) + 0.125f));
	printf("vsum = %.3f\n", vsum(5, 1.0, 2.0, 3.5, 4.0, (double)opaque(5)));
	p = ret_pair(opaque(7));
	printf("ret_pair = %ld %ld\n", p.a, p.b);
	w = ret_i128(opaque(9));
	printf("ret_i128 = %ld %lu\n", (long)(w >> 64), (unsigned long)w);
	dp = ret_dpair(opaque(3) + 0.5);
	printf("ret_dpair = %.3f %.3f\n", dp.x, dp.y);
	printf("ret_ld = %.3Lf\n", ret_ld((long double)opaque(2) + 0.5L));
	b = ret_big(opaque(100));
	printf("ret_big = %ld %ld %ld\n", b.v[0], b.v[3], b.v[7]);
	printf("by_value = %ld\n", by_value(b, opaque(2)));
	return 0;
}
