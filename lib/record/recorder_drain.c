/* SPDX-License-Identifier: MIT */
/*
 * recorder_drain.c - saving the sub-buffers of the traced threads' ring
 * buffers (common/rb_abi.h) into the file.  Finished sub-buffers of a
 * producer/consumer buffer are written straight from the shared mapping
 * and given back by advancing tail; a buffer whose thread or process is
 * gone is drained to its last committed record; overwrite-mode buffers
 * are read then only, each sub-buffer checked against its sequence number
 * so one being overwritten is discarded, never saved torn.
 */
#include <linux/futex.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/record.h"
#include "lib/record/recorder_internal.h"

static struct utrace_subbuf *buf_slot(struct rec_buffer *b, uint64_t idx)
{
	return (struct utrace_subbuf *)((uint8_t *)b->meta + UTRACE_RB_META_SIZE +
					(idx % b->meta->nr_subbufs) * b->subbuf_size);
}

/* Records in a saved sub-buffer: the recorder's own count, complete even
 * for a process that was killed before it could publish its counters.
 * Counted as the runtime counts them (rt_rb_commit): the ARGS after an
 * entry and the RETVAL after an exit are written with it in one piece,
 * parts of that record; a sub-buffer's CPU, TIME_EXTEND and CONTEXT
 * words are no record at all. */
static uint64_t count_records(const uint32_t *w, uint32_t n)
{
	uint64_t count = 0;

	for (uint32_t i = 0; i < n;) {
		uint32_t len = 1;

		if (urec_kind(w[i]) == UREC_EXT) {
			enum utrace_ext_type t = urec_ext_type(w[i]);

			len = urec_ext_words(w[i]);
			if (!len || t == UEXT_PAD)
				break;
			count += t != UEXT_TIME_EXTEND && t != UEXT_CPU && t != UEXT_CONTEXT &&
				 t != UEXT_ARGS && t != UEXT_RETVAL && t != UEXT_RETADDR;
		} else {
			len = urec_kind(w[i]) == UREC_FUNC ? 3 : 1;
			count++;
		}
		i += len;
	}
	return count;
}

/*
 * Copy sub-buffer idx, which its producer may be rewriting (overwrite mode,
 * the partial one of a thread that may still run, a snapshot), into dst:
 * its header into *hdr, its committed records after.  The seqlock: seq
 * must say idx before the copy (the producer stores seq, then a release
 * fence, then the header and records: runtime/ring_buffer.c) and still
 * after it (read behind an acquire fence); if it moved, the page was being
 * overwritten while we copied and is torn: -1.  0 if the slot holds
 * another index or nothing; else the bytes of records copied.
 */
int rec_subbuf_copy(struct rec_buffer *b, uint64_t idx, struct utrace_subbuf *hdr, void *dst)
{
	struct utrace_subbuf *sb = buf_slot(b, idx);
	uint32_t commit;

	if (__atomic_load_n(&sb->seq, __ATOMIC_ACQUIRE) != (uint32_t)idx)
		return 0;
	/* acquire: the records under commit are visible once we see it */
	commit = __atomic_load_n(&sb->commit, __ATOMIC_ACQUIRE);
	if (commit > utrace_subbuf_data(b->subbuf_size))
		commit = utrace_subbuf_data(b->subbuf_size);
	commit &= ~3u;
	memcpy(hdr, sb, sizeof(*hdr));
	memcpy(dst, sb + 1, commit);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&sb->seq, __ATOMIC_RELAXED) != (uint32_t)idx)
		return -1;
	hdr->commit = commit;
	return (int)commit;
}

static int write_page(struct utrace_recorder *r, struct rec_buffer *b,
		      const struct utrace_subbuf *hdr, const void *data, uint32_t commit,
		      struct utrace_error *err)
{
	struct utrace_dat_page pg = {.buf = b->id};
	struct iovec iov[3] = {{&pg, sizeof(pg)}, {(void *)hdr, sizeof(*hdr)}, {(void *)data, commit}};

	return utrace_dat_write(r->w, UTRACE_DAT_PAGE, iov, 3, err);
}

/* Sub-buffer idx is saved again, whole or longer: what its partial copy
 * (rec_drain_partial) counted is counted again with it. */
static void part_forget(struct rec_buffer *b, uint64_t idx)
{
	if (!b->part || b->part_idx != idx)
		return;
	b->records -= b->part_records;
	b->pages--;
	b->part = false;
}

/*
 * Save sub-buffer idx.  A finished sub-buffer in producer/consumer mode is
 * ours until tail moves past it, so it is written straight from the shared
 * mapping.  check_seq: the producer may be rewriting it, so it is copied
 * out first and kept only if rec_subbuf_copy finds it whole.
 */
