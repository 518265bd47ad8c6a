/* SPDX-License-Identifier: MIT */
/*
 * lib/perf - perf_event_open counters (this file) and perf
 * stat's statistics and layout (stat_print.h).  May use: lib/base.
 *
 * perf_counter.h - counting perf events on a command with perf_event_open,
 * for `utrace stat` (see lib/perf/perf_counter.c for the design).
 *
 * The event names are perf's.  UTRACE_PERF_EVENTS is the single table of
 * them: E(NAME, TYPE, CONFIG, UNIT), aliases as rows of their own.
 * Besides these names an event may be written rNNNN (a raw, model-specific
 * event in hex), may carry perf's modifier :u, :k or :h (count only user,
 * kernel or hypervisor mode, combinable: :uk), and events may be grouped
 * with braces, "{cycles,instructions}", so that they are always scheduled
 * on the PMU together.
 */
#ifndef UTRACE_LIB_PERF_COUNTER_H
#define UTRACE_LIB_PERF_COUNTER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>

#include <linux/perf_event.h>

#include "lib/base/error.h"

/* A generic cache event: cache, operation and result in their bytes. */
#define UTRACE_PERF_CACHE(c, op, res)                                                              \
	((uint64_t)PERF_COUNT_HW_CACHE_##c | ((uint64_t)PERF_COUNT_HW_CACHE_OP_##op << 8) |        \
	 ((uint64_t)PERF_COUNT_HW_CACHE_RESULT_##res << 16))

/* Linux 5.13; spelled out so that older headers build. */
#define UTRACE_PERF_SW_CGROUP_SWITCHES 11

#define UTRACE_PERF_EVENTS(E)                                                                      \
	E("cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "")                          \
	E("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "")                              \
	E("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "")                      \
	E("cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "")              \
	E("cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "")                      \
	E("branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "")        \
	E("branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "")                   \
	E("branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "")                    \
	E("bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "")                          \
	E("stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,    \
	  "")                                                                                      \
	E("idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "")   \
	E("stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "")  \
	E("idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "")     \
	E("ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "")                      \
	E("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "msec")                        \
	E("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "msec")                      \
	E("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "")                        \
	E("faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "")                             \
	E("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "")              \
	E("cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "")                            \
	E("cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "")                  \
	E("migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "")                      \
	E("minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "")                   \
	E("major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "")                   \
	E("alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "")              \
	E("emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "")              \
	E("dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, "")                                    \
	E("cgroup-switches", PERF_TYPE_SOFTWARE, UTRACE_PERF_SW_CGROUP_SWITCHES, "")               \
	E("L1-dcache-loads", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(L1D, READ, ACCESS), "")         \
	E("L1-dcache-load-misses", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(L1D, READ, MISS), "")     \
	E("L1-dcache-stores", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(L1D, WRITE, ACCESS), "")       \
	E("L1-dcache-store-misses", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(L1D, WRITE, MISS), "")   \
	E("L1-dcache-prefetches", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(L1D, PREFETCH, ACCESS),    \
	  "")                                                                                      \
	E("L1-icache-loads", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(L1I, READ, ACCESS), "")         \
	E("L1-icache-load-misses", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(L1I, READ, MISS), "")     \
	E("LLC-loads", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(LL, READ, ACCESS), "")                \
	E("LLC-load-misses", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(LL, READ, MISS), "")            \
	E("LLC-stores", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(LL, WRITE, ACCESS), "")              \
	E("LLC-store-misses", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(LL, WRITE, MISS), "")          \
	E("dTLB-loads", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(DTLB, READ, ACCESS), "")             \
	E("dTLB-load-misses", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(DTLB, READ, MISS), "")         \
	E("dTLB-stores", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(DTLB, WRITE, ACCESS), "")           \
	E("dTLB-store-misses", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(DTLB, WRITE, MISS), "")       \
	E("iTLB-loads", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(ITLB, READ, ACCESS), "")             \
	E("iTLB-load-misses", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(ITLB, READ, MISS), "")         \
	E("branch-loads", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(BPU, READ, ACCESS), "")            \
	E("branch-load-misses", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(BPU, READ, MISS), "")        \
	E("node-loads", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(NODE, READ, ACCESS), "")             \
	E("node-load-misses", PERF_TYPE_HW_CACHE, UTRACE_PERF_CACHE(NODE, READ, MISS), "")

/* perf stat's default events, in its order. */
#define UTRACE_PERF_DEFAULT_EVENTS                                                                 \
	"task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,"     \
	"branch-misses"

/* One row of UTRACE_PERF_EVENTS. */
struct utrace_perf_event_info {
	const char *name;
	uint32_t type;
	uint64_t config;
	const char *unit; /* "msec" for the clocks, else "" */
};

/* The table, for listing; *n is set to its length. */
const struct utrace_perf_event_info *utrace_perf_event_table(size_t *n);

/* The factor from a count to its unit: 1e-6 for msec (the clocks count
 * nanoseconds), else 1. */
double utrace_perf_unit_scale(const char *unit);

/* How one counter came out of a run. */
enum utrace_perf_state {
	UTRACE_PERF_COUNTED,	   /* value is valid */
	UTRACE_PERF_NOT_COUNTED,   /* opened, but never ran: perf's <not counted> */
	UTRACE_PERF_NOT_SUPPORTED, /* the kernel or the CPU has no such event */
};

struct utrace_perf_count {
	enum utrace_perf_state state;
	uint64_t value;	  /* raw * enabled / running: estimated if multiplexed */
	uint64_t raw;	  /* what the counter counted while it was on the PMU */
	uint64_t enabled; /* ns the event was enabled */
	uint64_t running; /* ns it was actually counting; < enabled if multiplexed */
};

/* Fills c from a read with PERF_FORMAT_TOTAL_TIME_ENABLED|RUNNING, scaling
 * the count to the enabled time when the counter was multiplexed.
 * Returns c->state. */
enum utrace_perf_state utrace_perf_count_scale(uint64_t raw, uint64_t enabled, uint64_t running,
					       struct utrace_perf_count *c);

/* The end of one run of the command. */
struct utrace_perf_run {
	int status;		     /* wait status (waitpid) of the command */
	uint64_t elapsed_ns;	     /* from releasing the command to reaping it */
	struct timeval utime, stime; /* rusage of the command and its reaped children */
	int exec_errno;		     /* why execvp() failed, if it did (the run failed) */
};

/* A list of events to count, and their counters during a run. */
struct utrace_perf_counters;

struct utrace_perf_counters *utrace_perf_counters_new(void);
void utrace_perf_counters_free(struct utrace_perf_counters *pc);

/* Appends the events of a comma-separated list ("task-clock,cs:u,r01c2",
 * "{cycles,instructions}").  Errors name the event and say why. */
int utrace_perf_counters_add(struct utrace_perf_counters *pc, const char *list,
			     struct utrace_error *err);
size_t utrace_perf_counters_nr(const struct utrace_perf_counters *pc);

/* Event i as it is counted: the name as written (with ":u" appended if
 * kernel.perf_event_paranoid made it fall back to user mode only), its unit
 * and attr type and config. */
const char *utrace_perf_counters_name(const struct utrace_perf_counters *pc, size_t i);
const char *utrace_perf_counters_unit(const struct utrace_perf_counters *pc, size_t i);
uint32_t utrace_perf_counters_type(const struct utrace_perf_counters *pc, size_t i);
uint64_t utrace_perf_counters_config(const struct utrace_perf_counters *pc, size_t i);

/* Runs argv (PATH searched) once with every event counted on it and on
 * the processes it starts, and reaps it; then utrace_perf_counters_get()
 * gives the counts.  Fails (no run) if the command cannot be executed
 * (code -errno of exec) or a counter cannot be opened for a reason other
 * than the event not existing (e.g. -EACCES). */
int utrace_perf_counters_run(struct utrace_perf_counters *pc, char *const argv[],
			     struct utrace_perf_run *run, struct utrace_error *err);
/* The count of event i in the last run. */
void utrace_perf_counters_get(const struct utrace_perf_counters *pc, size_t i,
			      struct utrace_perf_count *c);

#endif
