/* SPDX-License-Identifier: MIT */
/*
 * test_live_pids.c - set_ftrace_pid, set_ftrace_notrace_pid and their
 * thread-id syntax (lib/tracefs/live_pids.c, shared with set_event_pid), and
 * trace_clock (lib/tracefs/live_clock.c).
 *
 * The parser takes the kernel's words (kstrtoul, base 0; 1 to
 * PID_MAX_LIMIT), each once, after the old list; the files read "no pid"
 * empty, `>` (O_TRUNC) clears, `>>` adds, a bad word is EINVAL, and each
 * change reaches ops->ftrace_pids with both lists.  The recorder writes
 * the lists to the control page and flips bit 0 of ft_pid_gen with a
 * new count (runtime/trace_pid.c reads them; tests/kernel/tracefs_pid.sh
 * runs it).  trace_clock lists the clocks, brackets the current one, and
 * takes only a listed name, which sets the options word and clears trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefs/live_internal.h"
#include "lib/record/recorder.h"
#include "lib/record/recorder_internal.h"
#include "tests/unit/check.h"

/* ---- the parser -------------------------------------------------------- */

static void parser(void)
{
	const int32_t old[2] = {7, 12};
	int32_t *t = NULL;
	unsigned n = 0;
	int ret;

	ret = live_pids_parse("12 0x10\n012\t99", 15, old, 2, &t, &n);
	check(ret == 0 && n == 5 && t[0] == 7 && t[1] == 12 && t[2] == 16 && t[3] == 10 &&
		  t[4] == 99,
	      "old ids first, 0x and 0 prefixes as kstrtoul, 12 once (%d, %u)", ret, n);
	free(t);
	t = NULL;
	ret = live_pids_parse("\n", 1, NULL, 0, &t, &n);
	check(ret == 0 && n == 0, "a blank write is no id (%d, %u)", ret, n);
	free(t);
	static const char *const bad[] = {"abc", "-5", "+5", "0", "4194305", "12x", "1 2 z"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = NULL;
		ret = live_pids_parse(bad[i], strlen(bad[i]), old, 2, &t, &n);
		check(ret == -EINVAL && !t, "'%s' is EINVAL (%d)", bad[i], ret);
	}
	ret = live_pids_parse("4194304", 7, NULL, 0, &t, &n);
	check(ret == 0 && n == 1 && t[0] == 4194304, "PID_MAX_LIMIT itself is an id");
	free(t);
}

/* ---- the files --------------------------------------------------------- */

static int32_t got[2][8];
static unsigned ngot[2], calls;
static int fail_next;

static int fix_pids(void *arg, const int32_t *pids, unsigned n, const int32_t *notrace,
		    unsigned nn)
{
	calls++;
	if (fail_next)
		return fail_next;
	if (n) /* an empty list may come as NULL */
		memcpy(got[0], pids, n * sizeof(*pids));
	if (nn)
		memcpy(got[1], notrace, nn * sizeof(*notrace));
	ngot[0] = n;
	ngot[1] = nn;
	return 0;
}

static int fix_clock(void *arg, const char *name, uint32_t *options)
{
	if (!strcmp(name, "x86-tsc"))
		*options |= 1u << 8;
	else if (!strcmp(name, "mono"))
		*options &= ~(1u << 8);
	else
		return -EINVAL;
	return 0;
}

/* What path shows, in out. */
static void show(struct utrace_live *l, const char *path, char *out, size_t size)
{
	struct live_handle h;
	FILE *f = fmemopen(out, size, "w");

	memset(out, 0, size);
	if (live_resolve(l, path, &h) < 0 || !h.f || !h.f->show)
		fputs("(no such file)", f);
	else
		h.f->show(l, &h, f);
	fclose(f);
}

/* An open with flags, then a write of text: the write's result. */
static long put(struct utrace_live *l, const char *path, int flags, const char *text)
{
	struct live_handle h;
	int ret;

	if (live_resolve(l, path, &h) < 0 || !h.f || !h.f->write)
		return -ENOENT;
	if (h.f->open && (ret = h.f->open(l, &h, flags)) < 0)
		return ret;
	return h.f->write(l, &h, text, strlen(text));
}

static void pid_files(struct utrace_live *l)
{
	char out[256];
	long n;

	show(l, "/set_ftrace_pid", out, sizeof(out));
	check(!strcmp(out, "no pid\n"), "set_ftrace_pid reads 'no pid' empty: '%s'", out);
	show(l, "/set_ftrace_notrace_pid", out, sizeof(out));
	check(!strcmp(out, "no pid\n"), "so does set_ftrace_notrace_pid: '%s'", out);
	n = put(l, "/set_ftrace_pid", O_WRONLY | O_TRUNC, "42\n");
	show(l, "/set_ftrace_pid", out, sizeof(out));
	check(n == 3 && !strcmp(out, "42\n") && ngot[0] == 1 && got[0][0] == 42 && !ngot[1],
	      "> set_ftrace_pid: one id, sent with an empty notrace list: '%s'", out);
	n = put(l, "/set_ftrace_pid", O_WRONLY | O_APPEND, "43 42\n");
	show(l, "/set_ftrace_pid", out, sizeof(out));
	check(n == 6 && !strcmp(out, "42\n43\n") && ngot[0] == 2,
	      ">> adds (each id once): '%s'", out);
	n = put(l, "/set_ftrace_notrace_pid", O_WRONLY | O_TRUNC, "43");
	check(n == 2 && ngot[0] == 2 && ngot[1] == 1 && got[1][0] == 43,
	      "set_ftrace_notrace_pid is a list of its own, sent with the other");
	n = put(l, "/set_ftrace_pid", O_WRONLY | O_APPEND, "44 nope\n");
	show(l, "/set_ftrace_pid", out, sizeof(out));
	check(n == -EINVAL && !strcmp(out, "42\n43\n"), "a bad word: EINVAL, the list kept: '%s'",
	      out);
	fail_next = -ENOSPC;
	n = put(l, "/set_ftrace_pid", O_WRONLY | O_APPEND, "45\n");
	fail_next = 0;
	show(l, "/set_ftrace_pid", out, sizeof(out));
	check(n == -ENOSPC && !strcmp(out, "42\n43\n"),
	      "a list the recording refuses is an error, the list kept: '%s'", out);
	calls = 0;
	n = put(l, "/set_ftrace_pid", O_WRONLY | O_TRUNC, "\n");
	show(l, "/set_ftrace_pid", out, sizeof(out));
	check(n == 1 && !strcmp(out, "no pid\n") && !ngot[0] && ngot[1] == 1 && calls == 2,
	      "echo > set_ftrace_pid clears it (at the open), notrace kept: '%s'", out);
	n = put(l, "/set_ftrace_notrace_pid", O_WRONLY | O_TRUNC, "x");
	show(l, "/set_ftrace_notrace_pid", out, sizeof(out));
	check(n == -EINVAL && !strcmp(out, "no pid\n") && !ngot[1],
	      "> with a bad word: EINVAL, but the open cleared it, as the kernel's");
}

