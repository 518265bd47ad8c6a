/* SPDX-License-Identifier: MIT */
/*
 * perf_counter.c - counting perf events on a command, the way perf stat
 * does it, for `utrace stat`.
 *
 * Design.  A run forks the command held (lib/base/spawn.c): the child blocks
 * reading a "go" pipe before it calls execvp().  While it waits, every
 * event is opened on its pid with perf_event_open(pid, cpu = -1) as
 *
 *	disabled = 1, enable_on_exec = 1   counting starts at the exec, so
 *	                                   none of utrace's fork is counted
 *	inherit = 1                        threads and child processes of the
 *	                                   command add to the same counters
 *	read_format = TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING
 *
 * then one byte is written to the pipe and the start time taken.  The
 * command is reaped with wait4(), which also gives its user and system
 * time; a second pipe, close-on-exec and read only then, tells whether
 * execvp() failed (the child wrote its errno there; end of file means the
 * exec happened).  Each counter is read once: a read of an inherited
 * counter after the task has exited returns the sum over the task and all
 * of its reaped descendants.
 *
 * Events are opened one by one unless grouped with braces: a group's
 * members are opened with the leader's fd as group_fd and only the leader
 * is disabled/enable_on_exec, so the PMU always schedules them together.
 * When there are more hardware events than PMU counters, the kernel
 * time-multiplexes them and running < enabled; the count is then scaled to
 * value = raw * enabled / running, perf's estimate, and the caller shows
 * the running percentage.  running == 0 is perf's <not counted>.
 *
 * An event the kernel or the CPU does not have (ENOENT, EOPNOTSUPP, ENXIO,
 * ENODEV, EINVAL from perf_event_open, e.g. every hardware event in a VM
 * without a virtual PMU) is <not supported>, as in perf; its group members
 * are then <not counted>.  EACCES with kernel.perf_event_paranoid above 1
 * retries once with exclude_kernel and exclude_hv and renames the event
 * NAME:u, perf's fallback; any other failure stops the run with an error.
 *
 * The event table is the X-macro UTRACE_PERF_EVENTS in perf_counter.h.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/perf/perf_counter.h"
#include "lib/base/spawn.h"
#include "lib/base/grow.h"

#ifndef PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC (1UL << 3)
#endif

#define UTRACE_PERF_EVENT_ROW(n, t, c, u) {n, t, c, u},
static const struct utrace_perf_event_info event_table[] = {
    UTRACE_PERF_EVENTS(UTRACE_PERF_EVENT_ROW)};
#undef UTRACE_PERF_EVENT_ROW

#define NR_EVENTS (sizeof(event_table) / sizeof(event_table[0]))

/* Longest event name we accept, modifiers included. */
#define EVENT_NAME_MAX 128

struct perf_ev {
	char *name; /* as printed */
	uint32_t type;
	uint64_t config;
	const char *unit;
	bool excl_user, excl_kernel, excl_hv;
	size_t leader; /* index of the group leader; itself when alone */
	int fd;
	struct utrace_perf_count count;
};

struct utrace_perf_counters {
	struct perf_ev *ev;
	size_t nr, cap;
};

const struct utrace_perf_event_info *utrace_perf_event_table(size_t *n)
{
	*n = NR_EVENTS;
	return event_table;
}

double utrace_perf_unit_scale(const char *unit)
{
	return unit && !strcmp(unit, "msec") ? 1e-6 : 1.0;
}

enum utrace_perf_state utrace_perf_count_scale(uint64_t raw, uint64_t enabled, uint64_t running,
					       struct utrace_perf_count *c)
{
	c->raw = raw;
	c->enabled = enabled;
	c->running = running;
	c->value = raw;
	c->state = UTRACE_PERF_COUNTED;
	if (!running || !enabled) {
		c->value = 0;
		c->state = UTRACE_PERF_NOT_COUNTED;
	} else if (running < enabled) {
		c->value = (uint64_t)((double)raw * (double)enabled / (double)running);
	}
	return c->state;
}

