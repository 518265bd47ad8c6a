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
 * in that event's own packet.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/export/export_fields.h"
#include "lib/export/export_perfetto.h"
#include "lib/export/export_perfetto_internal.h"
#include "lib/export/export_threads.h"
#include "lib/export/protobuf.h"
#include "lib/report/report_signal.h"

/* field numbers of perfetto.protos (protos/perfetto/trace/...) */
enum {
	PKT_TRACK_EVENT = 11,
	PKT_TRACK_DESCRIPTOR = 60,
	PKT_FIRST_ON_SEQ = 87,
	PKT_CLOCK_SNAPSHOT = 6,
	PKT_DEFAULTS = 59,
	DEF_CLOCK_ID = 58, /* TracePacketDefaults.timestamp_clock_id */
	CS_CLOCKS = 1,
	CS_PRIMARY = 2,
	CLK_ID = 1,
	CLK_TIMESTAMP = 2,
	TD_UUID = 1,
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_PARENT = 5,
	PD_PID = 1,
	PD_NAME = 6,
	THD_PID = 1,
	THD_TID = 2,
	THD_NAME = 5,
	TE_TYPE = 9,
	TE_NAME_IID = 10,
	TE_TRACK = 11,
	TE_NAME = 23,
	ID_EVENT_NAMES = 2,
	EN_IID = 1,
	EN_NAME = 2,
};

enum { SLICE_BEGIN = 1, SLICE_END = 2, INSTANT = 3 };
/* the tags of TrackEvent's varint fields, for the fast path */
enum {
	PKT_TE_TYPE_TAG = TE_TYPE << 3,
	PKT_TE_TRACK_TAG = TE_TRACK << 3,
	PKT_TE_IID_TAG = TE_NAME_IID << 3,
};
/* BuiltinClock (protos/perfetto/common/builtin_clock.proto) */
enum { CLOCK_REALTIME_ID = 1, CLOCK_MONOTONIC_ID = 3 };

/* Interned names: (kind, image, id) -> iid. */
struct intern {
	uint64_t *keys; /* 0: empty */
	size_t cap, n;
};

/* A thread's track: (pid, tid) -> uuid, sorted (tasks come sorted). */
struct track {
	int32_t pid, tid;
	uint64_t uuid;
};

#define OBUF_SIZE (1u << 20)

struct utrace_perfetto {
	struct utrace_dat *d;
	FILE *out;
	struct utrace_pb pb;
	struct intern names;
	uint64_t next_iid;
	uint64_t next_uuid;
	struct track *tracks; /* threads */
	size_t nr_tracks, cap_tracks;
	uint64_t *buf_uuid; /* by buffer index: its thread's track, 0 if none */
	unsigned nr_bufs;
	struct utrace_event_fields *fields; /* the events' formats, parsed once */
	unsigned char *obuf;		    /* output, written out when full */
	size_t olen;
	bool failed;
};

/* ---- packets ---- */

static void packet_begin(struct utrace_perfetto *p)
{
	utrace_pb_reset(&p->pb);
	utrace_pb_begin(&p->pb, TRACE_PACKET);
	utrace_pb_uint(&p->pb, PKT_SEQ_ID, SEQ_ID);
}

static int flush_out(struct utrace_perfetto *p, struct utrace_error *err)
{
	if (p->olen && fwrite_unlocked(p->obuf, 1, p->olen, p->out) != p->olen) {
		p->failed = true;
		return utrace_error_set(err, -EIO, "%s: writing the Perfetto trace failed",
					utrace_dat_path(p->d));
	}
	p->olen = 0;
	return 0;
}

/* Room for n more bytes in the output buffer. */
static int out_room(struct utrace_perfetto *p, size_t n, struct utrace_error *err)
{
	return OBUF_SIZE - p->olen >= n ? 0 : flush_out(p, err);
}

