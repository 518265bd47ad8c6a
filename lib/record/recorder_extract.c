/* SPDX-License-Identifier: MIT */
/*
 * recorder_extract.c - what the recording holds now, as a complete
 * utrace.dat of its own, while the recording goes on (utrace extract,
 * and the `trace` file of an --overwrite recording).
 *
 * The recorder's own file (the spool) holds, up to now, everything but
 * what is still in the threads' rings: the metadata (images, objects,
 * sites, formats), the sub-buffers already saved and the kernel's pages.
 * In overwrite mode (a flight recorder: utrace start) the rings are read
 * only when the recording ends, so the spool holds no records of a thread
 * that runs: the rings are the buffers, as the kernel's are.
 *
 * The extract is the spool's records so far, copied as they are (after
 * a flush, so every record is whole), then each running thread's ring as
 * it is: the sub-buffers it holds that the spool does not have (from
 * the consumer's tail, or the oldest one the ring still keeps), each
 * copied through its seqlock (rec_subbuf_copy) since the thread goes on
 * writing, a torn one left out; then the symbols, a CLOCK and END, as
 * finish writes them.  Nothing of the recording changes: the counters
 * are not touched and the rings are not consumed, so a second extract
 * holds the first's records that are still in the rings, as a second
 * read of the kernel's `trace` does.  What the hist triggers hold is not
 * in it (written at the end only).
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "lib/record/recorder_internal.h"

/* The sub-buffers of b's ring that the spool does not hold, into the
 * extract (r->w). */
static int extract_ring(struct utrace_recorder *r, struct rec_buffer *b, struct utrace_error *err)
{
	struct utrace_rb_meta *m = b->meta;
	/* acquire: pairs with the producer's release of head */
	uint64_t head = __atomic_load_n(&m->head, __ATOMIC_ACQUIRE);
	uint64_t first = head >= m->nr_subbufs ? head - m->nr_subbufs + 1 : 0;

	if (first < b->tail)
		first = b->tail;
	for (uint64_t i = first; i <= head; i++) {
		struct utrace_dat_page pg = {.buf = b->id};
		struct utrace_subbuf hdr;
		int n = rec_subbuf_copy(b, i, &hdr, r->page);
		struct iovec iov[3] = {{&pg, sizeof(pg)}, {&hdr, sizeof(hdr)}, {r->page, 0}};
		int ret;

		if (n <= 0)
			continue; /* nothing yet, or torn */
		iov[2].iov_len = (size_t)n;
		if ((ret = utrace_dat_write(r->w, UTRACE_DAT_PAGE, iov, 3, err)) < 0)
			return ret;
	}
	return 0;
}

/* Everything after the spool's records, into the extract (r->w): with
 * UTRACE_EXTRACT_START_CLOCK no CLOCK, so the start's, which the spool
 * holds, is the file's. */
static int extract_tail(struct utrace_recorder *r, unsigned flags, struct utrace_error *err)
{
	struct utrace_dat_clock clock = r->clock;
	int ret = 0;

	for (uint32_t i = 0; i < r->nr_bufs && ret >= 0; i++)
		if (!r->bufs[i]->done)
			ret = extract_ring(r, r->bufs[i], err);
	if (ret >= 0)
		ret = rec_write_symtabs(r, err);
	if (ret >= 0 && !(flags & UTRACE_EXTRACT_START_CLOCK)) {
		rec_clock_pair(&clock.tsc1, &clock.ns1);
		ret = rec_write(r, UTRACE_DAT_CLOCK, &clock, sizeof(clock), NULL, 0, err);
	}
	return ret;
}

int utrace_recorder_extract(struct utrace_recorder *r, const char *path, unsigned flags,
			    struct utrace_error *err)
{
	struct utrace_dat_writer *spool = r->w, *w;
	uint64_t from = sizeof(struct utrace_dat_header), len;
	int ret;

	if (!spool)
		return utrace_error_set(err, -EINVAL, "the recording is finished");
	if ((ret = utrace_dat_writer_flush(spool, err)) < 0)
		return ret;
	len = utrace_dat_writer_bytes(spool) - from;
	if ((ret = utrace_dat_writer_open(path, &w, err)) < 0)
		return ret;
	ret = utrace_dat_writer_copy(w, r->o.output, from, len, err);
	/* the tail's records go to the extract through the usual helpers */
	r->w = w;
	if (ret >= 0)
		ret = extract_tail(r, flags, err);
	r->w = spool;
	if (ret >= 0)
		return utrace_dat_writer_close(w, err);
	utrace_dat_writer_close(w, NULL);
	return ret;
}
