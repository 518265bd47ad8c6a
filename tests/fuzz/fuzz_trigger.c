/* SPDX-License-Identifier: MIT */
/*
 * fuzz_trigger.c - the trigger parser (lib/hist/trigger_parse.c,
 * hist_parse.c, hist_expr.c) and the hist compiler (hist_compile*.c) on
 * arbitrary lines as written to events/SYS/EVENT/trigger or given to
 * record -R, against an event with a field of every kind.
 *
 * Input: the trigger's text.  Whatever it is, parsing must give a trigger
 * or an error with a message; a parsed trigger's holders share it
 * (utrace_trigger_get); a hist trigger prints as the kernel's trigger
 * file does and is the same as itself; compiling it, in the one
 * environment of lib/hist/hist_env.c (no other trigger, one synthetic
 * event), gives a program the runtime accepts or an error with a message
 * and a column.  A filter of another command compiles or says why.
 */
#include <errno.h>

#include "common/hist_prog.h"
#include "lib/events/event_filter.h"
#include "lib/events/event_format.h"
#include "lib/hist/hist.h"
#include "lib/hist/hist_env.h"
#include "lib/hist/synth.h"
#include "tests/fuzz/fuzz.h"

/* The kernel's format text of the event the triggers are compiled for. */
static const char format_text[] = FUZZ_SAMPLE_FORMAT;

static struct utrace_event_format *fmt;
static struct utrace_synth *synth;

static void load(void)
{
	struct utrace_error err;
	int code;

	if (!fmt && utrace_event_format_parse("test", format_text, &fmt, &err) < 0) {
		fprintf(stderr, "fuzz_trigger: the built-in format: %s\n", err.msg);
		abort();
	}
	if (!synth && utrace_synth_parse("lat u64 lat; int id; char name[16]", 0, &synth, &code,
					 &err) < 0) {
		fprintf(stderr, "fuzz_trigger: the built-in synthetic event: %s\n", err.msg);
		abort();
	}
}

/* A parsed hist trigger: printed, compared, compiled. */
static void hist(const struct utrace_hist_spec *s)
{
	struct utrace_hist_scope sc = {.synths = &synth, .nr_synths = 1};
	struct utrace_error err = {0};
	char buf[512];
	void *prog = NULL;
	uint32_t len = 0;
	int code = 0, n = utrace_hist_spec_text(s, buf, sizeof(buf));

	if (n < 0 || !utrace_hist_spec_same(s, s))
		abort();
	if (utrace_hist_compile_env(s, fmt, utrace_hist_scope_env(&sc), &prog, &len, &code,
				    &err) < 0) {
		if (!err.msg[0] || err.column < 1 || prog)
			abort();
		return;
	}
	if (!prog || !utrace_hist_hdr_ok(prog, len))
		abort();
	free(prog);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct utrace_trigger *t = NULL;
	struct utrace_error err = {0};
	char *text;
	int code = 0;

	load();
	text = fuzz_str(data, size);
	if (utrace_trigger_parse(text, &t, &code, &err) < 0) {
		if (!err.msg[0] || t)
			abort();
		free(text);
		return 0;
	}
	if (utrace_trigger_get(t) != t)
		abort();
	utrace_trigger_free(t); /* the second holder's: t stays */
	if (t->hist && !t->remove) {
		hist(t->hist);
	} else if (t->filter && !t->remove) {
		void *prog = NULL;
		uint32_t len;

		if (utrace_filter_compile(fmt, t->filter, &prog, &len, &err) < 0 && !err.msg[0])
			abort();
		free(prog);
	}
	utrace_trigger_free(t);
	free(text);
	return 0;
}