static void clock_file(struct utrace_live *l)
{
	char out[256];
	long n;

	show(l, "/trace_clock", out, sizeof(out));
	check(!strcmp(out, "[mono] x86-tsc\n"), "trace_clock: the first clock current: '%s'", out);
	l->clear_ns = 0;
	n = put(l, "/trace_clock", O_WRONLY | O_TRUNC, "x86-tsc\n");
	show(l, "/trace_clock", out, sizeof(out));
	check(n == 8 && !strcmp(out, "mono [x86-tsc]\n") && (l->options & 1u << 8) && l->clear_ns,
	      "x86-tsc: current, in the options word, trace cleared: '%s'", out);
	n = put(l, "/trace_clock", O_WRONLY | O_TRUNC, "local\n");
	show(l, "/trace_clock", out, sizeof(out));
	check(n == -EINVAL && !strcmp(out, "mono [x86-tsc]\n"),
	      "a clock not listed (local): EINVAL, nothing changed");
	n = put(l, "/trace_clock", O_WRONLY | O_TRUNC, "mon");
	check(n == -EINVAL, "a prefix of a name is no name");
	n = put(l, "/trace_clock", O_WRONLY | O_TRUNC, "  mono \n");
	show(l, "/trace_clock", out, sizeof(out));
	check(n == 8 && !strcmp(out, "[mono] x86-tsc\n") && !(l->options & 1u << 8),
	      "white space around the name is stripped: '%s'", out);
}

static void files(void)
{
	struct utrace_live *l = calloc(1, sizeof(*l));

	if (!l) {
		check(0, "out of memory");
		return;
	}
	l->ops.ftrace_pids = fix_pids;
	l->ops.clock_names = "mono x86-tsc";
	l->ops.set_clock = fix_clock;
	live_clock_init(l);
	pid_files(l);
	clock_file(l);
	live_pids_free(l);
	free(l);
}

/* ---- the recorder's control page -------------------------------------- */

static void recorder(void)
{
	struct utrace_recorder_opts o = {0};
	struct utrace_recorder *r = NULL;
	struct utrace_error err = {0};
	struct utrace_recorder_stats st;
	const int32_t pids[2] = {100, 200}, no[1] = {300};
	int32_t many[UTRACE_FT_PIDS + 1] = {0};
	char out[512];
	uint32_t g0, g1, g2;

	snprintf(out, sizeof(out), "%s/t.dat", check_tmpdir());
	o.output = out;
	o.buffer_kb = 64;
	if (utrace_recorder_new(&o, &r, &err) < 0) {
		check(0, "recorder: %s", err.msg);
		return;
	}
	g0 = r->ctl->ft_pid_gen;
	check(!(g0 & 1), "no list at start: bit 0 of ft_pid_gen clear");
	check(utrace_recorder_live_ftrace_pids(r, pids, 2, no, 1) == 0, "lists set");
	g1 = r->ctl->ft_pid_gen;
	check((g1 & 1) && g1 != g0 && r->ctl->ft_pids[0] == 100 && r->ctl->ft_pids[1] == 200 &&
		  !r->ctl->ft_pids[2] && r->ctl->ft_notrace_pids[0] == 300 &&
		  !r->ctl->ft_notrace_pids[1],
	      "0-terminated lists on the page, bit 0 set, a new count (%#x)", g1);
	check(utrace_recorder_live_ftrace_pids(r, NULL, 0, NULL, 0) == 0, "lists cleared");
	g2 = r->ctl->ft_pid_gen;
	check(!(g2 & 1) && g2 != g1 && g2 != g0 && !r->ctl->ft_pids[0] && !r->ctl->ft_notrace_pids[0],
	      "empty: bit 0 clear, another count (%#x)", g2);
	check(utrace_recorder_live_ftrace_pids(r, many, UTRACE_FT_PIDS + 1, NULL, 0) == -ENOSPC &&
		  r->ctl->ft_pid_gen == g2,
	      "more than UTRACE_FT_PIDS: -ENOSPC, nothing changed");
	if (utrace_recorder_finish(r, &st, &err) < 0)
		check(0, "finish: %s", err.msg);
	utrace_recorder_free(r);
}

int main(void)
{
	if (check_tmpdir_init("live_pids") < 0)
		return 1;
	parser();
	files();
	recorder();
	check_tmpdir_cleanup();
	return check_done();
}
