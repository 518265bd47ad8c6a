/* SPDX-License-Identifier: MIT */
/*
 * bt_tracepoint.c - `tracepoint:SYSTEM:EVENT` of the kernel in utrace bt:
 * the events a probe's globs name, from the tracefs's available_events
 * (bpftrace's "tracepoint not found" when none), recorded by the
 * recording's kernel instance (`utrace record -e SYSTEM:EVENT`: the
 * traced processes' events with -c or -p, every process's without, the
 * recording then holding a process of its own that waits to be ended,
 * whose events are left out), and replayed as a uprobe's are.  The
 * name of the thread that hit one (comm) is the recording's, else
 * /proc's, else (the thread gone) the kernel's saved_cmdlines, read once
 * a reading (bt_tracepoint.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/glob.h"
#include "lib/base/proc_self.h"
#include "lib/bt/bt_run_internal.h"
#include "lib/bt/bt_tracepoint.h"
#include "lib/elf/libdeps.h"
#include "lib/events/event_format.h"
#include "lib/bt/bt_types.h"
#include "lib/kernel/kernel_tracefs.h"
#include "lib/tracefile/dat_reader.h"

/* The program's own tracepoints (TRACE_EVENT, in its ELF file) that the
 * globs match, appended to *v. */
static int find_own(const char *exe, const char *sys, const char *event, char ***v, size_t *cnt)
{
	struct utrace_event_list *l = NULL;
	struct utrace_error e = {0};
	int ret = 0;

	if (!exe || utrace_event_list_load(exe, &l, &e) < 0)
		return 0;
	for (unsigned i = 0; i < utrace_event_list_count(l) && !ret; i++) {
		const struct utrace_event_format *f = utrace_event_list_get(l, i);
		char **nv;

		if (!utrace_glob_match(sys, f->system) || !utrace_glob_match(event, f->name))
			continue;
		if (!(nv = realloc(*v, (*cnt + 1) * sizeof(**v))) ||
		    asprintf(&nv[*cnt], "%s:%s", f->system, f->name) < 0) {
			*v = nv ? nv : *v;
			ret = -ENOMEM;
			break;
		}
		*v = nv;
		(*cnt)++;
	}
	utrace_event_list_free(l);
	return ret;
}

bool bt_tracepoint_own(const char *exe, const char *sys, const char *event)
{
	char **v = NULL;
	size_t n = 0;

	find_own(exe, sys, event, &v, &n);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return n > 0;
}

int bt_tracepoint_find_in(const char *exe, const char *sys, const char *event, char ***out,
			  size_t *n)
{
	char **v = NULL;
	size_t cnt = 0;
	int ret = find_own(exe, sys, event, &v, &cnt);
	char **k = NULL;
	size_t nk = 0;

	if (!ret && (ret = bt_tracepoint_find(sys, event, &k, &nk)) == -ENOENT)
		ret = 0; /* no tracefs: the program's own only */
	for (size_t i = 0; i < nk; i++) {
		char **nv = ret ? NULL : realloc(v, (cnt + 1) * sizeof(*v));

		if (!nv) {
			free(k[i]);
			ret = ret ? ret : -ENOMEM;
			continue;
		}
		v = nv;
		v[cnt++] = k[i];
	}
	free(k);
	bt_names_sort(v, &cnt, true); /* one event, once */
	*out = v;
	*n = cnt;
	return ret;
}

int bt_tracepoint_find(const char *sys, const char *event, char ***out, size_t *n)
{
	char path[4096], *text, *line, *save = NULL;
	char **v = NULL;
	size_t cnt = 0;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!utrace_tracefs_root())
		return -ENOENT;
	text = utrace_tracefs_read(utrace_tracefs_path(path, utrace_tracefs_root(),
						       "available_events"));
	if (!text)
		return -errno ? -errno : -ENOENT;
	for (line = strtok_r(text, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), **nv;

		if (!colon)
			continue;
		*colon = 0;
		if (!utrace_glob_match(sys, line) || !utrace_glob_match(event, colon + 1))
			continue;
		*colon = ':';
		if (!(nv = realloc(v, (cnt + 1) * sizeof(*v))) || !(nv[cnt] = strdup(line))) {
			v = nv ? nv : v;
			ret = -ENOMEM;
			break;
		}
		v = nv;
		cnt++;
	}
	free(text);
	bt_names_sort(v, &cnt, false);
	*out = v;
	*n = cnt;
	return ret;
}

void bt_cmdlines_free(struct bt_cmdlines *cl)
{
	utrace_ksaved_free(&cl->saved);
	*cl = (struct bt_cmdlines){0};
}

