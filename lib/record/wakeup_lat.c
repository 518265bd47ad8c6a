/* SPDX-License-Identifier: MIT */
/*
 * wakeup_lat.c - the wakeup and wakeup_rt tracers replayed on a
 * recording's kernel sched records (wakeup_lat.h), and their trace in the
 * kernel's latency format (kernel/trace/trace.c print_trace_header,
 * print_lat_help_header; trace_output.c trace_print_lat_context,
 * trace_ctxwake_print).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/base/grow.h"
#include "lib/events/event_format.h"
#include "lib/record/wakeup_lat.h"

#define MAX_RT_PRIO 100
#define NICE_0_PRIO 120	 /* a task whose prio no record told (the idle task's) */
#define REPORT_MASK 0xff /* sched_switch's prev_state: TASK_REPORT bits, below TASK_REPORT_MAX */

struct wl_field {
	uint32_t off, size; /* in the record, common fields included */
};

/* One line of the trace: the kernel's struct ctx_switch_entry and the
 * entry's common fields */
struct wl_entry {
	uint64_t ts;
	int32_t pid, cpu; /* the task that wrote it, where */
	uint8_t flags, preempt;
	int32_t prev_pid, prev_prio, next_pid, next_prio, next_cpu;
	char prev_state, next_state;
	char comm[17], next_comm[17];
};

/* what the records told of a task */
struct wl_task_seen {
	int32_t pid, prio;
	char comm[17];
};

struct utrace_wakeup_lat {
	bool on, rt;
	int wake_id, wake_new_id, switch_id;
	struct wl_field w_comm, w_pid, w_prio, w_cpu, s_prev_comm, s_prev_pid, s_prev_prio,
	    s_prev_state, s_next_comm, s_next_pid, s_next_prio;
	uint64_t max_ns;
	utrace_wakeup_lat_own_fn own;
	void *own_arg;
	struct wl_task_seen *tasks;
	size_t nr_tasks;
	bool waiting;
	int32_t wait_pid, wait_prio, wait_cpu;
	struct wl_entry wake;
	/* the trace kept */
	bool kept;
	uint64_t kept_lat;
	int32_t kept_cpu;
	struct wl_entry kept_wake, kept_switch;
};

int utrace_wakeup_lat_new(struct utrace_wakeup_lat **out)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return -ENOMEM;
	(*out)->wake_id = (*out)->wake_new_id = (*out)->switch_id = -1;
	return 0;
}

void utrace_wakeup_lat_free(struct utrace_wakeup_lat *w)
{
	if (!w)
		return;
	free(w->tasks);
	free(w);
}

void utrace_wakeup_lat_start(struct utrace_wakeup_lat *w, bool on, bool rt)
{
	w->on = on;
	w->rt = rt;
	w->waiting = false;
	if (on) /* the kernel's tracer init: max_latency = 0 */
		w->max_ns = 0, w->kept = false;
}

void utrace_wakeup_lat_scope(struct utrace_wakeup_lat *w, utrace_wakeup_lat_own_fn own, void *arg)
{
	w->own = own;
	w->own_arg = arg;
}

bool utrace_wakeup_lat_on(const struct utrace_wakeup_lat *w)
{
	return w && w->on;
}

void utrace_wakeup_lat_clear(struct utrace_wakeup_lat *w)
{
	w->kept = false;
}

void utrace_wakeup_lat_set_max(struct utrace_wakeup_lat *w, uint64_t max_ns)
{
	w->max_ns = max_ns;
}

uint64_t utrace_wakeup_lat_max(const struct utrace_wakeup_lat *w)
{
	return w->max_ns;
}

static int wl_field(const struct utrace_event_format *f, const char *name, struct wl_field *out)
{
	const struct utrace_event_field *fl = utrace_event_field_find(f, name);

	if (!fl || (fl->kind == UTRACE_EF_INT && fl->size != 4 && fl->size != 8))
		return -1;
	*out = (struct wl_field){fl->offset, fl->size};
	return 0;
}

