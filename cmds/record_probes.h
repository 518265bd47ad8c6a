/* SPDX-License-Identifier: MIT */
/* record_probes.h - uprobes and USDT probes of `utrace record`. */
#ifndef UTRACE_CMDS_RECORD_PROBES_H
#define UTRACE_CMDS_RECORD_PROBES_H

#include "lib/base/error.h"

struct record_probes;

struct record_probes *record_probes_new(void);
/* Register --probe DEF; returns the "GROUP:EVENT" to enable (owned by rp). */
const char *record_probes_add_def(struct record_probes *rp, const char *def,
				  struct utrace_error *err);
/* Register every site of -e usdt:PROVIDER:NAME (globs) found in exe. */
const char *record_probes_add_usdt(struct record_probes *rp, const char *spec, const char *exe,
				   struct utrace_error *err);
/* An in-process probe (lib/probes/kprobe.h) or a removal of one; exe:
 * the program, for the symbol's size.  0, or -1 with err. */
#define UTRACE_KPROBE_MAX_DEFS 1024 /* common/proto.h UTRACE_KPROBE_MAX */
struct utrace_kprobe;
int record_probes_add_in_process(struct record_probes *rp, const char *def, const char *exe,
				 struct utrace_error *err);
struct utrace_kprobe *const *record_probes_in_process(const struct record_probes *rp,
						      unsigned *n);
/* Unregister everything (after the kernel session closed) and free. */
void record_probes_free(struct record_probes *rp);

#endif
