/* SPDX-License-Identifier: MIT */
/*
 * bt.c - backtrace() from a function called from a detour slot: built
 * without utrace cflags at -O2, mid() starts with `sub $8,%rsp; call
 * leaf`, which its patched entry displaces, so leaf's return address is
 * in mid's slot.  The frame count must be the untraced one: the slot's
 * FDE (runtime/func_patch.c) lets the unwinder step out of it.
 */
#include <execinfo.h>
#include <stdio.h>
__attribute__((noinline)) int leaf(int x)
{
	void *b[64];
	int n = backtrace(b, 64);
	__asm__ volatile("" ::: "memory");
	return n + x;
}
__attribute__((noinline)) int mid(int x) { return leaf(x) + 1; }
__attribute__((noinline)) int top(int x) { return mid(x) * 2; }
int main(void)
{
	printf("frames %d\n", top(0) / 2 - 1);
	return 0;
}