void bt_cmdlines_stale(struct bt_cmdlines *cl)
{
	cl->fresh = false;
	memset(cl->seen, 0, sizeof(cl->seen));
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/* The kernel's name of tid, gone, at its hit at ts: the table read last
 * if it was read after the hit and names tid, else the table read anew
 * (once a reading: the cats of a shell loop are new pids at every one). */
static void saved_cmdline(struct bt_cmdlines *cl, int tid, uint64_t ts, char *comm, size_t size)
{
	const char *name = ts <= cl->read_ns ? utrace_ksaved_find(&cl->saved, tid) : NULL;

	if (!name && !cl->fresh) {
		uint64_t now = mono_ns();

		if (utrace_ksaved_read(&cl->saved, "saved_cmdlines") == 0)
			cl->read_ns = now;
		cl->fresh = true;
		name = utrace_ksaved_find(&cl->saved, tid);
	}
	if (name)
		snprintf(comm, size, "%s", name);
}

/* The format of the first event ap names (the program's own, else the
 * kernel's: *kernel); NULL if none. */
static struct utrace_event_format *first_format(const char *exe, const struct bt_attach *ap,
						bool *kernel)
{
	struct utrace_event_format *f = NULL;
	struct utrace_error e = {0};
	char **v = NULL, path[4096], *text = NULL, *colon;
	struct utrace_event_list *l = NULL;
	size_t n = 0;

	if (exe && utrace_event_list_load(exe, &l, &e) < 0)
		l = NULL;
	for (unsigned i = 0; l && i < utrace_event_list_count(l) && !text; i++) {
		const struct utrace_event_format *o = utrace_event_list_get(l, i);

		if (utrace_glob_match(ap->target, o->system) &&
		    utrace_glob_match(ap->func, o->name) &&
		    (text = utrace_event_format_text(o, 0)) != NULL &&
		    utrace_event_format_parse(o->system, text, &f, &e) < 0)
			f = NULL;
	}
	utrace_event_list_free(l);
	*kernel = !text;
	if (text) {
		free(text);
		return f;
	}
	if (bt_tracepoint_find(ap->target, ap->func, &v, &n) == 0 && n) {
		colon = strchr(v[0], ':');
		*colon = 0;
		text = utrace_tracefs_read(utrace_tracefs_path(path, utrace_tracefs_root(),
							       "events/%s/%s/format", v[0], colon + 1));
		if (text && utrace_event_format_parse(v[0], text, &f, &e) < 0)
			f = NULL;
	}
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	free(text);
	return f;
}

int bt_tracepoint_check_field(struct bt_program *p, const struct bt_probe *pr, struct bt_node *n,
			      struct utrace_error *err)
{
	bool kernel;
	struct utrace_event_format *f = first_format(p->exe, &pr->aps[0], &kernel);
	const struct utrace_event_field *fl = f ? utrace_event_field_find(f, n->str + 5) : NULL;
	unsigned k;

	n->type = BT_T_INT;
	if (!f) /* no such event: resolving the probe says so */
		return 0;
	if (!fl || fl->common) {
		utrace_event_format_free(f);
		return bt_error(err, p, n->loc, BT_ERR_UNKNOWN_IDENT, n->str);
	}
	if (fl->kind == UTRACE_EF_CHARS) { /* __data_loc: its address, for str() */
		n->type = BT_T_STR;
		n->size = fl->size + 1;
	} else if (fl->size == 1 || fl->size == 2 || fl->size == 4 || fl->size == 8) {
		/* signed or not as the format says, as bpftrace types it */
		n->ctype = bt_ctype_int(p, fl->size, fl->is_signed, false);
	}
	if (kernel && strchr(fl->type, '*'))
		n->op[1] = 'k'; /* a kernel event's pointer into the process: str() */
	utrace_event_format_free(f);
	for (k = 0; k < p->ntp_fields && strcmp(p->tp_fields[k], n->str + 5); k++)
		;
	if (k == 6)
		return bt_error(err, p, n->loc, BT_ERR_UNKNOWN_IDENT, n->str);
	if (k == p->ntp_fields && !(p->tp_fields[p->ntp_fields++] = strdup(n->str + 5)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	n->slot = (int)k;
	return 0;
}

char *bt_tracepoint_exe(char *const *argv, int pid)
{
	char buf[4096];

	if (pid > 0)
		return utrace_proc_exe(pid, buf, sizeof(buf)) > 0 ? strdup(buf) : NULL;
	return argv && argv[0] ? utrace_program_path(argv[0]) : NULL;
}

void bt_tracepoint_comm(const struct utrace_dat *d, struct bt_cmdlines *cl, int tid, uint64_t ts,
			char *comm, size_t size)
{
	const char *c = utrace_dat_comm(d, tid);
	struct bt_cmdline *seen = &cl->seen[(unsigned)tid % BT_COMM_CACHE];
	char path[64];
	FILE *f;

	if (c && *c && strcmp(c, "<...>")) {
		snprintf(comm, size, "%s", c);
		return;
	}
	if (tid > 0 && seen->pid == tid) {
		snprintf(comm, size, "%s", seen->comm);
		return;
	}
	snprintf(comm, size, "<...>");
	snprintf(path, sizeof(path), "/proc/%d/comm", tid);
	if ((f = fopen(path, "r")) != NULL) {
		if (fgets(comm, (int)size, f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	} else {
		saved_cmdline(cl, tid, ts, comm, size); /* gone already: the kernel's name of it */
	}
	seen->pid = tid;
	snprintf(seen->comm, sizeof(seen->comm), "%s", comm);
}
