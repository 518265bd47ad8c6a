/* SPDX-License-Identifier: MIT */
/*
 * session_wins.c - times in pairs [from, to), CLOCK_MONOTONIC ns, the last
 * one maybe still open (to UINT64_MAX): when a reader of the live
 * tracefs had something on (session_inst.c).
 */
#include <errno.h>
#include <time.h>

#include "lib/base/grow.h"
#include "lib/session/session_live_internal.h"

#define OPEN UINT64_MAX

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool session_wins_open(const struct session_wins *w)
{
	return w->n && w->t[w->n - 1] == OPEN;
}

int session_wins_start_at(struct session_wins *w, uint64_t ns)
{
	if (session_wins_open(w))
		return 0;
	if (UTRACE_GROW(w->t, w->cap, w->n + 2) < 0)
		return -ENOMEM;
	if (w->n && ns < w->t[w->n - 1]) /* never before the last one ended */
		ns = w->t[w->n - 1];
	w->t[w->n++] = ns;
	w->t[w->n++] = OPEN;
	return 0;
}

void session_wins_end_at(struct session_wins *w, uint64_t ns)
{
	if (session_wins_open(w))
		w->t[w->n - 1] = ns > w->t[w->n - 2] ? ns : w->t[w->n - 2];
}

int session_wins_start(struct session_wins *w)
{
	return session_wins_start_at(w, now_ns());
}

void session_wins_end(struct session_wins *w)
{
	session_wins_end_at(w, now_ns());
}

/* Whether ts is in one of the windows (the newest are looked at first:
 * trace and trace_pipe read the recent records). */
bool session_wins_has(const struct session_wins *w, uint64_t ts)
{
	for (size_t i = w->n; i >= 2; i -= 2)
		if (ts >= w->t[i - 2] && ts < w->t[i - 1])
			return true;
	return false;
}
