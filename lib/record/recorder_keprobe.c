/* SPDX-License-Identifier: MIT */
/*
 * recorder_keprobe.c - event probes (e:, lib/probes/eprobe.h) on the
 * events the merge runs (recorder_kmerge.c): the kernel's own events of
 * a live recording and the synthetic events their onmatch() fires.
 *
 * Design: the kernel's eprobe is a trigger of its attached event that
 * writes a record of its own (trace_eprobe.c eprobe_trigger_func).  On a
 * traced program's event it is one in the program (recorder_eprobe.c);
 * on an event whose records the merge runs, it is one here:
 *
 *     kernel record of event A (sys_enter_chdir)    merged, in time order
 *        |  its triggers, hists, saved or not (km_run)
 *        v
 *     rec_kep_run(A): each probe bound to A, its filter on A's record,
 *        its fetch program (common/fetch_prog.h, compiled for A's
 *        kernel format) -> a record of the probe's own kernel id,
 *        run by km_run as any kernel record (same time, same CPU)
 *
 * The probe is also an in-process probe with a tracefs event id (its
 * name, enable, removal are a dynamic event's, session_eprobe.c); the
 * records written here carry a kernel id of their own (the next free
 * one, as a synthetic event's, recorder_livekev.c) whose format, saved
 * in the file, is the probe's: the reader prints them as the kernel's
 * eprobe lines.  Its enable is the event id's state on the control page
 * (as the programs' hits read it), its own filter the tracefs's, run on
 * its records; triggers on its own event are refused (nothing would run
 * them on these records); a removed probe's key is off.
 *
 * What a fetch argument points to (`+0($filename):ustring`) is in the
 * process that hit the event, read long after when the merge runs.  The
 * kernel's eprobe reads it at the event; so does a capture here
 * (lib/kernel/kernel_kcap.h): once a probe is bound, every kernel event
 * shown that has `char *` or `char **` fields gets a BPF program reading
 * their strings at each hit.  The merge takes each record's capture and
 * keeps it as its thread's memory (KEP_THREADS threads, the last event
 * with strings of each): a probe's load is served from the record itself
 * or from that memory, as it was at the thread's last such event (a
 * synthetic event's filename, set from sys_enter_openat's, is read where
 * sys_enter_openat found it).  A load found nowhere is a fault: the
 * kernel's "(fault)" or 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/fetch_prog.h"
#include "common/filter_prog.h"
#include "lib/events/event_filter.h"
#include "lib/events/event_format.h"
#include "lib/kernel/kernel_kcap.h"
#include "lib/probes/eprobe.h"
#include "lib/probes/inproc_probe.h"
#include "lib/hist/synth.h"
#include "lib/record/recorder_inproc_probe.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_kernel.h"
#include "lib/record/recorder_kmerge.h"
#include "lib/record/recorder_live.h"

#define KEP_THREADS 128u /* threads whose strings are kept (by tid) */
#define KEP_REGIONS 40u	 /* regions of one capture: 6 strings, or an array's 17 */
#define KEP_BYTES 2048u	 /* their bytes */

struct rec_kep {
	unsigned key; /* its in-process probe */
	int uid;      /* its tracefs event id: its enable */
	int kid;      /* its records' kernel id */
	int attached; /* the attached event's kernel id */
	void *prog;   /* its fetch program on the attached event's format */
	void *filter; /* the probe's FILTER, on the attached event's record */
	uint32_t filter_len;
	const struct utrace_event_format *fmt; /* its own (the kernel formats') */
	char *own_text; /* its own event's filter (the tracefs's), compiled: */
	void *own;	/* on its records */
	uint32_t own_len;
	struct rec_kep *next;
};

/* A kernel event whose strings are captured: its fields' offsets. */
struct kep_kev {
	int kid, tag;
	unsigned n;
	uint32_t off[UTRACE_KCAP_FIELDS_MAX];
	struct kep_kev *next;
};

