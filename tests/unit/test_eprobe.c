/* SPDX-License-Identifier: MIT */
/*
 * test_eprobe.c - event probes (lib/probes/eprobe.c): the kernel's errors
 * and carets for bad definitions (the checks of the kernel selftest
 * dynevent/eprobes_syntax_errors.tc), the listing line, the format, and
 * the fetch program run on an attached event's record: the values it
 * records are the fields and what they point to.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "common/fetch_prog.h"
#include "lib/probes/eprobe.h"
#include "lib/probes/uprobe.h"
#include "tests/unit/check.h"

/* syscalls:sys_enter_openat as tests/ftracetest/events/ev_syscalls.h lays
 * it out, and an event with a __data_loc string and a char[16] */
static const char openat_fmt[] =
    "name: sys_enter_openat\nID: 600\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:int dfd;\toffset:12;\tsize:4;\tsigned:1;\n"
    "\tfield:const char * filename;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:int flags;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned short mode;\toffset:28;\tsize:2;\tsigned:0;\n\n"
    "print fmt: \"dfd: 0x%08lx\", (long)REC->dfd\n";
static const char str_fmt[] =
    "name: named\nID: 601\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:0;\n\n"
    "print fmt: \"%s\", __get_str(name)\n";

static struct utrace_event_format *openat, *named;

static const struct utrace_event_format *find(void *arg, const char *sys, const char *name)
{
	(void)arg;
	if (!strcmp(sys, "syscalls") && !strcmp(name, "sys_enter_openat"))
		return openat;
	if (!strcmp(sys, "test") && !strcmp(name, "named"))
		return named;
	return NULL;
}

/* eprobes_syntax_errors.tc's checks: the caret ^ is where the error is */
static void error_at(const char *marked, int want_code)
{
	char def[256];
	const char *caret = strchr(marked, '^');
	struct utrace_eprobe *ep = NULL;
	struct utrace_error err = {0};
	int code = 0, ret;

	snprintf(def, sizeof(def), "%.*s%s", (int)(caret - marked), marked, caret + 1);
	ret = utrace_eprobe_parse(def, find, NULL, 700, &ep, &code, &err);
	check(ret == -EINVAL && code == want_code && err.column == (int)(caret - marked) + 1,
	      "'%s': %s at column %d (got %d, %s, column %d)", def,
	      utrace_uprobe_error_text(want_code), (int)(caret - marked) + 1, ret, err.msg,
	      err.column);
	utrace_eprobe_free(ep);
}

static void syntax_errors(void)
{
	error_at("e ^a.", UTRACE_UPROBE_ERR_NO_EVENT_INFO);
	error_at("e ^.b", UTRACE_UPROBE_ERR_NO_EVENT_INFO);
	error_at("e ^a.b", UTRACE_UPROBE_ERR_BAD_ATTACH_EVENT);
	error_at("e syscalls/sys_enter_openat ^foo", UTRACE_UPROBE_ERR_NOSUP_BTFARG);
	error_at("e:^/bar syscalls/sys_enter_openat", UTRACE_UPROBE_ERR_NO_GROUP_NAME);
	error_at("e:^12345678901234567890123456789012345678901234567890123456789012345/bar "
		 "syscalls/sys_enter_openat",
		 UTRACE_UPROBE_ERR_GROUP_TOO_LONG);
	error_at("e:^foo.1/bar syscalls/sys_enter_openat", UTRACE_UPROBE_ERR_BAD_GROUP_NAME);
	error_at("e:^ syscalls/sys_enter_openat", UTRACE_UPROBE_ERR_NO_EVENT_NAME);
	error_at("e:foo/^12345678901234567890123456789012345678901234567890123456789012345 "
		 "syscalls/sys_enter_openat",
		 UTRACE_UPROBE_ERR_EVENT_TOO_LONG);
	error_at("e:foo/^bar.1 syscalls/sys_enter_openat", UTRACE_UPROBE_ERR_BAD_EVENT_NAME);
	error_at("e:foo/bar syscalls/sys_enter_openat arg=^dfd", UTRACE_UPROBE_ERR_NOSUP_BTFARG);
	error_at("e:foo/bar syscalls/sys_enter_openat arg=^$foo", UTRACE_UPROBE_ERR_BAD_VAR);
	error_at("e:foo/bar syscalls/sys_enter_openat if ^", UTRACE_UPROBE_ERR_NO_EP_FILTER);
	/* no registers, no $argN on an event */
	error_at("e:foo/bar syscalls/sys_enter_openat a=^%di", UTRACE_UPROBE_ERR_BAD_VAR);
	error_at("e:foo/bar syscalls/sys_enter_openat a=^$arg1", UTRACE_UPROBE_ERR_BAD_VAR);
	/* a bit-field whose width would wrap the sum (found by fuzz_eprobe) */
	error_at("e:foo/bar syscalls/sys_enter_openat b=$dfd:^b18446744073709551615@2/32",
		 UTRACE_UPROBE_ERR_BAD_BITFIELD);
	/* $comm is a string or nothing */
	error_at("e:foo/bar syscalls/sys_enter_openat a=$comm:^u32",
		 UTRACE_UPROBE_ERR_NEED_STRING_TYPE);
	/* so is a string constant: its 4-byte store does not fit a u8's or a
	 * 16-bit bit-field's slot (found by fuzz_eprobe: a program the
	 * runtime refuses) */
	error_at("e:foo/bar syscalls/sys_enter_openat a=\\\"hi\\\":^u8",
		 UTRACE_UPROBE_ERR_NEED_STRING_TYPE);
	error_at("e:foo/bar syscalls/sys_enter_openat a=\\\"hi\\\":^b4@2/16",
		 UTRACE_UPROBE_ERR_NEED_STRING_TYPE);
}

