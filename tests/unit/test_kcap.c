/* SPDX-License-Identifier: MIT */
/*
 * test_kcap.c - which fields of a kernel event's format a capture reads
 * at the event (lib/kernel/kernel_kcap.c): a `char *` field its string, a
 * `char **` one its array of strings, as the kernel's format files type
 * them (sys_enter_openat's "const char * filename", sys_enter_execve's
 * "const char *const * argv"); not an integer, a pointer to anything else
 * than chars, a field that is not 8 bytes, nor one the BPF program cannot
 * load from its context (offset not 8-aligned, or in the common fields,
 * which the kernel replaces with a pt_regs pointer).  The BPF side runs
 * in the kernel tier (tests/kernel/bt_tracepoint.sh).
 */
#include "lib/kernel/kernel_kcap.h"
#include "tests/unit/check.h"

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
	return check_done();
}
