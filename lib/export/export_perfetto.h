/* SPDX-License-Identifier: MIT */
/*
 * export_perfetto.h - a trace as Perfetto's native protobuf trace, which
 * the Perfetto UI (ui.perfetto.dev) and trace_processor open with no size
 * limit of the JSON path (chrome://tracing stops near 256 MB of JSON):
 *
 *   Trace { repeated TracePacket packet = 1; }
 *   packet: track_descriptor   one per process, one per thread (its name)
 *   packet: timestamp, trusted_packet_sequence_id, sequence_flags,
 *           interned_data { event_names { iid, name } }   (first use only)
 *           track_event { type, track_uuid, name_iid }
 *
 * Calls are slices on their thread's track (SLICE_BEGIN at the entry,
 * SLICE_END at the return; a leaf call, or a return whose entry is not
 * shown, as both); function tracer calls, tracepoints, kernel events,
 * utrace_printf text and lost events are instants.  Names are interned:
 * each is written once, then referred to by its iid.  The file is
 * streamed: memory holds the interned names, not the events.
 */
#ifndef UTRACE_LIB_EXPORT_PERFETTO_H
#define UTRACE_LIB_EXPORT_PERFETTO_H

#include <stdio.h>

#include "lib/base/error.h"
#include "lib/report/report_filter.h"
#include "lib/tracefile/dat_reader.h"

struct utrace_perfetto;

/*
 * Writes the track descriptors of the threads f selects (f may be NULL).
 * Then give every event of the pass (filtered by f) to
 * utrace_perfetto_event(), and finish with utrace_perfetto_end().
 */
int utrace_perfetto_begin(struct utrace_dat *d, const struct utrace_report_filter *f, FILE *out,
			  struct utrace_perfetto **out_p, struct utrace_error *err);
int utrace_perfetto_event(struct utrace_perfetto *p, const struct utrace_event *ev,
			  struct utrace_error *err);
/* Flushes the output and frees p (also on error). */
int utrace_perfetto_end(struct utrace_perfetto *p, struct utrace_error *err);

#endif
