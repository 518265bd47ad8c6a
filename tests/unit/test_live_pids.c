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
 * set_event_pid and set_event_notrace_pid are a pair as well (ops->
 * event_pids), shown as the recording has them (ops->pids_get: a fork
 * child may have joined); the options event-fork and function-fork go
 * to ops->follow_fork, and the recorder adds a fork child to the lists
 * its parent thread is in, as they say, and takes it out at its exit.
 * Each reader (the top level, an instance) has its own lists and
 * options; the control page's are their union.
 * options/dump-on-crash (live_options.c) goes to ops->dump_on_crash and
 * the recorder puts it in the control page's dump_on_crash word
 * (runtime/crash.c reads it; tests/kernel/tracefs_crash.sh runs it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefs/live_internal.h"
#include "lib/record/recorder.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_live.h"
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

static int32_t evgot[2][8];
static unsigned nevgot[2], follow_got;

static int fix_event_pids(void *arg, const int32_t *pids, unsigned n, const int32_t *notrace,
			  unsigned nn)
{
	if (n)
		memcpy(evgot[0], pids, n * sizeof(*pids));
	if (nn)
		memcpy(evgot[1], notrace, nn * sizeof(*notrace));
	nevgot[0] = n;
	nevgot[1] = nn;
	return 0;
}

/* The recording's lists: what was sent, and a child a fork added to the
 * event lists (fork_child, when not 0) */
static int32_t fork_child;

static unsigned fix_pids_get(void *arg, enum utrace_live_pids which, int32_t *tids)
{
	unsigned n = which < UTRACE_LIVE_PIDS_FTRACE ? nevgot[which] : ngot[which - 2];
	const int32_t *src = which < UTRACE_LIVE_PIDS_FTRACE ? evgot[which] : got[which - 2];

	memcpy(tids, src, n * sizeof(*tids));
	if (fork_child && which == UTRACE_LIVE_PIDS_EVENT && n)
		tids[n++] = fork_child;
	return n;
}

static void fix_follow(void *arg, unsigned follow)
{
	follow_got = follow;
}

static int crash_got = -1;

static void fix_crash(void *arg, bool on)
{
	crash_got = on;
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

/* set_event_pid, set_event_notrace_pid: a pair as set_ftrace_pid's, shown
 * as the recording has them; the options event-fork, function-fork */
static void event_pid_files(struct utrace_live *l)
{
	char out[256];
	long n;

	show(l, "/set_event_notrace_pid", out, sizeof(out));
	check(!strcmp(out, ""), "set_event_notrace_pid reads nothing empty: '%s'", out);
	n = put(l, "/set_event_notrace_pid", O_WRONLY | O_TRUNC, "7 8\n");
	check(n == 4 && nevgot[1] == 2 && evgot[1][0] == 7 && evgot[1][1] == 8 && !nevgot[0],
	      "> set_event_notrace_pid: its list, sent with an empty set_event_pid");
	n = put(l, "/set_event_pid", O_WRONLY | O_TRUNC, "5");
	check(n == 1 && nevgot[0] == 1 && evgot[0][0] == 5 && nevgot[1] == 2,
	      "set_event_pid is the other list of the pair, sent with it");
	fork_child = 99;
	show(l, "/set_event_pid", out, sizeof(out));
	check(!strcmp(out, "5\n99\n"), "a child the recording added (event-fork) shows: '%s'", out);
	n = put(l, "/set_event_pid", O_WRONLY | O_APPEND, "6");
	fork_child = 0;
	check(n == 1 && nevgot[0] == 3 && evgot[0][1] == 99 && evgot[0][2] == 6,
	      ">> adds to the list as the recording has it (%u)", nevgot[0]);
	n = put(l, "/set_event_notrace_pid", O_WRONLY | O_TRUNC, "\n");
	check(n == 1 && !nevgot[1] && nevgot[0] == 3, "echo > set_event_notrace_pid clears it");
	show(l, "/options/event-fork", out, sizeof(out));
	check(!strcmp(out, "0\n"), "options/event-fork starts 0: '%s'", out);
	n = put(l, "/options/event-fork", O_WRONLY | O_TRUNC, "1\n");
	show(l, "/options/event-fork", out, sizeof(out));
	check(n == 2 && !strcmp(out, "1\n") && follow_got == UTRACE_LIVE_FOLLOW_EVENT,
	      "1 > options/event-fork: on, sent (%u)", follow_got);
	n = put(l, "/trace_options", O_WRONLY | O_TRUNC, "function-fork\n");
	check(n == 14 && follow_got == (UTRACE_LIVE_FOLLOW_EVENT | UTRACE_LIVE_FOLLOW_FUNCTION),
	      "function-fork > trace_options: both on (%u)", follow_got);
	n = put(l, "/trace_options", O_WRONLY | O_TRUNC, "noevent-fork\n");
	show(l, "/trace_options", out, sizeof(out));
	check(n == 13 && follow_got == UTRACE_LIVE_FOLLOW_FUNCTION && strstr(out, "noevent-fork\n") &&
		  strstr(out, "\nfunction-fork\n"),
	      "noevent-fork: off, trace_options lists both as they are");
}

/* options/dump-on-crash: there only with ops->dump_on_crash, starting at
 * ops->dump_on_crash_on, 0 or 1 sent on */
static void crash_option(struct utrace_live *l)
{
	char out[512];
	long n;

	check(!live_option_known(l, "dump-on-crash"), "no ops->dump_on_crash: no option");
	l->ops.dump_on_crash = fix_crash;
	l->dump_on_crash = true; /* as utrace_live_start takes ops->dump_on_crash_on */
	show(l, "/options/dump-on-crash", out, sizeof(out));
	check(!strcmp(out, "1\n"), "options/dump-on-crash starts as the command line: '%s'", out);
	n = put(l, "/options/dump-on-crash", O_WRONLY | O_TRUNC, "0\n");
	show(l, "/options/dump-on-crash", out, sizeof(out));
	check(n == 2 && !strcmp(out, "0\n") && crash_got == 0, "0 > options/dump-on-crash: off, sent");
	n = put(l, "/trace_options", O_WRONLY | O_TRUNC, "dump-on-crash\n");
	show(l, "/trace_options", out, sizeof(out));
	check(n == 14 && crash_got == 1 && strstr(out, "\ndump-on-crash\n"),
	      "dump-on-crash > trace_options: on, listed so");
	n = put(l, "/options/dump-on-crash", O_WRONLY | O_TRUNC, "2\n");
	check(n == -EINVAL && crash_got == 1 && l->dump_on_crash, "2: EINVAL, unchanged");
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
	l->ops.event_pids = fix_event_pids;
	l->ops.pids_get = fix_pids_get;
	l->ops.follow_fork = fix_follow;
	l->ops.clock_names = "mono x86-tsc";
	l->ops.set_clock = fix_clock;
	live_clock_init(l);
	pid_files(l);
	event_pid_files(l);
	crash_option(l);
	clock_file(l);
	live_pids_free(l);
	free(l);
}

/* ---- the recorder's control page -------------------------------------- */

/* A fork child joins the lists its parent thread is in, as the options
 * say, and leaves them at its exit. */
static void follow(struct utrace_recorder *r)
{
	const int32_t ev[2] = {10, 11}, evno[1] = {12}, ft[1] = {11};
	int32_t got_l[UTRACE_FT_PIDS];
	uint32_t g;

	utrace_recorder_live_event_pids(r, 0, ev, 2, evno, 1);
	utrace_recorder_live_ftrace_pids(r, 0, ft, 1, NULL, 0);
	rec_live_pids_fork(r, 11, 500);
	check(utrace_recorder_live_pids_get(r, 0, UTRACE_RECORDER_PIDS_EVENT, got_l) == 2,
	      "options off: a fork adds nothing");
	utrace_recorder_live_follow_fork(r, 0, UTRACE_RECORDER_FOLLOW_EVENT);
	g = r->ctl->ft_pid_gen;
	rec_live_pids_fork(r, 11, 500);
	rec_live_pids_fork(r, 12, 501);
	rec_live_pids_fork(r, 13, 502);
	check(utrace_recorder_live_pids_get(r, 0, UTRACE_RECORDER_PIDS_EVENT, got_l) == 3 &&
		  got_l[2] == 500 && !r->ctl->ev_pids[3],
	      "event-fork: the child of a listed thread joins set_event_pid, 0-terminated");
	check(utrace_recorder_live_pids_get(r, 0, UTRACE_RECORDER_PIDS_EVENT_NOTRACE, got_l) == 2 &&
		  got_l[1] == 501,
	      "... and set_event_notrace_pid; a thread in no list adds no child");
	check(utrace_recorder_live_pids_get(r, 0, UTRACE_RECORDER_PIDS_FTRACE, got_l) == 1 &&
		  r->ctl->ft_pid_gen == g,
	      "the function lists follow function-fork only");
	utrace_recorder_live_follow_fork(r, 0, UTRACE_RECORDER_FOLLOW_FUNCTION);
	rec_live_pids_fork(r, 11, 503);
	check(utrace_recorder_live_pids_get(r, 0, UTRACE_RECORDER_PIDS_FTRACE, got_l) == 2 &&
		  got_l[1] == 503 && r->ctl->ft_pid_gen != g && (r->ctl->ft_pid_gen & 1),
	      "function-fork: set_ftrace_pid gets the child, ft_pid_gen a new count");
	utrace_recorder_live_follow_fork(r, 0, UTRACE_RECORDER_FOLLOW_EVENT |
						UTRACE_RECORDER_FOLLOW_FUNCTION);
	rec_live_pids_exit(r, 10);
	rec_live_pids_exit(r, 503);
	check(utrace_recorder_live_pids_get(r, 0, UTRACE_RECORDER_PIDS_EVENT, got_l) == 2 &&
		  got_l[0] == 500 && got_l[1] == 11 &&
		  utrace_recorder_live_pids_get(r, 0, UTRACE_RECORDER_PIDS_FTRACE, got_l) == 1 &&
		  got_l[0] == 11,
	      "a process that exits leaves the lists, the last entry takes its place");
	for (int i = 0; i < UTRACE_EV_PIDS; i++)
		rec_live_pids_fork(r, 11, 1000 + i);
	check(utrace_recorder_live_pids_get(r, 0, UTRACE_RECORDER_PIDS_EVENT, got_l) == UTRACE_EV_PIDS,
	      "a full list takes no more children");
	utrace_recorder_live_event_pids(r, 0, NULL, 0, NULL, 0);
	utrace_recorder_live_ftrace_pids(r, 0, NULL, 0, NULL, 0);
}

/* The lists of several readers (the top level, instances): the control
 * page's are their union, each reader's forks and exits are its own and
 * logged with their times once readers are counted. */
static void readers(struct utrace_recorder *r)
{
	const int32_t ten[1] = {10}, twenty[1] = {20}, thirty[1] = {30};
	struct utrace_recorder_pid_change *ch = NULL;
	int32_t got_l[UTRACE_RECORDER_PIDS_MAX];
	size_t n;

	utrace_recorder_live_follow_fork(r, 0, 0);
	utrace_recorder_live_event_pids(r, 0, ten, 1, NULL, 0);
	utrace_recorder_live_pid_readers(r, 1u | 1u << 1);
	check(!r->ctl->ev_pids[0], "reader 1 without lists: the page's ids empty (every thread)");
	utrace_recorder_live_event_pids(r, 1, twenty, 1, NULL, 0);
	check(r->ctl->ev_pids[0] == 10 && r->ctl->ev_pids[1] == 20 && !r->ctl->ev_pids[2],
	      "readers 0 {10} and 1 {20}: the page's ids the union");
	check(utrace_recorder_live_pids_get(r, 1, UTRACE_RECORDER_PIDS_EVENT, got_l) == 1 &&
		  got_l[0] == 20 && utrace_recorder_live_pids_get(r, 0, 0, got_l) == 1 &&
		  got_l[0] == 10,
	      "... each reader reads its own");
	utrace_recorder_live_event_pids(r, 0, NULL, 0, thirty, 1);
	check(!r->ctl->ev_pids[0] && r->ctl->ev_notrace_pids[0] == 30,
	      "0 without ids, notrace {30}, 1 not wanting 30: the page leaves 30 out");
	utrace_recorder_live_event_pids(r, 1, thirty, 1, NULL, 0);
	check(!r->ctl->ev_pids[0] && !r->ctl->ev_notrace_pids[0],
	      "... reader 1 lists 30: the page records it");
	utrace_recorder_live_follow_fork(r, 1, UTRACE_RECORDER_FOLLOW_EVENT);
	rec_live_pids_fork(r, 30, 31);
	check(utrace_recorder_live_pids_get(r, 1, UTRACE_RECORDER_PIDS_EVENT, got_l) == 2 &&
		  got_l[1] == 31 &&
		  utrace_recorder_live_pids_get(r, 0, UTRACE_RECORDER_PIDS_EVENT_NOTRACE, got_l) ==
		      1,
	      "event-fork of reader 1: the child of 30 joins its list, not reader 0's");
	rec_live_pids_exit(r, 31);
	n = utrace_recorder_live_pid_changes(r, &ch);
	check(n == 2 && ch[0].reader == 1 && ch[0].which == UTRACE_RECORDER_PIDS_EVENT &&
		  ch[0].tid == 31 && ch[0].join && !ch[1].join && ch[1].ns >= ch[0].ns &&
		  ch[0].ns > 0,
	      "the join and the leave are logged, in order, with their times (%zu)", n);
	free(ch);
	check(utrace_recorder_live_pid_changes(r, &ch) == 0, "... and handed over once");
	free(ch);
	utrace_recorder_live_event_pids(r, 0, ten, 1, NULL, 0);
	utrace_recorder_live_pid_readers(r, 1);
	check(r->ctl->ev_pids[0] == 10 && !r->ctl->ev_pids[1] &&
		  utrace_recorder_live_pids_get(r, 1, UTRACE_RECORDER_PIDS_EVENT, got_l) == 0,
	      "reader 1 gone: its lists too, the page the top level's");
	utrace_recorder_live_pid_readers(r, 1u | 1u << UTRACE_READERS);
	check(!r->ctl->ev_pids[0], "a reader without a slot: every thread");
	utrace_recorder_live_pid_readers(r, 1);
	utrace_recorder_live_event_pids(r, 0, NULL, 0, NULL, 0);
}

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
	check(utrace_recorder_live_ftrace_pids(r, 0, pids, 2, no, 1) == 0, "lists set");
	g1 = r->ctl->ft_pid_gen;
	check((g1 & 1) && g1 != g0 && r->ctl->ft_pids[0] == 100 && r->ctl->ft_pids[1] == 200 &&
		  !r->ctl->ft_pids[2] && r->ctl->ft_notrace_pids[0] == 300 &&
		  !r->ctl->ft_notrace_pids[1],
	      "0-terminated lists on the page, bit 0 set, a new count (%#x)", g1);
	check(utrace_recorder_live_ftrace_pids(r, 0, NULL, 0, NULL, 0) == 0, "lists cleared");
	g2 = r->ctl->ft_pid_gen;
	check(!(g2 & 1) && g2 != g1 && g2 != g0 && !r->ctl->ft_pids[0] && !r->ctl->ft_notrace_pids[0],
	      "empty: bit 0 clear, another count (%#x)", g2);
	check(utrace_recorder_live_ftrace_pids(r, 0, many, UTRACE_FT_PIDS + 1, NULL, 0) == -ENOSPC &&
		  r->ctl->ft_pid_gen == g2,
	      "more than UTRACE_FT_PIDS: -ENOSPC, nothing changed");
	follow(r);
	readers(r);
	check(!r->ctl->dump_on_crash, "no --dump-on-crash: the page's dump_on_crash 0");
	utrace_recorder_live_dump_on_crash(r, true);
	check(r->ctl->dump_on_crash == 1, "options/dump-on-crash 1: the word 1");
	utrace_recorder_live_dump_on_crash(r, false);
	check(!r->ctl->dump_on_crash, "... 0: the word 0");
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
