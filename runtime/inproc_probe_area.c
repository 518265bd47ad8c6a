/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe_area.c - where an in-process probe is installed, whenever
 * it is added: each object's probe area (mapped within rel32 reach of its
 * code, read and execute), and the one installer of a INPROC_PROBE into it
 * (rt_ipp_install), which registration (rt_inproc_probes_register, below) and a
 * probe added while running (inproc_probe_live.c) both use.  Registration
 * maps a fresh area and names it (INPROC_PROBE_AREA), and the recorder numbers
 * its slots from 0; a live probe gets a slot of the area the object has
 * (mapped then if it has none).  What a INPROC_PROBE does to the program is
 * inproc_probes.c's (rt_ipp_take, rt_ipp_commit).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime/inproc_probe_internal.h"
#include "runtime/rt.h"

/* Each object's probe area, for probes added while running
 * (inproc_probe_live.c); rt_ipp_lock held. */
static struct ipp_area *ipp_areas;
static size_t ipp_nareas;

struct ipp_area *rt_ipp_area(uint32_t obj, bool add)
{
	struct ipp_area *n;

	for (size_t i = 0; i < ipp_nareas; i++)
		if (ipp_areas[i].obj == obj)
			return &ipp_areas[i];
	if (!add || !(n = realloc(ipp_areas, (ipp_nareas + 1) * sizeof(*n))))
		return NULL;
	ipp_areas = n;
	n[ipp_nareas] = (struct ipp_area){obj, 0, NULL};
	return &n[ipp_nareas++];
}

/*
 * Object o's probe area, mapped near its code, read and execute
 * (rt_ipp_lock held): at registration a fresh one (fresh: the recorder
 * numbers its slots from 0), for a probe added while running the one it
 * has, mapped now if it has none.  NULL if none is within reach.
 */
struct ipp_area *rt_ipp_area_map(const struct rt_object *o, bool fresh)
{
	struct ipp_area *a = rt_ipp_area(o->index, false);
	uint8_t *area;

	if (a && a->addr && !fresh)
		return a;
	area = o->hi > o->lo ? rt_map_near(o->lo, o->hi, UTRACE_INPROC_PROBE_AREA) : NULL;
	if (!area)
		return NULL;
	if (mprotect(area, UTRACE_INPROC_PROBE_AREA, PROT_READ | PROT_EXEC) < 0 ||
	    (!a && !(a = rt_ipp_area(o->index, true)))) {
		munmap(area, UTRACE_INPROC_PROBE_AREA);
		return NULL;
	}
	a->addr = area;
	a->next = 0;
	return a;
}

/*
 * The one installer of a INPROC_PROBE, at registration (ipp_object) and for a
 * probe added while running (inproc_probe_live.c), rt_ipp_lock held: the
 * area made writable for the time (and executable: other slots may run),
 * the probe taken into b, the slots up to its own noted as taken.
 */
int rt_ipp_install(struct ipp_batch *b, const struct rt_object *o, struct ipp_area *a,
		  const struct utrace_msg_inproc_probe *m, uint32_t size)
{
	int ret;

	if (!a || !a->addr ||
	    mprotect(a->addr, UTRACE_INPROC_PROBE_AREA, PROT_READ | PROT_WRITE | PROT_EXEC) < 0)
		return -EPROTO;
	ret = rt_ipp_take(b, o, a->addr, m, size) < 0 ? -EPROTO : 0;
	if (m->slot + UTRACE_INPROC_PROBE_SLOT > a->next)
		a->next = m->slot + UTRACE_INPROC_PROBE_SLOT;
	if (mprotect(a->addr, UTRACE_INPROC_PROBE_AREA, PROT_READ | PROT_EXEC) < 0)
		ret = -errno;
	return ret;
}

/* Names obj's probe area and takes the recorder's INPROC_PROBEs for it. */
static int ipp_object(struct ipp_batch *b, struct rt_object *o, struct utrace_msg_inproc_probe *m)
{
	struct ipp_area *a = rt_ipp_area_map(o, true);
	struct utrace_msg_inproc_probe_area am = {{sizeof(am), UTRACE_MSG_INPROC_PROBE_AREA}, o->index,
					    a ? UTRACE_INPROC_PROBE_AREA : 0,
					    a ? (uint64_t)(uintptr_t)a->addr : 0};
	int n, ret = rt_send(&am, sizeof(am), -1);

	while (ret >= 0) {
		n = rt_recv(m, UTRACE_MSG_MAX, NULL);
		if (n < (int)sizeof(*m) || m->hdr.type != UTRACE_MSG_INPROC_PROBE || m->obj != o->index)
			return -EPROTO;
		if (m->key == UTRACE_ENABLE_DONE)
			break;
		if (rt_ipp_install(b, o, a, m, (uint32_t)n) < 0)
			ret = -EPROTO;
	}
	return ret;
}

/* Whether this is the process's only thread: then no other thread can
 * be in the middle of the instructions a jmp replaces (the kernel waits
 * for that with RCU-tasks); with several threads the probe starts as an
 * int3 and inproc_probe_opt.c proves when the jmp can replace it. */
static bool ipp_alone(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return false;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n == 1;
}

/* Objects added by this scan: their probes installed (ftrace.c holds the
 * objects lock).  The table first, then the int3s, then the sites, then
 * the jmps that wait for the other threads. */
int rt_inproc_probes_register(struct rt_object *added)
{
	struct utrace_msg_inproc_probe *m = malloc(UTRACE_MSG_MAX);
	struct ipp_batch b = {.alone = ipp_alone()};
	int ret = m ? 0 : -ENOMEM;

	rt_ipp_install_handlers(); /* rt_ipp_take reads the text through utrace_fetch_load */
	pthread_mutex_lock(&rt_ipp_lock);
	for (struct rt_object *o = added; o && ret >= 0; o = o->next)
		ret = ipp_object(&b, o, m);
	if (ret >= 0)
		ret = rt_ipp_commit(&b);
	pthread_mutex_unlock(&rt_ipp_lock);
	rt_ipp_batch_free(&b);
	free(m);
	return ret;
}
