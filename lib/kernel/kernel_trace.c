/* SPDX-License-Identifier: MIT */
/*
 * kernel_trace.c - kernel trace events through a tracefs instance of
 * utrace's own, the way trace-cmd record -B works.
 *
 *   tracefs/instances/utrace-<recorder pid>/     (created, removed at the end)
 *     tracing_on 0 ... 1 ... 0
 *     trace_clock x86-tsc     the raw TSC the traced threads stamp their
 *                             records with, so both sides share one clock
 *                             (mono when the kernel does not offer it)
 *     buffer_size_kb, options/event-fork, set_event_pid (kernel_follow.c:
 *                             the kernel follows the new tasks)
 *     events/SYS/EVENT/{filter,enable}
 *     per_cpu/cpuN/trace_pipe_raw  -> whole pages, non-blocking
 *     free_buffer (+ options/disable_on_free): held open, so a recorder
 *                             that is killed stops the tracing and frees
 *                             the buffer; `utrace reset` removes the rest
 *
 * The global buffer and other instances are never written.  Every page
 * read is handed over as the kernel made it (header + committed bytes);
 * on the way, the common_pid of each record is noted so the tasks can be
 * named (comm, tgid) when recording ends.  A filter the kernel refuses is
 * explained with the instance's error_log, as the kernel wrote it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <traceevent/kbuffer.h>
#include <unistd.h>

#include "lib/base/glob.h"
#include "lib/base/grow.h"
#include "lib/kernel/kernel_internal.h"
#include "lib/kernel/kernel_tracefs.h"

/* ---- which -e are kernel events --------------------------------------- */

/* The SYSTEM part of a pattern, or NULL if a bare glob (a user pattern). */
static bool spec_system(const char *pattern, char *sys, size_t len, const char **event)
{
	const char *colon = strchr(pattern, ':');
	size_t n = colon ? (size_t)(colon - pattern) : strlen(pattern);

	if (!n || n >= len)
		return false;
	memcpy(sys, pattern, n);
	sys[n] = 0;
	*event = colon ? colon + 1 : NULL;
	return colon || utrace_glob_is_literal(sys);
}

int utrace_ktrace_is_kernel(const char *pattern)
{
	const char *root = utrace_tracefs_root(), *event;
	char sys[256], path[PATH_MAX];
	struct dirent *de;
	int found = 0;
	DIR *d;

	if (!root || !spec_system(pattern, sys, sizeof(sys), &event))
		return 0;
	if (utrace_glob_is_literal(sys))
		return utrace_tracefs_is_dir(utrace_tracefs_path(path, root, "events/%s", sys));
	d = opendir(utrace_tracefs_path(path, root, "events"));
	while (d && !found && (de = readdir(d)))
		found =
		    de->d_name[0] != '.' && utrace_glob_match(sys, de->d_name) &&
		    utrace_tracefs_is_dir(utrace_tracefs_path(path, root, "events/%s", de->d_name));
	if (d)
		closedir(d);
	return found;
}

const char *utrace_ktrace_unavailable(void)
{
	static char why[PATH_MAX + 64];
	const char *root = utrace_tracefs_root();
	char path[PATH_MAX];
	DIR *d;

	if (!root)
		return "tracefs is not mounted, and mounting it needs root";
	d = opendir(utrace_tracefs_path(path, root, "events"));
	if (d) {
		closedir(d);
		return NULL;
	}
	snprintf(why, sizeof(why), "%s: %s", path, strerror(errno));
	return why;
}

/* ---- the session ------------------------------------------------------ */


static int kt_add_spec(struct utrace_ktrace *kt, const struct utrace_event_spec *s,
		       struct utrace_error *err)
{
	const char *event;
	char sys[256], path[PATH_MAX];
	struct dirent *ds, *de;
	int ret = 0, n = 0;
	DIR *d, *e;

	if (!spec_system(s->pattern, sys, sizeof(sys), &event))
		return 0;
	d = opendir(utrace_tracefs_path(path, kt->dir, "events"));
	if (!d)
		return utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	while (ret >= 0 && (ds = readdir(d))) {
		if (ds->d_name[0] == '.' || !utrace_glob_match(sys, ds->d_name))
			continue;
		e = opendir(utrace_tracefs_path(path, kt->dir, "events/%s", ds->d_name));
		while (e && ret >= 0 && (de = readdir(e))) {
			if (de->d_name[0] == '.' ||
			    (event && !utrace_glob_match(event, de->d_name)) ||
			    !utrace_tracefs_is_dir(utrace_tracefs_path(
				path, kt->dir, "events/%s/%s", ds->d_name, de->d_name)))
				continue;
			ret = kt_add_event(kt, ds->d_name, de->d_name, s->filter, true, err);
			n += ret > 0;
		}
		if (e)
			closedir(e);
	}
	closedir(d);
	return ret < 0 ? ret : n;
}