static int64_t wl_value(const uint8_t *rec, uint32_t len, const struct wl_field *f)
{
	int32_t v4;
	int64_t v8;

	if (f->off + f->size > len)
		return -1;
	if (f->size == 4) {
		memcpy(&v4, rec + f->off, 4);
		return v4;
	}
	memcpy(&v8, rec + f->off, 8);
	return v8;
}

/* a char[16] field, NUL-terminated */
static void wl_text(const uint8_t *rec, uint32_t len, const struct wl_field *f, char out[17])
{
	uint32_t n = f->size < 16 ? f->size : 16;

	out[0] = 0;
	if (f->off + n <= len) {
		memcpy(out, rec + f->off, n);
		out[n] = 0;
	}
}

void utrace_wakeup_lat_format(struct utrace_wakeup_lat *w, const struct utrace_event_format *f,
			      int id)
{
	if (strcmp(f->system, "sched"))
		return;
	if (!strcmp(f->name, "sched_switch")) {
		if (!wl_field(f, "prev_comm", &w->s_prev_comm) &&
		    !wl_field(f, "prev_pid", &w->s_prev_pid) &&
		    !wl_field(f, "prev_prio", &w->s_prev_prio) &&
		    !wl_field(f, "prev_state", &w->s_prev_state) &&
		    !wl_field(f, "next_comm", &w->s_next_comm) &&
		    !wl_field(f, "next_pid", &w->s_next_pid) &&
		    !wl_field(f, "next_prio", &w->s_next_prio))
			w->switch_id = id;
	} else if ((!strcmp(f->name, "sched_wakeup") || !strcmp(f->name, "sched_wakeup_new")) &&
		   !wl_field(f, "comm", &w->w_comm) && !wl_field(f, "pid", &w->w_pid) &&
		   !wl_field(f, "prio", &w->w_prio) && !wl_field(f, "target_cpu", &w->w_cpu)) {
		/* the same layout */
		if (!strcmp(f->name, "sched_wakeup"))
			w->wake_id = id;
		else
			w->wake_new_id = id;
	}
}

static struct wl_task_seen *wl_seen(struct utrace_wakeup_lat *w, int32_t pid)
{
	for (size_t i = 0; i < w->nr_tasks; i++)
		if (w->tasks[i].pid == pid)
			return &w->tasks[i];
	return NULL;
}

