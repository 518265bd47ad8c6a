/*
 * tests/hostile/abi.sh: functions outside the C convention, which read the
 * flags on entry (a condition, the direction flag) and return one in
 * them, as a language runtime's assembly may.  Built without utrace's
 * flags, their entries are patched and the detour must keep every flag.
 * Prints what each call saw; exits 1 if a call saw other flags than it was
 * given, else 0.
 */
#include <stdio.h>
#include <stdlib.h>

/* the entry flags (CF PF AF ZF SF DF OF) in rax; clears DF for C again */
__asm__(".text\n"
	".globl flags_in\n.type flags_in, @function\n"
	"flags_in:\n"
	"	pushfq\n"
	"	popq %rax\n"
	"	andl $0xcd5, %eax\n"
	"	cld\n"
	"	ret\n"
	".size flags_in, .-flags_in\n"
	/* returns with OF SF AF PF (0x7fffffff + 1) and CF (stc): 0x895 */
	".globl flags_out\n.type flags_out, @function\n"
	"flags_out:\n"
	"	movl $0x7fffffff, %eax\n"
	"	addl $1, %eax\n"
	"	stc\n"
	"	ret\n"
	".size flags_out, .-flags_out\n");

#define MASK 0xcd5ul

static unsigned long call_flags_in(unsigned long fl)
{
	unsigned long r;

	/* below the red zone, on a 16-byte boundary as a call expects */
	__asm__ volatile("movq %%rsp, %%rbx\n\t"
			 "leaq -128(%%rsp), %%rsp\n\t"
			 "andq $-16, %%rsp\n\t"
			 "pushq %1\n\t"
			 "popfq\n\t"
			 "call flags_in\n\t"
			 "cld\n\t"
			 "movq %%rbx, %%rsp"
			 : "=a"(r)
			 : "r"(fl)
			 : "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory",
			   "cc");
	return r;
}

static unsigned long call_flags_out(void)
{
	unsigned long r;

	__asm__ volatile("movq %%rsp, %%rbx\n\t"
			 "leaq -128(%%rsp), %%rsp\n\t"
			 "andq $-16, %%rsp\n\t"
			 "call flags_out\n\t"
			 "pushfq\n\t"
			 "popq %%rax\n\t"
			 "movq %%rbx, %%rsp"
			 : "=a"(r)
			 :
			 : "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory",
			   "cc");
	return r & MASK;
}

int main(int argc, char **argv)
{
	/* the first, DF set, may be the first traced call: a buffer made with DF set */
	static const unsigned long given[] = {0xed7, 0x202, 0x203, 0x602, 0xa03, 0x2c3, 0x246};
	int rounds = argc > 1 ? atoi(argv[1]) : 100, bad = 0;

	for (int r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < sizeof(given) / sizeof(given[0]); i++) {
			unsigned long got = call_flags_in(given[i]);

			if (got != (given[i] & MASK) && bad++ < 5)
				printf("flags_in: given %#lx, saw %#lx\n", given[i] & MASK, got);
		}
		unsigned long out = call_flags_out();

		if (out != 0x895 && bad++ < 5)
			printf("flags_out: returned %#lx, not 0x895\n", out);
	}
	printf("%d rounds, %d calls saw other flags\n", rounds, bad);
	return bad != 0;
}
