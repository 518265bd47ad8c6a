/* SPDX-License-Identifier: MIT */
/*
 * hist_compile.h - a parsed hist trigger compiled for one event format into
 * the program of common/hist_prog.h.
 */
#ifndef UTRACE_LIB_HIST_COMPILE_H
#define UTRACE_LIB_HIST_COMPILE_H

#include <stdint.h>

#include "common/hist_prog.h"

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

/* Another trigger's variable, as a $name that refers to it finds it. */
struct utrace_hist_var_info {
	uint32_t table;	 /* the id of the table it lives in (the RESOLVE's) */
	uint32_t sum;	 /* its sum in that table's elements */
	uint32_t bitmap; /* the sum of that table's bitmap of set variables */
	uint64_t bit;
	/* that trigger's key, which must be this one's */
	uint32_t key_size, nr_keys;
	struct utrace_hist_slot slots[3];
	bool str;   /* a string variable (utrace_hist_var_is_str) */
	bool stack; /* a stack variable (utrace_hist_var_is_stack) */
};

/* A synthetic event, as an action that emits it finds it. */
struct utrace_hist_synth_info {
	uint32_t id;
	unsigned nr_fields;
	/* Its record after the common fields (lib/hist/synth.c): field k
	 * starts at word[k]; str[k] is 0 for a number, N for a char[N] (256
	 * bytes in the record, as the kernel's), UTRACE_HIST_SYNTH_DYNSTR for
	 * a char[] (a __data_loc word, its bytes after the words).  words:
	 * the record's words; 0 if unknown: every field a number, in order. */
	uint16_t word[UTRACE_HIST_PARAMS];
	uint16_t str[UTRACE_HIST_PARAMS];
	uint32_t words;
};

#define UTRACE_HIST_SYNTH_DYNSTR 0xffffu
#define UTRACE_HIST_SYNTH_STACK 0xfffeu /* str[k] of an unsigned long[] (a stack) */

/* What the trigger refers to outside itself; every callback may be NULL. */
struct utrace_hist_env {
	/* $name as written without the '$' ("ts0" or "sys.event.ts0");
	 * match_system/match_event: the onmatch() event of the action that
	 * names it, else NULL.  0 and *out filled, or a UTRACE_HIST_ERR_*
	 * (VAR_NOT_FOUND, VAR_NOT_UNIQUE) */
	int (*var)(void *arg, const char *name, const char *match_system,
		   const char *match_event, struct utrace_hist_var_info *out);
	/* 0 and *out filled, or UTRACE_HIST_ERR_SYNTH_EVENT_NOT_FOUND */
	int (*synth)(void *arg, const char *name, struct utrace_hist_synth_info *out);
	void *arg;
};

/*
 * As utrace_hist_compile, with variables of other triggers ($name) and
 * onmatch().trace() actions that emit synthetic events found through env.
 */
int utrace_hist_compile_env(const struct utrace_hist_spec *spec,
			    const struct utrace_event_format *fmt,
			    const struct utrace_hist_env *env, void **prog, uint32_t *len,
			    int *code, struct utrace_error *err);

/* Whether the variable at sum of compiled hist program prog is a string
 * (name=a string field): a reference to it RESOLVEs the address of its
 * bytes, which only a string param of an action takes. */
bool utrace_hist_var_is_str(const void *prog, unsigned sum);
/* Whether it is a stack (name=common_stacktrace, or a copy of one): its
 * frames, which only an unsigned long[] field of a synthetic event takes. */
bool utrace_hist_var_is_stack(const void *prog, unsigned sum);

#endif
