/* SPDX-License-Identifier: MIT */
/*
 * test_kcap.c - which fields of a kernel event's format a capture reads
 * at the event (lib/kernel/kernel_kcap.c): a `char *` field its string, a
 * `char **` one its array of strings, as the kernel's format files type
 * them (sys_enter_openat's "const char * filename", sys_enter_execve's
 * "const char *const * argv"); not an integer, a pointer to anything else
 * than chars, a field that is not 8 bytes, nor one the BPF program cannot
 * load from its context (offset not 8-aligned, or in the common fields,
 * which the kernel replaces with a pt_regs pointer).  And how a load is
 * served from the memory a capture read (utrace_kcap_regions_load): a
 * string read a word at a time, two strings side by side in one word, the
 * NUL one past a string, a word none holds a fault.  The BPF side runs
 * in the kernel tier (tests/kernel/bt_tracepoint.sh, tracefs_eprobe.sh).
 */
#include "lib/kernel/kernel_kcap.h"
#include "tests/unit/check.h"

/* "/etc" at 0x1003 (its NUL at 0x1007), "ab" right after at 0x1008. */
static void regions(void)
{
	const struct utrace_kcap_region rg[] = {{0x1003, (const uint8_t *)"/etc", 4},
						{0x1008, (const uint8_t *)"ab", 2}};
	uint64_t v = 1;

	check(utrace_kcap_regions_load(rg, 2, 0x1000, 8, &v) == 0 &&
		  v == ((uint64_t)'/' << 24 | (uint64_t)'e' << 32 | (uint64_t)'t' << 40 |
			(uint64_t)'c' << 48),
	      "a word with a string's start: its bytes, 0 before and at its NUL");
	check(utrace_kcap_regions_load(rg, 2, 0x1008, 8, &v) == 0 && v == ('a' | 'b' << 8),
	      "the next string's word: its bytes and its NUL");
	check(utrace_kcap_regions_load(rg, 2, 0x1006, 4, &v) == 0 &&
		  v == ('c' | (uint64_t)'a' << 16 | (uint64_t)'b' << 24),
	      "a load across both: each byte from the string that has it");
	check(utrace_kcap_regions_load(rg, 2, 0x1010, 8, &v) == -1 && v == 0,
	      "a word none holds: a fault");
	check(utrace_kcap_regions_load(rg, 0, 0x1003, 1, &v) == -1, "no regions: a fault");
}

int main(void)
{
	check(utrace_kcap_field_kind("const char *", 8, 24) == UTRACE_KCAP_STR,
	      "sys_enter_openat's filename: a string");
	check(utrace_kcap_field_kind("char *", 8, 16) == UTRACE_KCAP_STR, "char *: a string");
	check(utrace_kcap_field_kind("const char *const *", 8, 24) == UTRACE_KCAP_STRV,
	      "sys_enter_execve's argv: an array of strings");
	check(utrace_kcap_field_kind("char **", 8, 32) == UTRACE_KCAP_STRV,
	      "char **: an array of strings");
	check(utrace_kcap_field_kind("unsigned long", 8, 16) < 0, "an integer: nothing read");
	check(utrace_kcap_field_kind("struct stat *", 8, 24) < 0, "a pointer to a struct: nothing");
	check(utrace_kcap_field_kind("const char *", 4, 24) < 0, "a 4-byte field: nothing");
	check(utrace_kcap_field_kind("const char *", 8, 20) < 0,
	      "an offset a BPF program cannot load 8 bytes from: nothing");
	check(utrace_kcap_field_kind("char *", 8, 0) < 0, "the common fields: nothing");
	regions();
	return check_done();
}
