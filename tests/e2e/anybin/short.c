/* SPDX-License-Identifier: MIT */
/*
 * short.c - functions whose entries a 5-byte jmp cannot take but a 1-byte
 * int3 can (lib/probes/func_patch.c fp_int3), called from C.  Built
 * without utrace cflags by every *-patch configuration of
 * tests/e2e/t/anybin-short.sh: `utrace list -f --why` says int3 and why, the
 * traced run prints what the untraced one does, and the graph (golden
 * anybin-short) has every call, balanced.
 *
 *   nothing    `ret`: 1 byte
 *   zero       naked `xorl %eax,%eax; ret`: 3 bytes
 *   ident      `movl %edi,%eax; ret`: 3 bytes
 *   count_to   a loop jumps back to entry + 2
 *   spin_entry a loop jumps back to the entry itself: refused (a trap
 *              there would count calls that never happened)
 */
#include <stdio.h>

void nothing(void);
int ident(int);
int count_to(int);
int spin_entry(int);

__asm__(".text\n"
	".globl nothing\n.type nothing, @function\n"
	"nothing:\n\tret\n"
	".size nothing, .-nothing\n"
	".globl ident\n.type ident, @function\n"
	"ident:\n\tmovl %edi, %eax\n\tret\n"
	".size ident, .-ident\n"
	".globl count_to\n.type count_to, @function\n"
	"count_to:\n\txorl %eax, %eax\n"
	"1:\tincl %eax\n\tcmpl %edi, %eax\n\tjl 1b\n\tret\n"
	".size count_to, .-count_to\n"
	".globl spin_entry\n.type spin_entry, @function\n"
	"spin_entry:\n\tsubl $1, %edi\n\tjg spin_entry\n\tmovl %edi, %eax\n\tret\n"
	".size spin_entry, .-spin_entry\n");

__attribute__((naked, noinline)) int zero(void)
{
	__asm__("xorl %eax, %eax\n\tret\n");
}

static volatile int sink;

__attribute__((noinline)) int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++) {
		s += ident(i) + zero();
		nothing();
	}
	sink = s;
	return s + count_to(n) + spin_entry(n);
}

int main(void)
{
	int r = work(3);

	printf("%d\n", r);
	return r == 6 ? 0 : 1;
}
