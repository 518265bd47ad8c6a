/* SPDX-License-Identifier: MIT */
/*
 * test_live_dynev.c - events defined while the programs run.
 *
 * The recorder's side (lib/record/recorder_live.c): a probe and a
 * synthetic event added to a recording get the next key or index, their
 * format saved in the file under their id, their event off on the
 * control page until enabled, and removal turns them off for good.  The
 * runtime's side is tests/kernel/tracefs_dynev.sh.
 *
 * The files' rules (lib/tracefs/live_dynev.c), with ops that parse with the
 * real parsers (lib/probes, lib/hist) and keep the events in a table:
 * lines run in order, comments and blank lines skipped, the first bad
 * one ends the write with the kernel's error_log entry and caret; an
 * enabled event cannot be removed, and `>` removes all or none.
 * utrace.kallsyms (lib/tracefs/live_kallsyms.c) over ops that give a
 * program's and a library's symbols, and the kernel's points it makes
 * possible: an address, SYMBOL+OFFS past the function's end, a symbol
 * that is not unique.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/hist/synth.h"
#include "lib/tracefs/live_internal.h"
#include "lib/probes/inproc_probe.h"
#include "lib/record/recorder.h"
#include "lib/record/recorder_internal.h"
#include "lib/tracefile/dat_reader.h"
#include "tests/unit/check.h"

/* ---- the recorder ------------------------------------------------------ */

static void recorder_side(void)
{
	struct utrace_inproc_probe *start = NULL, *p = NULL;
	struct utrace_inproc_probe *kp[1];
	struct utrace_recorder_opts o = {0};
	struct utrace_recorder *r = NULL;
	struct utrace_error err = {0};
	struct utrace_synth *s = NULL;
	struct utrace_dat *d = NULL;
	struct utrace_recorder_stats st;
	const char *sys = NULL, *text;
	char out[512], *ptext, *stext;
	int code, key;

	if (utrace_inproc_probe_parse("p:grp/x foo", NULL, &start, &code, &err) < 0 ||
	    utrace_inproc_probe_parse("p:grp/new foo n=%di:u32", NULL, &p, &code, &err) < 0 ||
	    utrace_synth_parse("lat_ev u64 lat; pid_t pid", 0, &s, &code, &err) < 0) {
		check(0, "parse: %s", err.msg);
		return;
	}
	kp[0] = start;
	snprintf(out, sizeof(out), "%s/t.dat", check_tmpdir());
	o.output = out;
	o.buffer_kb = 64;
	o.inproc_probes = kp;
	o.nr_inproc_probes = 1;
	if (utrace_recorder_new(&o, &r, &err) < 0) {
		check(0, "recorder: %s", err.msg);
		return;
	}
	ptext = utrace_event_format_text(utrace_inproc_probe_format(p), UTRACE_EV_ID_BASE + 5);
	stext = utrace_event_format_text(s->fmt, UTRACE_EV_ID_BASE + 6);
	key = utrace_recorder_inproc_probe_add(r, p, UTRACE_EV_ID_BASE + 5, ptext, &err);
	check(key == 1, "a probe added live gets the key after the command line's (%d)", key);
	check(r->ctl->ev_state[5] & UTRACE_EVS_OFF, "its event starts off (ev_state)");
	check(utrace_recorder_inproc_probe_enable(r, "grp", "new", -1) == 0, "enable reads 0");
	check(utrace_recorder_inproc_probe_enable(r, "grp", "new", 1) == 1 &&
		  !(r->ctl->ev_state[5] & UTRACE_EVS_OFF),
	      "enable 1 clears the control page's OFF bit");
	check(utrace_recorder_inproc_probe_enable(r, "grp", "x", 1) == -ENOENT,
	      "the command line's probe has no live enable (-ENOENT)");
	check(utrace_recorder_inproc_probe_enable(r, "grp", "new", 0) == 0 &&
		  (r->ctl->ev_state[5] & UTRACE_EVS_OFF),
	      "enable 0 sets it again");
	check(utrace_recorder_inproc_probe_remove(r, "grp", "new", &err) == 0 &&
		  utrace_ctl_inproc_probe_off(r->ctl, 1) && !utrace_ctl_inproc_probe_off(r->ctl, 0),
	      "removing it turns key 1 off, not the command line's key 0");
	check(utrace_recorder_inproc_probe_enable(r, "grp", "new", -1) == -ENOENT,
	      "a removed probe has no enable");

	key = utrace_recorder_synth_add(r, s, UTRACE_EV_ID_BASE + 6, stext, &err);
	check(key == 0, "a synthetic event added live is EMIT index 0 (%d)", key);
	check(utrace_recorder_synth_enable(r, "lat_ev", UTRACE_EV_ID_BASE + 6, -1) == 0 &&
		  utrace_recorder_synth_enable(r, "lat_ev", UTRACE_EV_ID_BASE + 6, 1) == 1,
	      "it starts off and is turned on");
	check(utrace_recorder_synth_remove(r, "lat_ev", UTRACE_EV_ID_BASE + 6) == 0 &&
		  (r->ctl->ev_state[6] & UTRACE_EVS_OFF) &&
		  utrace_recorder_synth_enable(r, "lat_ev", UTRACE_EV_ID_BASE + 6, -1) == -ENOENT,
	      "removed: off, and its name is free");
	if (utrace_recorder_finish(r, &st, &err) < 0 || utrace_dat_open(out, &d, &err) < 0) {
		check(0, "finish and read: %s", err.msg);
	} else {
		text = utrace_dat_event_format_by_id(d, UTRACE_EV_ID_BASE + 5, &sys);
		check(text && sys && !strcmp(sys, "grp") && !strcmp(text, ptext),
		      "the probe's format is in the file under its id and group");
		text = utrace_dat_event_format_by_id(d, UTRACE_EV_ID_BASE + 6, &sys);
		check(text && sys && !strcmp(sys, "synthetic") && !strcmp(text, stext),
		      "the synthetic event's format is in the file");
		utrace_dat_close(d);
	}
	utrace_recorder_free(r); /* frees p and s: the recorder's */
	free(ptext);
	free(stext);
	utrace_inproc_probe_free(start);
}

