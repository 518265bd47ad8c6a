/* SPDX-License-Identifier: MIT */
/*
 * export_perfetto_internal.h - what the Perfetto writer's files share
 * (export_perfetto.c: the trace and its events; export_perfetto_seq.c:
 * packets and interned names; export_perfetto_tracks.c: the tracks;
 * export_perfetto_samples.c: the samples of record -F as PerfSample
 * packets): the packet's field numbers (perfetto.protos.TracePacket), its
 * sequence, the samples' writer, and the events' writer.
 */
#ifndef UTRACE_LIB_EXPORT_PERFETTO_INTERNAL_H
#define UTRACE_LIB_EXPORT_PERFETTO_INTERNAL_H

#include "lib/base/error.h"
#include "lib/export/protobuf.h"
#include "lib/tracefile/dat_reader.h"

enum {
	TRACE_PACKET = 1,
	PKT_TIMESTAMP = 8,
	PKT_SEQ_ID = 10,
	PKT_INTERNED = 12,
	PKT_SEQ_FLAGS = 13,
};
enum { SEQ_CLEARED = 1, SEQ_NEEDS_STATE = 2 };

#define SEQ_ID 1 /* every packet's trusted_packet_sequence_id */

/* The on-CPU samples of d, one PerfSample packet each, built in pb and
 * handed to end(arg, err) (which writes it out: -EIO, -ENOMEM), after the
 * events (Perfetto sorts packets by time); 0 when d has none. */
int utrace_perfetto_samples(struct utrace_dat *d, struct utrace_pb *pb,
			    int (*end)(void *arg, struct utrace_error *err), void *arg,
			    struct utrace_error *err);


/* ---- the events' writer (export_perfetto.c, export_perfetto_seq.c,
 * export_perfetto_tracks.c) ---- */

#include <stdbool.h>
#include <stdio.h>

#include "lib/export/export_fields.h"
#include "lib/export/export_threads.h"

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

/* Key kinds: the iid space is shared, the keys are not. */
#define KEY_FUNC(image, id) (1ull << 62 | (uint64_t)(image) << 32 | (id))
#define KEY_EVENT(id) (2ull << 62 | (id))

/* export_perfetto_seq.c: a packet begun in p->pb; p's output buffer
 * written out; room for n more bytes in it; the packet ended and put
 * into it (-ENOMEM, -EIO); the iid of key, 0 if new (then *slot is
 * where it goes); the iid of key, a new one interned into the packet
 * being built */
void pf_packet_begin(struct utrace_perfetto *p);
int pf_flush_out(struct utrace_perfetto *p, struct utrace_error *err);
int pf_out_room(struct utrace_perfetto *p, size_t n, struct utrace_error *err);
int pf_packet_end(struct utrace_perfetto *p, struct utrace_error *err);
uint64_t pf_intern_find(const struct intern *t, uint64_t key, size_t *slot);
uint64_t pf_intern(struct utrace_perfetto *p, uint64_t key);

/* export_perfetto_tracks.c: a thread's track (0 if none); a track
 * descriptor per process, then per thread (utrace_export_tasks's callback,
 * arg a struct tasks_arg); each buffer's track */
struct tasks_arg {
	struct utrace_perfetto *p;
	enum utrace_export_task kind; /* processes first, so a thread's parent is known */
	uint64_t process;	      /* the last process track written */
	int32_t process_pid;
	struct utrace_error *err;
};
uint64_t pf_thread_uuid(const struct utrace_perfetto *p, int32_t pid, int32_t tid);
int pf_task_track(void *arg, enum utrace_export_task kind, int32_t pid, int32_t tid,
		  const char *name);
int pf_map_buffers(struct utrace_perfetto *p, struct utrace_error *err);

#endif