static int kt_open_cpus(struct utrace_ktrace *kt, struct utrace_error *err)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(utrace_tracefs_path(path, kt->dir, "per_cpu"));

	if (!d)
		return utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	while ((de = readdir(d))) {
		unsigned cpu;
		int fd;

		if (sscanf(de->d_name, "cpu%u", &cpu) != 1)
			continue;
		fd = open(
		    utrace_tracefs_path(path, kt->dir, "per_cpu/%s/trace_pipe_raw", de->d_name),
		    O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || UTRACE_GROW(kt->cpus, kt->cap_cpus, kt->nr_cpus + 1) < 0) {
			int e = fd < 0 ? errno : ENOMEM;

			if (fd >= 0)
				close(fd);
			closedir(d);
			return utrace_error_set(err, -e, "%s: %s", path, strerror(e));
		}
		kt->cpus[kt->nr_cpus++] = (struct kt_cpu){.fd = fd, .cpu = cpu};
	}
	closedir(d);
	return 0;
}

/* x86-tsc if the kernel has it (the clock of the user records), else mono. */
static int kt_set_clock(struct utrace_ktrace *kt, struct utrace_error *err)
{
	char path[PATH_MAX],
	    *list = utrace_tracefs_read(utrace_tracefs_path(path, kt->dir, "trace_clock"));
	bool tsc = false;

	for (char *t = list ? strtok(list, " []\n") : NULL; t; t = strtok(NULL, " []\n"))
		tsc |= !strcmp(t, "x86-tsc");
	free(list);
	strcpy(kt->clock, tsc ? "x86-tsc" : "mono");
	return kt_set(kt, "trace_clock", kt->clock, err);
}

int utrace_ktrace_open(struct utrace_event_spec *specs, unsigned nr, uint32_t buffer_kb,
		       struct utrace_ktrace **out, unsigned *bad_spec, struct utrace_error *err)
{
	const char *root = utrace_tracefs_root();
	struct utrace_ktrace *kt;
	char path[PATH_MAX], num[32], *kb;
	int ret;

	*out = NULL;
	*bad_spec = 0;
	if (!root)
		return utrace_error_set(err, -ENOENT,
					"tracefs is not mounted at /sys/kernel/tracing and "
					"cannot be mounted there (not root?)");
	kt = calloc(1, sizeof(*kt));
	if (!kt)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	kt->free_fd = -1;
	snprintf(kt->name, sizeof(kt->name), UTRACE_KTRACE_PREFIX "%d", (int)getpid());
	utrace_tracefs_path(kt->dir, root, "instances/%s", kt->name);
	ret = mkdir(kt->dir, 0755);
	if (ret < 0 && errno == EEXIST) {
		/* left by a recorder that had our pid: ours now */
		utrace_tracefs_remove_instance(kt->dir);
		ret = mkdir(kt->dir, 0755);
	}
	if (ret < 0) {
		ret = utrace_error_set(err, -errno, "cannot create the tracefs instance %s: %s",
				       kt->dir, strerror(errno));
		kt->dir[0] = 0;
		goto fail;
	}
	snprintf(num, sizeof(num), "%u", buffer_kb ? buffer_kb : UTRACE_KTRACE_DEFAULT_KB);
	if ((ret = kt_set(kt, "tracing_on", "0", err)) < 0 || (ret = kt_set_clock(kt, err)) < 0 ||
	    (ret = kt_set(kt, "buffer_size_kb", num, err)) < 0)
		goto fail;
	/* best effort: a kernel without it leaves a killed recorder's
	 * instance tracing until `utrace reset` */
	kt_set(kt, "options/disable_on_free", "1", NULL);
	kt->free_fd = open(utrace_tracefs_path(path, kt->dir, "free_buffer"), O_WRONLY | O_CLOEXEC);
	kb = utrace_tracefs_read(utrace_tracefs_path(path, kt->dir, "buffer_subbuf_size_kb"));
	kt->subbuf_size = kb && atoi(kb) > 0 ? (uint32_t)atoi(kb) * 1024 : (uint32_t)getpagesize();
	free(kb);
	kt->header_page =
	    utrace_tracefs_read(utrace_tracefs_path(path, kt->dir, "events/header_page"));
	kt->header_event =
	    utrace_tracefs_read(utrace_tracefs_path(path, kt->dir, "events/header_event"));
	kt->page = malloc(kt->subbuf_size);
	kt->kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	if (!kt->header_page || !kt->header_event || !kt->page || !kt->kb) {
		ret = utrace_error_set(err, -ENOMEM, "%s/events/header_page: %s", kt->dir,
				       strerror(errno ? errno : ENOMEM));
		goto fail;
	}
	for (unsigned i = 0; i < nr; i++) {
		ret = kt_add_spec(kt, &specs[i], err);
		if (ret == 0)
			ret = utrace_error_set(err, -ENOENT,
					       "-e %s: no such kernel event in %s/events",
					       specs[i].pattern, root);
		if (ret < 0) {
			*bad_spec = i;
			goto fail;
		}
		specs[i].matched += (unsigned)ret;
	}
	ret = kt_open_cpus(kt, err);
	if (ret < 0)
		goto fail;
	*out = kt;
	return 0;
fail:
	utrace_ktrace_close(kt, NULL);
	return ret;
}