static int save_subbuf(struct utrace_recorder *r, struct rec_buffer *b, uint64_t idx,
		       bool check_seq, struct utrace_error *err)
{
	struct utrace_subbuf *sb = buf_slot(b, idx);
	struct utrace_subbuf hdr;
	const void *data = sb + 1;
	uint32_t commit;

	if (check_seq) {
		/* torn (-1): its records count as overwritten, as the
		 * thread's own count of what it wrote says at the end */
		int n = rec_subbuf_copy(b, idx, &hdr, r->page);

		if (n <= 0)
			return 0;
		commit = (uint32_t)n;
		data = r->page;
	} else {
		/* acquire: the records under commit are visible once we see it */
		commit = __atomic_load_n(&sb->commit, __ATOMIC_ACQUIRE);
		if (commit > utrace_subbuf_data(b->subbuf_size))
			commit = utrace_subbuf_data(b->subbuf_size);
		commit &= ~3u;
		memcpy(&hdr, sb, sizeof(hdr));
		hdr.commit = commit;
	}
	if (!commit)
		return 0;
	part_forget(b, idx);
	b->records += hdr.records ? hdr.records : count_records(data, commit / 4);
	b->pages++;
	return write_page(r, b, &hdr, data, commit, err);
}

/*
 * The sub-buffer b's thread is writing (b->tail, after rec_drain: the
 * ones before it are saved), as far as it is committed now: the kernel's
 * reader takes the page being written (ring_buffer.c's reader page swap)
 * so that a read shows every record committed before it; here the
 * committed prefix is copied from the shared mapping and saved as a page
 * of its own.  The file's reader keeps only the newest version of a
 * sub-buffer saved more than once (lib/tracefile/dat_reader.c,
 * index_page: same seq and time_stamp), so when the sub-buffer is saved
 * again, longer or finished, this copy is replaced, never read twice;
 * the counts here are replaced with it (part_forget).
 *
 * Ordering: rec_subbuf_copy loads seq with acquire (the producer stores
 * commit = 0, a release fence, then seq, when it starts a sub-buffer:
 * runtime/ring_buffer.c), so a seq of this index means the commit read
 * next is this sub-buffer's, never the one its slot held before; then
 * commit with acquire (it pairs with the producer's release store of
 * commit after each record), so every record under it is whole in the
 * copy.  The slot cannot be recycled meanwhile: the producer reuses it
 * only once tail has passed it, and only we move tail; rec_subbuf_copy
 * still checks seq again after the copy.  The producer's path is
 * unchanged: it already publishes commit with each record.
 */
int rec_drain_partial(struct utrace_recorder *r, struct rec_buffer *b, struct utrace_error *err)
{
	struct utrace_subbuf hdr;
	uint64_t idx = b->tail;
	int n;

	if (b->done || (b->meta->flags & UTRACE_RB_OVERWRITE))
		return 0; /* overwrite: the rings are read by an extract */
	n = rec_subbuf_copy(b, idx, &hdr, r->page);
	if (n <= 0 || (b->part && b->part_idx == idx && (uint32_t)n <= b->part_commit))
		return 0; /* nothing (new) committed, or torn */
	part_forget(b, idx);
	b->part = true;
	b->part_idx = idx;
	b->part_commit = (uint32_t)n;
	b->part_records = count_records((const uint32_t *)r->page, (uint32_t)n / 4);
	b->records += b->part_records;
	b->pages++;
	hdr.records = 0; /* the count is stored when it is finished */
	return write_page(r, b, &hdr, r->page, (uint32_t)n, err);
}

/*
 * Give sub-buffers [.., tail) back to the producer.  Called after each
 * one is saved, not once per drain: the writer has copied it, and a
 * producer waiting on a full buffer (no-loss mode) can go on at once
 * instead of after the whole batch.
 */
static void give_back(struct rec_buffer *b, uint64_t tail)
{
	struct utrace_rb_meta *m = b->meta;

	b->tail = tail;
	/* release: our copies are done before the producer may reuse them */
	__atomic_store_n(&m->tail, tail, __ATOMIC_RELEASE);
	if (!(m->flags & UTRACE_RB_BLOCK))
		return;
	/* tail is stored before we read waiting: pairs with the producer's
	 * fence between its store of waiting and its re-read of tail */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&m->waiting, __ATOMIC_RELAXED)) {
		syscall(SYS_futex, utrace_rb_tail_word(m), FUTEX_WAKE, 1, NULL, NULL, 0);
		b->woken++;
	}
}

/*
 * Whether b's producer, at the rate these n sub-buffers came, could fill
 * the whole buffer within FILL_SOON_NS, or waits for room now: then the
 * recorder polls again at once and at short intervals (poll_timeout).
 * Polling that often for every buffer that gets a sub-buffer cost a
 * program making 100,000 calls a second 4,000 polls a second, for a 16 MB
 * buffer that takes 20 s to fill at that rate; such a buffer waits for
 * the caller's timeout.  A buffer's first sub-buffers, whose rate is not
 * known yet, count as filling soon, as every buffer's did.
 */
