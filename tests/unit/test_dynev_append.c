/* SPDX-License-Identifier: MIT */
/*
 * test_dynev_append.c - a probe defined under an existing probe's name
 * (lib/session/session_dynev_append.c): the kernel's errors at its
 * columns, as ftracetest's kprobe_syntax_errors.tc checks them: another
 * type at the start, other arguments at the first that differs, the same
 * probe at the start; a new point with the same arguments is appended
 * (the kernel's multiprobe: no error).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_format.h"
#include "lib/probes/inproc_probe.h"
#include "lib/probes/uprobe.h"
#include "lib/session/session_dynev.h"
#include "tests/unit/check.h"

/* def parsed, as session_dynev.c keeps it: format text (id 7), kind and
 * point; the strings malloc'ed (NULL format: it did not parse). */
static struct session_dynev_probe probe_of(const char *def)
{
	struct session_dynev_probe r = {0};
	struct utrace_error err = {0};
	struct utrace_inproc_probe *p = NULL;
	const char *w = def + strcspn(def, " ");

	if (utrace_inproc_probe_parse(def, NULL, &p, NULL, &err) < 0)
		return r;
	r.kind = (int)utrace_inproc_probe_kind(p) + (utrace_inproc_probe_fprobe(p) ? 8 : 0);
	r.format = utrace_event_format_text(utrace_inproc_probe_format(p), 7);
	w += strspn(w, " ");
	r.point = strndup(w, strcspn(w, " "));
	utrace_inproc_probe_free(p);
	return r;
}

static void probe_free(struct session_dynev_probe *p)
{
	free((char *)p->format);
	free((char *)p->point);
}

/* old defined, then def: the error's code text and column */
static void expect(const char *old_def, const char *def, int code, int column, int ret_want)
{
	struct session_dynev_probe old = probe_of(old_def), add = probe_of(def);
	struct utrace_error err = {0};
	int ret;

	if (!old.format || !add.format) {
		check(0, "'%s' and '%s' parse", old_def, def);
		probe_free(&old);
		probe_free(&add);
		return;
	}
	ret = session_dynev_append_check(&old, &add, def, &err);
	check(ret == ret_want && !strcmp(err.msg, code ? utrace_uprobe_error_text(code) : "") &&
		      err.column == column,
	      "after '%s': '%s' is '%s' at column %d (got %d '%s' at %d)", old_def, def,
	      utrace_uprobe_error_text(code), column, ret, err.msg, err.column);
	probe_free(&old);
	probe_free(&add);
}

/* The kernel answers every clash with an existing event with -EEXIST
 * (register_trace_kprobe, append_trace_kprobe); its error_log says which. */
int main(void)
{
	expect("p:kprobes/testevent kernel_clone", "r:kprobes/testevent do_exit",
	       UTRACE_UPROBE_ERR_DIFF_PROBE_TYPE, 1, -EEXIST);
	expect("f:fprobes/testevent kernel_clone", "f:fprobes/testevent do_exit%return",
	       UTRACE_UPROBE_ERR_DIFF_PROBE_TYPE, 1, -EEXIST);
	expect("p:kprobes/testevent kernel_clone abcd=\\1", "p:kprobes/testevent kernel_clone bcd=\\1",
	       UTRACE_UPROBE_ERR_DIFF_ARG_TYPE, 34, -EEXIST);
	expect("p:kprobes/testevent kernel_clone abcd=\\1",
	       "p:kprobes/testevent kernel_clone abcd=\\1:u8", UTRACE_UPROBE_ERR_DIFF_ARG_TYPE, 34,
	       -EEXIST);
	expect("p:kprobes/testevent kernel_clone abcd=\\1",
	       "p:kprobes/testevent kernel_clone abcd=\\\"foo\"", UTRACE_UPROBE_ERR_DIFF_ARG_TYPE,
	       34, -EEXIST);
	expect("p:kprobes/testevent kernel_clone a=%di", "p:kprobes/testevent kernel_clone a=%di b=%si",
	       UTRACE_UPROBE_ERR_DIFF_ARG_TYPE, 40, -EEXIST);
	expect("p:kprobes/testevent kernel_clone abcd=\\1", "p:kprobes/testevent kernel_clone abcd=\\1",
	       UTRACE_UPROBE_ERR_SAME_PROBE, 1, -EEXIST);
	expect("p:kprobes/testevent kernel_clone abcd=\\1", "p:kprobes/testevent do_exit abcd=\\1", 0,
	       0, 0);
	expect("p:kprobes/testevent kernel_clone", "p:kprobes/testevent do_exit", 0, 0, 0);
	return check_done();
}
