/* SPDX-License-Identifier: MIT */
/*
 * test_hist_once.c - a hist trigger is compiled once per event format
 * (lib/record/recorder_hist.c hist_get): the table of a (-e, -R, event)
 * keeps the formats its program was made for, and an object or process
 * with one of them gets that program without a compile.  A format is
 * known by its address (the recording loads each file's formats once), so
 * the check below changes what is at the first format's address: a
 * second compile would see another layout and refuse it, the cached
 * program does not look.  Another address with the same layout compiles
 * to the same program and shares the table; another layout is refused
 * with the recording's message, as before.
 */
#include <stdio.h>
#include <string.h>

#include "lib/events/event_format.h"
#include "lib/hist/hist.h"
#include "lib/record/recorder.h"
#include "lib/record/recorder_hist.h"
#include "lib/record/recorder_internal.h"
#include "tests/unit/check.h"

#define COMMON                                                                                     \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                    \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                    \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"            \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

static const char fmt_at8[] = "name: ev\nID: 1\nformat:\n" COMMON
			      "\n\tfield:int len;\toffset:8;\tsize:4;\tsigned:1;\n"
			      "\n"
			      "print fmt: \"len=%d\", REC->len\n";
static const char fmt_at12[] = "name: ev\nID: 1\nformat:\n" COMMON
			       "\n\tfield:int pad;\toffset:8;\tsize:4;\tsigned:1;\n"
			       "\tfield:int len;\toffset:12;\tsize:4;\tsigned:1;\n"
			       "\n"
			       "print fmt: \"len=%d\", REC->len\n";

static struct rec_hist *get(struct utrace_recorder *r, const struct utrace_trigger *t,
			    const struct utrace_event_format *f, struct utrace_error *err)
{
	*err = (struct utrace_error){0};
	return rec_hist_get(r, REC_HIST_KERNEL, 0, "hist:keys=len", t, f, true, "k", err);
}

int main(void)
{
	struct utrace_event_format *a = NULL, *a2 = NULL, *b = NULL, saved;
	struct utrace_recorder_opts o = {0};
	struct utrace_recorder *r = NULL;
	struct utrace_trigger *t = NULL;
	struct utrace_error err = {0};
	struct rec_hist *h, *h2;
	char out[512];
	int code;

	if (check_tmpdir_init("hist_once") < 0)
		return 1;
	if (utrace_trigger_parse("hist:keys=len", &t, &code, &err) < 0 ||
	    utrace_event_format_parse("sys", fmt_at8, &a, &err) < 0 ||
	    utrace_event_format_parse("sys", fmt_at8, &a2, &err) < 0 ||
	    utrace_event_format_parse("sys", fmt_at12, &b, &err) < 0) {
		check(0, "parse: %s", err.msg);
		return check_done();
	}
	snprintf(out, sizeof(out), "%s/t.dat", check_tmpdir());
	o.output = out;
	o.buffer_kb = 64;
	if (utrace_recorder_new(&o, &r, &err) < 0) {
		check(0, "recorder: %s", err.msg);
		return check_done();
	}
	h = get(r, t, a, &err);
	check(h != NULL, "the first format: compiled, a table (%s)", err.msg);
	if (!h)
		goto out;
	check(get(r, t, a, &err) == h, "the same format again: the same table (%s)", err.msg);

	/* what is at a's address now has len at 12: only a compile would see it */
	saved = *a;
	*a = *b;
	h2 = get(r, t, a, &err);
	*a = saved;
	check(h2 == h, "a format compiled for is not compiled again (got %s: %s)",
	      h2 ? "a table" : "none", err.msg);

	check(get(r, t, a2, &err) == h,
	      "another format of the same layout: compiled, the same program and table (%s)",
	      err.msg);
	h2 = get(r, t, b, &err);
	check(!h2 && strstr(err.msg, "another layout of the event than the first one's"),
	      "another layout is left off, said: \"%s\"", err.msg);
	h2 = get(r, t, b, &err);
	check(!h2 && strstr(err.msg, "another layout"), "and said again for its next object");
out:
	utrace_recorder_free(r);
	utrace_trigger_free(t);
	utrace_event_format_free(a);
	utrace_event_format_free(a2);
	utrace_event_format_free(b);
	check_tmpdir_cleanup();
	return check_done();
}