/* ---- the files --------------------------------------------------------- */

struct fix_ev {
	struct utrace_inproc_probe *p;
	struct utrace_synth *s;
	bool on, gone;
};

static struct fix_ev evs[16];
static unsigned nev, removed;

static struct fix_ev *fix_find(const char *sys, const char *name)
{
	for (unsigned i = 0; i < nev; i++) {
		const struct utrace_event_format *f =
		    evs[i].p ? utrace_inproc_probe_format(evs[i].p) : evs[i].s->fmt;

		if (!evs[i].gone && !strcmp(f->system, sys) && !strcmp(f->name, name))
			return &evs[i];
	}
	return NULL;
}

static char last_def[256]; /* the definition fix_probe was given last */

static int fix_probe(void *arg, const char *def, enum utrace_live_probe file, char **line,
		     const struct utrace_event_format **fmt, struct utrace_error *err)
{
	bool path = !utrace_inproc_probe_is_in_process(def);
	struct utrace_inproc_probe *p;

	snprintf(last_def, sizeof(last_def), "%s", def);
	if ((file == UTRACE_LIVE_KPROBE && path) || (file == UTRACE_LIVE_UPROBE && !path))
		return utrace_error_set(err, -EINVAL, "not this file's kind of point");
	if (utrace_inproc_probe_parse_as(def, NULL,
				   path ? "uprobes" : file == UTRACE_LIVE_KPROBE ? "kprobes" : NULL,
				   path, &p, NULL, err) < 0)
		return err->code;
	evs[nev].p = p;
	*fmt = utrace_inproc_probe_format(evs[nev++].p);
	*line = strdup(def);
	return 0;
}

