/* SPDX-License-Identifier: MIT */
/*
 * sanitizer_print.c - MemorySanitizer's and LeakSanitizer's reports as
 * sanitizer:msan_report and lsan_report, read from their text.
 *
 * Neither runtime calls a hook per report with the report's data, but
 * every sanitizer runtime passes each piece of text it prints to the weak
 * __sanitizer_on_print(str), empty unless the program defines it, which
 * sanitizer_patch.c makes jump to rt_san_on_print.  The report is read
 * as it is printed, line by line: its first line (the kind), its first
 * stack, MSan's SUMMARY line (file, line, function) or LSan's first leak
 * (its size and allocation stack); the event is written when the SUMMARY
 * line comes, on the thread printing the report.  Everything else
 * printed is looked at for a report's first line only.  Reports are
 * printed one at a time (under the runtime's report lock), so one state
 * serves; no allocation, no libc call, errno kept.
 */
#include <errno.h>

#include "common/record.h"
#include "runtime/sanitizer.h"

enum { SP_NONE, SP_MSAN, SP_LSAN };

static struct {
	int which;	  /* the report being printed */
	bool stack_done;  /* its first stack read */
	bool in_leak;	  /* LSan: after the first leak's line */
	unsigned n;	  /* frames in pc */
	uint64_t pc[UREC_STACK_MAX];
	struct rt_san_report r;
} sp;

static void sp_start(int which, const char *line, const char *kind, const char *end)
{
	for (size_t i = 0; i < sizeof(sp); i++) /* not memset: intercepted */
		((volatile char *)&sp)[i] = 0;
	sp.which = which;
	rt_san_copy(sp.r.first_line, sizeof(sp.r.first_line), line, end);
	if (kind)
		rt_san_copy(sp.r.kind, sizeof(sp.r.kind), kind, end);
}

/* "    #N 0x<pc> in FUNC FILE:LINE[:COL]": the pc; for LSan the first
 * frame that is not the allocator's names the place of the leak. */
static void sp_frame(const char *s, const char *end)
{
	const char *in;

	while (*s == ' ')
		s++;
	s++; /* '#' */
	while (*s >= '0' && *s <= '9')
		s++;
	if (!rt_san_starts(s, " 0x") || sp.n >= UREC_STACK_MAX)
		return;
	s += 3;
	sp.pc[sp.n++] = rt_parse_hex(&s);
	if (sp.which != SP_LSAN || sp.r.func[0] || !rt_san_starts(s, " in "))
		return;
	in = s + 4;
	if (rt_san_starts(in, "malloc ") || rt_san_starts(in, "calloc ") ||
	    rt_san_starts(in, "realloc ") || rt_san_starts(in, "__interceptor_") ||
	    rt_san_starts(in, "operator new"))
		return;
	{
		/* "FUNC FILE:LINE" as a SUMMARY line's "KIND LOCATION in FUNC" */
		char line[RT_SAN_FILE + RT_SAN_FUNC + 32];
		size_t n = 0;
		const char *sp_at = in;

		while (sp_at < end && *sp_at != ' ')
			sp_at++;
		rt_san_cat(line, sizeof(line), &n, "SUMMARY: LeakSanitizer: ");
		rt_san_cat(line, sizeof(line), &n, sp.r.kind);
		rt_san_cat(line, sizeof(line), &n, " ");
		rt_san_copy(line + n, sizeof(line) - n, sp_at + (sp_at < end), end);
		while (line[n])
			n++;
		rt_san_cat(line, sizeof(line), &n, " in ");
		rt_san_copy(line + n, sizeof(line) - n, in, sp_at);
		rt_san_summary(line, &sp.r);
	}
}

static void sp_end(void)
{
	if (sp.which == SP_MSAN && sp.n)
		sp.r.pc = sp.pc[0]; /* "#0 0x<pc> in ...": the use */
	rt_stack_given(sp.pc, sp.n);
	if (sp.which == SP_MSAN)
		trace_msan_report(&sp.r);
	else
		trace_lsan_report(&sp.r);
	rt_stack_given(NULL, 0);
	sp.which = SP_NONE;
}

static void sp_line(const char *s, const char *end)
{
	const char *k;

	for (k = rt_san_starts(s, "SUMMARY") ? end : s;
	     k < end && !rt_san_starts(k, "MemorySanitizer: ") &&
	     !rt_san_starts(k, "LeakSanitizer: detected memory leaks");
	     k++)
		;
	if (k < end && rt_san_starts(k, "MemorySanitizer: ")) {
		const char *e = k + 17;

		while (e < end && *e != ' ')
			e++;
		sp_start(SP_MSAN, s, k + 17, e);
		return;
	}
	if (k < end) {
		sp_start(SP_LSAN, s, NULL, end);
		return;
	}
	if (sp.which == SP_NONE)
		return;
	if (rt_san_starts(s, "    #") && !sp.stack_done &&
	    (sp.which == SP_MSAN || sp.in_leak)) {
		sp_frame(s, end);
		return;
	}
	if (sp.n)
		sp.stack_done = true;
	if (sp.which == SP_LSAN && !sp.in_leak &&
	    (rt_san_starts(s, "Direct leak of ") || rt_san_starts(s, "Indirect leak of "))) {
		const char *d = s + (*s == 'D' ? 15 : 17);

		rt_san_copy(sp.r.kind, sizeof(sp.r.kind), *s == 'D' ? "direct-leak" : "indirect-leak",
			    NULL);
		sp.r.size = 0;
		while (*d >= '0' && *d <= '9')
			sp.r.size = sp.r.size * 10 + (unsigned long)(*d++ - '0');
		sp.in_leak = true;
		return;
	}
	if (rt_san_starts(s, "SUMMARY: ")) {
		if (sp.which == SP_MSAN)
			rt_san_summary(s, &sp.r);
		sp_end();
	}
}

void rt_san_on_print(const char *str)
{
	int saved = errno;

	if (!str || !(trace_msan_report_enabled() || trace_lsan_report_enabled())) {
		errno = saved;
		return;
	}
	for (const char *s = str; *s;) {
		const char *end = s;

		while (*end && *end != '\n')
			end++;
		sp_line(s, end);
		s = *end ? end + 1 : end;
	}
	errno = saved;
}