const char *utrace_ktrace_name(const struct utrace_ktrace *kt)
{
	return kt->name;
}

int utrace_ktrace_start(struct utrace_ktrace *kt, int pid, bool children, struct utrace_error *err)
{
	char num[16];
	int ret;

	kt->pid = pid > 0 ? pid : 0;
	kt->children = children;
	if (kt->pid) {
		snprintf(num, sizeof(num), "%d", pid);
		if ((ret = kt_follow_start(kt, err)) < 0 ||
		    (ret = kt_set(kt, "set_event_pid", num, err)) < 0)
			return ret;
		if (!UTRACE_GROW(kt->tids, kt->cap_tids, kt->nr_tids + 1))
			kt->tids[kt->nr_tids++] = pid;
		kt_add_threads(kt); /* those it has already (record -P) */
	}
	kt_exec_start(kt); /* (with the command's scope set: its execs only) */
	if ((ret = kt_triggers_rearm(kt, err)) < 0 || (ret = kt_set(kt, "tracing_on", "1", err)) < 0)
		return ret;
	/* the -e events one after the other, in their order, as bpftrace
	 * attaches its probes: a program's first hit is then of the first
	 * (a program that runs through three probes in a loop shows the
	 * first's first, not whichever came next when all began at once) */
	kt->started = true;
	for (size_t i = 0; i < kt->nr_evs && ret >= 0; i++)
		if (kt->evs[i].deferred)
			ret = kt_enable_event(kt, &kt->evs[i], err);
	return ret < 0 ? ret : 0;
}

/* ---- pages and tasks -------------------------------------------------- */


