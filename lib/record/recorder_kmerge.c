/* SPDX-License-Identifier: MIT */
/*
 * recorder_kmerge.c - the kernel's records in time order, for the
 * triggers the recorder runs on them (recorder_khist.c says which).
 *
 * The kernel hands its records over per CPU, in pages, each CPU's in
 * time order but the CPUs read one after the other.  A trigger with
 * state must see them in the order they happened: the sched_waking on
 * CPU0 that sets $ts0 before the sched_switch on CPU1 that reads it.  So
 * the records are queued per CPU and run merged by timestamp, up to a
 * watermark W below which no CPU can still hand over anything:
 *
 *   a round = one read of every CPU (utrace_ktrace_poll), and at its end
 *   rec_kmerge_round().  A CPU read in this round that handed over
 *   nothing had nothing stamped before the read began, which is after
 *   the end of the last round (E); one that handed over pages may have
 *   more after its last record (it stopped at its page budget), so:
 *
 *     W = min(E - margin, last timestamp of each CPU read with pages)
 *
 *   margin (1 ms) covers a record stamped but not yet committed when its
 *   CPU was read.  At the end (after the last read) W is infinite.
 *
 *   A read of the live tracefs must show what was committed before it
 *   began (the kernel's reader takes the page being written), and the
 *   margin would leave out the last millisecond: `ksleeper; cat hist`
 *   missed the switch that woke ksleeper.  So from its start (R, taken
 *   before its rounds read the CPUs) to its end, W is at least R, still
 *   bounded by each CPU that handed over pages: a CPU read after R has
 *   handed over all it committed before R, unless it stopped at its page
 *   budget (then the next round reads on).  The price: a record stamped
 *   before R but committed after its CPU was read (a window of a few
 *   microseconds, interrupts nested in the write) runs after the records
 *   of the other CPUs that followed it.
 *
 * Each record, in merged order: its trigger commands (recorder_trig.c),
 * then, tracing on, its hist triggers; an onmatch() action's synthetic
 * event is a record of its own, at the same time on the same CPU, whose
 * triggers run at once; so is an event probe's (recorder_keprobe.c),
 * after the record it probes.  A record is kept if tracing is on and its event
 * is not soft-disabled, and written again as ring-buffer pages (the
 * kernel's layout, lib/kernel/kernel_trace.c reads them back) per CPU
 * (recorder_kpages.c),
 * so the synthetic events sit among the kernel's on one timeline.
 *
 * A live recording's trace_marker writes join them (recorder_kmarker.c):
 * a queue of their own, each with the CPU it goes on and the reader whose
 * triggers of ftrace:print run on it, run at once up to its time
 * (rec_kmerge_put_marker), past the watermark: the kernel runs a marker's
 * triggers in the write itself.
 *
 * The kernel's stacktrace trigger (cmds/record_triggers.c gives it to the
 * kernel) writes a kernel_stack entry right after its event, on the same
 * CPU (a post-trigger, run once the event is committed, preemption off).
 * So the record after an event on its CPU, if a kernel_stack, is that
 * event's stack: the key of a hist on common_stacktrace (ctx->stack), and
 * saved when the event is, if the event has a -R stacktrace (one armed
 * for a hist alone is not saved).  An event whose hist needs its stack is
 * not run while it is the last record queued on its CPU: its stack may
 * be in the next page, read in the next round.
 *
 * The frames of the stacks saved or keyed on are noted, to be named
 * from kallsyms when recording ends (utrace_recorder_kstack_addrs).
 *
 * A snapshot trigger (recorder_trig.c) is taken once its event is saved
 * (km_snapshot): the threads' rings (recorder_snap.c), each CPU's pages so far,
 * the last KM_RING_BYTES of them kept for it, and the page being filled.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/hist_prog.h"
#include "lib/base/grow.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/wakeup_lat.h"
#include "lib/record/recorder_hist.h"
#include "lib/record/recorder_kernel.h"
#include "lib/record/recorder_kmerge.h"
#include "lib/record/recorder_live.h"
#include "lib/record/recorder_snap.h"
#include "lib/record/recorder_trig.h"

#include <traceevent/kbuffer.h>

#define KM_MARGIN_NS 1000000ull
static uint64_t km_now(const struct utrace_recorder *r)
{
	struct timespec t;
	uint32_t lo, hi;

	if (r->km->ktsc) {
		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		return (uint64_t)hi << 32 | lo;
	}
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The threads' TSC at kernel time stamp ts: the same clock with x86-tsc;
 * with mono (no x86-tsc), now, a little after. */