static void wl_saw(struct utrace_wakeup_lat *w, int64_t pid, int64_t prio, const char *comm)
{
	struct wl_task_seen *t = wl_seen(w, (int32_t)pid);
	size_t n = w->nr_tasks;

	if (!t) {
		if (UTRACE_GROW_ZERO(w->tasks, n, n + 1) < 0)
			return; /* out of memory: the task stays unknown */
		t = &w->tasks[w->nr_tasks++];
		t->pid = (int32_t)pid;
	}
	t->prio = (int32_t)prio;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

/* trace_find_cmdline(): the idle task is <idle>, a task no record named
 * <...> */
static void wl_comm(struct utrace_wakeup_lat *w, int32_t pid, char comm[17])
{
	const struct wl_task_seen *t = pid ? wl_seen(w, pid) : NULL;

	snprintf(comm, 17, "%s", !pid ? "<idle>" : t ? t->comm : "<...>");
}

/* The entry's common part: the task that wrote the record, where, its
 * context (common_flags, common_preempt_count) */
static void wl_entry_of(struct utrace_wakeup_lat *w, const uint8_t *rec, uint32_t cpu, uint64_t ts,
			struct wl_entry *e)
{
	int32_t pid;

	memcpy(&pid, rec + 4, 4);
	*e = (struct wl_entry){
	    .ts = ts, .pid = pid, .cpu = (int32_t)cpu, .flags = rec[2], .preempt = rec[3]};
	wl_comm(w, pid, e->comm);
}

/* probe_wakeup(): the task woken becomes the one waited for if it is
 * the recording's (its switch in is then recorded), and its prio is
 * better than the one waited for and the running task's.  A new wakeup
 * of the task waited for means its switch in was missed: the wait ends. */
static void wl_wakeup(struct utrace_wakeup_lat *w, const uint8_t *rec, uint32_t len, uint32_t cpu,
		      uint64_t ts)
{
	int64_t pid = wl_value(rec, len, &w->w_pid), prio = wl_value(rec, len, &w->w_prio);
	const struct wl_task_seen *cur;
	int32_t cur_pid, cur_prio;
	char comm[17];

	memcpy(&cur_pid, rec + 4, 4);
	cur = cur_pid ? wl_seen(w, cur_pid) : NULL;
	cur_prio = cur ? cur->prio : NICE_0_PRIO;
	if (pid <= 0 || prio < 0)
		return;
	wl_text(rec, len, &w->w_comm, comm);
	wl_saw(w, pid, prio, comm);
	if (w->waiting && pid == w->wait_pid)
		w->waiting = false;
	if ((w->rt && prio >= MAX_RT_PRIO) || (w->waiting && prio >= w->wait_prio) ||
	    prio >= cur_prio || (w->own && !w->own(w->own_arg, (int)pid)))
		return;
	w->waiting = true;
	w->wait_pid = (int32_t)pid;
	w->wait_prio = (int32_t)prio;
	w->wait_cpu = (int32_t)wl_value(rec, len, &w->w_cpu);
	wl_entry_of(w, rec, cpu, ts, &w->wake);
	w->wake.prev_pid = cur_pid;
	w->wake.prev_prio = cur_prio;
	w->wake.prev_state = 'R'; /* the task running */
	w->wake.next_pid = (int32_t)pid;
	w->wake.next_prio = (int32_t)prio;
	w->wake.next_state = 'R'; /* sched_wakeup: after TASK_RUNNING is set */
	w->wake.next_cpu = w->wait_cpu;
	snprintf(w->wake.next_comm, sizeof(w->wake.next_comm), "%s", comm);
}

/* TASK_REPORT state bits as task_index_to_char() prints their index */
static char wl_state(int64_t state)
{
	static const char chars[] = "RSDTtXZPI";
	unsigned bits = (unsigned)state & REPORT_MASK;

	return bits ? chars[__builtin_ctz(bits) + 1] : 'R';
}

/* probe_wakeup_sched_switch(): the switch to the task waited for ends
 * its latency; above the maximum, it is the trace kept */
static void wl_switch(struct utrace_wakeup_lat *w, const uint8_t *rec, uint32_t len, uint32_t cpu,
		      uint64_t ts)
{
	int64_t prev = wl_value(rec, len, &w->s_prev_pid),
		next = wl_value(rec, len, &w->s_next_pid);
	int64_t prev_prio = wl_value(rec, len, &w->s_prev_prio);
	int64_t next_prio = wl_value(rec, len, &w->s_next_prio);
	struct wl_entry *e = &w->kept_switch;
	char pc[17], nc[17];
	uint64_t lat;

	wl_text(rec, len, &w->s_prev_comm, pc);
	wl_text(rec, len, &w->s_next_comm, nc);
	if (prev > 0)
		wl_saw(w, prev, prev_prio, pc);
	if (next > 0)
		wl_saw(w, next, next_prio, nc);
	if (w->waiting && prev == w->wait_pid && next != w->wait_pid)
		w->waiting = false; /* it ran: its switch in was missed */
	if (!w->waiting || next != w->wait_pid)
		return;
	w->waiting = false;
	lat = ts > w->wake.ts ? ts - w->wake.ts : 0;
	if (lat <= w->max_ns) /* report_latency() */
		return;
	w->max_ns = lat;
	w->kept = true;
	w->kept_lat = lat;
	w->kept_cpu = w->wait_cpu;
	w->kept_wake = w->wake;
	/* the task's comm as it is switched in (after an exec): the kernel's */
	snprintf(w->kept_wake.next_comm, sizeof(w->kept_wake.next_comm), "%s", nc);
	wl_entry_of(w, rec, cpu, ts, e);
	e->prev_pid = (int32_t)prev;
	e->prev_prio = (int32_t)prev_prio;
	e->prev_state = wl_state(wl_value(rec, len, &w->s_prev_state));
	e->next_pid = (int32_t)next;
	e->next_prio = (int32_t)next_prio;
	e->next_state = 'R';
	e->next_cpu = (int32_t)cpu;
	snprintf(e->next_comm, sizeof(e->next_comm), "%s", nc);
}

void utrace_wakeup_lat_record(struct utrace_wakeup_lat *w, int id, uint32_t cpu, uint64_t ts_ns,
			      const uint8_t *rec, uint32_t len)
{
	if (!w->on || len < 8 || id < 0)
		return;
	if (id == w->wake_id || id == w->wake_new_id)
		wl_wakeup(w, rec, len, cpu, ts_ns);
	else if (id == w->switch_id)
		wl_switch(w, rec, len, cpu, ts_ns);
}

/* The kernel's preemption model as print_trace_header names it: from
 * debugfs's sched/preempt (the one in parentheses), else the kernel's
 * version string; "unknown" as the kernel says when neither tells. */
static const char *wl_model(void)
{
	static const char *const names[][2] = {{"(none)", "server"},
					       {"(voluntary)", "desktop"},
					       {"(full)", "preempt"},
					       {"(lazy)", "preempt"}};
	struct utsname u;
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/debug/sched/preempt", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strstr(buf, names[i][0]))
			return names[i][1];
	if (uname(&u) == 0 && strstr(u.version, "PREEMPT_RT"))
		return "preempt_rt";
	if (uname(&u) == 0 && strstr(u.version, "PREEMPT ") && !strstr(u.version, "DYNAMIC"))
		return "preempt";
	return "unknown";
}

struct wl_task {
	long uid, nice, policy, rt_prio;
};

/* The task's uid, nice, policy and rt_priority from /proc while it runs;
 * of a task gone, what its prio says (policy 1, SCHED_FIFO, for a
 * real-time prio; uid 65534, the kernel's overflowuid: not known). */
static void wl_task(int32_t pid, int32_t prio, struct wl_task *t)
{
	char path[64], buf[1024], *p;
	FILE *f;

	*t = (struct wl_task){65534, prio >= MAX_RT_PRIO ? prio - NICE_0_PRIO : 0,
			      prio < MAX_RT_PRIO, prio < MAX_RT_PRIO ? MAX_RT_PRIO - 1 - prio : 0};
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if ((f = fopen(path, "r"))) {
		while (fgets(buf, sizeof(buf), f))
			if (!strncmp(buf, "Uid:", 4))
				t->uid = strtol(buf + 4, NULL, 10);
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!(f = fopen(path, "r")))
		return;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		long v[40] = {0};
		int n = 0; /* fields 3.. after the name: nice is 19, rt_priority 40, policy 41 */
		char *sv = NULL;

		for (char *s = strtok_r(p + 1, " ", &sv); s && n < 40; s = strtok_r(NULL, " ", &sv))
			v[n++] = strtol(s, NULL, 10);
		if (n >= 39) {
			t->nice = v[16];
			t->rt_prio = v[37];
			t->policy = v[38];
		}
	}
	fclose(f);
}

