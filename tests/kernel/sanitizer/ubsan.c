/* SPDX-License-Identifier: MIT */
/*
 * ubsan.c - planted undefined behaviour for tests/kernel/sanitizer.sh,
 * each in a function of its own: a signed overflow (add_one) and a shift
 * past the type's width (shift_by).  UBSan reports both and the program
 * goes on (exit 0), as it does by default.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int add_one(int x)
{
	return x + 1;
}

__attribute__((noinline)) int shift_by(int x, int n)
{
	return x << n;
}

int main(int argc, char **argv)
{
	int big = atoi("2147483647");

	(void)argv;
	printf("%d\n", add_one(big));
	printf("%d\n", shift_by(1, 40 + argc));
	return 0;
}