static uint64_t km_tsc(const struct utrace_recorder *r, uint64_t ts)
{
	uint32_t lo, hi;

	if (r->km->ktsc)
		return ts;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* ns of the trace clock: x86-tsc ticks as the runtime converts its own */
static uint64_t km_ns(const struct utrace_recorder *r, uint64_t ts)
{
	if (!r->km->ktsc || !r->tsc_per_us_q16)
		return ts;
	return (uint64_t)(((unsigned __int128)ts * 1000 << 16) / r->tsc_per_us_q16);
}

int rec_kmerge_new(struct utrace_recorder *r, struct utrace_error *err)
{
	const struct rec_kfmt *kf;

	if (!(r->km = calloc(1, sizeof(*r->km))) ||
	    !(r->km->kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	r->km->ktsc = rec_ktsc(r);
	r->km->ksubbuf = rec_ksubbuf(r) ? rec_ksubbuf(r) : 4096;
	kf = rec_kfmt_find(r, "ftrace", "kernel_stack");
	r->km->kstack_id = kf && kf->synth < 0 ? kf->id : -1;
	r->km->round_end = km_now(r);
	r->km->keep_pages = rec_trig_ksnap(r);
	return 0;
}

static struct km_cpu *km_cpu(struct rec_kmerge *km, uint32_t cpu)
{
	if (cpu >= 4096)
		return NULL;
	if (cpu >= km->nr_cpus) {
		if (UTRACE_GROW_ZERO(km->cpus, km->cap_cpus, cpu + 1) < 0)
			return NULL;
		km->nr_cpus = cpu + 1;
	}
	return &km->cpus[cpu];
}

static int km_queue(struct km_cpu *c, uint64_t ts, const void *rec, uint32_t len)
{
	size_t need = 16 + ((len + 7) & ~7u);

	if (UTRACE_GROW(c->q, c->qcap, c->qlen + need) < 0)
		return -ENOMEM;
	memcpy(c->q + c->qlen, &ts, 8);
	memcpy(c->q + c->qlen + 8, &len, 4);
	memset(c->q + c->qlen + 12, 0, need - 12);
	memcpy(c->q + c->qlen + 16, rec, len);
	c->qlen += need;
	c->last_ts = ts;
	return 0;
}

int rec_kmerge_page(struct utrace_recorder *r, uint32_t cpu, const void *page, size_t len,
		    struct utrace_error *err)
{
	struct km_cpu *c = km_cpu(r->km, cpu);
	unsigned long long ts, commit;
	void *rec;

	if (!c)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	if (len < 16)
		return 0;
	memcpy(&commit, (const uint8_t *)page + 8, 8);
	c->missed |= !!(commit & KM_MISSED);
	c->got = true;
	kbuffer_load_subbuffer(r->km->kb, (void *)page);
	for (rec = kbuffer_read_event(r->km->kb, &ts); rec;
	     rec = kbuffer_next_event(r->km->kb, &ts)) {
		int size = kbuffer_event_size(r->km->kb);

		if (size < 8 || (const uint8_t *)rec + size > (const uint8_t *)page + len)
			break;
		if (km_queue(c, ts, rec, (uint32_t)size) < 0)
			return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* A kernel event's snapshot (kid; -1: a hist's snapshot()), at tsc. */
static int km_snapshot(struct utrace_recorder *r, int kid, int32_t tid, uint64_t tsc,
		       struct utrace_error *err)
{
	struct utrace_dat_snapshot s = {.id = rec_snap_new_id(r), .event = kid, .tid = tid, .tsc = tsc};

	if (rec_snap_threads(r, &s, err) < 0 || rec_kpage_snap(r, s.id, &s.pages, err) < 0)
		return err->code;
	return rec_write(r, UTRACE_DAT_SNAPSHOT, &s, sizeof(s), NULL, 0, err);
}

/* ---- running the records -------------------------------------------- */

static void km_run(struct utrace_recorder *r, int kid, const uint8_t *rec, uint32_t len);

/* EMIT of an onmatch() action: the synthetic event's record (the
 * kernel's synth_event layout, a u64 per field) at the time and on the
 * CPU of the record that fired it, run and kept as a kernel record. */
static void km_emit(void *arg, uint32_t synth, const uint64_t *params, uint32_t n)
{
	struct utrace_recorder *r = arg;
	uint64_t rec[1 + UTRACE_HIST_PARAM_WORDS];
	const struct rec_kfmt *kf;
	uint16_t type;

	/* n words: a string field's take more than one (as the runtime's
	 * ev_emit counts them) */
	if (n > UTRACE_HIST_PARAM_WORDS || r->km->depth >= 4)
		return;
	for (kf = rec_kfmt_first(r); kf && kf->synth != (int)synth; kf = kf->next)
		;
	if (!kf)
		return;
	type = (uint16_t)kf->id;
	rec[0] = 0;
	memcpy(rec, &type, 2);
	memcpy((uint8_t *)rec + 4, &r->km->pid, 4);
	memcpy(rec + 1, params, n * sizeof(uint64_t));
	r->km->depth++;
	km_run(r, kf->id, (const uint8_t *)rec, 8 + 8 * n);
	r->km->depth--;
}

/* An event probe's record (recorder_keprobe.c): right after its attached
 * event's, at its time on its CPU, run and kept as a kernel record. */
static void km_eprobe(struct utrace_recorder *r, int kid, const uint8_t *rec, uint32_t len)
{
	if (r->km->depth >= 4)
		return;
	r->km->depth++;
	km_run(r, kid, rec, len);
	r->km->depth--;
}

/* Frames to name when recording ends (utrace_recorder_kstack_addrs):
 * appended, sorted and made unique when they double. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void km_addrs_compact(struct rec_kmerge *km)
{
	size_t n = 0;

	qsort(km->addrs, km->nr_addrs, sizeof(*km->addrs), cmp_u64);
	for (size_t i = 0; i < km->nr_addrs; i++)
		if (!n || km->addrs[n - 1] != km->addrs[i])
			km->addrs[n++] = km->addrs[i];
	km->nr_addrs = km->sorted = n;
}

static void km_note(struct rec_kmerge *km, const uint64_t *pcs, uint32_t n)
{
	if (km->nr_addrs + n > km->cap_addrs) {
		if (km->nr_addrs > 2 * km->sorted) /* mostly the same frames again */
			km_addrs_compact(km);
		if (UTRACE_GROW(km->addrs, km->cap_addrs, km->nr_addrs + n) < 0)
			return; /* those frames stay unnamed */
	}
	memcpy(km->addrs + km->nr_addrs, pcs, n * sizeof(*pcs));
	km->nr_addrs += n;
}

size_t utrace_recorder_kstack_addrs(struct utrace_recorder *r, const uint64_t **addrs)
{
	if (!r->km)
		return 0;
	km_addrs_compact(r->km);
	*addrs = r->km->addrs;
	return r->km->nr_addrs;
}

/* STACK of a hist: the addresses of the kernel_stack entry after the
 * record (int size, then size longs; ULONG_MAX ends a shorter one). */
static uint32_t km_stack(void *arg, uint64_t *pcs, uint32_t max)
{
	const struct rec_kmerge *km = ((struct utrace_recorder *)arg)->km;
	uint32_t n = 0, avail = km->stack_len > 16 ? (km->stack_len - 16) / 8 : 0;
	int32_t size;

	memcpy(&size, km->stack + 8, 4);
	if (size >= 0 && (uint32_t)size < avail)
		avail = (uint32_t)size;
	for (; n < avail && n < max; n++) {
		memcpy(&pcs[n], km->stack + 16 + 8 * n, 8);
		if (pcs[n] == UINT64_MAX)
			break;
	}
	km_note(((struct utrace_recorder *)arg)->km, pcs, n);
	return n;
}

/* SNAPSHOT of a hist (onmax/onchange ... snapshot()): taken as the
 * trigger's, once the record is saved. */
static void km_hist_snapshot(void *arg)
{
	rec_trig_ksnap_hist(arg);
}

static void km_run(struct utrace_recorder *r, int kid, const uint8_t *rec, uint32_t len)
{
	struct rec_kmerge *km = r->km;
	struct km_cpu *cpu = &km->cpus[km->cpu];
	struct utrace_hist_ctx c = {.rec = rec,
				    .rec_len = len,
				    .cpu = km->cpu,
				    .ts_ns = km_ns(r, km->ts),
				    .emit = km_emit,
				    .arg = r,
				    .snapshot = km_hist_snapshot,
				    .stack = km->stack ? km_stack : NULL};
	struct utrace_error err;
	bool keep;
	int skid;

	if (kid == km->kstack_id && !km->depth) { /* with its event: saved or not */
		keep = rec_trig_kon(r) && cpu->last_kept && rec_trig_kstack(r, cpu->last_kid);
		cpu->last_kept = false;
		if (keep && len > 16) {
			uint64_t pcs[64];
			uint32_t n = (len - 16) / 8 < 64 ? (len - 16) / 8 : 64;

			memcpy(pcs, rec + 16, n * 8);
			km_note(km, pcs, n);
		}
	} else {
		rec_trig_krun(r, kid, rec, len);
		if (r->wk && !km->depth) /* the wakeup tracers: enabled or not */
			utrace_wakeup_lat_record(r->wk, kid, km->cpu, c.ts_ns, rec, len);
		if (rec_trig_kon(r))
			rec_hist_krun(r, kid, km->reader, &c);
		keep = rec_trig_kkeep(r, kid) && rec_live_kev_keep(r, kid, rec, len);
		if (!km->depth) { /* not a synthetic event it fired */
			cpu->last_kid = kid;
			cpu->last_kept = keep;
		}
	}
	if (keep && rec_kpage_put(r, km->cpu, km->ts, rec, len, &err) < 0 && r->o.notice)
		r->o.notice(r->o.notice_arg, 0, err.msg);
	if (kid != km->kstack_id) /* the event probes on it, as triggers after it */
		rec_kep_run(r, kid, rec, len, km_eprobe);
	if (!km->depth && (skid = rec_trig_ksnap_take(r)) != -1) { /* its snapshot: with the event */
		skid = skid == -2 ? -1 : skid; /* -1: a hist's */
		if (km_snapshot(r, skid, km->pid, km_tsc(r, km->ts), &err) < 0 && r->o.notice)
			r->o.notice(r->o.notice_arg, 0, err.msg);
	}
}

/* The kernel_stack entry after c's record at head (len bytes): in
 * km->stack, or NULL.  false if the record must wait for the next round
 * (its hist needs its stack, which may still be unread). */
static bool km_pair(struct utrace_recorder *r, struct km_cpu *c, int kid, uint32_t len, bool final)
{
	size_t next = c->head + 16 + ((len + 7) & ~7u);

	r->km->stack = NULL;
	if (r->km->kstack_id < 0 || kid == r->km->kstack_id)
		return true;
	if (next + 16 + 8 > c->qlen)
		return final || !rec_hist_kwants_stack(r, kid);
	if ((c->q[next + 16] | c->q[next + 17] << 8) == r->km->kstack_id) {
		memcpy(&r->km->stack_len, c->q + next + 8, 4);
		r->km->stack = c->q + next + 16;
	}
	return true;
}

/* The CPU whose next queued record is the oldest, if it is before w. */
static struct km_cpu *km_next(struct rec_kmerge *km, uint64_t w, uint64_t *ts)
{
	struct km_cpu *best = NULL;

	for (uint32_t i = 0; i < km->nr_cpus; i++) {
		struct km_cpu *c = &km->cpus[i];
		uint64_t t;

		if (c->head >= c->qlen)
			continue;
		memcpy(&t, c->q + c->head, 8);
		if (t <= w && (!best || t < *ts)) {
			best = c;
			*ts = t;
		}
	}
	if (km->marks.head < km->marks.qlen) {
		uint64_t t;

		memcpy(&t, km->marks.q + km->marks.head, 8);
		if (t <= w && (!best || t < *ts)) {
			best = &km->marks;
			*ts = t;
		}
	}
	return best;
}

/* A queue's records run are dropped from its front. */
static void km_compact(struct km_cpu *c)
{
	if (c->head) {
		memmove(c->q, c->q + c->head, c->qlen - c->head);
		c->qlen -= c->head;
		c->head = 0;
	}
}

/* The records queued up to w run in time order, the pages written. */
static int km_round(struct utrace_recorder *r, uint64_t w, bool final, struct utrace_error *err)
{
	struct rec_kmerge *km = r->km;
	uint64_t ts = 0;
	struct km_cpu *c;

	while ((c = km_next(km, w, &ts))) {
		int kid = c->q[c->head + 16] | c->q[c->head + 17] << 8;
		uint32_t len;

		memcpy(&len, c->q + c->head + 8, 4);
		if (!km_pair(r, c, kid, len, final || c == &km->marks))
			break; /* its stack may come in the next round */
		km->reader = REC_HIST_ALL_READERS;
		if (c == &km->marks) { /* its CPU and reader in the spare word */
			uint32_t word;

			memcpy(&word, c->q + c->head + 12, 4);
			km->cpu = word & 0xffff;
			km->reader = word >> 16;
		} else {
			km->cpu = (uint32_t)(c - km->cpus);
		}
		km->ts = ts;
		memcpy(&km->pid, c->q + c->head + 16 + 4, 4);
		km_run(r, kid, c->q + c->head + 16, len);
		c->head += 16 + ((len + 7) & ~7u);
	}
	km_compact(&km->marks);
	for (uint32_t i = 0; i < km->nr_cpus; i++) {
		c = &km->cpus[i];
		km_compact(c); /* what is left for the next round to the front */
		c->got = false;
		if (rec_kpage_flush(r, i, c, err) < 0)
			return err->code;
	}
	return 0;
}

int rec_kmerge_round(struct utrace_recorder *r, bool final, struct utrace_error *err)
{
	struct rec_kmerge *km = r->km;
	uint64_t w = final ? UINT64_MAX : km ? km->round_end : 0;
	uint64_t margin;

	if (!km)
		return 0;
	margin = km->ktsc ? (KM_MARGIN_NS * r->tsc_per_us_q16 / 1000) >> 16 : KM_MARGIN_NS;
	w = w > margin ? w - margin : 0;
	if (!final && km->read_at > w)
		w = km->read_at;
	for (uint32_t i = 0; !final && i < km->nr_cpus; i++)
		if (km->cpus[i].got && km->cpus[i].last_ts < w)
			w = km->cpus[i].last_ts;
	if (km_round(r, w, final, err) < 0)
		return err->code;
	km->round_end = km_now(r);
	return 0;
}

void rec_kmerge_read_begin(struct utrace_recorder *r)
{
	r->km->read_at = km_now(r);
}

void rec_kmerge_read_end(struct utrace_recorder *r)
{
	r->km->read_at = 0;
}

/*
 * A trace_marker record (recorder_kmarker.c) at the trace clock's now, on
 * CPU cpu: queued with its CPU and reader (whose triggers run), then run
 * at once with every record queued before it, as the kernel runs the
 * print event's triggers in the write (the CPUs' records were read just
 * before; one stamped earlier but read later runs after it).  Its data
 * at most what one kernel page holds (rec_kmerge_marker_max).
 */
int rec_kmerge_put_marker(struct utrace_recorder *r, unsigned reader, uint32_t cpu,
			  const uint8_t *rec, uint32_t len, struct utrace_error *err)
{
	struct rec_kmerge *km = r->km;
	uint64_t ts = km_now(r);
	size_t at = km->marks.qlen;
	uint32_t w = cpu | (uint32_t)reader << 16;

	if (!km_cpu(km, cpu) || reader > 0xffff || km_queue(&km->marks, ts, rec, len) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	memcpy(km->marks.q + at + 12, &w, 4);
	return km_round(r, ts, false, err);
}

uint32_t rec_kmerge_marker_max(const struct utrace_recorder *r)
{
	/* a page: its header, the event's two words and a time extend */
	return r->km->ksubbuf - 16 - 16;
}

void rec_kmerge_free(struct utrace_recorder *r)
{
	struct rec_kmerge *km = r->km;

	if (!km)
		return;
	for (uint32_t i = 0; i < km->nr_cpus; i++) {
		free(km->cpus[i].q);
		free(km->cpus[i].page);
		free(km->cpus[i].ring);
		free(km->cpus[i].ring_len);
	}
	free(km->cpus);
	free(km->marks.q);
	free(km->addrs);
	if (km->kb)
		kbuffer_free(km->kb);
	free(km);
	r->km = NULL;
}
