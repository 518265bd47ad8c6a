/* SPDX-License-Identifier: MIT */
/*
 * export_perfetto.c - a trace as Perfetto protobuf (export_perfetto.h).
 *
 * Design: the wire format is written directly (lib/export/protobuf.h).
 * Descriptors and packets that intern a name are built as nested messages;
 * the common event packet, whose lengths are all known, is written byte
 * by byte with one-byte lengths (put_event):
 *
 *   0a L  50 01  40 <ts>  68 02  5a l  48 <type> 58 <track> [50 <iid>]
 *   packet seq id timestamp flags track_event{type, track_uuid, name_iid}
 *
 * Packets go into a 1 MiB output buffer written out when full, so the
 * output streams whatever the trace's size.  All packets are on one
 * sequence (trusted_packet_sequence_id 1): the first clears incremental
 * state, the others need it, which is what lets events name themselves by
 * an interned id.  Names are interned the first time an event uses them,
 * in that event's own packet.  The packets and the interned names are
 * export_perfetto_seq.c's, the tracks export_perfetto_tracks.c's; this
 * file begins and ends the trace and writes its events.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/export/export_fields.h"
#include "lib/export/export_perfetto.h"
#include "lib/export/export_perfetto_internal.h"
#include "lib/export/export_threads.h"
#include "lib/export/protobuf.h"
#include "lib/report/report_signal.h"

/* BuiltinClock (protos/perfetto/common/builtin_clock.proto) */
enum { CLOCK_REALTIME_ID = 1, CLOCK_MONOTONIC_ID = 3 };

static void free_perfetto(struct utrace_perfetto *p)
{
	utrace_pb_free(&p->pb);
	utrace_event_fields_free(p->fields);
	free(p->names.keys);
	free(p->tracks);
	free(p->buf_uuid);
	free(p->obuf);
	free(p);
}

/*
 * The clock of the times, in the first packet: utrace's are
 * CLOCK_MONOTONIC, which Perfetto would take for BOOTTIME (its default)
 * unless told, so the sequence's packets default to MONOTONIC, which is
 * the trace's clock; and a snapshot pairs it with CLOCK_REALTIME as the
 * recording read both at its start, so that a merge with a system trace
 * (whose snapshots pair REALTIME, MONOTONIC and BOOTTIME) lines up.
 */
static void put_clock(struct utrace_perfetto *p)
{
	const struct utrace_dat_clock *c = utrace_dat_clock(p->d);

	utrace_pb_begin(&p->pb, PKT_DEFAULTS);
	utrace_pb_uint(&p->pb, DEF_CLOCK_ID, CLOCK_MONOTONIC_ID);
	utrace_pb_end(&p->pb);
	if (!c)
		return;
	utrace_pb_begin(&p->pb, PKT_CLOCK_SNAPSHOT);
	utrace_pb_begin(&p->pb, CS_CLOCKS);
	utrace_pb_uint(&p->pb, CLK_ID, CLOCK_MONOTONIC_ID);
	utrace_pb_uint(&p->pb, CLK_TIMESTAMP, c->ns0);
	utrace_pb_end(&p->pb);
	if (c->realtime_ns) {
		utrace_pb_begin(&p->pb, CS_CLOCKS);
		utrace_pb_uint(&p->pb, CLK_ID, CLOCK_REALTIME_ID);
		utrace_pb_uint(&p->pb, CLK_TIMESTAMP, c->realtime_ns);
		utrace_pb_end(&p->pb);
	}
	utrace_pb_uint(&p->pb, CS_PRIMARY, CLOCK_MONOTONIC_ID);
	utrace_pb_end(&p->pb);
}

int utrace_perfetto_begin(struct utrace_dat *d, const struct utrace_report_filter *f, FILE *out,
			  struct utrace_perfetto **out_p, struct utrace_error *err)
{
	struct utrace_perfetto *p = calloc(1, sizeof(*p));
	struct tasks_arg a = {p, UTRACE_EXPORT_PROCESS, 0, 0, err};
	int ret;