static uint64_t loads;

static int load(uint64_t addr, unsigned size, uint64_t *out)
{
	loads++;
	*out = 0;
	if (!addr)
		return -1;
	memcpy(out, (const void *)(uintptr_t)addr, size);
	return 0;
}

/* The record of the probe once run on rec: its length */
static uint32_t run(const struct utrace_eprobe *ep, const void *rec, uint8_t *out, uint32_t cap)
{
	struct utrace_fetch_regs regs = {{0}};
	struct utrace_error err = {0};
	uint32_t len = 0, n = 0;
	void *prog = NULL;

	if (utrace_eprobe_compile(ep, &prog, &len, &err) < 0 || utrace_fetch_check(prog, len)) {
		check(0, "compile %s: %s", utrace_eprobe_line(ep), err.msg);
		free(prog);
		return 0;
	}
	regs.r[UTRACE_FR_EVENT] = (uint64_t)(uintptr_t)rec;
	memset(out, 0, cap);
	n = utrace_fetch_run(prog, &regs, NULL, "kprog", out, cap, load);
	free(prog);
	return n;
}

static const char *str_at(const uint8_t *rec, uint32_t off)
{
	uint32_t loc;

	memcpy(&loc, rec + off, 4);
	return loc >> 16 ? (const char *)rec + (loc & 0xffff) : "(fault)";
}

static void openat_probe(void)
{
	static const char path[64] = "/sys/kernel/tracing"; /* room for load()'s 8-byte reads */
	uint64_t rec[4] = {0};
	uint8_t *r = (uint8_t *)rec, out[512];
	const char *def = "e:grp/ev syscalls/sys_enter_openat file=+0($filename):ustring "
			  "dfd=$dfd:s32 $flags mode=$mode:u16 raw=$dfd";
	struct utrace_eprobe *ep = NULL;
	struct utrace_error err = {0};
	int32_t dfd = -100, flags = 0x241, got32;
	uint16_t mode = 0644, got16;
	uint64_t p = (uint64_t)(uintptr_t)path, got64;
	char *line;

	memcpy(r + 12, &dfd, 4);
	memcpy(r + 16, &p, 8);
	memcpy(r + 24, &flags, 4);
	memcpy(r + 28, &mode, 2);
	check(utrace_eprobe_parse(def, find, NULL, 700, &ep, NULL, &err) == 0, "parse %s: %s", def,
	      err.msg);
	if (!ep)
		return;
	line = utrace_eprobe_line(ep);
	check(line && !strcmp(line, "e:grp/ev syscalls.sys_enter_openat file=+0($filename):ustring "
				    "dfd=$dfd:s32 arg3=$flags mode=$mode:u16 raw=$dfd"),
	      "dynamic_events line: %s", line);
	free(line);
	check(strstr(utrace_eprobe_format_text(ep),
		     "\tfield:__data_loc char[] file;\toffset:8;\tsize:4;\tsigned:1;\n"
		     "\tfield:s32 dfd;\toffset:12;\tsize:4;\tsigned:1;\n"
		     "\tfield:u64 arg3;\toffset:16;\tsize:8;\tsigned:0;\n"
		     "\tfield:u16 mode;\toffset:24;\tsize:2;\tsigned:0;\n"
		     "\tfield:u64 raw;\toffset:26;") != NULL,
	      "format: the arguments from offset 8, no __probe_ip");
	check(strstr(utrace_eprobe_format_text(ep),
		     "print fmt: \" file=\\\"%s\\\" dfd=%d arg3=0x%Lx mode=%u raw=0x%Lx\", "
		     "__get_str(file), REC->dfd") != NULL,
	      "print fmt: the kernel's eprobe one (no place)");
	check(run(ep, rec, out, sizeof(out)) > 34, "the program runs");
	check(!strcmp(str_at(out, 8), path), "+0($filename):ustring is the string it points to: %s",
	      str_at(out, 8));
	memcpy(&got32, out + 12, 4);
	check(got32 == -100, "$dfd:s32 is the field: %d", got32);
	memcpy(&got64, out + 16, 8);
	check(got64 == 0x241, "$flags (x64) is the field: %#llx", (unsigned long long)got64);
	memcpy(&got16, out + 24, 2);
	check(got16 == 0644, "$mode:u16 is the field: %o", got16);
	memcpy(&got64, out + 26, 8);
	check(got64 == (uint64_t)(int64_t)-100, "$dfd as x64 is sign-extended: %#llx",
	      (unsigned long long)got64);
	p = 0; /* a NULL filename: the string faults, as the kernel's (fault) */
	memcpy(r + 16, &p, 8);
	run(ep, rec, out, sizeof(out));
	check(!strcmp(str_at(out, 8), "(fault)"), "a faulting pointer gives (fault)");
	utrace_eprobe_free(ep);
}

