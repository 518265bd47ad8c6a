/* SPDX-License-Identifier: MIT */
/*
 * libcall_leaf.c - the shared library of bench/libcall.sh: one function
 * that does next to nothing, so that a call to it through the PLT costs
 * what the hook costs.
 */
int lc_leaf(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}
