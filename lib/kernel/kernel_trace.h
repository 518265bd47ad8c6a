/* SPDX-License-Identifier: MIT */
/*
 * lib/kernel - the kernel's tracefs: file access (kernel_tracefs.h),
 * recording kernel events through an instance of our own (this file),
 * and cleaning up after a killed recorder.  May use: lib/base, lib/events,
 * lib/tracefile (record layouts only).
 *
 * kernel_trace.h - kernel trace events recorded through a tracefs instance
 * of utrace's own (`utrace record -e sched:sched_switch ...`).
 *
 * The session: utrace_ktrace_open() creates instances/utrace-<pid> (with
 * tracing off), selects the events and writes their filters;
 * utrace_ktrace_start() scopes it to the traced command, turns tracing
 * on and enables the events one after the other, in their order;
 * utrace_ktrace_poll() hands over the raw ring-buffer pages as they
 * fill; utrace_ktrace_stop() turns tracing off and drains what is left;
 * utrace_ktrace_close() removes the instance (always, also after an
 * error).  Only the instance is touched: the global buffer and other
 * instances keep their settings.
 */
#ifndef UTRACE_LIB_KERNEL_TRACE_H
#define UTRACE_LIB_KERNEL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/tracefile/dat_format.h"
#include "lib/base/error.h"
#include "lib/events/event_select.h"

struct utrace_ktrace;

/* The instances utrace creates are named UTRACE_KTRACE_PREFIX<pid>. */
#define UTRACE_KTRACE_PREFIX "utrace-"
#define UTRACE_KTRACE_DEFAULT_KB 2048 /* buffer_size_kb, per CPU */

/* Why kernel events cannot be seen by this process (tracefs not mounted
 * and not mountable, or its events/ not readable: not root), or NULL when
 * they can.  The text lives until the next call. */
const char *utrace_ktrace_unavailable(void);
/*
 * 1 if an -e pattern names kernel events: its SYSTEM part (the whole
 * pattern when it has no ':') is a directory under tracefs events/
 * (globs allowed); 0 if not, or if tracefs is not available.
 */
int utrace_ktrace_is_kernel(const char *pattern);

/*
 * Creates the instance and enables every event the specs match, each with
 * its spec's filter; the kernel's error_log text on a bad filter (err->msg
 * its message line, err->column the caret's column in the filter).  A spec
 * that matches no event is an error.  buffer_kb: per CPU, 0 = default.
 */
int utrace_ktrace_open(struct utrace_event_spec *specs, unsigned nr, uint32_t buffer_kb,
		       struct utrace_ktrace **out, unsigned *bad_spec, struct utrace_error *err);

/* The instance's name ("utrace-1234"). */
const char *utrace_ktrace_name(const struct utrace_ktrace *kt);

/*
 * Tracing on: for process pid and every thread it starts (set_event_pid,
 * options/event-fork: the kernel adds each new task before it runs); with
 * children, also every process it forks (else their records are
 * discarded as the pages are read: kernel_follow.c); or the whole system
 * if pid <= 0.
 */
int utrace_ktrace_start(struct utrace_ktrace *kt, int pid, bool children, struct utrace_error *err);

/* Called with each page read: a ring-buffer sub-buffer header (u64
 * time_stamp, u64 commit) and its committed data, len bytes. */
typedef int (*utrace_ktrace_page_fn)(void *arg, uint32_t cpu, const void *page, size_t len,
				     struct utrace_error *err);

/* Reads the pages that filled since the last call (at most every few ms;
 * force: now): 1 if every CPU was read (a round), 0 if it was too soon. */
int utrace_ktrace_poll(struct utrace_ktrace *kt, bool force, utrace_ktrace_page_fn fn, void *arg,
		       struct utrace_error *err);

/* Tracing off, every CPU drained through fn, events disabled. */
int utrace_ktrace_stop(struct utrace_ktrace *kt, utrace_ktrace_page_fn fn, void *arg,
		       struct utrace_error *err);

/*
 * Triggers the kernel runs itself (kernel_trigger.c): text, in the
 * kernel's syntax, written to the trigger file of every event of kt that
 * pattern names (before tracing starts).  cmd is its command
 * ("stacktrace"): a kernel whose trigger files do not list it among their
 * "# Available triggers" is an error saying so; one the kernel refuses
 * is explained with its error_log (err->column: in the filter).  An
 * event that has that command already (the kernel allows one of each)
 * keeps it: 0.  A stacktrace makes the kernel write a kernel_stack entry
 * (events/ftrace/kernel_stack) after the event: its format is then one
 * of utrace_ktrace_formats'.
 */
