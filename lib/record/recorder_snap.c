/* SPDX-License-Identifier: MIT */
/*
 * recorder_snap.c - snapshots: the `snapshot` trigger (and the hist
 * snapshot() action) saving every thread's buffer as it is at that moment
 * into the recording, the kernel's snapshot buffer, while recording goes
 * on.  With --overwrite this is the flight recorder's "keep only the
 * seconds before the problem".
 *
 *   traced thread                      recorder (every poll, <= 1 ms apart)
 *   trigger fires: ticket n,           slot n % SLOTS published (seq n + 1)?
 *   slot = {tsc, event, tid},    ---->   copy every buffer's ring, each
 *   seq = n + 1 (release)                 sub-buffer through its seqlock
 *   (runtime/snapshot.c)                  -> SNAP_PAGE records, then SNAPSHOT
 *
 * What is copied is each ring's memory, whatever the mode: the last
 * nr_subbufs sub-buffers the thread wrote, saved already or not.  In
 * overwrite mode that is all the buffer holds; without it the recorder
 * has saved most of them into the trace already and the snapshot repeats
 * them (the kernel's snapshot is a copy too: the same events are in both).
 *
 * Consistency: the threads go on writing while we copy.  A sub-buffer is
 * copied out and kept only if its sequence number is the one expected
 * before and after the copy (rec_subbuf_copy, recorder_drain.c); one the
 * producer started to overwrite meanwhile is torn, left out and counted.
 * The partial sub-buffer a thread is writing is copied up to its commit,
 * which only grows: the records below it are whole.  The copy is taken a
 * little after the trigger (the next poll), so the SNAPSHOT record keeps
 * the trigger's TSC and the reader shows only the records up to it: the
 * snapshot is the buffers as they were at that moment.
 * The thread that asked waits for the copy (runtime/snapshot.c), so its
 * own records before the moment are all there; other threads' are, less
 * what they overwrote before the copy (a ring's worth written in under a
 * millisecond).  Buffers of threads that ended before the request were
 * drained and unmapped: they are not in it.
 *
 * A kernel event's snapshot trigger (this kernel has no snapshots:
 * CONFIG_TRACER_SNAPSHOT) is taken by the recorder when its merge runs
 * the event (recorder_kmerge.c), a few ms after it happened: the same
 * copy of the threads' rings (rec_snap_threads), cut at the event's time
 * stamp (the kernel's x86-tsc is the threads' TSC), with the kernel's
 * records saved up to and with the event.  In overwrite mode a thread
 * that writes more than its ring in those few ms has overwritten its
 * records before the event.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/grow.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_snap.h"

struct rec_snap {
	uint64_t taken; /* requests handled (the next ticket) */
	uint32_t ids;   /* snapshots written */
	uint64_t stall_ns; /* when taken was first seen unpublished */
	uint8_t *readers;  /* by id: whose trigger asked (0: the top level) */
	size_t cap_readers;
};

int rec_snap_new(struct utrace_recorder *r)
{
	r->snap = calloc(1, sizeof(*r->snap));
	return r->snap ? 0 : -ENOMEM;
}

void rec_snap_free(struct utrace_recorder *r)
{
	if (r->snap)
		free(r->snap->readers);
	free(r->snap);
	r->snap = NULL;
}

uint32_t rec_snap_new_id(struct utrace_recorder *r)
{
	return ++r->snap->ids;
}

/* One thread's ring into snapshot id: the sub-buffers up to the cut. */
static int snap_buffer(struct utrace_recorder *r, struct rec_buffer *b,
		       struct utrace_dat_snapshot *s, struct utrace_error *err)
{
	struct utrace_rb_meta *m = b->meta;
	uint64_t head = __atomic_load_n(&m->head, __ATOMIC_ACQUIRE);
	uint64_t first = head >= m->nr_subbufs ? head - m->nr_subbufs + 1 : 0;

	for (uint64_t i = first; i <= head; i++) {
		struct utrace_dat_page pg = {.buf = b->id, .reserved = s->id};
		struct utrace_subbuf hdr;
		int n = rec_subbuf_copy(b, i, &hdr, r->page);
		int ret;

		s->torn += n < 0;
		if (n <= 0 || hdr.time_stamp > s->tsc)
			continue; /* nothing, torn, or all after the moment */
		{
			struct iovec iov[3] = {
			    {&pg, sizeof(pg)}, {&hdr, sizeof(hdr)}, {r->page, (size_t)n}};

			ret = utrace_dat_write(r->w, UTRACE_DAT_SNAP_PAGE, iov, 3, err);
		}
		if (ret < 0)
			return ret;
		s->pages++;
	}
	return 0;
}