#define FILL_SOON_NS 50000000ull /* 50 ms: fib's 850 MB/s fills 16 MB in 20 */

static bool fills_soon(const struct rec_buffer *b, uint64_t n, uint64_t now)
{
	const struct utrace_rb_meta *m = b->meta;
	uint64_t dt = now > b->seen_ns ? now - b->seen_ns : 0;

	return !b->seen_ns || __atomic_load_n(&m->waiting, __ATOMIC_RELAXED) ||
	       dt / n * m->nr_subbufs < FILL_SOON_NS;
}

/*
 * The kernel's overrun, in records: what the thread wrote and that was not
 * saved: overwritten in --overwrite mode, or torn while it was copied.
 * entries-written is what was saved plus that.  The thread's own count
 * (written) is published with each finished sub-buffer and when it
 * closes its buffer; one that did not close it (exit_group, a kill) wrote
 * the partial sub-buffer's records (part) after its last count.
 */
static void rec_count_overrun(struct rec_buffer *b, uint64_t written, uint64_t part, bool closed)
{
	if (!closed)
		written += part;
	b->overrun = written > b->records ? written - b->records : 0;
}

/* The runtime's own work on the thread (utrace_rb_meta.own: the making of
 * its buffer, its exit work), saved as OWN records for the readers. */
static int save_own(struct utrace_recorder *r, const struct utrace_rb_meta *m,
		    struct utrace_error *err)
{
	static const uint32_t kinds[2] = {UTRACE_OWN_BUFFER, UTRACE_OWN_EXIT};
	int ret = 0;

	for (int i = 0; i < 2 && ret >= 0; i++) {
		uint64_t t0 = m->own[2 * i], t1 = m->own[2 * i + 1];

		if (t0 && t1 >= t0)
			ret = utrace_recorder_write_own(r, m->tid, kinds[i], t0, t1, err);
	}
	return ret;
}

int rec_drain(struct utrace_recorder *r, struct rec_buffer *b, bool final, struct utrace_error *err)
{
	struct utrace_rb_meta *m = b->meta;
	uint64_t head, start, part;
	bool overwrite, closed;
	int ret = 0;

	if (b->done) /* and unmapped: m is NULL */
		return 0;
	overwrite = m->flags & UTRACE_RB_OVERWRITE;
	if (overwrite && !final)
		return 0;
	/* acquire: pairs with the producer's release of head */
	head = __atomic_load_n(&m->head, __ATOMIC_ACQUIRE);
	start = b->tail;
	if (overwrite && head >= m->nr_subbufs && head - m->nr_subbufs + 1 > start)
		start = head - m->nr_subbufs + 1; /* the older ones are overwritten */
	if (head - start > m->nr_subbufs) /* a producer that broke the protocol */
		start = head - m->nr_subbufs;
	for (uint64_t i = start; i < head && ret >= 0; i++) {
		ret = save_subbuf(r, b, i, overwrite, err);
		if (!overwrite)
			give_back(b, i + 1);
	}
	if (head != start) {
		uint64_t now = rec_now_ns();

		r->busy |= fills_soon(b, head - start, now);
		b->seen_ns = now;
	}
	b->tail = head;
	if (!final || ret < 0)
		return ret;

	/* the sub-buffer in progress, if the producer had started it (its
	 * records counted anew if a read saved part of it) */
	part = b->records - (b->part && b->part_idx == head ? b->part_records : 0);
	ret = save_subbuf(r, b, head, true, err);
	part = b->records - part;
	/* acquire: the count published before the close, or with a
	 * sub-buffer finished since head was read (that count has the
	 * partial one's records), is seen with it */
	closed = __atomic_load_n(&m->state, __ATOMIC_ACQUIRE) == UTRACE_RB_CLOSED ||
		 __atomic_load_n(&m->head, __ATOMIC_ACQUIRE) != head;
	rec_count_overrun(b, __atomic_load_n(&m->written, __ATOMIC_RELAXED), part, closed);
	b->lost = __atomic_load_n(&m->lost, __ATOMIC_RELAXED);
	b->waits = __atomic_load_n(&m->waits, __ATOMIC_RELAXED);
	b->wait_tsc = __atomic_load_n(&m->wait_tsc, __ATOMIC_RELAXED);
	if (m->comm[0])
		memcpy(b->comm, m->comm, sizeof(b->comm) - 1);
	if (ret >= 0)
		ret = save_own(r, m, err);
	b->done = true;
	munmap(b->meta, b->size);
	b->meta = NULL;
	if (ret >= 0) {
		struct utrace_dat_stats s = {.buf = b->id,
					     .written = b->records + b->overrun,
					     .lost = b->lost,
					     .pages = b->pages,
					     .overrun = b->overrun};

		/* the thread's last name follows: it may have renamed itself */
		ret = rec_write(r, UTRACE_DAT_STATS, &s, sizeof(s), b->comm, sizeof(b->comm), err);
	}
	return ret;
}
