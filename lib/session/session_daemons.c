/* SPDX-License-Identifier: MIT */
/*
 * session_daemons.c - the end of a recording whose command started daemons
 * (lib/session/session_internal.h).
 *
 * `gpg -c` starts gpg-agent, `ssh-agent` itself forks one, tmux its
 * server, `emacs --daemon` itself: a process that stays after the command
 * and is traced, because it inherited LD_PRELOAD and UTRACE_SOCK.  Waiting
 * for every traced process would wait for them forever.  What tells a
 * daemon from a child the command still counts on (a pipeline's last
 * stage, a background job a script left, the first of a double fork that
 * has not exited yet) is the session: a daemon calls setsid() to leave
 * its terminal, and nothing else does (daemon(3), gpg-agent, ssh-agent,
 * tmux, emacs; `setsid -f`).  The process group would not do: a shell
 * with job control puts every job in a group of its own.
 *
 * So once the command has exited and every process still traced is in
 * another session than the command's (the recorder's, or the one the
 * command moved to while it ran), the recording ends: tracing is switched
 * off (tracing_on = 0: the daemons write nothing more, and none waits on
 * a full buffer), what they wrote is saved, and they run on; their
 * connection closes with the recorder and the runtime stops using it
 * (no SIGPIPE: it sends with MSG_NOSIGNAL).  --follow-daemons waits for
 * them as before.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/session/session_internal.h"

#define DAEMONS_MAX 256 /* more traced processes than that: wait */

/* The command's session while it runs: it may have left ours. */
void session_daemons_watch(struct utrace_session *s)
{
	pid_t sid;

	if (!s->sid)
		s->sid = getsid(0);
	if (!s->exited && s->pid > 0 && (sid = getsid(s->pid)) > 0)
		s->cmd_sid = sid;
}

/* pid is in the command's session (or may be: not known yet). */
static bool daemons_in_session(const struct utrace_session *s, int pid)
{
	pid_t sid;

	if (pid <= 0)
		return true; /* connected, not said who it is yet */
	sid = getsid(pid);
	/* gone (ESRCH): its connection is about to close, and a child it
	 * forked may not have connected yet: the next look sees it */
	return sid < 0 || sid == s->sid || sid == s->cmd_sid;
}

static bool daemons_any_in_session(const struct utrace_session *s, const int *pids, uint32_t n)
{
	if (n > DAEMONS_MAX)
		return true; /* not all seen: wait */
	for (uint32_t i = 0; i < n; i++)
		if (daemons_in_session(s, pids[i]))
			return true;
	return false;
}

static uint64_t daemons_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The command has exited: 0 to go on, SESSION_ALL_GONE or
 * SESSION_DAEMONS_LEFT.  The processes that count are those connected and
 * those that map the control page: a child forked just before its parent
 * exited (the first half of a double fork) maps it before it connects,
 * and would be missed by looking at the connections alone.  That look in
 * /proc is made only once the connections say the end may have come, at
 * most every DAEMONS_LOOK_NS.
 */
#define DAEMONS_LOOK_NS 20000000ull
int session_daemons_end_check(struct utrace_session *s)
{
	int pids[DAEMONS_MAX];
	uint32_t n = utrace_recorder_traced_pids(s->r, pids, DAEMONS_MAX);
	uint64_t now;

	if (s->o->follow_daemons ? n > 0 : daemons_any_in_session(s, pids, n))
		return 0;
	now = daemons_now_ns();
	if (now - s->daemons_looked_ns < DAEMONS_LOOK_NS)
		return 0;
	s->daemons_looked_ns = now;
	n = utrace_recorder_mapping_pids(s->r, pids, DAEMONS_MAX);
	if (s->o->follow_daemons ? n > 0 : daemons_any_in_session(s, pids, n))
		return 0;
	if (!n && utrace_recorder_traced_pids(s->r, pids, 0) == 0)
		return SESSION_ALL_GONE;
	return SESSION_DAEMONS_LEFT;
}

/* Its name, as ps shows it. */
static void daemons_comm(int pid, char *comm, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	comm[0] = 0;
	if ((f = fopen(path, "re"))) {
		if (fgets(comm, (int)len, f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	if (!comm[0])
		snprintf(comm, len, "?");
}

/* Tracing off in the daemons, and which ones run on: those connected
 * and those that map the control page, each once. */
void session_daemons_end(struct utrace_session *s)
{
	int pids[2 * DAEMONS_MAX];
	uint32_t n, said = 0;
	FILE *log = s->o->log;

	utrace_recorder_stop(s->r);
	utrace_recorder_refuse(s->r); /* a daemon's child that connects later: untraced */
	n = utrace_recorder_traced_pids(s->r, pids, DAEMONS_MAX);
	n = n < DAEMONS_MAX ? n : DAEMONS_MAX;
	n += utrace_recorder_mapping_pids(s->r, pids + n, DAEMONS_MAX);
	n = n < 2 * DAEMONS_MAX ? n : 2 * DAEMONS_MAX;
	if (!log)
		return;
	fprintf(log,
		"utrace record: %s ended; processes it started left its session and "
		"run on, no longer traced (--follow-daemons records them until they exit):",
		s->o->argv[0]);
	for (uint32_t i = 0; i < n; i++) {
		char comm[32];
		bool seen = false;

		for (uint32_t k = 0; k < i && !seen; k++)
			seen = pids[k] == pids[i];
		if (seen || pids[i] <= 0 || getsid(pids[i]) < 0)
			continue;
		daemons_comm(pids[i], comm, sizeof(comm));
		fprintf(log, "%s pid %d (%s)", said++ ? "," : "", pids[i], comm);
	}
	fprintf(log, "%s\n", said ? "" : " none left");
}