static int packet_end(struct utrace_perfetto *p, struct utrace_error *err)
{
	int ret;

	utrace_pb_end(&p->pb);
	if (p->pb.oom) {
		p->failed = true;
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	if (p->pb.len > OBUF_SIZE) {
		ret = flush_out(p, err);
		if (ret == 0 && fwrite_unlocked(p->pb.p, 1, p->pb.len, p->out) != p->pb.len)
			ret = flush_out(p, err); /* olen is 0: only says what failed */
		return ret;
	}
	if ((ret = out_room(p, p->pb.len, err)) < 0)
		return ret;
	memcpy(p->obuf + p->olen, p->pb.p, p->pb.len);
	p->olen += p->pb.len;
	return 0;
}

/* A thread's track, by binary search; 0 if it has none. */
static uint64_t thread_uuid(const struct utrace_perfetto *p, int32_t pid, int32_t tid)
{
	size_t lo = 0, hi = p->nr_tracks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct track *t = &p->tracks[mid];

		if (t->pid == pid && t->tid == tid)
			return t->uuid;
		if (t->pid < pid || (t->pid == pid && t->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

struct tasks_arg {
	struct utrace_perfetto *p;
	enum utrace_export_task kind; /* processes first, so a thread's parent is known */
	uint64_t process;	      /* the last process track written */
	int32_t process_pid;
	struct utrace_error *err;
};

/* Small uuids, so that an event's track_uuid takes a byte or two. */
static int add_track(struct tasks_arg *a, int32_t pid, int32_t tid, uint64_t *uuid)
{
	struct utrace_perfetto *p = a->p;

	if (UTRACE_GROW(p->tracks, p->cap_tracks, p->nr_tracks + 1) < 0)
		return utrace_error_set(a->err, -ENOMEM, "out of memory");
	*uuid = p->next_uuid++;
	p->tracks[p->nr_tracks++] = (struct track){pid, tid, *uuid};
	return 0;
}

/* A track descriptor per process and per thread, with their names. */
static int task_track(void *arg, enum utrace_export_task kind, int32_t pid, int32_t tid,
		      const char *name)
{
	struct tasks_arg *a = arg;
	struct utrace_pb *b = &a->p->pb;
	uint64_t uuid = 0;
	int ret;

	if (kind != a->kind)
		return 0;
	/* the process tracks get the uuids from 1 in pid order, then the
	 * threads: a thread's process is found by counting */
	if (kind == UTRACE_EXPORT_PROCESS)
		uuid = a->p->next_uuid++;
	else {
		if ((ret = add_track(a, pid, tid, &uuid)) < 0)
			return ret;
		if (pid != a->process_pid || !a->process) {
			a->process++;
			a->process_pid = pid;
		}
	}
	packet_begin(a->p);
	utrace_pb_begin(b, PKT_TRACK_DESCRIPTOR);
	if (kind == UTRACE_EXPORT_PROCESS) {
		utrace_pb_uint(b, TD_UUID, uuid);
		utrace_pb_begin(b, TD_PROCESS);
		utrace_pb_int(b, PD_PID, pid);
		utrace_pb_str(b, PD_NAME, name);
		utrace_pb_end(b);
	} else {
		utrace_pb_uint(b, TD_UUID, uuid);
		utrace_pb_uint(b, TD_PARENT, a->process);
		utrace_pb_begin(b, TD_THREAD);
		utrace_pb_int(b, THD_PID, pid);
		utrace_pb_int(b, THD_TID, tid);
		utrace_pb_str(b, THD_NAME, name);
		utrace_pb_end(b);
	}
	utrace_pb_end(b);
	return packet_end(a->p, a->err);
}

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

/* Each buffer's track, so an event finds it by index. */
static int map_buffers(struct utrace_perfetto *p, struct utrace_error *err)
{
	p->nr_bufs = utrace_dat_buffer_count(p->d);
	p->buf_uuid = calloc(p->nr_bufs + 1, sizeof(*p->buf_uuid));
	if (!p->buf_uuid)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < p->nr_bufs; i++) {
		const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(p->d, i);

		p->buf_uuid[i] = thread_uuid(p, bi->pid, bi->tid);
	}
	return 0;
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
	packet_begin(p);
	utrace_pb_uint(&p->pb, PKT_SEQ_FLAGS, SEQ_CLEARED);
	utrace_pb_uint(&p->pb, PKT_FIRST_ON_SEQ, 1);
	put_clock(p);
	ret = packet_end(p, err);
	if (ret == 0)
		ret = utrace_export_tasks(d, f, task_track, &a, err);
	a.kind = UTRACE_EXPORT_THREAD;
	if (ret == 0)
		ret = utrace_export_tasks(d, f, task_track, &a, err);
	if (ret == 0)
		ret = map_buffers(p, err);
	if (ret < 0) {
		free_perfetto(p);
		return ret;
	}
	*out_p = p;
	return 0;
}

/* ---- interned names ---- */

static size_t intern_slot(const struct intern *t, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (t->cap - 1);
}

/* The iid of key, 0 if new (then *slot is where it goes). */
static uint64_t intern_find(const struct intern *t, uint64_t key, size_t *slot)
{
	size_t s = intern_slot(t, key);

	while (t->keys[2 * s]) {
		if (t->keys[2 * s] == key)
			return t->keys[2 * s + 1];
		s = (s + 1) & (t->cap - 1);
	}
	*slot = s;
	return 0;
}

static int intern_grow(struct intern *t)
{
	struct intern n = {.cap = t->cap ? t->cap * 2 : 1024};

	n.keys = calloc(2 * n.cap, sizeof(*n.keys));
	if (!n.keys)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		size_t s = 0;

		if (t->keys[2 * i] && !intern_find(&n, t->keys[2 * i], &s)) {
			n.keys[2 * s] = t->keys[2 * i];
			n.keys[2 * s + 1] = t->keys[2 * i + 1];
		}
	}
	n.n = t->n;
	free(t->keys);
	*t = n;
	return 0;
}

/* Key kinds: the iid space is shared, the keys are not. */
#define KEY_FUNC(image, id) (1ull << 62 | (uint64_t)(image) << 32 | (id))
#define KEY_EVENT(id) (2ull << 62 | (id))

/* The name of a function or an event, for its key. */
static void key_name(struct utrace_perfetto *p, uint64_t key, char *buf, size_t len,
		     const char **name, size_t *name_len)
{
	if (key >> 62 == 1) {
		*name =
		    utrace_dat_func_name(p->d, (uint32_t)(key >> 32 & 0x3fffffff), (uint32_t)key);
		*name_len = strlen(*name);
		return;
	} else {
		const char *system = NULL;
		const char *fmt = utrace_dat_event_format_by_id(p->d, (int)(uint32_t)key, &system);
		const char *n = fmt ? strstr(fmt, "name: ") : NULL;
		int w;

		if (n)
			w = snprintf(buf, len, "%s%s%.*s", system ? system : "", system ? ":" : "",
				     (int)strcspn(n + 6, "\n"), n + 6);
		else
			w = snprintf(buf, len, "event %u", (uint32_t)key);
		*name = buf;
		*name_len = w < 0 ? 0 : (size_t)w < len ? (size_t)w : len - 1;
	}
}

/* The iid of key; a new one is interned into the packet being built. */
static uint64_t intern(struct utrace_perfetto *p, uint64_t key)
{
	struct intern *t = &p->names;
	const char *name;
	size_t slot = 0, name_len;
	uint64_t iid;
	char buf[256];

	if ((t->n + 1) * 2 > t->cap && intern_grow(t) < 0) {
		p->pb.oom = true;
		return 0;
	}
	iid = intern_find(t, key, &slot);
	if (iid)
		return iid;
	iid = p->next_iid++;
	t->keys[2 * slot] = key;
	t->keys[2 * slot + 1] = iid;
	t->n++;
	key_name(p, key, buf, sizeof(buf), &name, &name_len);
	utrace_pb_begin(&p->pb, PKT_INTERNED);
	utrace_pb_begin(&p->pb, ID_EVENT_NAMES);
	utrace_pb_uint(&p->pb, EN_IID, iid);
	utrace_pb_bytes(&p->pb, EN_NAME, name, name_len);
	utrace_pb_end(&p->pb);
	utrace_pb_end(&p->pb);
	return iid;
}

/* ---- events ---- */

static uint64_t event_track(const struct utrace_perfetto *p, const struct utrace_event *ev)
{
	if (ev->buf < p->nr_bufs && p->buf_uuid[ev->buf])
		return p->buf_uuid[ev->buf];
	return thread_uuid(p, ev->pid, ev->tid);
}

/* The general form of put_event: interns what is new, takes any text. */
static int put_event_slow(struct utrace_perfetto *p, const struct utrace_event *ev, uint64_t ts,
			  unsigned type, uint64_t key, const char *text, size_t len,
			  struct utrace_error *err)
{
	uint64_t iid = 0;

	packet_begin(p);
	utrace_pb_uint(&p->pb, PKT_TIMESTAMP, ts);
	utrace_pb_uint(&p->pb, PKT_SEQ_FLAGS, SEQ_NEEDS_STATE);
	if (key)
		iid = intern(p, key);
	utrace_pb_begin(&p->pb, PKT_TRACK_EVENT);
	utrace_pb_uint(&p->pb, TE_TYPE, type);
	utrace_pb_uint(&p->pb, TE_TRACK, event_track(p, ev));
	if (iid)
		utrace_pb_uint(&p->pb, TE_NAME_IID, iid);
	else if (text)
		utrace_pb_bytes(&p->pb, TE_NAME, text, len);
	utrace_pb_end(&p->pb);
	return packet_end(p, err);
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

	if (text || (key && (!p->names.cap || !(iid = intern_find(&p->names, key, &slot)))))
		return put_event_slow(p, ev, ts, type, key, text, len, err);
	*t++ = PKT_TE_TYPE_TAG;
	*t++ = (unsigned char)type;
	*t++ = PKT_TE_TRACK_TAG;
	t = utrace_pb_put_varint(t, event_track(p, ev));
	if (iid) {
		*t++ = PKT_TE_IID_TAG;
		t = utrace_pb_put_varint(t, iid);
	}
	if (out_room(p, 64, err) < 0)
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

	packet_begin(p);
	utrace_pb_uint(&p->pb, PKT_TIMESTAMP, ev->ts);
	utrace_pb_uint(&p->pb, PKT_SEQ_FLAGS, SEQ_NEEDS_STATE);
	iid = intern(p, KEY_EVENT(ev->id));
	utrace_pb_begin(&p->pb, PKT_TRACK_EVENT);
	utrace_pb_uint(&p->pb, TE_TYPE, INSTANT);
	utrace_pb_uint(&p->pb, TE_TRACK, event_track(p, ev));
	if (iid)
		utrace_pb_uint(&p->pb, TE_NAME_IID, iid);
	if (utrace_event_fields_annotate(p->fields, ev, &p->pb) < 0)
		p->pb.oom = true;
	utrace_pb_end(&p->pb);
	return packet_end(p, err);
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
	return packet_end(arg, err);
}

int utrace_perfetto_end(struct utrace_perfetto *p, struct utrace_error *err)
{
	int ret = 0;

	if (err && !p->failed)
		ret = utrace_perfetto_samples(p->d, &p->pb, samples_packet_end, p, err);
	if (ret == 0 && !p->failed)
		ret = flush_out(p, err);

	if (ret == 0 && (fflush(p->out) == EOF || ferror(p->out)) && !p->failed)
		ret = utrace_error_set(err, -EIO, "%s: writing the Perfetto trace failed: %s",
				       utrace_dat_path(p->d), strerror(errno));
	free_perfetto(p);
	return ret;
}
