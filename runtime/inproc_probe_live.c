/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe_live.c - in-process probes added while the program runs (a
 * definition written to the live tracefs's dynamic_events), over the live
 * channel (runtime/live.c, common/proto.h INPROC_PROBE_SLOT).
 *
 * A probe is installed as at registration, by the one installer
 * (inproc_probes.c rt_ipp_install: the same INPROC_PROBE messages, area, batch and
 * pokes); what differs is where its slot comes from.
 * Each object's probe area is noted here when registration maps it,
 * with the slots its probes took; an object without one (the process
 * started with no probe) gets its area now.  The recorder asks for one
 * slot per location (INPROC_PROBE_SLOT), the runtime, which alone knows what
 * its areas hold (a fork child inherits its parent's), hands it out.
 *
 * Other threads may be running in other slots of the same area, so a
 * slot is written with the area RWX, never RW (as text_poke.c does), and
 * back to R+X after.  This process has at least two threads (the live
 * thread is one), so a jmp probe always starts as an int3 and
 * inproc_probe_opt.c's helper promotes it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime/inproc_probe_internal.h"
#include "runtime/rt.h"

static struct ipp_batch kl_batch; /* the live thread's: INPROC_PROBEs until DONE */

static struct rt_object *kl_object(uint32_t index)
{
	struct rt_object *o = rt.objects;

	while (o && o->index != index)
		o = o->next;
	return o && !(o->flags & UTRACE_OBJ_LIBCALL) && o->hi > o->lo ? o : NULL;
}

/* INPROC_PROBE_SLOT (the objects lock held): the area of m->obj, mapped now
 * if it has none, and a slot of it taken; slot UINT32_MAX if none. */
static int kl_slot(void *arg)
{
	struct utrace_msg_inproc_probe_slot *m = arg;
	struct rt_object *o = kl_object(m->obj);
	struct ipp_area *a;

	m->slot = UINT32_MAX;
	m->addr = 0;
	if (!o)
		return 0;
	pthread_mutex_lock(&rt_ipp_lock);
	a = rt_ipp_area_map(o, false);
	if (a && a->next + UTRACE_INPROC_PROBE_SLOT <= UTRACE_INPROC_PROBE_AREA) {
		m->addr = (uint64_t)(uintptr_t)a->addr;
		m->slot = a->next;
		a->next += UTRACE_INPROC_PROBE_SLOT;
	}
	pthread_mutex_unlock(&rt_ipp_lock);
	return 0;
}

void rt_inproc_probe_live_slot(struct utrace_msg_inproc_probe_slot *m)
{
	rt_objects_locked(kl_slot, m);
}

struct kl_take {
	const struct utrace_msg_inproc_probe *m;
	uint32_t size;
};

/* One INPROC_PROBE (the objects lock held): the installer of registration's
 * (rt_ipp_install). */
static int kl_take(void *arg)
{
	const struct kl_take *t = arg;
	struct rt_object *o = kl_object(t->m->obj);
	int ret;

	rt_ipp_install_handlers(); /* once; under the objects lock, as registration */
	pthread_mutex_lock(&rt_ipp_lock);
	ret = rt_ipp_install(&kl_batch, o, o ? rt_ipp_area(o->index, false) : NULL, t->m, t->size);
	pthread_mutex_unlock(&rt_ipp_lock);
	return ret;
}

/* DONE (the objects lock held): the batch in place.  The process has
 * probes from now on even if none of its objects took this one: the
 * objects it registers later (dlopen) ask for theirs (ftrace.c reads
 * nr_inproc_probes under the same lock), as for a uprobe on a library that is
 * loaded after it was defined. */
static int kl_commit(void *arg)
{
	int ret;

	(void)arg;
	rt.cfg.nr_inproc_probes++;
	pthread_mutex_lock(&rt_ipp_lock);
	ret = rt_ipp_commit(&kl_batch);
	pthread_mutex_unlock(&rt_ipp_lock);
	return ret;
}

int rt_inproc_probe_live_take(const struct utrace_msg_inproc_probe *m, uint32_t size)
{
	struct kl_take t = {m, size};
	int ret;

	if (m->key != UTRACE_ENABLE_DONE)
		return rt_objects_locked(kl_take, &t);
	kl_batch.alone = false; /* this thread is one more */
	ret = rt_objects_locked(kl_commit, NULL);
	rt_ipp_batch_free(&kl_batch);
	if (ret >= 0)
		rt_inproc_probes_live(); /* the helper: jmps promoted, removals applied */
	return ret;
}
