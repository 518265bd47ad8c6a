/* SPDX-License-Identifier: MIT */
/*
 * bt_dwarf.c - the program of tests/e2e/t/bt_dwarf.sh: f() takes
 * parameters of several widths and signs (char 'x', a pointer, a struct
 * pointer, short -5, unsigned char 200), each in its argument register,
 * for utrace bt's args->NAME through DWARF.
 */
#include <stdio.h>

struct Foo {
	int a;
	char b[10];
};

__attribute__((noinline)) int f(char c, int *n, struct Foo *foo1, short s, unsigned char u)
{
	return c + *n + foo1->a + s + u;
}

int main(int argc, char **argv)
{
	int n = 13;
	struct Foo x = {123, "hello"};

	(void)argv;
	printf("%d\n", f('x', &n, &x, -5, 200) + argc);
	return 0;
}
