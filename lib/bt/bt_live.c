/* SPDX-License-Identifier: MIT */
/*
 * bt_live.c - the recorded hits replayed while the program runs, so that
 * printf lines and interval prints come out as they happen (bpftrace
 * prints them as the kernel hands them over) and exit() ends the run at
 * once: the recording calls bt_live_step at every turn of its loop
 * (lib/session's o->step); every STEP_NS it has the recording save what
 * is committed (utrace_session_sync) and replays the events after the
 * last one replayed (bookmarks: the file is not read again from its
 * start; nor indexed again: the reading is kept open and refreshed with
 * what was written since, utrace_dat_refresh), through r->replay
 * (bt_session.c's).  Only events older than the sync by SETTLE_NS are taken: a
 * thread that took its time stamp before the sync may commit its record
 * just after it, and a later reading must still find it in order (the
 * last reading, once the recording ended, takes everything).  Intervals
 * fire up to the same time.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "lib/bt/bt_profile.h"
#include "lib/bt/bt_run_internal.h"
#include "lib/session/session.h"
#include "lib/tracefile/dat_reader.h"

#define STEP_NS 20000000ll   /* 20 ms between readings */
#define SETTLE_NS 10000000ll /* 10 ms: what a reading leaves for the next */

static int64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void bt_live_notify(struct bt_run *r)
{
	if (r->notified)
		return;
	r->notified = true;
	if (getenv("__BPFTRACE_NOTIFY_PROBES_ATTACHED")) { /* bpftrace's stderr */
		fputs("__BPFTRACE_NOTIFY_PROBES_ATTACHED\n", r->o->log);
		fflush(r->o->log);
	}
}

/* Whether anything is replayed: a site whose hits are recorded, or an
 * interval. */
static bool replays(const struct bt_run *r)
{
	for (unsigned i = 0; i < r->nsites; i++) {
		const struct bt_site *s = &r->sites[i];

		if (s->type == BT_P_INTERVAL || s->type == BT_P_USDT || s->type == BT_P_TRACEPOINT ||
		    s->type == BT_P_PROFILE || s->inproc_no)
			return true;
	}
	return false;
}

bool bt_live_step(void *arg, struct utrace_session *s)
{
	struct bt_run *r = arg;
	struct utrace_error err = {0};
	int64_t now = mono_now();

	if (r->waiting && !r->waiter_pid)
		r->waiter_pid = utrace_session_pid(s);
	if (r->o->argv && !r->cpid)
		r->cpid = utrace_session_pid(s);
	/* intervals count from the probes attached, as bpftrace's */
	for (unsigned i = 0; i < r->nsites && !r->notified; i++)
		if (r->sites[i].type == BT_P_INTERVAL)
			r->sites[i].next_tick =
			    (uint64_t)(r->attach_ns ? r->attach_ns : now) + r->sites[i].period_ns;
	/* profile samples every CPU, -c and -p or not, as bpftrace's; the
	 * traced process only where the kernel lets none but root see all */
	if (!r->notified && bt_profile_open(r, geteuid() == 0 || r->waiting ? 0
					    : r->o->pid ? r->o->pid : utrace_session_pid(s)) < 0) {
		fprintf(r->o->log, "utrace bt: profile: %s\n", r->err->msg);
		r->exiting = true;
	}
	bt_live_notify(r);
	bt_usr1_poll(r);
	if (r->exiting || now < r->next_step_ns || !r->dat_path || !r->replay)
		return r->exiting;
	r->next_step_ns = now + STEP_NS;
	bt_profile_drain(r);
	if (!replays(r))
		return r->exiting;
	if (!r->resume && utrace_dat_resume_new(&r->resume) < 0)
		return false;
	if (utrace_session_sync(s, &err) < 0)
		return false;
	/* a failed reading is read again at the next step or at the end */
	r->replay(r, r->dat_path, (uint64_t)(now - SETTLE_NS));
	fflush(r->out);
	return r->exiting;
}

void bt_tool_comm(char comm[16])
{
	if (prctl(PR_GET_NAME, comm) < 0) /* "utrace", or "bpftrace" run by that name */
		snprintf(comm, 16, "utrace");
	comm[15] = 0;
}

/* Every map, by name, as bpftrace prints them at the end and on SIGUSR1. */
void bt_print_all(struct bt_run *r)
{
	bool *done = calloc(r->prog.nmaps + 1, sizeof(*done));

	for (unsigned k = 0; done && k < r->prog.nmaps; k++) {
		int next = -1;

		for (unsigned i = 0; i < r->prog.nmaps; i++)
			if (!done[i] && (next < 0 || strcmp(r->prog.maps[i].name,
							    r->prog.maps[next].name) < 0))
				next = (int)i;
		done[next] = true;
		/* an empty one too: a blank line in text, nothing in json */
		bt_maps_print(r->maps, (unsigned)next, r->prog.maps[next].name, 0, 0, r->fmt,
			      r->out);
	}
	free(done);
}

static volatile sig_atomic_t bt_usr1;

void bt_on_usr1(int sig)
{
	(void)sig;
	bt_usr1 = 1;
}

void bt_usr1_poll(struct bt_run *r)
{
	if (!bt_usr1)
		return;
	bt_usr1 = 0;
	bt_print_all(r);
	fflush(r->out);
}
