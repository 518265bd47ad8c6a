/* SPDX-License-Identifier: MIT */
/*
 * recorder_eprobe.c - the recorder's side of the event probes (e:,
 * lib/probes/eprobe.h) of a live recording.
 *
 * Design: as the kernel's eprobe is a trigger on its attached event
 * (trace_eprobe.c eprobe_trigger_func, hidden from the trigger file), an
 * event probe here is a trigger command of its attached event, EPROBE
 * (common/proto.h): sent with that event's other triggers, before each
 * ENABLE of its keys (recorder_liveev.c live_trigs_send), so it reaches
 * every process and object that has the event, at registration and
 * whenever the event's configuration changes.  Its fetch program is
 * compiled for each object's layout of the event (the same event may be
 * laid out differently in two objects); its own record is written by an
 * in-process probe key (recorder_inproc_probe.c) that lands in no
 * object, so its enable, filter, triggers and hist are any probe's.  A
 * removed probe is skipped here and stops at once in every process (the
 * control page's ipp_off bit, which the runtime checks at every hit).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_filter.h"
#include "lib/events/event_select.h"
#include "lib/hist/synth.h"
#include "lib/probes/eprobe.h"
#include "lib/probes/inproc_probe.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_kernel.h"
#include "lib/record/recorder_live.h"

/* Probe i's EPROBE trigger for a key of the attached event laid out as
 * fmt, to c; 0 if it does not fit that layout. */
static int ep_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		   unsigned i, const struct utrace_event_format *fmt)
{
	const char *name, *filter, *def;
	struct utrace_msg_trigger m = {
	    .hdr.type = UTRACE_MSG_TRIGGER,
	    .obj = obj,
	    .key = key,
	    .cmd = UTRACE_TC_EPROBE,
	    .target = (int32_t)i,
	    .count_idx = -1,
	};
	struct utrace_error err = {0};
	void *fprog = NULL, *prog = NULL;
	uint8_t *payload;
	int ret = 0;

	utrace_inproc_probe_eprobe(r->o.inproc_probes[i], &name, &filter, &def);
	if ((filter && utrace_filter_compile(fmt, filter, &fprog, &m.filter_len, &err) < 0) ||
	    utrace_eprobe_compile_on(def, fmt, &prog, &m.prog_len, &err) < 0 ||
	    sizeof(m) + m.filter_len + m.prog_len > UTRACE_MSG_MAX)
		goto out;
	ret = -ENOMEM;
	if (!(payload = malloc(m.filter_len + m.prog_len)))
		goto out;
	if (m.filter_len)
		memcpy(payload, fprog, m.filter_len);
	memcpy(payload + m.filter_len, prog, m.prog_len);
	ret = rec_conn_send_with(c, &m, sizeof(m), payload, m.filter_len + m.prog_len, -1);
	free(payload);
out:
	free(fprog);
	free(prog);
	return ret;
}

int rec_eprobe_trigs_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
			  uint32_t key, const struct utrace_event_format *fmt, unsigned *nt)
{
	int ret = 0;

	for (unsigned i = 0; fmt && i < r->o.nr_inproc_probes && i < UTRACE_INPROC_PROBE_MAX &&
			     ret >= 0;
	     i++) {
		const char *sys, *name, *filter, *def;

		sys = utrace_inproc_probe_eprobe(r->o.inproc_probes[i], &name, &filter, &def);
		if (!sys || strcmp(sys, fmt->system) || strcmp(name, fmt->name) ||
		    utrace_ctl_inproc_probe_off(r->ctl, i) ||
		    rec_kfmt_shown(r, sys, name)) /* the kernel's event: the merge's */
			continue;
		if ((*nt)++ < UTRACE_EVENT_TRIGS_MAX)
			ret = ep_send(r, c, obj, key, i, fmt);
	}
	return ret;
}

const struct utrace_event_format *utrace_recorder_live_format(struct utrace_recorder *r,
							      const char *system,
							      const char *name)
{
	const struct utrace_event_format *f =
	    utrace_event_select_format(r->o.events, UTRACE_EVENT_NOOBJ, system, name);

	for (uint32_t i = 0; !f && i < r->nr_conns; i++)
		for (uint32_t k = 0; !f && k < r->conns[i]->nr_objs; k++)
			f = utrace_event_select_format(r->o.events, r->conns[i]->objs[k].path, system,
						       name);
	for (unsigned i = 0; !f && !strcmp(system, "synthetic") && i < r->o.nr_synths; i++)
		if (!strcmp(r->o.synths[i]->name, name)) /* a removed one's is "" */
			f = r->o.synths[i]->fmt;
	for (unsigned i = 0; !f && i < r->o.nr_inproc_probes && i < UTRACE_INPROC_PROBE_MAX; i++)
		if (!utrace_ctl_inproc_probe_off(r->ctl, i) && /* not a removed one */
		    !strcmp(utrace_inproc_probe_group(r->o.inproc_probes[i]), system) &&
		    !strcmp(utrace_inproc_probe_event(r->o.inproc_probes[i]), name))
			f = utrace_inproc_probe_format(r->o.inproc_probes[i]);
	return f;
}