int rec_snap_threads(struct utrace_recorder *r, struct utrace_dat_snapshot *s,
		     struct utrace_error *err)
{
	for (uint32_t i = 0; i < r->nr_bufs; i++) {
		int ret;

		if (r->bufs[i]->done || !r->bufs[i]->meta)
			continue;
		ret = snap_buffer(r, r->bufs[i], s, err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int snap_take(struct utrace_recorder *r, const struct utrace_snap_slot *slot,
		     uint32_t missed, struct utrace_error *err)
{
	struct utrace_dat_snapshot s = {.id = r->snap->ids + 1,
					.event = slot->id,
					.tid = slot->tid,
					.tsc = slot->tsc,
					.missed = missed};

	/* an instance's (the live tracefs's): known as its before it is in
	 * the file, so that a reader of the file finds whose each one is */
	if (slot->reader && UTRACE_GROW_ZERO(r->snap->readers, r->snap->cap_readers, s.id + 1) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	if (slot->reader && slot->reader < UTRACE_READERS)
		r->snap->readers[s.id] = (uint8_t)slot->reader;
	r->snap->ids++;
	if (rec_snap_threads(r, &s, err) < 0)
		return err->code;
	return rec_write(r, UTRACE_DAT_SNAPSHOT, &s, sizeof(s), NULL, 0, err);
}

/* The live tracefs's `echo 1 > snapshot`: every thread's buffer as it is
 * now, as a snapshot of no event (UTRACE_SNAP_TRACEFS); its id. */
int utrace_recorder_snapshot_now(struct utrace_recorder *r, struct utrace_error *err)
{
	struct utrace_snap_slot slot = {.id = UTRACE_SNAP_TRACEFS};
	uint32_t lo, hi;
	int ret;

	if (!r->ctl || !r->w)
		return utrace_error_set(err, -ENODEV, "no recording to take a snapshot of");
	/* the threads' clock (x86-tsc): the records up to now are in it */
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	slot.tsc = (uint64_t)hi << 32 | lo;
	ret = snap_take(r, &slot, 0, err);
	return ret < 0 ? ret : (int)r->snap->ids;
}

void rec_snap_reader_drop(struct utrace_recorder *r, unsigned reader)
{
	for (size_t i = 0; r->snap && i < r->snap->cap_readers; i++)
		if (r->snap->readers[i] == reader)
			r->snap->readers[i] = UTRACE_READERS;
}

int utrace_recorder_snapshot_reader(const struct utrace_recorder *r, unsigned id)
{
	if (!r->snap || !id || id > r->snap->ids)
		return -ENOENT;
	return id < r->snap->cap_readers ? r->snap->readers[id] : 0;
}

/* The request of ticket n, if its slot holds it whole (a seqlock too: the
 * slot's seq is n + 1 before and after the copy). */
static bool snap_slot(struct utrace_recorder *r, uint64_t n, struct utrace_snap_slot *out)
{
	struct utrace_snap_slot *s = &r->ctl->snap[n % UTRACE_SNAP_SLOTS];

	if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != n + 1)
		return false;
	out->tsc = s->tsc;
	out->id = s->id;
	out->tid = s->tid;
	out->reader = s->reader;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&s->seq, __ATOMIC_RELAXED) == n + 1;
}

/* A ticket whose slot stays unpublished this long while later ones come
 * was taken by a thread that died between the two (a kill): passed over,
 * or it would hold up every snapshot after it. */
#define SNAP_STALL_NS 100000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Whether ticket n, not published, is to be passed over. */
static bool snap_stalled(struct utrace_recorder *r, uint64_t next)
{
	uint64_t now;

	if (next <= r->snap->taken + 1) { /* the newest: its thread is on it */
		r->snap->stall_ns = 0;
		return false;
	}
	now = now_ns();
	if (!r->snap->stall_ns) {
		r->snap->stall_ns = now;
		return false;
	}
	if (now - r->snap->stall_ns < SNAP_STALL_NS)
		return false;
	r->snap->stall_ns = 0;
	return true;
}

int rec_snap_poll(struct utrace_recorder *r, struct utrace_error *err)
{
	uint64_t next;
	uint32_t missed = 0;

	if (!r->ctl || !r->w)
		return 0;
	next = __atomic_load_n(&r->ctl->snap_next, __ATOMIC_RELAXED);
	if (next - r->snap->taken > UTRACE_SNAP_SLOTS) { /* their slots were reused */
		missed = (uint32_t)(next - UTRACE_SNAP_SLOTS - r->snap->taken);
		r->snap->taken = next - UTRACE_SNAP_SLOTS;
	}
	while (r->snap->taken < next) {
		struct utrace_snap_slot slot;
		int ret;

		/* not published yet (its thread is between its ticket and its
		 * seq) or being rewritten: the next poll takes it */
		if (!snap_slot(r, r->snap->taken, &slot)) {
			if (!snap_stalled(r, next))
				break;
			missed++;
		} else {
			r->snap->stall_ns = 0;
			ret = snap_take(r, &slot, missed, err);
			if (ret < 0)
				return ret;
			missed = 0;
		}
		r->snap->taken++;
		/* release: the thread that asked resumes once its snapshot is
		 * copied (runtime/snapshot.c waits on this word) */
		__atomic_store_n(&r->ctl->snap_done, (uint32_t)r->snap->taken, __ATOMIC_RELEASE);
		syscall(SYS_futex, &r->ctl->snap_done, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	}
	return 0;
}
