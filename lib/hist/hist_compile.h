/* SPDX-License-Identifier: MIT */
/*
 * hist_compile.h - a parsed hist trigger compiled for one event format into
 * the program of common/hist_prog.h.
 */
#ifndef UTRACE_LIB_HIST_COMPILE_H
#define UTRACE_LIB_HIST_COMPILE_H

#include <stdint.h>

#include "lib/events/event_format.h"
#include "lib/hist/hist.h"

/*
 * Compiles spec for events of format fmt: *prog (free() it) of *len bytes.
 * On error returns < 0 with *code a UTRACE_HIST_ERR_* (or -1 for an error of
 * the trigger's filter, whose text err->msg then holds), err->column the
 * 1-based column in the trigger text.
 */
int utrace_hist_compile(const struct utrace_hist_spec *spec, const struct utrace_event_format *fmt,
			void **prog, uint32_t *len, int *code, struct utrace_error *err);

#endif