/* A thread's memory: the regions of its last capture. */
struct kep_mem {
	int tid;
	unsigned n;
	struct utrace_kcap_region rg[KEP_REGIONS];
	uint8_t bytes[KEP_BYTES];
};

struct rec_keps {
	struct rec_kep *list;
	struct utrace_kcap *kcap; /* NULL: none (not yet, or BPF refused) */
	bool kcap_tried;
	struct kep_kev *kevs;
	struct kep_mem *mem; /* [KEP_THREADS] */
};

static struct rec_keps *keps(struct utrace_recorder *r)
{
	if (!r->kep)
		r->kep = calloc(1, sizeof(*r->kep));
	return r->kep;
}

/* ---- the strings read at the event ----------------------------------- */

/* Captures for every kernel event shown with pointer fields: once, when
 * the first probe is bound.  Said once if BPF cannot be used. */
static void kep_kcap_arm(struct utrace_recorder *r, struct rec_keps *k)
{
	struct utrace_error err = {0};

	if (k->kcap_tried)
		return;
	k->kcap_tried = true;
	if (!(k->mem = calloc(KEP_THREADS, sizeof(*k->mem))) ||
	    utrace_kcap_new(&k->kcap, &err) < 0) {
		if (r->o.notice)
			r->o.notice(r->o.notice_arg, 0,
				    "event probes on kernel events: the strings their fields point "
				    "to cannot be read at the event (BPF): they read as (fault)");
		return;
	}
	for (const struct rec_kfmt *kf = rec_kfmt_first(r); kf; kf = kf->next) {
		struct utrace_kcap_field f[UTRACE_KCAP_FIELDS_MAX];
		struct kep_kev *e;
		unsigned n = 0;

		if (!rec_kfmt_is_shown(r, kf))
			continue;
		for (unsigned i = 0; i < kf->fmt->nr_fields && n < UTRACE_KCAP_FIELDS_MAX; i++) {
			const struct utrace_event_field *fl = &kf->fmt->fields[i];
			int kind = utrace_kcap_field_kind(fl->type, fl->size, fl->offset);

			if (kind >= 0)
				f[n++] = (struct utrace_kcap_field){fl->offset,
								    (enum utrace_kcap_kind)kind};
		}
		if (!n || !(e = calloc(1, sizeof(*e))))
			continue;
		*e = (struct kep_kev){
		    kf->id, utrace_kcap_attach(k->kcap, kf->id, f, n, 0, &err), n, {0}, k->kevs};
		for (unsigned i = 0; i < n; i++)
			e->off[i] = f[i].offset;
		k->kevs = e;
		if (e->tag < 0 && r->o.notice)
			r->o.notice(r->o.notice_arg, 0, err.msg);
	}
}

/* CLOCK_MONOTONIC ns of kernel time stamp ts (the captures' clock). */
static uint64_t kep_mono(const struct utrace_recorder *r, uint64_t ts)
{
	struct timespec t;
	uint32_t lo, hi;
	uint64_t now, tsc;

	if (!rec_ktsc(r) || !r->tsc_per_us_q16)
		return ts;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	clock_gettime(CLOCK_MONOTONIC, &t);
	tsc = (uint64_t)hi << 32 | lo;
	now = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
	if (ts >= tsc)
		return now;
	return now - (uint64_t)(((unsigned __int128)(tsc - ts) * 1000 << 16) / r->tsc_per_us_q16);
}

/* Record rec of kid by thread tid: its capture, if it has one, made
 * that thread's memory. */
