/* SPDX-License-Identifier: MIT */
/*
 * session_attach.c - `utrace record -P PID [-P PID]... [--duration SEC]`:
 * the recording of lib/session/session.c, on processes that already run.
 *
 *   session_attach_check   every -P checked from /proc (lib/attach/
 *                         attach_check.c), before the recorder exists
 *   session_attach_start   the runtime injected into each (inject.c); each
 *                         registers like a started program, then says
 *                         "attached" (a NOTICE), which we time
 *   session_attach_over    --duration elapsed, or every process gone
 *   session_attach_detach  the runtimes put every byte back (the control
 *                         page's detach word, lib/record/recorder_attach.c)
 *
 * A thread id (-P TID of a thread that is not its process's main one)
 * traces that thread only, through the recording's thread filter (-T).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/attach/attach.h"
#include "lib/base/proc_self.h"
#include "lib/session/session_attach.h"

#define ATTACH_WAIT_MS 10000 /* for a runtime to say it is attached */
#define DETACH_WAIT_MS 10000 /* for the runtimes to say they put everything back */

/* attach_gone_image: what changes when a process executes a program */
struct attach_image {
	unsigned long long code, code_end, stack;
};

struct attach_proc {
	struct utrace_attach_target t;
	uint64_t boot;
	double attached_ms; /* since the command started; < 0: not yet */
	struct attach_image image; /* before the injection */
	bool gone, execd;	   /* execd: gone by an execve */
	int status; /* as wait() gives it, if seen; -1: not known */
	int pidfd;  /* from the attach on: its exit status once reaped */
};

struct session_attach {
	struct utrace_session_opts *o;
	const char *runtime;
	struct attach_proc *p;
	unsigned n, attached, detached;
	double t0;	  /* the command's start */
	double traced_at; /* when every process was attached: --duration counts from it */
	char *exe, *argv[2];
	void (*notice)(void *arg, int pid, const char *text);
	void *notice_arg;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The runtime's NOTICE "attached" ends its registration (init.c). */
static void attach_notice(void *arg, int pid, const char *text)
{
	struct session_attach *a = arg;

	for (unsigned i = 0; i < a->n; i++)
		if (a->p[i].t.pid == pid && !strcmp(text, "attached") && a->p[i].attached_ms < 0) {
			a->p[i].attached_ms = now_ms() - a->t0;
			return;
		}
	if (a->notice)
		a->notice(a->notice_arg, pid, text);
}

/* -P of a thread: the thread filter gets it. */
static int attach_tid_filter(struct utrace_session_opts *o, const struct utrace_attach_target *t,
			     struct session_fail *f)
{
	unsigned n = 0;

	if (t->tid == t->pid)
		return 0;
	while (n < 15 && o->rec.tids[n])
		n++;
	if (n == 15)
		return session_failf(f, 2, "-P %d: at most 15 threads with -P and -T", t->tid);
	o->rec.tids[n] = t->tid;
	return 0;
}

static int attach_opts_ok(const struct utrace_session_opts *o, struct session_fail *f)
{
	const char *bad = o->sample.off_cpu	       ? "--off-cpu"
			  : o->sample.freq && o->npids > 1 ? "-F with more than one -P"
							   : NULL;

	if (bad)
		return session_failf(f, 2, "-P: %s does not work on an attached process yet", bad);
	return 0;
}

/* The program of the first process, for the lookups of its events: as
 * we can open it (through /proc/PID/root in another mount namespace). */
static int attach_exe(struct session_attach *a)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];

	if (utrace_proc_exe(a->p[0].t.pid, exe, sizeof(exe)) <= 0 ||
	    utrace_proc_path(a->p[0].t.pid, exe, path, sizeof(path)) < 0 ||
	    !(a->exe = strdup(path)))
		return 1;
	a->argv[0] = a->exe;
	a->o->argv = a->argv;
	return 0;
}

struct session_attach *session_attach_check(struct utrace_session_opts *o, const char *runtime,
					    struct session_fail *f, int *status)
{
	struct session_attach *a = calloc(1, sizeof(*a));
	struct utrace_error err = {0};

	*status = 1;
	if (!a || !(a->p = calloc(o->npids, sizeof(*a->p)))) {
		session_failf(f, 1, "out of memory");
		free(a);
		return NULL;
	}
	a->o = o;
	a->runtime = runtime;
	a->n = o->npids;
	a->t0 = now_ms();
	if ((*status = attach_opts_ok(o, f)))
		goto fail;
	for (unsigned i = 0; i < a->n; i++) {
		a->p[i].attached_ms = -1;
		a->p[i].status = -1;
		a->p[i].pidfd = -1;
		/* the socket's folder is checked once it exists */
		if (utrace_attach_check(o->pids[i], runtime, runtime, &a->p[i].t, &err) < 0) {
			*status = session_failf(f, 1, "%s", err.msg);
			goto fail;
		}
		if ((*status = attach_tid_filter(o, &a->p[i].t, f)))
			goto fail;
	}
	if ((*status = attach_exe(a)))
		goto fail;
	a->notice = o->rec.notice;
	a->notice_arg = o->rec.notice_arg;
	o->rec.notice = attach_notice;
	o->rec.notice_arg = a;
	return a;
fail:
	session_attach_free(a);
	return NULL;
}

