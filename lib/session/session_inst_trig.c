/* SPDX-License-Identifier: MIT */
/*
 * session_inst_trig.c - an instance's own triggers: those written into
 * instances/NAME/events/S/E/trigger and the function commands of
 * instances/NAME/set_ftrace_filter (traceon, traceoff, stacktrace,
 * enable_event, disable_event), which act on that instance, as the
 * kernel's do on their trace_array, while the top level's go on as
 * before.
 *
 * An instance is a selection of the one set of records the processes
 * write (session_inst.c), so its triggers cannot switch the processes'
 * words: they run where the top level's run, at the event site in the
 * traced thread (runtime/event_trigger.c), and each carries its reader
 * (the instance's slot of the control page, 1 .. UTRACE_READERS - 1,
 * taken at mkdir).  The runtime keeps each reader's tracing_on and event
 * bits there, which the instance's files set too (session_inst.c, through
 * utrace_recorder_reader_*), so that a count is used up only by a firing
 * that changes the instance, as the kernel's.  A firing that switches
 * something on turns it on in the processes too if it was off (no record
 * could be kept otherwise), and every firing that changed something
 * logs its time: session_inst_sync, run before any of the instance's (or
 * the top level's) files is read or written, moves the reader's windows
 * to those times, starts the top level's masks for what the union turned
 * on, and turns off in the processes what no reader keeps on any more.
 * A stacktrace's record is marked with the readers that asked for it
 * (session_sel_keep shows it to them).  A snapshot trigger's request
 * names its reader, and the snapshot is the instance's
 * (session_inst_snap.c).  A hist trigger is a hist trigger as the top
 * level's, its own table filled at the hit by the same code; the
 * recorder lists a reader's own tables only (session_sel_print_hist).
 * The fast path is the same: the trigger list is the event's one list,
 * only its entries say whose.
 *
 * Its enable_hist and disable_hist set its own bit of the target on
 * the control page (reader_hist_off), which its hists read at the hit.
 *
 * Its hist triggers' $vars are its own triggers' (the recorder's lookup
 * is by reader: session_live.c live_hist_var).
 *
 * The top level's traceon and traceoff act on its own tracing_on too
 * (reader_on[0], runtime/event_trigger.c trig_top_on): while an instance
 * keeps tracing on, they log themselves as reader 0's, and fired_top
 * starts or ends the top level's mask at their time.
 *
 * What an instance does not have of its own yet: triggers other than
 * hist on kernel events, and triggers of more than UTRACE_READERS - 1
 * instances at once (ENOSPC).
 */
#include <errno.h>
#include <string.h>

#include "lib/hist/hist.h"
#include "lib/session/session_live_internal.h"

#define FTCMD_PREFIX "p:" UTRACE_LIVE_FTCMD_GROUP "/"

static struct session_sel_ev *ev_of_id(struct session_sel *s, int id)
{
	for (size_t i = 0; i < s->nevs; i++)
		if (s->evs[i].id == id)
			return &s->evs[i];
	return NULL;
}

/* Tracing, or event e, went off for an instance: in the processes too if
 * no other reader keeps it on (the top level's mask ends). */
static void fired_off(struct session_live *rl, const struct session_sel_ev *e)
{
	struct session_sel_ev *t;

	if (!e) {
		if (!session_insts_on(rl, NULL) && session_wins_open(&rl->top.on)) {
			session_wins_end(&rl->top.on);
			utrace_recorder_tracing_on(rl->r, 0);
		}
		return;
	}
	t = session_sel_ev_find(&rl->top, e->sys, e->name);
	if (!session_insts_have_event(rl, NULL, e->sys, e->name) && t && session_wins_open(&t->w)) {
		session_wins_end(&t->w);
		session_rec_event(rl, e->sys, e->name, 0);
	}
}

/* The top level's traceon/traceoff, logged while an instance kept
 * tracing on in the processes (runtime/event_trigger.c trig_top_on): its
 * mask (what it does not show) starts or ends then; tracing goes off in
 * the processes if no instance has it on any more. */
static void fired_top(struct session_live *rl, const struct utrace_reader_fired *f)
{
	if (f->cmd == UTRACE_TC_TRACEON) {
		session_wins_end_at(&rl->top.on, f->ns);
	} else if (f->cmd == UTRACE_TC_TRACEOFF) {
		session_wins_start_at(&rl->top.on, f->ns);
		fired_off(rl, NULL);
	}
}

static void fired_apply(struct session_live *rl, const struct utrace_reader_fired *f)
{
	struct session_sel *s = session_reader_sel(rl, f->reader);
	struct session_sel_ev *e = s ? ev_of_id(s, f->target) : NULL, *t;

	if (!f->reader) {
		fired_top(rl, f);
		return;
	}
	if (!s)
		return; /* removed since */
	switch (f->cmd) {
	case UTRACE_TC_TRACEON: /* the top level had it off if the processes had */
		session_wins_start_at(&s->on, f->ns);
		if (!f->was_on)
			session_wins_start_at(&rl->top.on, f->ns);
		break;
	case UTRACE_TC_TRACEOFF:
		session_wins_end_at(&s->on, f->ns);
		fired_off(rl, NULL);
		break;
	case UTRACE_TC_ENABLE_EVENT:
		if (!e)
			break;
		session_wins_start_at(&e->w, f->ns);
		if (!f->was_on && (t = session_sel_ev_get(&rl->top, e->sys, e->name)))
			session_wins_start_at(&t->w, f->ns);
		break;
	case UTRACE_TC_DISABLE_EVENT:
		if (!e)
			break;
		session_wins_end_at(&e->w, f->ns);
		fired_off(rl, e);
		break;
	}
}

