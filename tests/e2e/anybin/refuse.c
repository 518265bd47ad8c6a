/* SPDX-License-Identifier: MIT */
/*
 * refuse.c - functions whose entries utrace must not patch with a jmp,
 * one per reason (lib/probes/func_patch.h), and one it must patch.  Built
 * without utrace cflags by tests/e2e/t/anybin-why.sh, which checks `utrace list
 * -f --why` names each with its reason, and that a traced run is right.
 * The first three take an int3 instead; spin_entry, whose loop jumps back
 * to its very entry, takes neither.
 */
#include <stdio.h>

int tiny(void);	    /* 3 bytes: shorter than a jmp */
int loop_head(int); /* a loop jumps back to byte 2 */
int second(int);    /* a branch from another function lands in byte 1 */
int spin_entry(int); /* a loop jumps back to byte 0 */

__asm__(".text\n"
	".globl tiny\n.type tiny, @function\n"
	"tiny:\n\txorl %eax, %eax\n\tret\n"
	".size tiny, .-tiny\n"
	".globl loop_head\n.type loop_head, @function\n"
	"loop_head:\n\txorl %eax, %eax\n"
	"1:\tincl %eax\n\tcmpl %edi, %eax\n\tjl 1b\n\tret\n"
	".size loop_head, .-loop_head\n"
	".globl second\n.type second, @function\n"
	"second:\n\tmovl %edi, %eax\n"
	"second_in:\n\taddl $1, %eax\n\tret\n"
	".size second, .-second\n"
	".globl jumper\n.type jumper, @function\n"
	"jumper:\n\tmovl $41, %eax\n\tjmp second_in\n"
	".size jumper, .-jumper\n"
	".globl spin_entry\n.type spin_entry, @function\n"
	"spin_entry:\n\tsubl $1, %edi\n\tjg spin_entry\n\tmovl %edi, %eax\n\tret\n"
	".size spin_entry, .-spin_entry\n");

int jumper(void);

__attribute__((noinline, noipa)) int plain(int x)
{
	return x * 3 + tiny();
}

int main(void)
{
	printf("%d %d %d %d %d\n", plain(2), loop_head(5), second(1), jumper(), spin_entry(3));
	return 0;
}
