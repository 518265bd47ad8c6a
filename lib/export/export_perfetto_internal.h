/* SPDX-License-Identifier: MIT */
/*
 * export_perfetto_internal.h - what the Perfetto writer's two files share
 * (export_perfetto.c: tracks and events; export_perfetto_samples.c: the
 * samples of record -F as PerfSample packets): the packet's field numbers
 * (perfetto.protos.TracePacket), its sequence, and the samples' writer.
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

#endif
