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
 *
 * And the check is the compile: a program the -R check kept in the spec
 * for the events of a file (lib/hist/trigger_spec.c utrace_trigger_keep,
 * lib/session/session_triggers.c) is what an object of that file gets,
 * not a compile of its own; an object of another file is compiled.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/hist/hist_env.h"
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

/* The check's program for a's layout, kept for the file /check/P: an
 * object of /check/P whose format the recorder would compile otherwise
 * (b: len elsewhere) gets it as it is. */
static void check_kept(const struct utrace_trigger *t, const struct utrace_event_format *a,
		       const struct utrace_event_format *b, const struct utrace_event_format *b2)
{
	struct utrace_event_spec spec = {.pattern = "sys:ev", .nr_triggers = 1};
	struct utrace_recorder_opts o = {0};
	struct utrace_event_select *sel = NULL;
	struct utrace_recorder *r = NULL;
	struct utrace_error err = {0};
	const char *texts[] = {"hist:keys=len"};
	struct rec_hist *h;
	void *prog = NULL, *other = NULL;
	uint32_t len = 0, olen = 0;
	char out[512];
	int code;

	spec.triggers = texts;
	if (utrace_trigger_compile(t, a, NULL, &prog, &len, &code, &err) < 0 ||
	    utrace_trigger_compile(t, b, NULL, &other, &olen, &code, &err) < 0 ||
	    !utrace_trigger_of(&spec, 0, &code, &err) || /* parsed by the check */
	    utrace_trigger_keep(&spec, 0, "/check/P", a, prog, len) < 0 ||
	    utrace_event_select_new(&spec, 1, &sel, &err) < 0) {
		check(0, "setup: %s", err.msg);
		return;
	}
	check(olen != len || memcmp(prog, other, len), "the two layouts compile differently");
	snprintf(out, sizeof(out), "%s/k.dat", check_tmpdir());
	o.output = out;
	o.buffer_kb = 64;
	o.events = sel;
	if (utrace_recorder_new(&o, &r, &err) < 0) {
		check(0, "recorder: %s", err.msg);
		goto out;
	}
	t = utrace_trigger_parsed(&spec, 0);
	h = rec_hist_get(r, 0, 0, texts[0], t, b, false, "/check/P", &err);
	check(h && h->prog_len == len && !memcmp(h->prog, prog, len),
	      "an object of the checked file gets the check's program (%s)", err.msg);
	/* (each file's formats are its own: b2 is /other/Q's copy of b) */
	h = rec_hist_get(r, 0, 0, texts[0], t, b2, false, "/other/Q", &err);
	check(!h && strstr(err.msg, "another layout"),
	      "an object of another file is compiled (its own layout: \"%s\")", err.msg);
	utrace_recorder_free(r);
out:
	free(other);
	utrace_event_select_free(sel);
	utrace_trigger_free_kept(&spec);
	utrace_trigger_free_spec(&spec);
}

int main(void)
{
	struct utrace_event_format *a = NULL, *a2 = NULL, *b = NULL, *b2 = NULL, saved;
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
	    utrace_event_format_parse("sys", fmt_at12, &b, &err) < 0 ||
	    utrace_event_format_parse("sys", fmt_at12, &b2, &err) < 0) {
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
	check_kept(t, a, b, b2);
out:
	utrace_recorder_free(r);
	utrace_trigger_free(t);
	utrace_event_format_free(a);
	utrace_event_format_free(a2);
	utrace_event_format_free(b);
	utrace_event_format_free(b2);
	check_tmpdir_cleanup();
	return check_done();
}