/* Reads one CPU's pages until none is left (or max): 0, or <0 from fn. */
static int kt_read_cpu(struct utrace_ktrace *kt, struct kt_cpu *c, unsigned max,
		       utrace_ktrace_page_fn fn, void *arg, struct utrace_error *err)
{
	for (unsigned n = 0; n < max; n++) {
		ssize_t len = read(c->fd, kt->page, kt->subbuf_size);
		unsigned long long ts, commit;
		size_t size;
		void *rec;
		int ret;

		if (len < 0 && errno == EINTR)
			continue;
		if (len < 16)
			return 0; /* EAGAIN: nothing more for now */
		memcpy(&commit, kt->page + 8, 8);
		size = 16 + (commit & KT_COMMIT_MASK) + (commit & KT_MISSED_STORED ? 8 : 0);
		if (size > (size_t)len)
			size = (size_t)len;
		if (size == 16 && !(commit & KT_MISSED_EVENTS))
			continue;
		kt->pages++;
		kt->missed += !!(commit & KT_MISSED_EVENTS);
		kbuffer_load_subbuffer(kt->kb, kt->page);
		for (rec = kbuffer_read_event(kt->kb, &ts); rec;
		     rec = kbuffer_next_event(kt->kb, &ts)) {
			size_t n = (size_t)kbuffer_event_size(kt->kb);
			int32_t pid;
			uint16_t id;

			if (n < 8 || (uint8_t *)rec + n > kt->page + (size_t)len)
				break;
			memcpy(&id, rec, 2);
			memcpy(&pid, (uint8_t *)rec + 4, 4);
			kt_note_task(kt, pid);
			if (kt->exec_id && id == kt->exec_id)
				kt_exec_rename(kt, rec, n, pid);
		}
		ret = kt_follow_page(kt, c, size, fn, arg, err);
		if (ret < 0)
			return ret;
	}
	return 1; /* stopped at max: more may be waiting */
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int utrace_ktrace_poll(struct utrace_ktrace *kt, bool force, utrace_ktrace_page_fn fn, void *arg,
		       struct utrace_error *err)
{
	uint64_t now = now_ns();
	int ret = 0;

	/* a CPU that still had pages at the last read is read again at once:
	 * at 10 ms intervals alone a busy CPU outran the reads */
	if (kt->stopped || (!force && !kt->backlog && now - kt->last_read < KT_READ_INTERVAL_NS))
		return 0;
	kt->last_read = now;
	ret = kt_follow_round(kt, false, fn, arg, err);
	kt->backlog = false;
	for (size_t i = 0; i < kt->nr_cpus && ret >= 0; i++) {
		ret = kt_read_cpu(kt, &kt->cpus[i], KT_PAGES_PER_POLL, fn, arg, err);
		if (ret > 0)
			kt->backlog = true;
	}
	return ret < 0 ? ret : 1;
}

int utrace_ktrace_stop(struct utrace_ktrace *kt, utrace_ktrace_page_fn fn, void *arg,
		       struct utrace_error *err)
{
	char path[PATH_MAX];
	int ret = 0;

	if (kt->stopped)
		return 0;
	ret = kt_set(kt, "tracing_on", "0", err);
	for (size_t i = 0; i < kt->nr_cpus && ret >= 0; i++)
		ret = kt_read_cpu(kt, &kt->cpus[i], UINT_MAX, fn, arg, err);
	if (ret >= 0)
		ret = kt_follow_round(kt, true, fn, arg, err);
	kt->stopped = true;
	utrace_tracefs_write(utrace_tracefs_path(path, kt->dir, "events/enable"), "0", O_TRUNC);
	kt_name_exited(kt, true);
	return ret;
}

int utrace_ktrace_formats(struct utrace_ktrace *kt,
			  int (*fn)(void *arg, const char *system, const char *name, int id,
				    const char *text, struct utrace_error *err),
			  void *arg, struct utrace_error *err)
{
	for (size_t i = 0; i < kt->nr_evs; i++) {
		int ret = kt->evs[i].hidden ? 0 : fn(arg, kt->evs[i].system, kt->evs[i].name, kt->evs[i].id,
			     kt->evs[i].format, err);

		if (ret < 0)
			return ret;
	}
	return 0;
}

void utrace_ktrace_header(const struct utrace_ktrace *kt, const char **clock, uint32_t *subbuf_size,
			  const char **header_page, const char **header_event)
{
	*clock = kt->clock;
	*subbuf_size = kt->subbuf_size;
	*header_page = kt->header_page;
	*header_event = kt->header_event;
}

const struct utrace_dat_ktask *utrace_ktrace_tasks(struct utrace_ktrace *kt, size_t *n)
{
	kt_name_exited(kt, false);
	*n = kt->nr_tasks;
	return kt->tasks;
}

void utrace_ktrace_note_task(struct utrace_ktrace *kt, int pid)
{
	ssize_t i = kt_note_task(kt, pid); /* unnamed if out of memory: <...> */

	if (i >= 0)
		kt_task_rename(kt, (size_t)i);
}

void utrace_ktrace_stats(const struct utrace_ktrace *kt, uint64_t *pages, uint64_t *missed)
{
	*pages = kt->pages;
	*missed = kt->missed;
}

int utrace_ktrace_close(struct utrace_ktrace *kt, struct utrace_error *err)
{
	int ret = 0;

	if (!kt)
		return 0;
	for (size_t i = 0; i < kt->nr_cpus; i++)
		close(kt->cpus[i].fd);
	if (kt->free_fd >= 0)
		close(kt->free_fd);
	if (kt->dir[0]) {
		ret = utrace_tracefs_remove_instance(kt->dir);
		if (ret < 0)
			utrace_error_set(err, ret,
					 "cannot remove the tracefs instance %s: %s "
					 "(`utrace reset` removes it)",
					 kt->dir, strerror(-ret));
	}
	for (size_t i = 0; i < kt->nr_evs; i++) {
		free(kt->evs[i].system);
		free(kt->evs[i].name);
		free(kt->evs[i].format);
	}
	kt_triggers_free(kt);
	kt_follow_free(kt);
	free(kt->evs);
	free(kt->cpus);
	free(kt->header_page);
	free(kt->header_event);
	free(kt->page);
	if (kt->kb)
		kbuffer_free(kt->kb);
	free(kt->tasks);
	free(kt->tstate);
	free(kt->task_hash);
	free(kt->tids);
	free(kt);
	return ret;
}