	*out_p = NULL;
	if (!p || !(p->obuf = malloc(OBUF_SIZE))) {
		free(p);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	p->d = d;
	p->out = out;
	p->next_iid = 1;
	p->next_uuid = 1;
	if (utrace_event_fields_new(d, &p->fields, err) < 0) {
		free_perfetto(p);
		return -ENOMEM;
	}
	/* the first packet of the sequence: no interned names yet */
	pf_packet_begin(p);
	utrace_pb_uint(&p->pb, PKT_SEQ_FLAGS, SEQ_CLEARED);
	utrace_pb_uint(&p->pb, PKT_FIRST_ON_SEQ, 1);
	put_clock(p);
	ret = pf_packet_end(p, err);
	if (ret == 0)
		ret = utrace_export_tasks(d, f, pf_task_track, &a, err);
	a.kind = UTRACE_EXPORT_THREAD;
	if (ret == 0)
		ret = utrace_export_tasks(d, f, pf_task_track, &a, err);
	if (ret == 0)
		ret = pf_map_buffers(p, err);
	if (ret < 0) {
		free_perfetto(p);
		return ret;
	}
	*out_p = p;
	return 0;
}

/* ---- events ---- */

static uint64_t event_track(const struct utrace_perfetto *p, const struct utrace_event *ev)
{
	if (ev->buf < p->nr_bufs && p->buf_uuid[ev->buf])
		return p->buf_uuid[ev->buf];
	return pf_thread_uuid(p, ev->pid, ev->tid);
}

/* The general form of put_event: interns what is new, takes any text. */
static int put_event_slow(struct utrace_perfetto *p, const struct utrace_event *ev, uint64_t ts,
			  unsigned type, uint64_t key, const char *text, size_t len,
			  struct utrace_error *err)
{
	uint64_t iid = 0;

	pf_packet_begin(p);
	utrace_pb_uint(&p->pb, PKT_TIMESTAMP, ts);
	utrace_pb_uint(&p->pb, PKT_SEQ_FLAGS, SEQ_NEEDS_STATE);
	if (key)
		iid = pf_intern(p, key);
	utrace_pb_begin(&p->pb, PKT_TRACK_EVENT);
	utrace_pb_uint(&p->pb, TE_TYPE, type);
	utrace_pb_uint(&p->pb, TE_TRACK, event_track(p, ev));
	if (iid)
		utrace_pb_uint(&p->pb, TE_NAME_IID, iid);
	else if (text)
		utrace_pb_bytes(&p->pb, TE_NAME, text, len);
	utrace_pb_end(&p->pb);
	return pf_packet_end(p, err);
}

/*
 * One track event: type, on ev's thread, named by key (interned) or by
 * text[0..len) when key is 0.  The common case, a name already interned
 * or none, is written straight into the output with every length known
 * in advance (each under 128: one byte), which is what makes this export
 * cheap per event:
 *
 *   0a L  50 01  40 <ts>  68 02  5a l  48 <type> 58 <track> [50 <iid>]
 */
static int put_event(struct utrace_perfetto *p, const struct utrace_event *ev, uint64_t ts,
		     unsigned type, uint64_t key, const char *text, size_t len,
		     struct utrace_error *err)
{
	unsigned char te[32], *t = te, *o;
	uint64_t iid = 0;
	size_t slot, n;

	if (text || (key && (!p->names.cap || !(iid = pf_intern_find(&p->names, key, &slot)))))
		return put_event_slow(p, ev, ts, type, key, text, len, err);
	*t++ = PKT_TE_TYPE_TAG;
	*t++ = (unsigned char)type;
	*t++ = PKT_TE_TRACK_TAG;
	t = utrace_pb_put_varint(t, event_track(p, ev));
	if (iid) {
		*t++ = PKT_TE_IID_TAG;
		t = utrace_pb_put_varint(t, iid);
	}
	if (pf_out_room(p, 64, err) < 0)
		return -EIO;
	o = p->obuf + p->olen;
	o[0] = TRACE_PACKET << 3 | UTRACE_PB_LEN;
	o[2] = PKT_SEQ_ID << 3 | UTRACE_PB_VARINT;
	o[3] = SEQ_ID;
	o[4] = PKT_TIMESTAMP << 3 | UTRACE_PB_VARINT;
	n = (size_t)(utrace_pb_put_varint(o + 5, ts) - o);
	o[n++] = PKT_SEQ_FLAGS << 3 | UTRACE_PB_VARINT;
	o[n++] = SEQ_NEEDS_STATE;
	o[n++] = PKT_TRACK_EVENT << 3 | UTRACE_PB_LEN;
	o[n++] = (unsigned char)(t - te);
	memcpy(o + n, te, (size_t)(t - te));
	n += (size_t)(t - te);
	o[1] = (unsigned char)(n - 2);
	p->olen += n;
	return 0;
}

/* A tracepoint or kernel event: an instant named system:event, its
 * fields as debug annotations. */
static int put_tracepoint(struct utrace_perfetto *p, const struct utrace_event *ev,
			  struct utrace_error *err)
{
	uint64_t iid;