static void kep_capture(struct utrace_recorder *r, struct rec_keps *k, int kid, int tid,
			uint64_t ts, const uint8_t *rec, uint32_t len)
{
	struct utrace_kcap_region rg[KEP_REGIONS];
	uint64_t vals[UTRACE_KCAP_FIELDS_MAX];
	const struct kep_kev *e = k->kevs;
	struct kep_mem *m;
	unsigned n, used = 0;

	while (e && e->kid != kid)
		e = e->next;
	if (!e || e->tag < 0)
		return;
	for (unsigned i = 0; i < e->n; i++) {
		vals[i] = 0;
		if (e->off[i] + 8 <= len)
			memcpy(&vals[i], rec + e->off[i], 8);
	}
	n = utrace_kcap_take(k->kcap, tid, e->tag, kep_mono(r, ts), vals, e->n, rg, KEP_REGIONS);
	if (!n)
		return;
	m = &k->mem[(unsigned)tid % KEP_THREADS];
	m->tid = tid;
	m->n = 0;
	for (unsigned i = 0; i < n && used + rg[i].len <= KEP_BYTES; i++) {
		memcpy(m->bytes + used, rg[i].bytes, rg[i].len);
		m->rg[m->n++] = (struct utrace_kcap_region){rg[i].addr, m->bytes + used, rg[i].len};
		used += (unsigned)rg[i].len;
	}
}

/* ---- the probes' loads ----------------------------------------------- */

/* What a probe being run reads: the attached record (at its address in
 * the recorder) and the hitting thread's memory (utrace_fetch_run's load
 * takes no argument; the merge runs on one thread). */
static __thread struct {
	const uint8_t *rec;
	uint32_t len;
	const struct kep_mem *mem;
} kep_cur;

static int kep_load(uint64_t addr, unsigned size, uint64_t *out)
{
	uint64_t base = (uint64_t)(uintptr_t)kep_cur.rec;

	*out = 0;
	if (addr >= base && addr + size <= base + kep_cur.len) {
		memcpy(out, kep_cur.rec + (addr - base), size);
		return 0;
	}
	if (!kep_cur.mem)
		return -1;
	return utrace_kcap_regions_load(kep_cur.mem->rg, kep_cur.mem->n, addr, size, out);
}

/* ---- binding and running --------------------------------------------- */

static const struct utrace_event_format *kep_find(void *arg, const char *sys, const char *name)
{
	const struct utrace_event_format *f = arg;

	return !strcmp(f->system, sys) && !strcmp(f->name, name) ? f : NULL;
}

/* The kernel id after the highest one, or -E2BIG. */
static int kep_next_kid(const struct utrace_recorder *r)
{
	int next = 0;

	for (const struct rec_kfmt *k = rec_kfmt_first(r); k; k = k->next)
		if (k->id >= next)
			next = k->id + 1;
	return next < (int)UTRACE_EV_ID_BASE && next < (int)REC_KIDS ? next : -E2BIG;
}

/* The probe's format under kid, saved in the file and kept as a kernel
 * format that the tracefs does not show (its event is the dynamic one). */
static int kep_format(struct utrace_recorder *r, const struct utrace_eprobe *ep, int kid,
		      struct utrace_error *err)
{
	const char *sys = utrace_eprobe_group(ep);
	struct utrace_dat_event_format ef = {.id = (uint32_t)kid};
	struct utrace_event_format *fmt = NULL;
	char *text = utrace_eprobe_saved_format(ep, kid);
	int ret;

	if (!text)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	ret = utrace_event_format_parse(sys, text, &fmt, err);
	if (ret >= 0) {
		struct iovec iov[3] = {
		    {&ef, sizeof(ef)}, {(void *)sys, strlen(sys) + 1}, {text, strlen(text) + 1}};

		ret = utrace_dat_write(r->w, UTRACE_DAT_EVENT_FORMAT, iov, 3, err);
	}
	free(text);
	if (ret < 0) {
		utrace_event_format_free(fmt);
		return ret;
	}
	return rec_kfmt_add(r, kid, REC_KFMT_EPROBE, fmt, err);
}