/* trace_find_mark() */
static char wl_mark(unsigned long long d)
{
	static const struct {
		unsigned long long val;
		char sym;
	} mark[] = {{1000000000ULL, '$'}, {100000000ULL, '@'}, {10000000ULL, '*'},
		    {1000000ULL, '#'},	  {100000ULL, '!'},    {10000ULL, '+'}};

	for (size_t i = 0; i < sizeof(mark) / sizeof(mark[0]); i++)
		if (d > mark[i].val)
			return mark[i].sym;
	return ' ';
}

/* trace_print_lat_context() (not verbose, times in ns) and
 * trace_ctxwake_print() */
static void wl_line(FILE *out, const struct wl_entry *e, uint64_t start, uint64_t next_ts,
		    const char *delim)
{
	uint8_t fl = e->flags;
	bool nmi = fl & 0x40, hard = fl & 0x08, soft = fl & 0x10, bh = fl & 0x80;
	char irqs = (fl & 0x01) && bh ? 'D'
		    : (fl & 0x01)     ? 'd'
		    : bh	      ? 'b'
		    : (fl & 0x02)     ? 'X'
				      : '.';
	char resched = (fl & 0x24) == 0x24 ? 'N' : (fl & 0x04) ? 'n' : (fl & 0x20) ? 'p' : '.';
	char hs = nmi && hard	 ? 'Z'
		  : nmi		 ? 'z'
		  : hard && soft ? 'H'
		  : hard	 ? 'h'
		  : soft	 ? 's'
				 : '.';

	fprintf(out, "%8.8s-%-7d %3d%c%c%c", e->comm, e->pid, e->cpu, irqs, resched, hs);
	if (e->preempt & 0xf)
		fprintf(out, "%x", e->preempt & 0xf);
	else
		fputc('.', out);
	if (e->preempt & 0xf0)
		fprintf(out, "%x", e->preempt >> 4);
	else
		fputc('.', out);
	fprintf(out, " %4lluus%c: ", (unsigned long long)((e->ts - start) / 1000),
		wl_mark((next_ts - e->ts) / 1000 * 1000ull));
	fprintf(out, " %7d:%3d:%c %s [%03d] %7d:%3d:%c %s\n", e->prev_pid, e->prev_prio,
		e->prev_state, delim, e->next_cpu, e->next_pid, e->next_prio, e->next_state,
		e->next_comm);
}