void session_inst_sync(struct session_live *rl)
{
	struct utrace_reader_fired f[16];
	unsigned n;

	if (!rl->sel_used)
		return;
	session_pids_sync(rl); /* the forks' and exits' changes to the pid lists */
	do {
		n = utrace_recorder_reader_fired(rl->r, &rl->fired, f, 16);
		for (unsigned i = 0; i < n; i++)
			fired_apply(rl, &f[i]);
	} while (n == 16);
}

static int inst_event_triggers(void *arg, const char *system, const char *name,
			       const char *const *texts, struct utrace_trigger *const *trigs,
			       unsigned n, struct utrace_error *err)
{
	struct session_sel *s = arg;
	struct session_live *rl = s->rl;
	int ret;

	if (!s->reader)
		return n ? utrace_error_set(err, -ENOSPC,
					    "%s/%s: more than %d instances have triggers", system,
					    name, UTRACE_READERS - 1)
			 : 0;
	/* the targets' entries, which the firings move (by id) */
	for (unsigned i = 0; i < n; i++)
		if ((trigs[i]->cmd == UTRACE_TRIG_ENABLE_EVENT ||
		     trigs[i]->cmd == UTRACE_TRIG_DISABLE_EVENT) &&
		    !session_sel_ev_get(s, trigs[i]->target_system, trigs[i]->target_event))
			return utrace_error_set(err, -ENOMEM, "out of memory");
	session_inst_sync(rl);
	live_lock(rl);
	ret = utrace_recorder_live_triggers(rl->r, s->reader, system, name, texts, trigs, n, err);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

static int inst_trigger_ctl(void *arg, const char *system, const char *name, const char *text,
			    int what, long *count, bool *paused)
{
	struct session_sel *s = arg;
	int ret;

	if (!s->reader)
		return -ENOENT;
	live_lock(s->rl);
	ret = utrace_recorder_live_trigger_ctl(s->rl->r, s->reader, system, name, text, what,
					       count, paused);
	pthread_mutex_unlock(&s->rl->lock);
	return ret;
}

static bool inst_event_soft(void *arg, const char *system, const char *name)
{
	struct session_sel *s = arg;
	bool soft;

	if (!s->reader)
		return false;
	live_lock(s->rl);
	soft = utrace_recorder_live_soft(s->rl->r, s->reader, system, name);
	pthread_mutex_unlock(&s->rl->lock);
	return soft;
}

/* An instance defines no event: only the probes of its function
 * commands (lib/tracefs/live_ftcmd.c), the recording's as the top
 * level's. */
static int inst_probe_add(void *arg, const char *def, enum utrace_live_probe file, char **line,
			  const struct utrace_event_format **fmt, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);

	if (file != UTRACE_LIVE_KPROBE || strncmp(def, FTCMD_PREFIX, strlen(FTCMD_PREFIX)) ||
	    !rl->ops.probe_add)
		return utrace_error_set(err, -EINVAL, "an instance defines no probe");
	return rl->ops.probe_add(&rl->top, def, file, line, fmt, err);
}

static int inst_dynev_remove(void *arg, const char *sys, const char *name, const char *line,
			     struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);

	if (strcmp(sys, UTRACE_LIVE_FTCMD_GROUP) || !rl->ops.dynev_remove)
		return utrace_error_set(err, -EINVAL, "an instance removes no probe");
	return rl->ops.dynev_remove(&rl->top, sys, name, line, err);
}

void session_inst_trig_ops(struct session_sel *s, struct utrace_live_ops *ops)
{
	ops->event_triggers = inst_event_triggers;
	ops->trigger_ctl = inst_trigger_ctl;
	ops->event_soft = inst_event_soft;
	ops->probe_add = inst_probe_add;
	ops->dynev_remove = inst_dynev_remove;
}

/* mkdir: the first reader no instance has (0: none left); its state on
 * the control page starts clear (rmdir clears it). */
void session_inst_reader_take(struct session_live *rl, struct session_sel *s)
{
	for (unsigned r = 1; r < UTRACE_READERS && !s->reader; r++)
		if (!session_reader_sel(rl, r))
			s->reader = r;
}

/* rmdir: its triggers off every event, its state cleared. */
void session_inst_reader_drop(struct session_live *rl, struct session_sel *s)
{
	if (!s->reader)
		return;
	session_inst_sync(rl);
	live_lock(rl);
	utrace_recorder_reader_drop(rl->r, s->reader);
	pthread_mutex_unlock(&rl->lock);
	s->reader = 0;
}
