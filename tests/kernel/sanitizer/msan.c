/* SPDX-License-Identifier: MIT */
/*
 * msan.c - a planted read of uninitialised memory for
 * tests/kernel/sanitizer.sh (clang -fsanitize=memory): check() branches
 * on an int malloc left unset; MSan reports it and the program exits 1.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int check(const int *p)
{
	if (*p)
		return 1;
	return 0;
}

int main(void)
{
	int *p = malloc(sizeof(*p));

	printf("%d\n", check(p));
	free(p);
	return 0;
}
