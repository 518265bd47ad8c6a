/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe_remove.c - removing in-process probes from running programs (the
 * kernel's `-:EVENT` written to kprobe_events while tracing).
 *
 * The recording turns probe key k off with a bit of the shared control
 * page (common/proto.h ipp_off; utrace_recorder_inproc_probe_remove).  Records
 * stop at once: inproc_probes.c checks the bit on every hit.  This process's
 * probe helper thread (inproc_probe_opt.c), woken by ipp_gen, then gives the
 * program its bytes back and frees the probes' slots, in that order:
 *
 *   1. the bytes: one byte over an int3 (atomic for fetch), or the
 *      int3-first batch of text_poke.c over a jmp or a site's call; a
 *      jmp that inproc_probe_opt.c had not written yet never is;
 *   2. the table without them, published as inproc_probes.c does (the old one
 *      stays readable): a trap taken before the bytes came back still
 *      finds its probe and resumes in the slot, or finds the bytes back
 *      and poke_trap runs the instruction;
 *   3. the slots: free once no thread is in one, returns into one (the
 *      detour calls its trampoline) or handles its int3 (it would resume
 *      there): rt_inproc_probe_quiesce, inproc_probe_opt.c's proof.
 *
 * A probe that shares its address with one that stays keeps the bytes,
 * and its slot is retired (the jmp, or an int3's resume, may lead there).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/insn.h"
#include "runtime/inproc_probe_internal.h"
#include "runtime/rt.h"

/* The program's bytes back at p->addr, the last probe there going: one
 * byte over an int3, else (a site's call, a jmp) the int3-first batch. */
static int ipp_restore(const struct rt_inproc_probe *p)
{
	uint8_t *a = (uint8_t *)(uintptr_t)p->addr;
	struct rt_poke poke = {a, {0}};

	int ret;

	rt_inproc_probe_opt_forget(p->addr, p->addr + 1); /* a jmp not written yet never is */
	if (*a == INSN_INT3)
		return rt_text_poke_bytes(&a, (const uint8_t *)&p->orig, 1);
	memcpy(poke.bytes, &p->orig, sizeof(poke.bytes));
	ret = rt_text_poke_batch(&poke, 1);
	/* the site no longer calls its slot: a probe added there later
	 * must patch it again, not find it done */
	if (ret == 0 && p->how == UTRACE_IPPH_SITE)
		rt_ipp_site_forget(p->addr);
	return ret;
}

/* The probes of t that stay. */
static struct ipp_table *ipp_without_off(const struct ipp_table *t, size_t *off)
{
	struct ipp_table *n = malloc(sizeof(*n) + t->n * sizeof(t->p[0]));

	*off = 0;
	if (!n)
		return NULL;
	n->n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (!utrace_ctl_inproc_probe_off(rt.ctl, t->p[i].key))
			n->p[n->n++] = t->p[i];
	*off = t->n - n->n;
	return n;
}

/*
 * inproc_probe_opt.c's helper thread, when ipp_off moved: each probe turned off
 * (its records stopped already, ipp_record) gets the program's bytes back
 * where no other probe stays, then leaves the table (a trap taken before
 * the bytes came back still finds it, or finds them back: poke_trap then
 * runs the instruction), then its slot is free once no thread can be in
 * it: none there, none returning into it (the detour's call), none in
 * the trap handler for it (rt_inproc_probe_quiesce).
 */
static void ipp_apply_off(void)
{
	const struct ipp_table *old;
	struct ipp_table *t;
	uint64_t *lo = NULL, *hi = NULL, *trap = NULL;
	size_t off, n = 0, failed = 0;
	char msg[128];

	rt_text_pin(); /* the restores write the objects' text */
	pthread_mutex_lock(&rt_ipp_lock);
	old = rt_ipp_table;
	t = old ? ipp_without_off(old, &off) : NULL;
	if (t && off && (lo = calloc(off, 8)) && (hi = calloc(off, 8)) && (trap = calloc(off, 8))) {
		for (size_t i = 0; i < old->n; i++) {
			const struct rt_inproc_probe *p = &old->p[i];

			/* a probe that stays at the address may use this slot
			 * (the jmp's, or the first one's an int3 resumes at) */
			if (!utrace_ctl_inproc_probe_off(rt.ctl, p->key) || rt_ipp_find(t, p->addr))
				continue;
			lo[n] = p->slot;
			hi[n] = p->slot + UTRACE_INPROC_PROBE_SLOT;
			trap[n++] = p->addr;
			if (i + 1 == old->n || old->p[i + 1].addr != p->addr)
				failed += ipp_restore(p) < 0;
		}
		rt_ipp_table_set(t); /* the old one stays readable */
		t = NULL;
	}
	pthread_mutex_unlock(&rt_ipp_lock);
	rt_text_unpin();
	free(t);
	if (n) { /* the others' slots are retired, never reused */
		int q = rt_inproc_probe_quiesce(lo, hi, trap, n);

		snprintf(msg, sizeof(msg), "kprobes: %zu probe locations removed (%zu not restored), %s",
			 n, failed, q == 0 ? "their slots free" : "a thread stays in a slot");
		rt_inproc_probe_opt_say(msg);
	}
	free(lo);
	free(hi);
	free(trap);
}

/* The helper thread, once this process has probes (ftrace.c, after
 * rt_inproc_probes_register): promotions queued, removals applied. */
void rt_inproc_probes_live(void)
{
	rt_inproc_probe_opt_start(ipp_apply_off);
}
