/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe_remove.c - removing in-process probes from running programs (the
 * kernel's `-:EVENT` written to kprobe_events while tracing).
 *
 * The recording turns probe key k off with a bit of the shared control
 * page (common/proto.h kp_off; utrace_recorder_kprobe_remove).  Records
 * stop at once: inproc_probes.c checks the bit on every hit.  This process's
 * probe helper thread (inproc_probe_opt.c), woken by kp_gen, then gives the
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
 *      there): rt_kprobe_quiesce, inproc_probe_opt.c's proof.
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
static int kp_restore(const struct rt_kprobe *p)
{
	uint8_t *a = (uint8_t *)(uintptr_t)p->addr;
	struct rt_poke poke = {a, {0}};

	int ret;

	rt_kprobe_opt_forget(p->addr, p->addr + 1); /* a jmp not written yet never is */
	if (*a == INSN_INT3)
		return rt_text_poke_bytes(&a, (const uint8_t *)&p->orig, 1);
	memcpy(poke.bytes, &p->orig, sizeof(poke.bytes));
	ret = rt_text_poke_batch(&poke, 1);
	/* the site no longer calls its slot: a probe added there later
	 * must patch it again, not find it done */
	if (ret == 0 && p->how == UTRACE_KPH_SITE)
		rt_kp_site_forget(p->addr);
	return ret;
}

/* The probes of t that stay. */
static struct kp_table *kp_without_off(const struct kp_table *t, size_t *off)
{
	struct kp_table *n = malloc(sizeof(*n) + t->n * sizeof(t->p[0]));

	*off = 0;
	if (!n)
		return NULL;
	n->n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (!utrace_ctl_kprobe_off(rt.ctl, t->p[i].key))
			n->p[n->n++] = t->p[i];
	*off = t->n - n->n;
	return n;
}

/*
 * inproc_probe_opt.c's helper thread, when kp_off moved: each probe turned off
 * (its records stopped already, kp_record) gets the program's bytes back
 * where no other probe stays, then leaves the table (a trap taken before
 * the bytes came back still finds it, or finds them back: poke_trap then
 * runs the instruction), then its slot is free once no thread can be in
 * it: none there, none returning into it (the detour's call), none in
 * the trap handler for it (rt_kprobe_quiesce).
 */
static void kp_apply_off(void)
{
	const struct kp_table *old;
	struct kp_table *t;
	uint64_t *lo = NULL, *hi = NULL, *trap = NULL;
	size_t off, n = 0, failed = 0;
	char msg[128];

	pthread_mutex_lock(&rt_kp_lock);
	old = rt_kp_table;
	t = old ? kp_without_off(old, &off) : NULL;
	if (t && off && (lo = calloc(off, 8)) && (hi = calloc(off, 8)) && (trap = calloc(off, 8))) {
		for (size_t i = 0; i < old->n; i++) {
			const struct rt_kprobe *p = &old->p[i];

			/* a probe that stays at the address may use this slot
			 * (the jmp's, or the first one's an int3 resumes at) */
			if (!utrace_ctl_kprobe_off(rt.ctl, p->key) || rt_kp_find(t, p->addr))
				continue;
			lo[n] = p->slot;
			hi[n] = p->slot + UTRACE_KPROBE_SLOT;
			trap[n++] = p->addr;
			if (i + 1 == old->n || old->p[i + 1].addr != p->addr)
				failed += kp_restore(p) < 0;
		}
		__atomic_store_n(&rt_kp_table, t, __ATOMIC_RELEASE); /* the old one stays readable */
		t = NULL;
	}
	pthread_mutex_unlock(&rt_kp_lock);
	free(t);
	if (n) { /* the others' slots are retired, never reused */
		int q = rt_kprobe_quiesce(lo, hi, trap, n);

		snprintf(msg, sizeof(msg), "kprobes: %zu probe locations removed (%zu not restored), %s",
			 n, failed, q == 0 ? "their slots free" : "a thread stays in a slot");
		rt_kprobe_opt_say(msg);
	}
	free(lo);
	free(hi);
	free(trap);
}

/* The helper thread, once this process has probes (ftrace.c, after
 * rt_kprobes_register): promotions queued, removals applied. */
void rt_kprobes_live(void)
{
	rt_kprobe_opt_start(kp_apply_off);
}
