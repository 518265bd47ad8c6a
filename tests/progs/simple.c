/* SPDX-License-Identifier: MIT */
/*
 * simple.c - the smallest call graph with an exact golden output:
 *
 *   main() {
 *     a() {
 *       b();
 *       c();
 *     }
 *   }
 *
 * Also the target of the filter tests (-l, -n, -g, --max-graph-depth,
 * -p function) in tests/e2e/run.sh.
 */
#include <stdio.h>

#include "progs.h"

TRACED int b(int x)
{
	BARRIER();
	return x + 1;
}

TRACED int c(int x)
{
	BARRIER();
	return x * 2;
}

TRACED int a(int x)
{
	int r = b(x);

	r += c(x);
	BARRIER();
	return r;
}

int main(void)
{
	int r = a(opaque(3));

	printf("simple: a(3) = %d\n", r);
	return 0;
}
