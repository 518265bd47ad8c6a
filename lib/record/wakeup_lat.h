/* SPDX-License-Identifier: MIT */
/*
 * wakeup_lat.h - the kernel's wakeup latency tracers, wakeup and
 * wakeup_rt (kernel/trace/trace_sched_wakeup.c), over the kernel's sched
 * events a recording holds of its processes (record -e sched:sched_wakeup
 * -e sched:sched_switch), for the live tracefs's current_tracer.
 *
 * The kernel's rules, run by the recorder on each kernel record it
 * merges (recorder_kmerge.c: saved or not, as the kernel's tracer's
 * probes run whether the events are enabled or not): at a sched_wakeup
 * (or sched_wakeup_new) of a task whose prio is better (lower) than the
 * task being waited for, if any, and than the task running where it was
 * woken (wakeup_rt: of a real-time task only, prio < 100), that task is
 * the one waited for, from then; at the sched_switch to it, the latency
 * is the time between the two, and a latency above tracing_max_latency
 * becomes it and its trace the one kept.  The trace kept is the kernel's
 * latency format: the wakeup line (`  + [CPU]`) and the switch line
 * (`==> [CPU]`), the task named as it was switched in (after an exec,
 * its new comm); the kernel's function and stack lines between them (the
 * kernel's own functions) are not in a user recording.
 *
 * Where the kernel's tracer sees every task, a recording's kernel
 * instance keeps a switch only when one of its two tasks is the
 * recording's: a task woken by the recording's that is not its own (a
 * migration/N kthread) may be switched in with no record of it.  So only
 * the recording's tasks are measured (utrace_wakeup_lat_scope), the
 * user-space analog of the kernel's tracer over the traced processes.
 * A later wakeup of the task waited for, or a switch out of it, proves
 * its switch in was not seen: the wait ends there, unmeasured.
 */
#ifndef UTRACE_LIB_RECORD_WAKEUP_LAT_H
#define UTRACE_LIB_RECORD_WAKEUP_LAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/base/error.h"

struct utrace_event_format;
struct utrace_wakeup_lat;

int utrace_wakeup_lat_new(struct utrace_wakeup_lat **out);
void utrace_wakeup_lat_free(struct utrace_wakeup_lat *w);
/* The tracer set (rt: wakeup_rt), which resets the maximum and the trace
 * kept; on false: none (the maximum stays). */
void utrace_wakeup_lat_start(struct utrace_wakeup_lat *w, bool on, bool rt);
/* Whether task pid is one of the recording's: the kernel's records hold
 * each of its wakeups and switches. */
typedef bool (*utrace_wakeup_lat_own_fn)(void *arg, int pid);
/* The tracers measure only the recording's tasks (own; NULL: every task
 * the records name), as the kernel's measure every task: a task that is
 * not the recording's may be switched in with no record of it. */
void utrace_wakeup_lat_scope(struct utrace_wakeup_lat *w, utrace_wakeup_lat_own_fn own, void *arg);
bool utrace_wakeup_lat_on(const struct utrace_wakeup_lat *w);
/* A kernel event's format and id: sched_wakeup, sched_wakeup_new and
 * sched_switch are read by their fields' names. */
void utrace_wakeup_lat_format(struct utrace_wakeup_lat *w, const struct utrace_event_format *f,
			      int id);
/* One kernel record (its common fields first) of event id, written on
 * cpu at ts_ns, in time order with the others. */
void utrace_wakeup_lat_record(struct utrace_wakeup_lat *w, int id, uint32_t cpu, uint64_t ts_ns,
			      const uint8_t *rec, uint32_t len);
/* The trace kept dropped (`echo > trace`); the maximum stays. */
void utrace_wakeup_lat_clear(struct utrace_wakeup_lat *w);
/* tracing_max_latency, ns */
void utrace_wakeup_lat_set_max(struct utrace_wakeup_lat *w, uint64_t max_ns);
uint64_t utrace_wakeup_lat_max(const struct utrace_wakeup_lat *w);
/* The trace file: "# tracer: NAME", then the latency header and the
 * trace kept, if any. */
void utrace_wakeup_lat_print(const struct utrace_wakeup_lat *w, FILE *out);

#endif