/* In-process probe key, an event probe on the event of kf: bound. */
static int kep_bind(struct utrace_recorder *r, struct rec_keps *k, unsigned key,
		    const struct rec_kfmt *kf, struct utrace_error *err)
{
	const char *name, *filter, *def;
	struct utrace_eprobe *ep = NULL;
	struct rec_kep *p;
	uint32_t len;
	int kid, ret;

	utrace_inproc_probe_eprobe(r->o.inproc_probes[key], &name, &filter, &def);
	if ((kid = kep_next_kid(r)) < 0)
		return utrace_error_set(err, kid, "no kernel id left for an event probe on %s:%s",
					kf->fmt->system, kf->fmt->name);
	if (!(p = calloc(1, sizeof(*p))))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	*p = (struct rec_kep){
	    .key = key, .uid = rec_inproc_probe_live_id(r, key), .kid = kid, .attached = kf->id};
	if ((ret = utrace_eprobe_parse(def, kep_find, kf->fmt, kid, &ep, NULL, err)) < 0 ||
	    (ret = utrace_eprobe_compile(ep, &p->prog, &len, err)) < 0 ||
	    (filter && *filter &&
	     (ret = utrace_filter_compile(kf->fmt, filter, &p->filter, &p->filter_len, err)) < 0) ||
	    (ret = kep_format(r, ep, kid, err)) < 0) {
		utrace_eprobe_free(ep);
		free(p->prog);
		free(p->filter);
		free(p);
		return ret;
	}
	utrace_eprobe_free(ep);
	for (const struct rec_kfmt *f = rec_kfmt_first(r); f; f = f->next)
		if (f->id == kid)
			p->fmt = f->fmt;
	p->next = k->list;
	k->list = p;
	kep_kcap_arm(r, k);
	return 0;
}

static bool kep_bound(const struct rec_keps *k, unsigned key)
{
	for (const struct rec_kep *p = k->list; p; p = p->next)
		if (p->key == key)
			return true;
	return false;
}

/* The event the merge runs under sys:name: a kernel event shown, or a
 * synthetic event defined while running (its kernel id). */
static const struct rec_kfmt *kep_attached(const struct utrace_recorder *r, const char *sys,
					   const char *name)
{
	const struct rec_kfmt *kf = rec_kfmt_shown(r, sys, name);

	if (kf || strcmp(sys, "synthetic"))
		return kf;
	for (kf = rec_kfmt_first(r); kf; kf = kf->next)
		if (kf->synth >= 0 && (unsigned)kf->synth < r->o.nr_synths &&
		    !strcmp(r->o.synths[kf->synth]->name, name))
			return kf;
	return NULL;
}

int rec_kep_bind_all(struct utrace_recorder *r, const char *sys, const char *name,
		     struct utrace_error *err)
{
	const struct rec_kfmt *kf = r->km ? kep_attached(r, sys, name) : NULL;
	struct rec_keps *k;