static int fix_synth(void *arg, const char *def, char **line,
		     const struct utrace_event_format **fmt, struct utrace_error *err)
{
	struct utrace_synth *s;
	int code;

	if (utrace_synth_parse(def, 0, &s, &code, err) < 0)
		return err->code;
	evs[nev].s = s;
	*fmt = s->fmt;
	nev++;
	if (asprintf(line, "s:synthetic/%s", def) < 0)
		return -ENOMEM;
	return 0;
}

static int fix_remove(void *arg, const char *sys, const char *name, const char *line,
		      struct utrace_error *err)
{
	struct fix_ev *e = fix_find(sys, name);

	if (!e)
		return -ENOENT;
	e->gone = true;
	removed++;
	return 0;
}

static int fix_enable(void *arg, const char *sys, const char *name, int on)
{
	struct fix_ev *e = fix_find(sys, name);

	if (!e)
		return -ENOENT;
	if (on >= 0)
		e->on = on;
	return e->on;
}

static int show_errlog(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	live_errlog_show(l, out);
	return 0;
}

/* The files of live_dynev.c, as live_files.c lists them. */
static const struct live_file f_dyn = {"dynamic_events", 0644, live_show_dynev, live_open_dynev,
				       live_write_dynev, NULL, LIVE_DYN_DYNAMIC, false};
static const struct live_file f_synth = {"synthetic_events", 0644, live_show_dynev,
					 live_open_dynev, live_write_dynev, NULL,
					 LIVE_DYN_SYNTHETIC, false};
static const struct live_file f_kp = {"kprobe_events", 0644, live_show_dynev, live_open_dynev,
				      live_write_dynev, NULL, LIVE_DYN_KPROBES, false};
static const struct live_file f_up = {"uprobe_events", 0644, live_show_dynev, live_open_dynev,
				      live_write_dynev, NULL, LIVE_DYN_UPROBES, false};
static const struct live_file f_log = {"error_log", 0644, show_errlog, NULL, NULL, NULL, 0, false};

/* What file f shows, in out (size bytes). */
static void show(struct utrace_live *l, const struct live_file *file, char *out, size_t size)
{
	struct live_handle h = {.f = file};
	FILE *f = fmemopen(out, size, "w");

	memset(out, 0, size);
	file->show(l, &h, f);
	fclose(f);
}

static long put_to(struct utrace_live *l, const struct live_file *file, const char *text)
{
	struct live_handle h = {.f = file};

	return live_write_dynev(l, &h, text, strlen(text));
}

static long put(struct utrace_live *l, const char *text, bool synth)
{
	return put_to(l, synth ? &f_synth : &f_dyn, text);
}

static int trunc_of(struct utrace_live *l, const struct live_file *file, int flags)
{
	struct live_handle h = {.f = file};

	return live_open_dynev(l, &h, flags);
}

