/* SPDX-License-Identifier: MIT */
/*
 * insn.h - the x86-64 instruction bytes that dynamic patching writes.
 *
 * A call site is 5 bytes at a function's entry.  The compilers leave
 * either five 1-byte NOPs (gcc -fpatchable-function-entry=5), one 5-byte
 * NOP `nopl 0x0(%rax,%rax,1)` (gcc -mnop-mcount, clang; clang puts 08 in
 * the displacement byte), and we turn it into `call rel32` to a per-site
 * stub and back.  Five 1-byte NOPs cannot be patched while other threads
 * run (a thread stopped after the second NOP would resume in the middle of
 * the new call), so they are first rewritten once into the single 5-byte
 * NOP, before the object's code can have been entered by another thread.
 */
#ifndef UTRACE_ARCH_X86_64_INSN_H
#define UTRACE_ARCH_X86_64_INSN_H

#include <stdint.h>
#include <string.h>

#define INSN_SITE_SIZE 5
#define INSN_INT3 0xcc
#define INSN_CALL 0xe8
#define INSN_JMP 0xe9
#define INSN_PUSH_IMM32 0x68

static const uint8_t insn_nop5[INSN_SITE_SIZE] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
static const uint8_t insn_nop1x5[INSN_SITE_SIZE] = {0x90, 0x90, 0x90, 0x90, 0x90};

/* Is this a 5-byte NOP we can patch atomically (any displacement byte)? */
static inline int insn_is_nop5(const uint8_t *p)
{
	return p[0] == 0x0f && p[1] == 0x1f && p[2] == 0x44 && p[3] == 0x00;
}

static inline int insn_is_nop1x5(const uint8_t *p)
{
	return !memcmp(p, insn_nop1x5, INSN_SITE_SIZE);
}

static inline int insn_rel32_reaches(uint64_t from_next, uint64_t to)
{
	int64_t d = (int64_t)(to - from_next);
	return d >= INT32_MIN && d <= INT32_MAX;
}

/* `call to` or `jmp to` placed at `at` (5 bytes). */
static inline void insn_rel32(uint8_t out[5], uint8_t opcode, uint64_t at, uint64_t to)
{
	int32_t rel = (int32_t)(int64_t)(to - (at + 5));

	out[0] = opcode;
	memcpy(out + 1, &rel, 4);
}

/*
 * A per-site stub, 16 bytes, in a region within rel32 reach of the code:
 *
 *     push $id            68 ii ii ii ii
 *     jmp  common         e9 rr rr rr rr
 *     int3 x 6            (never reached)
 *
 * The id on the stack tells the trampoline which function was entered
 * without any lookup on the hot path.
 */
#define INSN_STUB_SIZE 16

static inline void insn_make_stub(uint8_t out[INSN_STUB_SIZE], uint64_t at, uint32_t id,
				  uint64_t common)
{
	out[0] = INSN_PUSH_IMM32;
	memcpy(out + 1, &id, 4);
	insn_rel32(out + 5, INSN_JMP, at + 5, common);
	memset(out + 10, INSN_INT3, INSN_STUB_SIZE - 10);
}

/* `jmp *0(%rip)` followed by the 8-byte target: reaches anywhere. */
#define INSN_FARJMP_SIZE 14

static inline void insn_make_farjmp(uint8_t out[INSN_FARJMP_SIZE], uint64_t target)
{
	static const uint8_t op[6] = {0xff, 0x25, 0, 0, 0, 0};

	memcpy(out, op, 6);
	memcpy(out + 6, &target, 8);
}

#endif
