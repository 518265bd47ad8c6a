/* SPDX-License-Identifier: MIT */
/*
 * session_eprobe.c - an event probe (e:, lib/probes/eprobe.h) written to
 * the live tracefs's dynamic_events: checked against its attached event's
 * format, where the recording has it (an event of a traced program's, a
 * synthetic event, a probe), added to the recording as an in-process
 * probe that lands in no object (its event id, its format saved, off
 * until its enable file says 1), then its attached event's configuration
 * sent again to every process, now with the probe among its triggers
 * (lib/record/recorder_eprobe.c).  On a kernel event recorded by
 * utrace's kernel instance (checked against the kernel's format), and on
 * a synthetic event that kernel events fire, it runs in the recorder's
 * merge of the kernel's records instead (lib/record/recorder_keprobe.c),
 * what their fields point to read at the event by the kernel.
 *
 * Its name is kept with the others' (session_dynev.c), so that removal,
 * enable and the duplicate checks treat it as any dynamic event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/eprobe.h"
#include "lib/probes/inproc_probe.h"
#include "lib/probes/uprobe.h"
#include "lib/session/session_dynev.h"
#include "lib/session/session_live_internal.h"

/* The attached event's format: a kernel event's (the kernel's format)
 * before a program's of that name, as the tracefs shows them. */
static const struct utrace_event_format *ep_find(void *arg, const char *system, const char *name)
{
	struct session_live *rl = arg;
	const struct utrace_event_format *f = utrace_recorder_live_kformat(rl->r, system, name);

	return f ? f : utrace_recorder_live_format(rl->r, system, name);
}

/* ep added to the recording (the recorder held), which takes it, even on
 * failure: 0, or <0 with err. */
static int ep_install(struct session_live *rl, struct utrace_eprobe *ep, char **line,
		      const struct utrace_event_format **fmt, struct utrace_error *err)
{
	const char *sys = utrace_eprobe_group(ep), *name = utrace_eprobe_event(ep);
	char asys[64], aname[64], *text = NULL;
	int id, ret;

	snprintf(asys, sizeof(asys), "%s", utrace_eprobe_attached_system(ep));
	snprintf(aname, sizeof(aname), "%s", utrace_eprobe_attached_event(ep));
	if (session_dynev_known(rl, sys, name) || utrace_recorder_live_format(rl->r, sys, name)) {
		utrace_eprobe_free(ep);
		return session_dynev_exists(err);
	}
	if ((id = session_dynev_event_id(rl, sys, name)) < 0 ||
	    !(text = utrace_eprobe_saved_format(ep, id)) ||
	    !(*line = utrace_eprobe_line(ep))) {
		free(text);
		utrace_eprobe_free(ep);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	*fmt = utrace_eprobe_format(ep);
	ret = utrace_recorder_inproc_probe_add(rl->r, utrace_eprobe_take(ep), id, text, err);
	free(text);
	if (ret >= 0 && (ret = session_dynev_keep(rl, sys, name, id)) < 0)
		utrace_error_set(err, ret, "out of memory");
	/* the probe is the recorder's: its trigger goes out even if the
	 * name could not be kept (it is then off for good) */
	if (ret >= 0)
		ret = utrace_recorder_live_eprobes(rl->r, asys, aname, err);
	return ret;
}

static int ep_add(void *arg, const char *def, enum utrace_live_probe file, char **line,
		  const struct utrace_event_format **fmt, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	struct utrace_eprobe *ep = NULL;
	int ret;

	if (file != UTRACE_LIVE_DYNAMIC || !utrace_eprobe_is(def)) /* dynamic_events' alone */
		return rl->probe_add(arg, def, file, line, fmt, err);

	*line = NULL;
	live_lock(rl);
	ret = utrace_eprobe_parse(def, ep_find, rl, 0, &ep, NULL, err);
	if (ret >= 0)
		ret = ep_install(rl, ep, line, fmt, err);
	pthread_mutex_unlock(&rl->lock);
	if (ret < 0) {
		free(*line);
		*line = NULL;
	}
	return ret < 0 ? ret : 0;
}

void session_eprobe_ops(struct session_live *rl, struct utrace_live_ops *ops)
{
	rl->probe_add = ops->probe_add;
	ops->probe_add = ep_add;
}