static void files_side(void)
{
	struct utrace_live l;
	char out[4096], log[1024];
	const char *good = "p:g/a foo x=%di\n# a comment\n\np:g/b bar\n";
	long n;

	memset(&l, 0, sizeof(l));
	l.ops.probe_add = fix_probe;
	l.ops.synth_add = fix_synth;
	l.ops.dynev_remove = fix_remove;
	l.ops.dynev_enable = fix_enable;
	n = put(&l, good, false);
	check(n == (long)strlen(good), "two lines, a comment and a blank line are taken (%ld)", n);
	show(&l, &f_dyn, out, sizeof(out));
	check(!strcmp(out, "p:g/a foo x=%di\np:g/b bar\n"), "dynamic_events lists them: '%s'", out);
	check(live_dynev_find(&l, "g", "a") && live_dynev_find(&l, NULL, "b") &&
		  live_dynev_format(&l, 1) && !live_dynev_format(&l, 2),
	      "events/ finds them, by group or not");

	n = put(&l, "p:g/c foo\np:g/d foo x=%zz\np:g/e foo\n", false);
	check(n == -EINVAL, "a bad line fails the write with EINVAL (%ld)", n);
	check(live_dynev_find(&l, "g", "c") && !live_dynev_find(&l, "g", "e"),
	      "the lines before it are taken, none after");
	show(&l, &f_log, log, sizeof(log));
	check(strstr(log, "] trace_kprobe: error: Invalid register name\n"
			  "  Command: p:g/d foo x=%zz\n"
			  "                       ^\n") != NULL,
	      "error_log has the kernel's text, command and caret: '%s'", log);

	fix_enable(NULL, "g", "a", 1);
	check(trunc_of(&l, &f_dyn, O_WRONLY | O_TRUNC) == -EBUSY && removed == 0,
	      "> dynamic_events with one enabled: EBUSY, nothing removed");
	check(put(&l, "-:g/a", false) == -EBUSY, "-: of an enabled one: EBUSY");
	fix_enable(NULL, "g", "a", 0);
	check(put(&l, "-:a", false) == 3 && !live_dynev_find(&l, "g", "a") && removed == 1,
	      "-:EVENT without a group removes it");
	check(put(&l, "-:g/nosuch", false) == -ENOENT, "-: of an unknown one: ENOENT");

	check(put(&l, "lat_ev u64 lat; pid_t pid", true) > 0, "synthetic_events takes a definition");
	check(put(&l, "s:synthetic/other u64 x", false) > 0, "dynamic_events takes s:synthetic/");
	show(&l, &f_synth, out, sizeof(out));
	check(!strcmp(out, "lat_ev u64 lat; pid_t pid\nother u64 x\n"),
	      "synthetic_events lists only them, without s:synthetic/: '%s'", out);
	check(put(&l, "bad_ev u64 lat; foo_t pid", true) == -EINVAL, "a bad type: EINVAL");
	show(&l, &f_log, log, sizeof(log));
	check(strstr(log, "] synthetic_events: error: Invalid type\n"
			  "  Command: bad_ev u64 lat; foo_t pid\n"
			  "                           ^\n") != NULL,
	      "error_log: synthetic_events, its caret: '%s'", log);
	check(put(&l, "!lat_ev", true) > 0 && !live_dynev_find(&l, "synthetic", "lat_ev"),
	      "!NAME removes a synthetic event");
	check(trunc_of(&l, &f_synth, O_WRONLY | O_TRUNC) == 0 &&
		  !live_dynev_find(&l, "synthetic", "other") && live_dynev_find(&l, "g", "b"),
	      "> synthetic_events removes the synthetic events only");
	check(trunc_of(&l, &f_dyn, O_RDONLY | O_TRUNC) == 0 && live_dynev_find(&l, "g", "b"),
	      "a read-only open removes nothing");
	check(trunc_of(&l, &f_dyn, O_WRONLY | O_TRUNC) == 0 && l.ndyn == 0,
	      "> dynamic_events removes them all when none is enabled");
	live_dynev_free(&l);
	live_errlog_clear(&l);
	for (unsigned i = 0; i < nev; i++) {
		utrace_inproc_probe_free(evs[i].p);
		utrace_synth_free(evs[i].s);
	}
	memset(evs, 0, sizeof(evs)); /* the next side starts with no event */
	nev = removed = 0;
}