	pf_packet_begin(p);
	utrace_pb_uint(&p->pb, PKT_TIMESTAMP, ev->ts);
	utrace_pb_uint(&p->pb, PKT_SEQ_FLAGS, SEQ_NEEDS_STATE);
	iid = pf_intern(p, KEY_EVENT(ev->id));
	utrace_pb_begin(&p->pb, PKT_TRACK_EVENT);
	utrace_pb_uint(&p->pb, TE_TYPE, INSTANT);
	utrace_pb_uint(&p->pb, TE_TRACK, event_track(p, ev));
	if (iid)
		utrace_pb_uint(&p->pb, TE_NAME_IID, iid);
	if (utrace_event_fields_annotate(p->fields, ev, &p->pb) < 0)
		p->pb.oom = true;
	utrace_pb_end(&p->pb);
	return pf_packet_end(p, err);
}

/* A call shown whole: begin at start, end at start + duration. */
static int put_call(struct utrace_perfetto *p, const struct utrace_event *ev, uint64_t start,
		    struct utrace_error *err)
{
	uint64_t key = KEY_FUNC(ev->image, ev->id);
	int ret = put_event(p, ev, start, SLICE_BEGIN, key, NULL, 0, err);

	return ret ? ret : put_event(p, ev, start + ev->duration, SLICE_END, 0, NULL, 0, err);
}

int utrace_perfetto_event(struct utrace_perfetto *p, const struct utrace_event *ev,
			  struct utrace_error *err)
{
	char text[64];

	switch (ev->kind) {
	case UTRACE_EV_ENTRY:
		return put_event(p, ev, ev->ts, SLICE_BEGIN, KEY_FUNC(ev->image, ev->id), NULL, 0,
				 err);
	case UTRACE_EV_EXIT:
		if (!(ev->flags & UTRACE_EVF_NO_ENTRY))
			return put_event(p, ev, ev->ts, SLICE_END, 0, NULL, 0, err);
		/* its entry is not shown: the call whole, timed back */
		if ((ev->flags & (UTRACE_EVF_NO_DURATION | UTRACE_EVF_NO_ID)) ||
		    ev->id == UTRACE_DAT_NO_ID || ev->duration > ev->ts)
			return 0;
		return put_call(p, ev, ev->ts - ev->duration, err);
	case UTRACE_EV_LEAF:
		return put_call(p, ev, ev->ts, err);
	case UTRACE_EV_FUNC:
		return put_event(p, ev, ev->ts, INSTANT, KEY_FUNC(ev->image, ev->id), NULL, 0, err);
	case UTRACE_EV_EVENT:
		return put_tracepoint(p, ev, err);
	case UTRACE_EV_PRINT:
		return put_event(p, ev, ev->ts, INSTANT, 0, ev->data, ev->data_len, err);
	case UTRACE_EV_SIGNAL: { /* record --dump-on-crash */
		char sig[256];

		memcpy(sig, "signal: ", 8);
		utrace_report_signal_text(p->d, ev, sig + 8, sizeof(sig) - 8);
		return put_event(p, ev, ev->ts, INSTANT, 0, sig, strlen(sig), err);
	}
	case UTRACE_EV_LOST:
		if (ev->flags & UTRACE_EVF_LOST_UNKNOWN)
			snprintf(text, sizeof(text), "LOST EVENTS");
		else
			snprintf(text, sizeof(text), "LOST %" PRIu64 " EVENTS", ev->lost);
		return put_event(p, ev, ev->ts, INSTANT, 0, text, strlen(text), err);
	}
	return 0;
}

static int samples_packet_end(void *arg, struct utrace_error *err)
{
	return pf_packet_end(arg, err);
}

int utrace_perfetto_end(struct utrace_perfetto *p, struct utrace_error *err)
{
	int ret = 0;

	if (err && !p->failed)
		ret = utrace_perfetto_samples(p->d, &p->pb, samples_packet_end, p, err);
	if (ret == 0 && !p->failed)
		ret = pf_flush_out(p, err);

	if (ret == 0 && (fflush(p->out) == EOF || ferror(p->out)) && !p->failed)
		ret = utrace_error_set(err, -EIO, "%s: writing the Perfetto trace failed: %s",
				       utrace_dat_path(p->d), strerror(errno));
	free_perfetto(p);
	return ret;
}
