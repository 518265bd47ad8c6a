/* SPDX-License-Identifier: MIT */
/*
 * fuzz_eprobe.c - the event probe parser and fetch-arg compiler
 * (lib/probes/eprobe.h, common/fetch_prog.h): "e[:[GRP/][EVENT]] SYS.EVENT
 * FETCHARGS [if FILTER]" against one attached event (test/ev: numbers, a
 * pointer, a __data_loc string, a char[8]), then, for a definition that
 * parses, its format, its line, its compiled program (which must pass
 * utrace_fetch_check) and one run of it on a made-up record whose
 * pointers mostly fault: the run must stay inside its record.
 */
#include <errno.h>
#include <string.h>

#include "common/fetch_prog.h"
#include "lib/probes/eprobe.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_mem.h"

static const char ev_fmt[] =
    "name: ev\nID: 700\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:int n;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned int flags;\toffset:12;\tsize:4;\tsigned:0;\n"
    "\tfield:const char * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;\n"
    "\tfield:char chars[8];\toffset:28;\tsize:8;\tsigned:0;\n\n"
    "print fmt: \"n=%d\", REC->n\n";

static struct utrace_event_format *ev;

static const struct utrace_event_format *find(void *arg, const char *sys, const char *name)
{
	(void)arg;
	return !strcmp(sys, "test") && !strcmp(name, "ev") ? ev : NULL;
}

static void use(const struct utrace_eprobe *ep)
{
	static uint8_t rec[UTRACE_FETCH_REC_MAX];
	struct utrace_fetch_regs regs = {{0}};
	struct utrace_error err = {0};
	uint32_t len, n;
	char *line;
	void *prog;

	if (!utrace_eprobe_format(ep) || !utrace_eprobe_format_text(ep) ||
	    !(line = utrace_eprobe_line(ep)))
		abort();
	free(line);
	if (utrace_eprobe_compile(ep, &prog, &len, &err) < 0)
		return;
	if (utrace_fetch_check(prog, len) < 0)
		abort(); /* the compiler made a program the runtime would refuse */
	/* the attached record is mem itself: its pointer, some bytes in */
	memset(mem, 0x41, sizeof(mem));
	mem[24] = 40; /* name's __data_loc: offset 40 */
	mem[26] = 8;
	mem[sizeof(mem) - 1] = 0;
	regs.r[UTRACE_FR_EVENT] = (uint64_t)(uintptr_t)mem;
	n = utrace_fetch_run(prog, &regs, NULL, "fuzz", rec, sizeof(rec), load);
	if (n > sizeof(rec))
		abort();
	free(prog);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct utrace_error err = {0};
	struct utrace_eprobe *ep;
	char *def = fuzz_str(data, size);
	int code = -1;

	if (!ev && utrace_event_format_parse("test", ev_fmt, &ev, &err) < 0)
		abort();
	if (utrace_eprobe_parse(def, find, NULL, 701, &ep, &code, &err) < 0) {
		if (!err.msg[0])
			abort();
	} else {
		use(ep);
		utrace_eprobe_free(ep);
	}
	(void)utrace_eprobe_is(def);
	free(def);
	return 0;
}
