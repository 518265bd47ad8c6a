/* SPDX-License-Identifier: MIT */
/*
 * report_hist.c - `utrace report --hist`: the tables the hist triggers of a
 * recording filled (HIST records, lib/tracefile/dat_hist.c), each printed
 * by lib/hist/hist_print.c in the kernel's hist file format.  The file
 * keeps each trigger as its text (as the kernel's trigger file shows it),
 * parsed here once per table for the names, modifiers and sort keys;
 * the saved program gives the key's layout.  Names the kernel looks up at
 * print time are looked up in the recording: a pid's command for
 * .execname, an address's symbol for .sym.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist_prog.h"
#include "lib/base/glob.h"
#include "lib/base/syscall_names.h"
#include "lib/hist/hist.h"
#include "lib/report/report_hist.h"

static const char *hist_comm(void *arg, int pid)
{
	return utrace_dat_comm(arg, pid);
}

/* A kernel address (a common_stacktrace key of a kernel event): %ps
 * "name [mod]", %pS "name+0xoff/0xsize [mod]", from the recording's
 * kallsyms. */
static const char *hist_ksym(const struct utrace_dat *d, uint64_t addr, char *buf, size_t n,
			     bool with_offset)
{
	uint64_t off, size;
	const char *s = utrace_dat_ksym(d, addr, &off, &size), *mod;

	if (!s)
		return NULL;
	if (!with_offset) {
		snprintf(buf, n, "%s", s);
		return buf;
	}
	mod = strstr(s, " [");
	snprintf(buf, n, "%.*s+0x%llx/0x%llx%s", (int)(mod ? mod - s : (long)strlen(s)), s,
		 (unsigned long long)off, (unsigned long long)size, mod ? mod : "");
	return buf;
}

static const char *hist_sym(void *arg, uint64_t addr, char *buf, size_t n, bool with_offset)
{
	struct utrace_dat *d = arg;

	if (addr >> 47 && utrace_dat_has_ksyms(d)) /* the kernel's half */
		return hist_ksym(d, addr, buf, n, with_offset);

	/* user addresses of any image: the first image that knows it */
	for (unsigned i = 0; i < utrace_dat_image_count(d); i++) {
		uint64_t off = 0;
		const char *s = utrace_dat_addr_name(d, utrace_dat_image_get(d, i)->image, addr, &off);

		if (!s)
			continue;
		if (with_offset) /* the kernel's %pS: name+0xoff */
			snprintf(buf, n, "%s+0x%llx", s, (unsigned long long)off);
		else
			snprintf(buf, n, "%s", s);
		return buf;
	}
	return NULL;
}

/* The kernel's name of a syscall (its metadata's, get_syscall_name):
 * "sys_" and the name; valid until the thread's next call. */
static const char *hist_syscall(void *arg, int nr)
{
	static _Thread_local char buf[80];
	const char *name = utrace_syscall_name(nr);

	(void)arg;
	if (!name)
		return NULL;
	snprintf(buf, sizeof(buf), "sys_%s", name);
	return buf;
}

static bool hist_selected(const struct utrace_dat_hist_info *h, const char *event)
{
	char name[256];

	if (!event)
		return true;
	snprintf(name, sizeof(name), "%s:%s", h->system, h->event);
	return utrace_glob_match(event, name);
}

/* The saved trigger text of a table, parsed (the file keeps a trigger as
 * the kernel's trigger file shows it: its text): *trig, or < 0 with
 * *mismatch set if it parsed but is not the hist trigger of prog. */
static int hist_trigger(const char *text, const struct utrace_hist_hdr *prog,
			struct utrace_trigger **trig, bool *mismatch, struct utrace_error *err)
{
	int code, ret = utrace_trigger_parse(text, trig, &code, err);

	*mismatch = false;
	if (ret < 0)
		return ret;
	if ((*trig)->cmd != UTRACE_TRIG_HIST || (*trig)->hist->nr_keys != prog->nr_keys) {
		utrace_trigger_free(*trig);
		*trig = NULL;
		*mismatch = true;
		return -EINVAL;
	}
	return 0;
}

int utrace_report_hist_table(struct utrace_dat *d, FILE *out, const char *trigger,
			     const struct utrace_hist_table *t, struct utrace_error *err)
{
	struct utrace_hist_names names = {hist_comm, hist_sym, hist_syscall, d};
	struct utrace_trigger *trig = NULL;
	bool mismatch;
	int ret = hist_trigger(trigger, t->prog, &trig, &mismatch, err);

	if (ret < 0 && mismatch)
		return utrace_error_set(err, -EINVAL, "trigger '%s' does not match its table",
					trigger);
	if (ret < 0)
		return ret;
	ret = utrace_hist_print(out, trig->hist, t, &names, err);
	utrace_trigger_free(trig);
	return ret;
}

static int hist_one(struct utrace_dat *d, FILE *out, const struct utrace_dat_hist_info *h,
		    struct utrace_error *err)
{
	struct utrace_hist_names names = {hist_comm, hist_sym, hist_syscall, d};
	struct utrace_hist_table t = {
	    .prog = h->prog,
	    .hits = h->hits,
	    .drops = h->drops,
	    .elts = h->elts,
	    .nr_elts = h->nr_elts,
	    .paused = h->paused,
	    .snap_seq = h->snap_seq,
	    .snap_val = h->snap_val,
	};
	struct utrace_trigger *trig = NULL;
	bool mismatch;
	int ret = hist_trigger(h->trigger, h->prog, &trig, &mismatch, err);

	if (ret < 0 && mismatch)
		return utrace_error_set(err, -EINVAL, "%s:%s: trigger '%s' does not match its table",
					h->system, h->event, h->trigger);
	if (ret < 0)
		return utrace_error_set(err, ret, "%s:%s: trigger '%s': %s", h->system, h->event,
					h->trigger, err->msg);
	ret = utrace_hist_print(out, trig->hist, &t, &names, err);
	utrace_trigger_free(trig);
	return ret;
}

int utrace_report_print_hist(struct utrace_dat *d, FILE *out, const char *event,
			     struct utrace_error *err)
{
	unsigned n = utrace_dat_hist_count(d), shown = 0;
	bool *done = calloc(n ? n : 1, sizeof(*done));

	if (!done)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	/* the tables of one event together, in the order of their triggers */
	for (unsigned i = 0; i < n; i++) {
		const struct utrace_dat_hist_info *a = utrace_dat_hist_get(d, i);

		for (unsigned k = i; k < n; k++) {
			const struct utrace_dat_hist_info *b = utrace_dat_hist_get(d, k);

			if (done[k] || strcmp(a->system, b->system) || strcmp(a->event, b->event) ||
			    !hist_selected(b, event))
				continue;
			done[k] = true;
			if (shown++)
				fputs("\n\n", out);
			if (hist_one(d, out, b, err) < 0) {
				free(done);
				return err->code;
			}
		}
	}
	free(done);
	return (int)shown;
}