int utrace_ktrace_trigger(struct utrace_ktrace *kt, const char *pattern, const char *cmd,
			  const char *text, struct utrace_error *err);
/* ftrace:kernel_stack's format listed with utrace_ktrace_formats' (a
 * live recording's stacktrace may be armed later). */
int utrace_ktrace_stack_format(struct utrace_ktrace *kt, struct utrace_error *err);
/* The kernel's stacktrace trigger of event sys:name, with filter (NULL:
 * none), armed (on) or removed while recording, for the live tracefs's
 * (the :N is the recorder's, on the kernel_stack entries it saves); one
 * a -R armed stays as it is.  0, or <0 with err. */
int utrace_ktrace_stack_live(struct utrace_ktrace *kt, const char *sys, const char *name,
			     const char *filter, bool on, struct utrace_error *err);
/* Whether the text of a trigger file lists cmd as available. */
bool utrace_ktrace_trigger_available(const char *trigger_file, const char *cmd);
/* Whether a stacktrace trigger is armed (kernel stacks are recorded). */
bool utrace_ktrace_stacks(const struct utrace_ktrace *kt);
/* The kallsyms lines (path, for tests; NULL: /proc/kallsyms; with their
 * [module]) of the code symbols (types t, T, w, W) that hold addrs
 * (sorted), each with the next one (its end), malloc'd, *len bytes (0:
 * none found, or kallsyms hides its addresses from this user); NULL with
 * err set. */
char *utrace_ktrace_kallsyms(const char *path, const uint64_t *addrs, size_t nr, size_t *len,
			     struct utrace_error *err);

/* Each enabled event's format file text, with its kernel id. */
int utrace_ktrace_formats(struct utrace_ktrace *kt,
			  int (*fn)(void *arg, const char *system, const char *name, int id,
				    const char *text, struct utrace_error *err),
			  void *arg, struct utrace_error *err);

/* What the reader needs to decode the pages: the trace clock ("x86-tsc"
 * or "mono"), the sub-buffer size, events/header_page and header_event. */
void utrace_ktrace_header(const struct utrace_ktrace *kt, const char **clock, uint32_t *subbuf_size,
			  const char **header_page, const char **header_event);

/* The tasks the pages named (common_pid), with tgid and comm (one that had
 * exited when first read: the comm the kernel saved for it); valid after
 * stop. */
const struct utrace_dat_ktask *utrace_ktrace_tasks(struct utrace_ktrace *kt, size_t *n);

/* Task pid named now (from /proc, as a task of a record read is; again if
 * it was named before, by the comm it has now): the writer of a record
 * the recorder makes for it (a trace_marker write). */
void utrace_ktrace_note_task(struct utrace_ktrace *kt, int pid);

/* Pages read and pages with events the kernel dropped (ring buffer full). */
void utrace_ktrace_stats(const struct utrace_ktrace *kt, uint64_t *pages, uint64_t *missed);

/* What the kernel could not follow (kernel_follow.c), as a sentence for
 * the summary, or NULL: no options/event-fork (threads added from /proc,
 * short ones missed), or records of exited tasks of an unknown process
 * kept.  Valid after stop, until the next call. */
const char *utrace_ktrace_follow_note(struct utrace_ktrace *kt);

/*
 * Whether the instance follows task pid: the command's (its threads;
 * with children, also the processes it and they made), as the
 * task_newtask records of the pages read so far tell; every task when
 * the instance traces the whole system or the kernel cannot tell.  The
 * kernel keeps every wakeup and switch of a task followed; of another
 * task, only those a task followed took part in.
 */
bool utrace_ktrace_follows(struct utrace_ktrace *kt, int pid);

/* Removes the instance and frees kt; safe at any point, NULL too.  <0 if
 * the instance could not be removed (err filled; kt is freed anyway). */
int utrace_ktrace_close(struct utrace_ktrace *kt, struct utrace_error *err);

/*
 * `utrace reset`: removes every instances/utrace-<pid> whose recorder is
 * gone (no process pid, or its program is not utrace), and the probes of groups
 * utrace_<pid> likewise.  fn is told each one removed.  Returns the
 * number removed, or <0 (err filled) if tracefs is not available.
 */
int utrace_ktrace_reset(void (*fn)(void *arg, const char *what, const char *name), void *arg,
			struct utrace_error *err);
/* Whether pid is a utrace that runs (its program file is this one's or
 * is named utrace*, whatever name it runs by, or it cannot be told:
 * utrace_proc_is_utrace()): the owner of instances/utrace-<pid>
 * and of the probe group utrace_<pid>, which `utrace reset` leaves. */
bool utrace_ktrace_owner_alive(int pid);

#endif