/* The field N (1-based, as proc(5) counts) of a stat line whose field 3,
 * the state, is at `state`; NULL if the line is shorter. */
static const char *attach_stat_field(const char *state, int n)
{
	for (int field = 3; state && field < n; field++)
		if ((state = strchr(state, ' ')))
			state++;
	return state;
}

/* Whether the process has ended (a zombie has: its parent has not
 * reaped it yet).  It is not our child, so wait() cannot tell how; a
 * zombie's stat does (field 52, exit_code, in wait()'s form: how the
 * signal that killed it shows), until its parent reaps it: into
 * *status then, which stays as it was otherwise.  A live one's image
 * (when asked) is where its text and stack start and end, fields 26-28:
 * address-space layout randomisation moves them at every execve, even
 * of the same file, so that a change says the process executed a new
 * program (the attach, and its runtime, ended there). */
static bool attach_gone_image(int pid, int *status, struct attach_image *image)
{
	char path[64], buf[1024], *paren;
	const char *f;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!(fp = fopen(path, "r")))
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = 0;
	paren = strrchr(buf, ')');
	if (!paren || paren[1] != ' ')
		return true;
	if (paren[2] != 'Z' && paren[2] != 'X') {
		if (image && (f = attach_stat_field(paren + 2, 26)))
			*image = (struct attach_image){0};
		if (image && f && sscanf(f, "%llu %llu %llu", &image->code, &image->code_end,
					 &image->stack) != 3)
			*image = (struct attach_image){0};
		return false;
	}
	f = attach_stat_field(paren + 2, 52);
	if (f && *f >= '0' && *f <= '9')
		*status = atoi(f);
	return true;
}

static bool attach_gone(int pid, int *status)
{
	return attach_gone_image(pid, status, NULL);
}

/* struct pidfd_info of linux/pidfd.h (Linux 6.15), which the headers
 * here may not have: its first version, with the exit status. */
struct attach_pidfd_info {
	uint64_t mask, cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
};
#define ATTACH_PIDFD_GET_INFO _IOWR(0xff, 11, struct attach_pidfd_info)
#define ATTACH_PIDFD_INFO_EXIT (1ull << 3)

/* The exit status of a process its parent reaped before we saw it a
 * zombie: the kernel keeps it for a pidfd opened before (Linux 6.15;
 * older ones say EINVAL or ENOTTY, and nothing is known). */
static void attach_reaped_status(struct attach_proc *p)
{
	struct attach_pidfd_info info = {.mask = ATTACH_PIDFD_INFO_EXIT};

	if (p->status >= 0 || p->pidfd < 0)
		return;
	if (ioctl(p->pidfd, ATTACH_PIDFD_GET_INFO, &info) == 0 &&
	    (info.mask & ATTACH_PIDFD_INFO_EXIT))
		p->status = info.exit_code;
}

/* How a process that ended while attached ended, if it was seen: a
 * signal that killed it is worth saying (a crash of the program, or of
 * our patching): to log, or (log NULL) after the error of f. */
static void attach_say_killed(const struct attach_proc *p, FILE *log, struct session_fail *f)
{
	int sig = p->status & 0x7f;

	if (p->status < 0 || !sig || sig == 0x7f)
		return;
	if (log)
		session_log(log, "%d (%s) was killed by signal %d (%s)%s", p->t.pid, p->t.comm, sig,
			    strsignal(sig), p->status & 0x80 ? ", core dumped" : "");
	else
		session_fail_line(f, "utrace record: %d (%s) was killed by signal %d (%s)%s",
				  p->t.pid, p->t.comm, sig, strsignal(sig),
				  p->status & 0x80 ? ", core dumped" : "");
}

/* Polls until process p says it is attached, or its bootstrap failed. */
static int attach_wait(struct session_attach *a, struct attach_proc *p, struct utrace_recorder *r,
		       struct session_fail *f)
{
	struct utrace_error err = {0};
	double end = now_ms() + ATTACH_WAIT_MS;

