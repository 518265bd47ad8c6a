/* SPDX-License-Identifier: MIT */
/*
 * tailcall.c - tail calls (at -O2 each `return f(x)` below is a jmp, so
 * the callee is entered with its caller's return address, which the
 * function_graph tracer has already replaced):
 *
 *  - a chain tc1 -> tc2 -> tc3 -> tc_leaf, all jumps;
 *  - mutual recursion is_even/is_odd 1000 deep, all jumps;
 *  - a tail call through a function pointer;
 *  - a tail call into libc (strtol, untraced).
 *
 * Expectation: the graph nests as the source reads (tc1 { tc2 { tc3 {
 * tc_leaf(); } } }), every entry has an exit, and the results are right.
 */
#include <stdio.h>
#include <stdlib.h>

#include "progs.h"

TRACED int tc_leaf(int x)
{
	BARRIER();
	return x + 1;
}

TRACED int tc3(int x)
{
	return tc_leaf(x * 2);
}

TRACED int tc2(int x)
{
	return tc3(x + 1);
}

TRACED int tc1(int x)
{
	return tc2(x - 1);
}

TRACED int is_odd(int n);

TRACED int is_even(int n)
{
	if (n == 0)
		return 1;
	return is_odd(n - 1);
}

TRACED int is_odd(int n)
{
	if (n == 0)
		return 0;
	return is_even(n - 1);
}

TRACED int target(int x)
{
	BARRIER();
	return x * 3;
}

int (*volatile fptr)(int) = target;

TRACED int via_pointer(int x)
{
	return fptr(x + 2);
}

TRACED long to_libc(const char *s)
{
	return strtol(s, NULL, 10);
}

int main(void)
{
	printf("tc1(5) = %d\n", tc1(opaque(5)));
	printf("is_even(1000) = %d\n", is_even(opaque(1000)));
	printf("is_odd(777) = %d\n", is_odd(opaque(777)));
	printf("via_pointer(4) = %d\n", via_pointer(opaque(4)));
	printf("to_libc(\"1234\") = %ld\n", to_libc("1234"));
	printf("tc1(10) = %d\n", tc1(opaque(10)));
	return 0;
}
