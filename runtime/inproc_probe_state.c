/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe_state.c - what each in-process probe is in the text now
 * (the kernel's debugfs kprobes/list), and the kernel's
 * kprobes-optimization switch over the probes' jmps.
 *
 * A probe is patched one of three ways (inproc_probes.c): its function's
 * call site calls its slot (the kernel's ftrace-based kprobe, [FTRACE] in
 * its list), a jmp to a detour (the kernel's jump-optimised kprobe,
 * [OPTIMIZED]), or an int3.  The tool chose the way; for a jmp the
 * runtime decides when, or whether, it is written: inproc_probe_opt.c
 * waits until no thread is in its way, and may give up (the probe then
 * stays an int3).  So the state listed (common/proto.h INPROC_PROBE_LIST)
 * is read here from the text itself: a jmp probe whose 5 bytes are the
 * jmp to its address's detour is JMP, one the helper still has queued
 * is JMP_QUEUED (the kernel's flag, too, says OPTIMIZED from the moment
 * the probe joins its optimizer's queue), else INT3.
 *
 * The switch (the control page's ipp_noopt, the kernel's sysctl
 * debug.kprobes-optimization, inproc_probe_opt.c rt_inproc_probe_optimize)
 * is read where a jmp probe is installed
 * (inproc_probes.c ipp_take_jmp: with it off, the probe is an int3
 * resuming in its detour's tail); when it changes, the recorder has each
 * process apply it (INPROC_PROBE_OPT, on the live thread), as the
 * kernel's unoptimize_all_kprobes and optimize_all_kprobes do:
 *
 *   off: each queued jmp leaves the queue (inproc_probe_opt.c forgets it;
 *        a round about to write it checks that under the same lock), then
 *        each jmp written becomes an int3 again, text_poke.c's int3-first
 *        batch writing {cc, the program's bytes 1..4}: a thread that
 *        meets the int3, meanwhile or later, resumes in the detour's tail
 *        as the jmp sent it there (ipp_trap comes first in the SIGTRAP
 *        handler); no thread is inside the 5 bytes (the jmp kept them
 *        from being entered), one in the detour goes on to its jmp back;
 *   on:  each jmp probe that is an int3 and has its detour's head is
 *        queued again; the helper writes its jmp as for a new probe (a
 *        fork's child that has no helper yet keeps its int3s, as
 *        inproc_probe_opt.c says of its probes).
 *
 * Both run with the objects lock (no object unloaded, no probe added
 * meanwhile) and rt_ipp_lock held (no removal meanwhile).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/insn.h"
#include "runtime/inproc_probe_internal.h"
#include "runtime/rt.h"

int utrace_fetch_load(uint64_t addr, unsigned size, uint64_t *out) RT_HIDDEN;

/* Whether the text at t->p[i].addr is the jmp to the detour of one of
 * the probes there (the first one's took it; the others share it). */
static bool ipp_jmp_written(const struct ipp_table *t, size_t i)
{
	uint64_t addr = t->p[i].addr, v;
	uint8_t want[5];

	if (utrace_fetch_load(addr, 8, &v) < 0)
		return false;
	while (i > 0 && t->p[i - 1].addr == addr)
		i--;
	for (; i < t->n && t->p[i].addr == addr; i++) {
		insn_rel32(want, INSN_JMP, addr, t->p[i].slot);
		if (t->p[i].how == UTRACE_IPPH_JMP && !memcmp(&v, want, sizeof(want)))
			return true;
	}
	return false;
}

static uint8_t ipp_state(const struct ipp_table *t, size_t i)
{
	const struct rt_inproc_probe *p = &t->p[i];

	if (p->how == UTRACE_IPPH_SITE)
		return UTRACE_IPPS_SITE;
	if (p->how == UTRACE_IPPH_JMP && ipp_jmp_written(t, i))
		return UTRACE_IPPS_JMP;
	if (p->how == UTRACE_IPPH_JMP && rt_inproc_probe_opt_queued(p->addr))
		return UTRACE_IPPS_JMP_QUEUED;
	return UTRACE_IPPS_INT3;
}

struct ipp_states {
	struct utrace_inproc_probe_entry *e;
	int n;
};

static int ipp_states_locked(void *arg)
{
	struct ipp_states *s = arg;
	const struct ipp_table *t;

	pthread_mutex_lock(&rt_ipp_lock);
	t = rt_ipp_table;
	s->n = 0;
	if (t && t->n && !(s->e = calloc(t->n, sizeof(*s->e))))
		s->n = -ENOMEM;
	for (size_t i = 0; s->n >= 0 && t && i < t->n; i++) {
		const struct rt_inproc_probe *p = &t->p[i];

		if (utrace_ctl_inproc_probe_off(rt.ctl, p->key))
			continue; /* removed: its bytes are going back */
		s->e[s->n++] = (struct utrace_inproc_probe_entry){
		    p->addr, p->key, ipp_state(t, i), (uint8_t)(p->is_return != 0), {0}};
	}
	pthread_mutex_unlock(&rt_ipp_lock);
	return s->n;
}

int rt_inproc_probe_states(struct utrace_inproc_probe_entry **out)
{
	struct ipp_states s = {NULL, 0};
	int n = rt_objects_locked(ipp_states_locked, &s);

	if (n < 0)
		free(s.e);
	*out = n < 0 ? NULL : s.e;
	return n;
}

/* One poke per address with a jmp probe: off, the int3 over a jmp
 * written (queued ones forgotten first); on, the jmp of an int3 whose
 * detour is ready, with the end of what it covers in hi. */
static size_t ipp_switch_pokes(const struct ipp_table *t, bool opt, struct rt_poke *pk,
			       uint64_t *hi)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct rt_inproc_probe *p = &t->p[i];

		if (p->how != UTRACE_IPPH_JMP || utrace_ctl_inproc_probe_off(rt.ctl, p->key))
			continue;
		if (!opt) {
			rt_inproc_probe_opt_forget(p->addr, p->addr + 1);
			if (!ipp_jmp_written(t, i) ||
			    (n && pk[n - 1].addr == (uint8_t *)(uintptr_t)p->addr))
				continue; /* (the others there share the jmp) */
			pk[n].addr = (uint8_t *)(uintptr_t)p->addr;
			pk[n].bytes[0] = INSN_INT3;
			memcpy(pk[n].bytes + 1, (const uint8_t *)&p->orig + 1, 4);
			n++;
		} else if (p->detour && ipp_state(t, i) == UTRACE_IPPS_INT3 &&
			   !(n && pk[n - 1].addr == (uint8_t *)(uintptr_t)p->addr)) {
			pk[n].addr = (uint8_t *)(uintptr_t)p->addr;
			insn_rel32(pk[n].bytes, INSN_JMP, p->addr, p->slot);
			hi[n++] = p->addr + p->insn_len;
		}
	}
	return n;
}

static int ipp_apply_locked(void *arg)
{
	bool opt = rt_inproc_probe_optimize();
	const struct ipp_table *t;
	struct rt_poke *pk = NULL;
	uint64_t *hi = NULL;
	size_t n = 0;
	int ret = 0;

	(void)arg;
	pthread_mutex_lock(&rt_ipp_lock);
	t = rt_ipp_table;
	/* a fork's child with no helper yet keeps its int3s */
	if (t && t->n && (!opt || rt_inproc_probe_opt_running())) {
		pk = calloc(t->n, sizeof(*pk));
		hi = calloc(t->n, sizeof(*hi));
		if (pk && hi)
			n = ipp_switch_pokes(t, opt, pk, hi);
		else
			ret = -ENOMEM;
	}
	if (n && !opt)
		ret = rt_text_poke_batch(pk, n);
	else if (n)
		rt_inproc_probe_opt_queue(pk, hi, n);
	pthread_mutex_unlock(&rt_ipp_lock);
	free(pk);
	free(hi);
	return ret;
}

int rt_inproc_probe_opt_apply(void)
{
	return rt_objects_locked(ipp_apply_locked, NULL);
}