	while (p->attached_ms < 0) {
		if (utrace_recorder_poll(r, 1, &err) < 0)
			return session_failf(f, 1, "%s", err.msg);
		if (p->attached_ms >= 0)
			break;
		if (utrace_attach_status(&p->t, p->boot, &err) <= 0) {
			session_failf(f, 1, "%s", err.msg);
			if (attach_gone(p->t.pid, &p->status)) {
				attach_reaped_status(p);
				attach_say_killed(p, NULL, f);
			}
			return 1;
		}
		if (now_ms() > end)
			return session_failf(f, 1,
					     "-P %d: the runtime did not say it was attached "
					     "within %d s",
					     p->t.tid, ATTACH_WAIT_MS / 1000);
	}
	a->attached++;
	session_log(a->o->log, "attached to %d (%s) in %.1f ms", p->t.tid, p->t.comm,
		    p->attached_ms);
	return 0;
}

int session_attach_start(struct session_attach *a, struct utrace_recorder *r,
			 struct session_fail *f)
{
	const char *sock = utrace_recorder_sock_path(r);
	struct utrace_error err = {0};

	for (unsigned i = 0; i < a->n; i++) {
		struct attach_proc *p = &a->p[i];

		p->pidfd = (int)syscall(SYS_pidfd_open, p->t.pid, 0); /* -1: none */
		if (attach_gone_image(p->t.pid, &p->status, &p->image))
			return session_failf(f, 1, "-P %d: the process has gone", p->t.tid);
		if (utrace_attach_check(p->t.tid, a->runtime, sock, &p->t, &err) < 0 ||
		    utrace_attach_inject(&p->t, a->runtime, sock, &p->boot, &err) < 0)
			return session_failf(f, 1, "%s", err.msg);
		if (attach_wait(a, p, r, f))
			return 1;
	}
	a->traced_at = now_ms();
	return 0;
}

/* Whether process p has ended or executed a new program since its
 * attach: the runtime went with its old program (its socket is
 * close-on-exec), and an attach does not follow an exec. */
static bool attach_ended(struct session_attach *a, struct attach_proc *p)
{
	struct attach_image now = p->image;
	char path[PATH_MAX];
	int n;

	if (attach_gone_image(p->t.pid, &p->status, &now))
		return true;
	if (!memcmp(&now, &p->image, sizeof(now)))
		return false;
	n = utrace_proc_exe(p->t.pid, path, sizeof(path));
	session_log(a->o->log,
		    "%d (%s) executed %s: an attach ends at an exec; its new program is "
		    "not traced",
		    p->t.pid, p->t.comm, n > 0 ? path : "a new program");
	return p->execd = true;
}

bool session_attach_over(struct session_attach *a)
{
	unsigned gone = 0;

	for (unsigned i = 0; i < a->n; i++) {
		if (!a->p[i].gone && attach_ended(a, &a->p[i]))
			a->p[i].gone = true;
		gone += a->p[i].gone;
	}
	if (gone == a->n)
		return true;
	return a->o->duration > 0 && now_ms() - a->traced_at >= a->o->duration * 1e3;
}

void session_attach_detach(struct session_attach *a, struct utrace_recorder *r)
{
	struct utrace_error err = {0};
	unsigned live = 0;
	int done;

	for (unsigned i = 0; i < a->n; i++)
		live +=
		    a->p[i].attached_ms >= 0 &&
		    !(a->p[i].gone = a->p[i].gone || attach_ended(a, &a->p[i]));
	done = utrace_recorder_detach(r, live, DETACH_WAIT_MS, &err);
	if (done < 0)
		session_log(a->o->log, "detach: %s", err.msg);
	else if ((unsigned)done < live)
		session_log(a->o->log,
			    "detach: %u of %u processes did not say they had put "
			    "their code back within %d s",
			    live - (unsigned)done, live, DETACH_WAIT_MS / 1000);
	else if (live)
		session_log(a->o->log, "detached from %u process%s", live, live == 1 ? "" : "es");
	for (unsigned i = 0; i < a->n; i++)
		live += a->p[i].execd; /* said when seen */
	if (live < a->n) {
		session_log(a->o->log, "%u process%s ended while attached", a->n - live,
			    a->n - live == 1 ? "" : "es");
		for (unsigned i = 0; i < a->n; i++)
			if (a->p[i].gone && !a->p[i].execd) {
				attach_reaped_status(&a->p[i]);
				attach_say_killed(&a->p[i], a->o->log, NULL);
			}
	}
	a->detached = done > 0 ? (unsigned)done : 0;
	for (unsigned i = 0; i < a->n && done >= 0; i++)
		if (a->p[i].gone)
			a->detached++;
}

int session_attach_status(const struct session_attach *a)
{
	return a && a->attached == a->n && a->detached >= a->n ? 0 : 1;
}

void session_attach_free(struct session_attach *a)
{
	if (!a)
		return;
	if (a->o && a->o->argv == a->argv)
		a->o->argv = NULL;
	for (unsigned i = 0; a->p && i < a->n; i++)
		if (a->p[i].pidfd >= 0)
			close(a->p[i].pidfd);
	free(a->exe);
	free(a->p);
	free(a);
}