/* kprobe_events and uprobe_events: one kind each, of the one list */
static void kuprobe_side(void)
{
	struct utrace_live l;
	char out[4096], log[2048], exe[1024], def[1200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	memset(&l, 0, sizeof(l));
	l.ops.probe_add = fix_probe;
	l.ops.dynev_remove = fix_remove;
	l.ops.dynev_enable = fix_enable;
	exe[n > 0 ? n : 0] = 0;
	check(put_to(&l, &f_kp, "p:myprobe foo x=%di:s32") > 0 &&
		  live_dynev_find(&l, "kprobes", "myprobe"),
	      "kprobe_events takes a probe on a symbol, in group kprobes");
	snprintf(def, sizeof(def), "p:upr %s:main", exe);
	check(put_to(&l, &f_up, def) > 0 && live_dynev_find(&l, "uprobes", "upr"),
	      "uprobe_events takes PATH:SYMBOL, in group uprobes");
	show(&l, &f_kp, out, sizeof(out));
	check(!strcmp(out, "p:myprobe foo x=%di:s32\n"), "kprobe_events lists the kprobe only: '%s'",
	      out);
	show(&l, &f_up, out, sizeof(out));
	check(!strncmp(out, "p:upr /", 7) && !strchr(out, '\n')[1],
	      "uprobe_events lists the uprobe only: '%s'", out);
	show(&l, &f_dyn, out, sizeof(out));
	check(strstr(out, "p:myprobe") && strstr(out, "p:upr"), "dynamic_events lists both");

	snprintf(def, sizeof(def), "p:bad %s:main", exe);
	check(put_to(&l, &f_kp, def) == -EINVAL, "kprobe_events refuses a PATH: point");
	show(&l, &f_log, log, sizeof(log));
	check(strstr(log, "] trace_kprobe: error: ") != NULL, "... logged as trace_kprobe");
	check(put_to(&l, &f_up, "p:bad /no/such/file:0x10") == -EINVAL,
	      "uprobe_events refuses a missing file");
	show(&l, &f_log, log, sizeof(log));
	check(strstr(log, "] trace_uprobe: error: Failed to find the given file\n"
			  "  Command: p:bad /no/such/file:0x10\n"
			  "                 ^\n") != NULL,
	      "error_log: trace_uprobe, the kernel's text, the caret under the path: '%s'", log);
	check(put_to(&l, &f_kp, "f:x foo") == -EINVAL && put_to(&l, &f_kp, "s:x u64 a") == -EINVAL,
	      "kprobe_events takes no fprobe or synthetic line (EINVAL)");
	check(put_to(&l, &f_kp, "-:upr") == -ENOENT, "-: in kprobe_events finds no uprobe");

	fix_enable(NULL, "uprobes", "upr", 1);
	check(trunc_of(&l, &f_up, O_WRONLY | O_TRUNC) == -EBUSY, "> uprobe_events with it on: EBUSY");
	check(trunc_of(&l, &f_kp, O_WRONLY | O_TRUNC) == 0 &&
		  !live_dynev_find(&l, "kprobes", "myprobe") && live_dynev_find(&l, "uprobes", "upr"),
	      "> kprobe_events removes the kprobes only");
	fix_enable(NULL, "uprobes", "upr", 0);
	check(trunc_of(&l, &f_up, O_WRONLY | O_TRUNC) == 0 && l.ndyn == 0,
	      "> uprobe_events removes the uprobes once off");
	live_dynev_free(&l);
	live_errlog_clear(&l);
}

/* The traced objects' symbols (ops.symbols): a program, a library. */
static const struct {
	uint64_t addr, size;
	char type;
	const char *raw, *path;
} fix_syms[] = {
    {0x555500001000, 0x20, 'T', "foo", "/bin/prog"},
    {0x555500001020, 0x10, 't', "bar", "/bin/prog"},
    {0x555500001040, 0, 't', "name_show", "/bin/prog"},
    {0x7f0000002000, 0x30, 'T', "malloc", "/lib/libc.so.6"},
    {0x7f0000003000, 0x30, 't', "name_show", "/lib/libc.so.6"},
    {0x7f0000004000, 0x10, 'T', "dup", "/lib/libc.so.6"}, /* two versions of one */
    {0x7f0000004010, 0x10, 'T', "dup", "/lib/libc.so.6"},
};

static void fix_symbols(void *arg, utrace_live_sym_cb cb, void *cbarg)
{
	for (size_t i = 0; i < sizeof(fix_syms) / sizeof(fix_syms[0]); i++)
		cb(cbarg, fix_syms[i].addr, fix_syms[i].size, fix_syms[i].type, fix_syms[i].raw,
		   fix_syms[i].path, fix_syms[i].path[1] == 'b');
}

/* utrace.kallsyms, and the points kprobe_events takes from it: an
 * address, SYMBOL+OFFS past SYMBOL's end, a symbol that is not unique */
static void kallsyms_side(void)
{
	static const struct live_file f_ks = {"utrace.kallsyms", 0444, live_show_kallsyms, NULL,
					      NULL, NULL, 0, false};
	struct utrace_live l;
	char out[4096], log[2048];

	memset(&l, 0, sizeof(l));
	l.ops.probe_add = fix_probe;
	l.ops.dynev_remove = fix_remove;
	l.ops.dynev_enable = fix_enable;
	l.ops.symbols = fix_symbols;
	show(&l, &f_ks, out, sizeof(out));
	check(!strcmp(out, "0000555500001000 T foo\n0000555500001020 t bar\n"
			   "0000555500001040 t name_show\n00007f0000002000 T malloc\t[libc.so.6]\n"
			   "00007f0000003000 t name_show\t[libc.so.6]\n"
			   "00007f0000004000 T dup\t[libc.so.6]\n00007f0000004010 T dup\t[libc.so.6]\n"),
	      "utrace.kallsyms: ADDRESS TYPE NAME, a library's with [LIB]: '%s'", out);

	check(put_to(&l, &f_kp, "p:a 0x555500001024 x=%di") > 0 &&
		  !strcmp(last_def, "p:a prog:bar+0x4 x=%di"),
	      "an address point is the function holding it, at its offset: '%s'", last_def);
	check(put_to(&l, &f_kp, "p 0x7f0000002000") > 0 &&
		  !strcmp(last_def, "p:p_0x7f0000002000 libc.so.6:malloc+0x0"),
	      "without a name: the kernel's p_0xADDRESS: '%s'", last_def);
	check(put_to(&l, &f_kp, "p:c foo+32") > 0 && !strcmp(last_def, "p:c prog:bar+0x0"),
	      "SYMBOL+OFFS past its function's end: the address, in the next one: '%s'", last_def);
	check(put_to(&l, &f_kp, "p foo+0x24") > 0 && !strcmp(last_def, "p:p_foo_36 prog:bar+0x4"),
	      "... without a name: the kernel's p_SYMBOL_OFFS: '%s'", last_def);
	check(put_to(&l, &f_kp, "p:d foo+4") > 0 && !strcmp(last_def, "p:d foo+4"),
	      "an offset inside the function: as written: '%s'", last_def);
	check(put_to(&l, &f_kp, "p:f dup") > 0 && !strcmp(last_def, "p:f dup"),
	      "a library's versions of one global symbol: one symbol");
	show(&l, &f_kp, out, sizeof(out));
	check(!strcmp(out, "p:a 0x555500001024 x=%di\np:p_0x7f0000002000 0x7f0000002000\n"
			   "p:c foo+32\np:p_foo_36 foo+0x24\np:d foo+4\np:f dup\n"),
	      "kprobe_events lists the points as written: '%s'", out);

	check(put_to(&l, &f_kp, "p:e name_show") == -EINVAL && !live_dynev_find(&l, "kprobes", "e"),
	      "a symbol of two static functions: EINVAL");
	show(&l, &f_log, log, sizeof(log));
	check(strstr(log, "] trace_kprobe: error: The symbol is not unique\n"
			  "  Command: p:e name_show\n"
			  "               ^\n") != NULL,
	      "error_log: the kernel's NON_UNIQ_SYMBOL, the caret under the point: '%s'", log);
	check(put_to(&l, &f_kp, "p:g 0x10") == -EINVAL && !strcmp(last_def, "p:g 0x10"),
	      "an address no function holds: the parser's error");
	put_to(&l, &f_kp, "p:h foo-16");
	check(!strcmp(last_def, "p:h foo-16"), "a negative offset: to the parser as written");
	live_dynev_free(&l);
	live_errlog_clear(&l);
}

int main(void)
{
	if (check_tmpdir_init("live_dynev") < 0)
		return 1;
	recorder_side();
	files_side();
	kuprobe_side();
	kallsyms_side();
	check_tmpdir_cleanup();
	return check_done();
}
