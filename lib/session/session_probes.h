/* SPDX-License-Identifier: MIT */
/* session_probes.h - uprobes and USDT probes of `utrace record`. */
#ifndef UTRACE_SESSION_PROBES_H
#define UTRACE_SESSION_PROBES_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/base/error.h"

struct session_probes;

struct session_probes *session_probes_new(void);
/* Register --probe DEF; returns the "GROUP:EVENT" to enable (owned by rp). */
const char *session_probes_add_def(struct session_probes *rp, const char *def,
				   struct utrace_error *err);
/* Register every site of -e usdt:PROVIDER:NAME (globs) found in exe. */
const char *session_probes_add_usdt(struct session_probes *rp, const char *spec, const char *exe,
				    struct utrace_error *err);
/* The kernel uprobes registered so far (--probe with PATH:, usdt:), owned
 * by rp; *n of them. */
struct utrace_uprobe;
struct utrace_uprobe *const *session_probes_kernel(const struct session_probes *rp, unsigned *n);
/* An in-process probe (lib/probes/inproc_probe.h) or a removal of one; exe:
 * the program, for the symbol's size.  0, or -1 with err. */
#define UTRACE_INPROC_PROBE_MAX_DEFS 1024 /* common/proto.h UTRACE_INPROC_PROBE_MAX */
struct utrace_inproc_probe;
int session_probes_add_in_process(struct session_probes *rp, const char *def, const char *exe,
				  FILE *log, struct utrace_error *err);
struct utrace_inproc_probe *const *session_probes_in_process(const struct session_probes *rp,
						       unsigned *n);
/* Whether pattern names an in-process probe's event. */
bool session_probes_names(const struct session_probes *rp, const char *pattern);
/* Their formats added to sel; the probes for the recorder. */
struct utrace_event_select;
int session_probes_add_formats(const struct session_probes *rp, struct utrace_event_select *sel,
			       struct utrace_inproc_probe *const **inproc_probes, unsigned *n);
/* Every in-process definition of defs[0..n-1] (the others skipped), in
 * order; -1 with err and *bad, the definition at fault. */
int session_probes_in_process_parse(struct session_probes *rp, const char **defs, unsigned n,
				    const char *exe, FILE *log, unsigned *bad,
				    struct utrace_error *err);
/* An event spec "GROUP:EVENT" (owned by rp) appended to out for each
 * in-process probe that none of specs names: its event is enabled. */
struct utrace_event_spec;
int session_probes_in_process_specs(struct session_probes *rp,
				    const struct utrace_event_spec *specs, unsigned nspecs,
				    struct utrace_event_spec *out, unsigned *nout);
/* Unregister everything (after the kernel session closed) and free. */
void session_probes_free(struct session_probes *rp, FILE *log);

#endif