struct utrace_perf_counters *utrace_perf_counters_new(void)
{
	return calloc(1, sizeof(struct utrace_perf_counters));
}

static void close_all(struct utrace_perf_counters *pc)
{
	for (size_t i = 0; i < pc->nr; i++) {
		if (pc->ev[i].fd >= 0)
			close(pc->ev[i].fd);
		pc->ev[i].fd = -1;
	}
}

void utrace_perf_counters_free(struct utrace_perf_counters *pc)
{
	if (!pc)
		return;
	close_all(pc);
	for (size_t i = 0; i < pc->nr; i++)
		free(pc->ev[i].name);
	free(pc->ev);
	free(pc);
}

size_t utrace_perf_counters_nr(const struct utrace_perf_counters *pc)
{
	return pc->nr;
}

const char *utrace_perf_counters_name(const struct utrace_perf_counters *pc, size_t i)
{
	return pc->ev[i].name;
}

const char *utrace_perf_counters_unit(const struct utrace_perf_counters *pc, size_t i)
{
	return pc->ev[i].unit;
}

uint32_t utrace_perf_counters_type(const struct utrace_perf_counters *pc, size_t i)
{
	return pc->ev[i].type;
}

uint64_t utrace_perf_counters_config(const struct utrace_perf_counters *pc, size_t i)
{
	return pc->ev[i].config;
}

void utrace_perf_counters_get(const struct utrace_perf_counters *pc, size_t i,
			      struct utrace_perf_count *c)
{
	*c = pc->ev[i].count;
}

