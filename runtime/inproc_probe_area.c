/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe_area.c - where an in-process probe is installed, whenever
 * it is added: each object's probe area (mapped within rel32 reach of its
 * code, read and execute), and the one installer of a KPROBE into it
 * (rt_kp_install), which registration (rt_kprobes_register, below) and a
 * probe added while running (inproc_probe_live.c) both use.  Registration
 * maps a fresh area and names it (KPROBE_AREA), and the recorder numbers
 * its slots from 0; a live probe gets a slot of the area the object has
 * (mapped then if it has none).  What a KPROBE does to the program is
 * inproc_probes.c's (rt_kp_take, rt_kp_commit).
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
 * (inproc_probe_live.c); rt_kp_lock held. */
static struct kp_area *kp_areas;
static size_t kp_nareas;

struct kp_area *rt_kp_area(uint32_t obj, bool add)
{
	struct kp_area *n;

	for (size_t i = 0; i < kp_nareas; i++)
		if (kp_areas[i].obj == obj)
			return &kp_areas[i];
	if (!add || !(n = realloc(kp_areas, (kp_nareas + 1) * sizeof(*n))))
		return NULL;
	kp_areas = n;
	n[kp_nareas] = (struct kp_area){obj, 0, NULL};
	return &n[kp_nareas++];
}

/*
 * Object o's probe area, mapped near its code, read and execute
 * (rt_kp_lock held): at registration a fresh one (fresh: the recorder
 * numbers its slots from 0), for a probe added while running the one it
 * has, mapped now if it has none.  NULL if none is within reach.
 */
struct kp_area *rt_kp_area_map(const struct rt_object *o, bool fresh)
{
	struct kp_area *a = rt_kp_area(o->index, false);
	uint8_t *area;

	if (a && a->addr && !fresh)
		return a;
	area = o->hi > o->lo ? rt_map_near(o->lo, o->hi, UTRACE_KPROBE_AREA) : NULL;
	if (!area)
		return NULL;
	if (mprotect(area, UTRACE_KPROBE_AREA, PROT_READ | PROT_EXEC) < 0 ||
	    (!a && !(a = rt_kp_area(o->index, true)))) {
		munmap(area, UTRACE_KPROBE_AREA);
		return NULL;
	}
	a->addr = area;
	a->next = 0;
	return a;
}

/*
 * The one installer of a KPROBE, at registration (kp_object) and for a
 * probe added while running (inproc_probe_live.c), rt_kp_lock held: the
 * area made writable for the time (and executable: other slots may run),
 * the probe taken into b, the slots up to its own noted as taken.
 */
int rt_kp_install(struct kp_batch *b, const struct rt_object *o, struct kp_area *a,
		  const struct utrace_msg_kprobe *m, uint32_t size)
{
	int ret;

	if (!a || !a->addr ||
	    mprotect(a->addr, UTRACE_KPROBE_AREA, PROT_READ | PROT_WRITE | PROT_EXEC) < 0)
		return -EPROTO;
	ret = rt_kp_take(b, o, a->addr, m, size) < 0 ? -EPROTO : 0;
	if (m->slot + UTRACE_KPROBE_SLOT > a->next)
		a->next = m->slot + UTRACE_KPROBE_SLOT;
	if (mprotect(a->addr, UTRACE_KPROBE_AREA, PROT_READ | PROT_EXEC) < 0)
		ret = -errno;
	return ret;
}

/* Names obj's probe area and takes the recorder's KPROBEs for it. */
static int kp_object(struct kp_batch *b, struct rt_object *o, struct utrace_msg_kprobe *m)
{
	struct kp_area *a = rt_kp_area_map(o, true);
	struct utrace_msg_kprobe_area am = {{sizeof(am), UTRACE_MSG_KPROBE_AREA}, o->index,
					    a ? UTRACE_KPROBE_AREA : 0,
					    a ? (uint64_t)(uintptr_t)a->addr : 0};
	int n, ret = rt_send(&am, sizeof(am), -1);

	while (ret >= 0) {
		n = rt_recv(m, UTRACE_MSG_MAX, NULL);
		if (n < (int)sizeof(*m) || m->hdr.type != UTRACE_MSG_KPROBE || m->obj != o->index)
			return -EPROTO;
		if (m->key == UTRACE_ENABLE_DONE)
			break;
		if (rt_kp_install(b, o, a, m, (uint32_t)n) < 0)
			ret = -EPROTO;
	}
	return ret;
}

/* Whether this is the process's only thread: then no other thread can
 * be in the middle of the instructions a jmp replaces (the kernel waits
 * for that with RCU-tasks); with several threads the probe starts as an
 * int3 and inproc_probe_opt.c proves when the jmp can replace it. */
static bool kp_alone(void)
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
int rt_kprobes_register(struct rt_object *added)
{
	struct utrace_msg_kprobe *m = malloc(UTRACE_MSG_MAX);
	struct kp_batch b = {.alone = kp_alone()};
	int ret = m ? 0 : -ENOMEM;

	rt_kp_install_handlers(); /* rt_kp_take reads the text through utrace_fetch_load */
	pthread_mutex_lock(&rt_kp_lock);
	for (struct rt_object *o = added; o && ret >= 0; o = o->next)
		ret = kp_object(&b, o, m);
	if (ret >= 0)
		ret = rt_kp_commit(&b);
	pthread_mutex_unlock(&rt_kp_lock);
	rt_kp_batch_free(&b);
	free(m);
	return ret;
}