static void string_fields(void)
{
	uint64_t rec[8] = {0};
	uint8_t *r = (uint8_t *)rec, out[256];
	struct utrace_eprobe *ep = NULL;
	struct utrace_error err = {0};
	uint32_t loc = (uint32_t)(6 << 16 | 40);
	int ret;

	memcpy(r + 8, &loc, 4);
	memcpy(r + 12, "worker", 7);
	memcpy(r + 40, "hello", 6);
	check(utrace_eprobe_parse("e test.named n=$name:string c=$comm:string", find, NULL, 701, &ep,
				  NULL, &err) == 0,
	      "parse a probe on a string field: %s", err.msg);
	if (!ep)
		return;
	check(!strcmp(utrace_eprobe_group(ep), "eprobes") && !strcmp(utrace_eprobe_event(ep), "named"),
	      "default group eprobes, event the attached one's: %s/%s", utrace_eprobe_group(ep),
	      utrace_eprobe_event(ep));
	run(ep, rec, out, sizeof(out));
	check(!strcmp(str_at(out, 8), "hello"), "$name:string is the __data_loc's string: %s",
	      str_at(out, 8));
	check(!strcmp(str_at(out, 12), "worker"), "$comm:string is the event's comm field: %s",
	      str_at(out, 12));
	utrace_eprobe_free(ep);
	ep = NULL;
	check(utrace_eprobe_parse("e:a/b test.named if name == \"hello\"", find, NULL, 702, &ep, NULL,
				  &err) == 0 &&
		  !strcmp(utrace_eprobe_filter(ep), "name == \"hello\""),
	      "a filter on the attached event: %s", ep ? utrace_eprobe_filter(ep) : err.msg);
	utrace_eprobe_free(ep);
	ep = NULL;
	ret = utrace_eprobe_parse("e:a/b test.named if nosuch == 1", find, NULL, 702, &ep, NULL, &err);
	check(ret < 0 && err.column == 21 && strstr(err.msg, "at column 21"),
	      "a bad filter is refused where it is wrong: %s (column %d)", err.msg, err.column);
	utrace_eprobe_free(ep);
}

int main(void)
{
	struct utrace_error err = {0};

	if (utrace_event_format_parse("syscalls", openat_fmt, &openat, &err) < 0 ||
	    utrace_event_format_parse("test", str_fmt, &named, &err) < 0) {
		check(0, "formats: %s", err.msg);
		return check_done();
	}
	check(utrace_eprobe_is("e:a/b x.y") && utrace_eprobe_is("e x.y") &&
		  !utrace_eprobe_is("p:a/b x") && !utrace_eprobe_is("ex"),
	      "an e: definition is told from the others");
	syntax_errors();
	openat_probe();
	string_fields();
	utrace_event_format_free(openat);
	utrace_event_format_free(named);
	return check_done();
}