/* Parses one event, "name[:mods]" or "rHEX[:mods]", into e. */
static int parse_event(const char *spec, struct perf_ev *e, struct utrace_error *err)
{
	char base[EVENT_NAME_MAX];
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	bool found = false;

	if (!len)
		return utrace_error_set(err, -EINVAL, "empty event name in '%s'", spec);
	if (len >= sizeof(base) || strlen(spec) >= EVENT_NAME_MAX)
		return utrace_error_set(err, -EINVAL, "event name '%.40s...' is too long", spec);
	memcpy(base, spec, len);
	base[len] = '\0';
	for (size_t i = 0; i < NR_EVENTS; i++) {
		if (!strcasecmp(base, event_table[i].name)) {
			e->type = event_table[i].type;
			e->config = event_table[i].config;
			e->unit = event_table[i].unit;
			found = true;
			break;
		}
	}
	if (!found && base[0] == 'r' && base[1]) {
		char *end;

		errno = 0;
		e->config = strtoull(base + 1, &end, 16);
		if (!errno && !*end && base[1] != '-' && base[1] != '+') {
			e->type = PERF_TYPE_RAW;
			e->unit = "";
			found = true;
		}
	}
	if (!found)
		return utrace_error_set(
		    err, -ENOENT, "unknown event '%s' (see 'utrace stat --list-events')", base);
	if (colon) {
		bool u = false, k = false, h = false;

		if (!colon[1])
			return utrace_error_set(err, -EINVAL, "event '%s': empty modifier", spec);
		for (const char *m = colon + 1; *m; m++) {
			if (*m == 'u')
				u = true;
			else if (*m == 'k')
				k = true;
			else if (*m == 'h')
				h = true;
			else
				return utrace_error_set(
				    err, -EINVAL, "event '%s': unknown modifier '%c' (u, k, h)",
				    spec, *m);
		}
		e->excl_user = !u;
		e->excl_kernel = !k;
		e->excl_hv = !h;
	}
	e->name = strdup(spec);
	if (!e->name)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

static int push_event(struct utrace_perf_counters *pc, const char *spec, bool in_group,
		      size_t leader, struct utrace_error *err)
{
	struct perf_ev e = {.fd = -1};
	int ret;

	if (UTRACE_GROW(pc->ev, pc->cap, pc->nr + 1) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	ret = parse_event(spec, &e, err);
	if (ret < 0)
		return ret;
	e.leader = in_group ? leader : pc->nr;
	pc->ev[pc->nr++] = e;
	return 0;
}

static int add_list(struct utrace_perf_counters *pc, const char *list, struct utrace_error *err)
{
	const char *p = list;
	bool in_group = false;
	size_t leader = 0;

	while (*p) {
		char spec[EVENT_NAME_MAX];
		size_t len;
		bool opens = false, closes = false;

		if (*p == '{') {
			if (in_group)
				return utrace_error_set(
				    err, -EINVAL, "event list '%s': groups do not nest", list);
			opens = true;
			p++;
		}
		len = strcspn(p, ",{}");
		if (p[len] == '{')
			return utrace_error_set(err, -EINVAL,
						"event list '%s': '{' inside an event name", list);
		if (p[len] == '}') {
			if (!in_group && !opens)
				return utrace_error_set(err, -EINVAL,
							"event list '%s': '}' without '{'", list);
			closes = true;
		}
		if (len >= sizeof(spec))
			return utrace_error_set(err, -EINVAL, "event name '%.40s...' is too long",
						p);
		memcpy(spec, p, len);
		spec[len] = '\0';
		if (!len)
			return utrace_error_set(err, -EINVAL, "event list '%s': empty event name",
						list);
		if (opens) {
			in_group = true;
			leader = pc->nr;
		}
		if (push_event(pc, spec, in_group, leader, err) < 0)
			return -1;
		p += len;
		if (closes) {
			in_group = false;
			p++;
			if (*p == ':')
				return utrace_error_set(
				    err, -EINVAL,
				    "event list '%s': modifiers go on the events inside the group",
				    list);
			if (*p && *p != ',')
				return utrace_error_set(
				    err, -EINVAL, "event list '%s': expected ',' after '}'", list);
		}
		if (*p == ',') {
			p++;
			if (!*p)
				return utrace_error_set(err, -EINVAL,
							"event list '%s': ends with ','", list);
		}
	}
	if (in_group)
		return utrace_error_set(err, -EINVAL, "event list '%s': '{' without '}'", list);
	if (p == list)
		return utrace_error_set(err, -EINVAL, "empty event list");
	return 0;
}

int utrace_perf_counters_add(struct utrace_perf_counters *pc, const char *list,
			     struct utrace_error *err)
{
	size_t nr = pc->nr;

	if (add_list(pc, list, err) >= 0)
		return 0;
	while (pc->nr > nr) /* all of the list or nothing */
		free(pc->ev[--pc->nr].name);
	return err && err->code < 0 ? err->code : -EINVAL;
}

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
				unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static bool errno_unsupported(int e)
{
	return e == ENOENT || e == EOPNOTSUPP || e == ENXIO || e == ENODEV || e == EINVAL;
}

/* perf's fallback: count user mode only, and say so in the name. */
static int fall_back_to_user(struct perf_ev *e)
{
	const char *sep = strchr(e->name, ':') ? "" : ":";
	char *n;

	if (asprintf(&n, "%s%su", e->name, sep) < 0)
		return -1;
	free(e->name);
	e->name = n;
	e->excl_kernel = true;
	e->excl_hv = true;
	return 0;
}

/* Opens event i on pid; 0 if open or unsupported (fd -1), else negative. */
static int open_event(struct utrace_perf_counters *pc, size_t i, pid_t pid,
		      struct utrace_error *err)
{
	struct perf_ev *e = &pc->ev[i];
	bool is_leader = e->leader == i;
	int group_fd = -1;

	memset(&e->count, 0, sizeof(e->count));
	e->count.state = UTRACE_PERF_NOT_SUPPORTED;
	e->fd = -1;
	if (!is_leader) {
		group_fd = pc->ev[e->leader].fd;
		if (group_fd < 0) {
			e->count.state = UTRACE_PERF_NOT_COUNTED;
			return 0;
		}
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		struct perf_event_attr attr;
		long fd;
		int en;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = e->type;
		attr.config = e->config;
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		attr.inherit = 1;
		attr.disabled = is_leader;
		attr.enable_on_exec = is_leader;
		attr.exclude_user = e->excl_user;
		attr.exclude_kernel = e->excl_kernel;
		attr.exclude_hv = e->excl_hv;
		fd = sys_perf_event_open(&attr, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			e->fd = (int)fd;
			e->count.state = UTRACE_PERF_NOT_COUNTED;
			return 0;
		}
		en = errno;
		if (errno_unsupported(en))
			return 0;
		if (en == EACCES && attempt == 0 && !e->excl_kernel && !e->excl_user) {
			int paranoid = read_paranoid();

			if (paranoid > 1) {
				if (fall_back_to_user(e) < 0)
					return utrace_error_set(err, -ENOMEM, "out of memory");
				continue;
			}
		}
		if (en == EACCES || en == EPERM) {
			int paranoid = read_paranoid();
			const char *hint =
			    paranoid > 2 ? "; users may count their own processes at 2 or less"
					 : "";

			return utrace_error_set(err, -en,
						"perf_event_open(%s): %s "
						"(kernel.perf_event_paranoid is %d%s)",
						e->name, strerror(en), paranoid, hint);
		}
		if (en == ENOSYS)
			return utrace_error_set(err, -en,
						"perf_event_open: %s (a kernel without "
						"CONFIG_PERF_EVENTS, or a seccomp filter)",
						strerror(en));
		return utrace_error_set(err, -en, "perf_event_open(%s): %s", e->name, strerror(en));
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void read_counts(struct utrace_perf_counters *pc)
{
	for (size_t i = 0; i < pc->nr; i++) {
		struct perf_ev *e = &pc->ev[i];
		uint64_t buf[3];

		if (e->fd < 0)
			continue;
		if (read(e->fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			buf[0] = buf[1] = buf[2] = 0;
		utrace_perf_count_scale(buf[0], buf[1], buf[2], &e->count);
	}
}

static void reap(pid_t pid, int *status, struct rusage *ru)
{
	while (wait4(pid, status, 0, ru) < 0 && errno == EINTR)
		;
}

int utrace_perf_counters_run(struct utrace_perf_counters *pc, char *const argv[],
			     struct utrace_perf_run *run, struct utrace_error *err)
{
	struct utrace_spawn sp;
	int e, ret = 0, status = 0;
	struct rusage ru;
	uint64_t t0;

	memset(run, 0, sizeof(*run));
	ret = utrace_spawn_held(argv, NULL, NULL, &sp, err);
	if (ret < 0)
		return ret;

	for (size_t i = 0; i < pc->nr && !ret; i++)
		ret = open_event(pc, i, sp.pid, err);
	if (ret < 0) {
		utrace_spawn_abandon(&sp);
		close_all(pc);
		return ret;
	}

	ret = utrace_spawn_go(&sp, err);
	if (ret < 0)
		kill(sp.pid, SIGKILL);
	t0 = now_ns(); /* where perf stat takes it: the command is released */
	reap(sp.pid, &status, &ru);
	run->elapsed_ns = now_ns() - t0;
	/* only now: waiting on the pipe while the command starts would wake
	 * us in the middle of its exec, and cost it a CPU or a switch */
	e = utrace_spawn_exec_result(&sp, ret < 0 ? NULL : err);
	if (!ret && e < 0) {
		run->exec_errno = -e;
		ret = e;
	}
	if (ret < 0) {
		close_all(pc);
		return ret;
	}
	read_counts(pc);
	close_all(pc);
	run->status = status;
	run->utime = ru.ru_utime;
	run->stime = ru.ru_stime;
	return 0;
}