void utrace_wakeup_lat_print(const struct utrace_wakeup_lat *w, FILE *out)
{
	const char *name = w->rt ? "wakeup_rt" : "wakeup";
	const struct wl_entry *wk = &w->kept_wake;
	struct utsname u;
	struct wl_task t;

	fprintf(out, "# tracer: %s\n#\n", name);
	if (!w->kept) /* trace_default_header(): nothing if empty */
		return;
	if (uname(&u) < 0)
		u.release[0] = 0;
	wl_task(wk->next_pid, wk->next_prio, &t);
	fprintf(out, "# %s latency trace v1.1.5 on %s\n", name, u.release);
	fputs("# -----------------------------------"
	      "---------------------------------\n",
	      out);
	fprintf(out, "# latency: %llu us, #2/2, CPU#%d | (M:%s VP:0, KP:0, SP:0 HP:0 #P:%ld)\n",
		(unsigned long long)(w->kept_lat / 1000), w->kept_cpu, wl_model(),
		sysconf(_SC_NPROCESSORS_ONLN));
	fputs("#    -----------------\n", out);
	fprintf(out, "#    | task: %.16s-%d (uid:%ld nice:%ld policy:%ld rt_prio:%ld)\n",
		wk->next_comm, wk->next_pid, t.uid, t.nice, t.policy, t.rt_prio);
	fputs("#    -----------------\n#\n", out);
	fputs("#                    _------=> CPU#            \n"
	      "#                   / _-----=> irqs-off/BH-disabled\n"
	      "#                  | / _----=> need-resched    \n"
	      "#                  || / _---=> hardirq/softirq \n"
	      "#                  ||| / _--=> preempt-depth   \n"
	      "#                  |||| / _-=> migrate-disable \n"
	      "#                  ||||| /     delay           \n"
	      "#  cmd     pid     |||||| time  |   caller     \n"
	      "#     \\   /        ||||||  \\    |    /       \n",
	      out);
	wl_line(out, wk, wk->ts, w->kept_switch.ts, "  +");
	wl_line(out, &w->kept_switch, wk->ts, w->kept_switch.ts, "==>");
}