	if (!kf)
		return 0;
	if (!(k = keps(r)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < r->o.nr_inproc_probes && i < UTRACE_INPROC_PROBE_MAX; i++) {
		const char *asys, *aname, *filter, *def;
		int ret;

		asys = utrace_inproc_probe_eprobe(r->o.inproc_probes[i], &aname, &filter, &def);
		if (!asys || strcmp(asys, sys) || strcmp(aname, name) ||
		    utrace_ctl_inproc_probe_off(r->ctl, i) || kep_bound(k, i))
			continue;
		if ((ret = kep_bind(r, k, i, kf, err)) < 0)
			return ret;
	}
	return 0;
}

/* Whether probe p fires now: on (its enable), not removed. */
static bool kep_on(const struct utrace_recorder *r, const struct rec_kep *p)
{
	uint32_t s;

	if (utrace_ctl_inproc_probe_off(r->ctl, p->key) || p->uid < (int)UTRACE_EV_ID_BASE ||
	    p->uid >= (int)(UTRACE_EV_ID_BASE + UTRACE_EV_STATE_MAX))
		return false;
	s = __atomic_load_n(&r->ctl->ev_state[p->uid - UTRACE_EV_ID_BASE], __ATOMIC_ACQUIRE);
	return !(s & UTRACE_EVS_OFF);
}

/* Whether record rec of probe p passes its own event's filter (set in the
 * tracefs as any event's: compiled again when its text changes). */
static bool kep_keep(struct utrace_recorder *r, struct rec_kep *p, const uint8_t *rec, uint32_t len)
{
	const struct rec_live_ev *e = rec_live_ev_of(r, p->uid, NULL, NULL);
	const char *text = e && e->filter && *e->filter ? e->filter : NULL;
	struct utrace_error err = {0};

	if (!text)
		return true;
	if (!p->own_text || strcmp(p->own_text, text)) {
		free(p->own_text);
		free(p->own);
		p->own = NULL;
		if (!(p->own_text = strdup(text)) ||
		    utrace_filter_compile(p->fmt, text, &p->own, &p->own_len, &err) < 0) {
			free(p->own_text); /* tried again at the next record */
			p->own_text = NULL;
			return false; /* the tracefs took it for this very format */
		}
	}
	return utrace_filter_run(p->own, p->own_len, rec, len);
}

void rec_kep_run(struct utrace_recorder *r, int kid, const uint8_t *rec, uint32_t len,
		 void (*emit)(struct utrace_recorder *r, int kid, const uint8_t *rec, uint32_t len))
{
	struct rec_keps *k = r->kep;
	uint64_t out[UTRACE_FETCH_REC_MAX / 8];
	int32_t pid = r->km->pid;

	if (!k || !k->list)
		return;
	if (k->kcap && !r->km->depth)
		kep_capture(r, k, kid, pid, r->km->ts, rec, len);
	for (struct rec_kep *p = k->list; p; p = p->next) {
		struct utrace_fetch_regs regs = {{0}};
		const struct kep_mem *m;
		uint16_t type = (uint16_t)p->kid;
		uint32_t n;

		if (p->attached != kid || !kep_on(r, p) ||
		    (p->filter && !utrace_filter_run(p->filter, p->filter_len, rec, len)))
			continue;
		m = k->mem ? &k->mem[(unsigned)pid % KEP_THREADS] : NULL;
		kep_cur.rec = rec;
		kep_cur.len = len;
		kep_cur.mem = m && m->tid == pid && m->n ? m : NULL;
		regs.r[UTRACE_FR_EVENT] = (uint64_t)(uintptr_t)rec;
		out[0] = 0;
		n = utrace_fetch_run(p->prog, &regs, NULL, "", (uint8_t *)out, sizeof(out),
				     kep_load);
		kep_cur.rec = NULL;
		kep_cur.mem = NULL;
		if (n < 8)
			continue;
		memcpy(out, &type, 2);
		memcpy((uint8_t *)out + 4, &pid, 4);
		if (kep_keep(r, p, (const uint8_t *)out, n))
			emit(r, p->kid, (const uint8_t *)out, n);
	}
}

bool rec_kep_bound(const struct utrace_recorder *r, int uid)
{
	for (const struct rec_kep *p = r->kep ? r->kep->list : NULL; p; p = p->next)
		if (p->uid == uid)
			return true;
	return false;
}

void rec_kep_free(struct utrace_recorder *r)
{
	struct rec_keps *k = r->kep;

	if (!k)
		return;
	while (k->list) {
		struct rec_kep *p = k->list;

		k->list = p->next;
		free(p->prog);
		free(p->filter);
		free(p->own_text);
		free(p->own);
		free(p);
	}
	while (k->kevs) {
		struct kep_kev *e = k->kevs;

		k->kevs = e->next;
		free(e);
	}
	utrace_kcap_free(k->kcap);
	free(k->mem);
	free(k);
	r->kep = NULL;
}
