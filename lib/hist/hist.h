/* SPDX-License-Identifier: MIT */
/*
 * lib/hist - event triggers, hist triggers and synthetic events, in the
 * kernel's syntax (Documentation/trace/events.rst, histogram.rst): the
 * trigger parser (this file, hist_parse.c, trigger_parse.c), the compiler
 * that turns a parsed hist trigger and an event format into the program
 * the event's writer runs (hist_compile.c, common/hist_prog.h), and the
 * printer of the kernel's `hist` file (hist_print.c).  May use: lib/base,
 * lib/elf, lib/events, lib/probes (synth_list.c: utrace list's output).
 *
 * hist.h - a trigger as written, parsed into plain structs.  Nothing here
 * knows the event yet: field names are checked by the compiler, which is
 * given the event's format.  Every node keeps its column in the text
 * (`pos`, 0-based), for the kernel's error_log caret.
 */
#ifndef UTRACE_LIB_HIST_H
#define UTRACE_LIB_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/base/error.h"

/* The kernel's limits (trace_events_hist.c, tracing_map.h). */
#define UTRACE_HIST_KEYS_MAX 3
#define UTRACE_HIST_VALS_MAX 3
#define UTRACE_HIST_SORT_MAX 2
#define UTRACE_HIST_VARS_MAX 16
#define UTRACE_HIST_ACTIONS_MAX 8
#define UTRACE_HIST_PARAMS_MAX 32
#define UTRACE_HIST_SUBEXPR_MAX 3
#define UTRACE_HIST_BITS_DEFAULT 11 /* size=2048 */
#define UTRACE_HIST_BITS_MIN 7	    /* 128 */
#define UTRACE_HIST_BITS_MAX 17	    /* 131072 */

/* Field modifiers (.hex, .log2, ...), as the kernel's HIST_FIELD_FL_*. */
enum utrace_hist_mod {
	UTRACE_HIST_MOD_HEX = 1u << 0,
	UTRACE_HIST_MOD_SYM = 1u << 1,
	UTRACE_HIST_MOD_SYM_OFFSET = 1u << 2,
	UTRACE_HIST_MOD_EXECNAME = 1u << 3,
	UTRACE_HIST_MOD_SYSCALL = 1u << 4,
	UTRACE_HIST_MOD_LOG2 = 1u << 5,
	UTRACE_HIST_MOD_BUCKETS = 1u << 6, /* .buckets=N: buckets holds N */
	UTRACE_HIST_MOD_USECS = 1u << 7,   /* common_timestamp.usecs */
	UTRACE_HIST_MOD_STACKTRACE = 1u << 8,
	UTRACE_HIST_MOD_PERCENT = 1u << 9, /* values only */
	UTRACE_HIST_MOD_GRAPH = 1u << 10,  /* values only */
};

enum utrace_hist_expr_op {
	UTRACE_HE_FIELD,   /* name: an event field or a special one (common_timestamp,
			    * common_cpu/cpu, common_comm, common_stacktrace/stacktrace,
			    * hitcount) */
	UTRACE_HE_VAR_REF, /* $name: name without the '$', maybe "sys.event.var" */
	UTRACE_HE_CONST,   /* a numeric literal */
	UTRACE_HE_PLUS,
	UTRACE_HE_MINUS,
	UTRACE_HE_MULT,
	UTRACE_HE_DIV,
	UTRACE_HE_UMINUS, /* l only */
};

struct utrace_hist_expr {
	enum utrace_hist_expr_op op;
	char *name;	   /* FIELD, VAR_REF */
	unsigned mods;	   /* enum utrace_hist_mod, of a FIELD or VAR_REF */
	uint64_t buckets;  /* UTRACE_HIST_MOD_BUCKETS */
	uint64_t constant; /* CONST */
	struct utrace_hist_expr *l, *r;
	unsigned pos; /* column of its first character */
};

struct utrace_hist_sort {
	char *name; /* a key or value name as written ("hitcount", "bytes_req") */
	bool descending;
	unsigned pos;
};

/* name=expr: a variable of the histogram (ts0=common_timestamp.usecs). */
struct utrace_hist_var {
	char *name;
	struct utrace_hist_expr *expr;
	unsigned pos;
};

enum utrace_hist_handler {
	UTRACE_HIST_ONMATCH,  /* onmatch(system.event) */
	UTRACE_HIST_ONMAX,    /* onmax($var) */
	UTRACE_HIST_ONCHANGE, /* onchange($var) */
};

enum utrace_hist_action_kind {
	UTRACE_HIST_ACT_TRACE,	  /* trace(synth, params) or synth(params) */
	UTRACE_HIST_ACT_SAVE,	  /* save(field, ...) */
	UTRACE_HIST_ACT_SNAPSHOT, /* snapshot() */
};

struct utrace_hist_action {
	enum utrace_hist_handler handler;
	char *match_system, *match_event; /* ONMATCH */
	char *var;			  /* ONMAX, ONCHANGE: without the '$' */
	enum utrace_hist_action_kind kind;
	char *synth; /* TRACE: the synthetic event */
	char *params[UTRACE_HIST_PARAMS_MAX];
	unsigned param_pos[UTRACE_HIST_PARAMS_MAX]; /* the kernel's errpos() of each */
	unsigned nr_params;
	unsigned pos; /* column of the handler's name */
	bool trace_keyword; /* TRACE written as trace(synth,...): printed so */
};

/* hist:keys=...[:vals=...][:sort=...][:size=N][:name=N][:pause|:cont|:clear]
 *      [:nohitcount][:clock=C][:var=expr...][:handler.action...] [if FILTER] */
struct utrace_hist_spec {
	struct utrace_hist_expr *keys[UTRACE_HIST_KEYS_MAX];
	unsigned nr_keys;
	struct utrace_hist_expr *vals[UTRACE_HIST_VALS_MAX]; /* as written; hitcount is
							       * implied unless nohitcount */
	unsigned nr_vals;
	struct utrace_hist_sort sort[UTRACE_HIST_SORT_MAX]; /* none given: hitcount */
	unsigned nr_sort;
	struct utrace_hist_var vars[UTRACE_HIST_VARS_MAX];
	unsigned nr_vars;
	struct utrace_hist_action actions[UTRACE_HIST_ACTIONS_MAX];
	unsigned nr_actions;
	unsigned map_bits; /* log2 of size= rounded up to a power of two */
	char *name;	   /* name=: a table shared by triggers */
	char *clock;
	bool pause, cont, clear, nohitcount;
	char *filter; /* the text after "if ", NULL if none */
	unsigned filter_pos;
};

/* The kernel's hist error texts (trace_events_hist.c), once. */
#define UTRACE_HIST_ERRORS(C)                                                                      \
	C(NONE, "No error")                                                                        \
	C(DUPLICATE_VAR, "Variable already defined")                                               \
	C(VAR_NOT_UNIQUE, "Variable name not unique, need to use fully qualified name "            \
			  "(subsys.event.var) for variable")                                       \
	C(TOO_MANY_VARS, "Too many variables defined")                                             \
	C(MALFORMED_ASSIGNMENT, "Malformed assignment")                                            \
	C(NAMED_MISMATCH, "Named hist trigger doesn't match existing named trigger "              \
			  "(includes variables)")                                                  \
	C(TRIGGER_EEXIST, "Hist trigger already exists")                                           \
	C(TRIGGER_ENOENT_CLEAR, "Can't clear or continue a nonexistent hist trigger")              \
	C(SET_CLOCK_FAIL, "Couldn't set trace_clock")                                              \
	C(BAD_FIELD_MODIFIER, "Invalid field modifier")                                            \
	C(TOO_MANY_SUBEXPR, "Too many subexpressions (3 max)")                                     \
	C(TIMESTAMP_MISMATCH, "Timestamp units in expression don't match")                        \
	C(TOO_MANY_FIELD_VARS, "Too many field variables defined")                                 \
	C(EVENT_FILE_NOT_FOUND, "Event file not found")                                            \
	C(HIST_NOT_FOUND, "Matching event histogram not found")                                    \
	C(HIST_CREATE_FAIL, "Couldn't create histogram for field")                                 \
	C(SYNTH_VAR_NOT_FOUND, "Couldn't find synthetic variable")                                 \
	C(SYNTH_EVENT_NOT_FOUND, "Couldn't find synthetic event")                                  \
	C(SYNTH_TYPE_MISMATCH, "Param type doesn't match synthetic event field type")              \
	C(SYNTH_COUNT_MISMATCH, "Param count doesn't match synthetic event field count")           \
	C(FIELD_VAR_PARSE_FAIL, "Couldn't parse field variable")                                   \
	C(VAR_CREATE_FIND_FAIL, "Couldn't create or find variable")                                \
	C(ONX_NOT_VAR, "For onmax(x) or onchange(x), x must be a variable")                        \
	C(ONX_VAR_NOT_FOUND, "Couldn't find onmax or onchange variable")                           \
	C(ONX_VAR_CREATE_FAIL, "Couldn't create onmax or onchange variable")                       \
	C(FIELD_VAR_CREATE_FAIL, "Couldn't create field variable")                                 \
	C(TOO_MANY_PARAMS, "Too many action params")                                               \
	C(PARAM_NOT_FOUND, "Couldn't find param")                                                  \
	C(INVALID_PARAM, "Invalid action param")                                                   \
	C(ACTION_NOT_FOUND, "No action found")                                                     \
	C(NO_SAVE_PARAMS, "No params found for save()")                                            \
	C(TOO_MANY_SAVE_ACTIONS, "Can't have more than one save() action per hist")                \
	C(ACTION_MISMATCH, "Handler doesn't support action")                                       \
	C(NO_CLOSING_PAREN, "No closing paren found")                                              \
	C(SUBSYS_NOT_FOUND, "Missing subsystem")                                                   \
	C(INVALID_SUBSYS_EVENT, "Invalid subsystem or event name")                                 \
	C(INVALID_REF_KEY, "Using variable references in keys not supported")                      \
	C(VAR_NOT_FOUND, "Couldn't find variable")                                                 \
	C(FIELD_NOT_FOUND, "Couldn't find field")                                                  \
	C(EMPTY_ASSIGNMENT, "Empty assignment")                                                    \
	C(INVALID_SORT_MODIFIER, "Invalid sort modifier")                                          \
	C(EMPTY_SORT_FIELD, "Empty sort field")                                                    \
	C(TOO_MANY_SORT_FIELDS, "Too many sort fields (Max = 2)")                                  \
	C(INVALID_SORT_FIELD, "Sort field must be a key or a val")                                 \
	C(INVALID_STR_OPERAND, "String type can not be an operand in expression")                 \
	C(EXPECT_NUMBER, "Expecting numeric literal")                                              \
	C(UNARY_MINUS_SUBEXPR, "Unary minus not supported in sub-expressions")                     \
	C(DIVISION_BY_ZERO, "Division by zero")                                                    \
	C(NEED_NOHC_VAL, "Non-hitcount value is required for 'nohitcount'")

#define UTRACE_HIST_ERR_ENUM(name, text) UTRACE_HIST_ERR_##name,
enum utrace_hist_err { UTRACE_HIST_ERRORS(UTRACE_HIST_ERR_ENUM) UTRACE_HIST_ERR_MAX };
#undef UTRACE_HIST_ERR_ENUM

const char *utrace_hist_err_text(int code);

/*
 * The sum (common/hist_prog.h) that holds vals[j]: 0 for "hitcount",
 * else 1 + the number of other values before it.  The compiler lays the
 * sums out so and the printer reads them so.
 */
static inline unsigned utrace_hist_val_sum(const struct utrace_hist_spec *s, unsigned j)
{
	unsigned n = 1;

	if (s->vals[j]->op == UTRACE_HE_FIELD && !__builtin_strcmp(s->vals[j]->name, "hitcount"))
		return 0;
	for (unsigned i = 0; i < j; i++)
		if (!(s->vals[i]->op == UTRACE_HE_FIELD &&
		      !__builtin_strcmp(s->vals[i]->name, "hitcount")))
			n++;
	return n;
}

/*
 * After the values' sums, one sum per variable (vars[i]) and, if there is
 * any variable, one bitmap sum whose bit i says vars[i] is set
 * (common/hist_prog.h: VAR, RESOLVE).  Compiler, recorder and printer
 * read the element so.
 */
static inline unsigned utrace_hist_nr_val_sums(const struct utrace_hist_spec *s)
{
	unsigned n = 1;

	for (unsigned j = 0; j < s->nr_vals; j++)
		n += utrace_hist_val_sum(s, j) != 0;
	return n;
}

static inline unsigned utrace_hist_var_sum(const struct utrace_hist_spec *s, unsigned i)
{
	return utrace_hist_nr_val_sums(s) + i;
}

static inline unsigned utrace_hist_var_bitmap(const struct utrace_hist_spec *s)
{
	return utrace_hist_nr_val_sums(s) + s->nr_vars;
}

static inline unsigned utrace_hist_nr_sums(const struct utrace_hist_spec *s)
{
	return utrace_hist_nr_val_sums(s) + (s->nr_vars ? s->nr_vars + 1 : 0);
}

/*
 * After the variables, one sum per onmax()/onchange() action (actions[a],
 * in their order) holding its tracked value, then, with a snapshot()
 * action, the snapshot marker (common/hist_prog.h, SNAPSHOT), then what
 * save() keeps: its fields in their order, a number in one sum, a string
 * in as many as its width takes, as the SAVE and SAVESTR instructions of
 * the program say (the printer reads them there).
 */
static inline unsigned utrace_hist_track_sum(const struct utrace_hist_spec *s, unsigned a)
{
	unsigned n = utrace_hist_nr_sums(s);

	for (unsigned i = 0; i < a; i++)
		n += s->actions[i].handler != UTRACE_HIST_ONMATCH;
	return n;
}

static inline bool utrace_hist_has_snapshot(const struct utrace_hist_spec *s)
{
	for (unsigned i = 0; i < s->nr_actions; i++)
		if (s->actions[i].kind == UTRACE_HIST_ACT_SNAPSHOT)
			return true;
	return false;
}

static inline unsigned utrace_hist_snap_sum(const struct utrace_hist_spec *s)
{
	return utrace_hist_track_sum(s, s->nr_actions);
}

static inline unsigned utrace_hist_save_sum(const struct utrace_hist_spec *s)
{
	return utrace_hist_snap_sum(s) + utrace_hist_has_snapshot(s);
}

/* ---- every trigger command (events/SYS/EVENT/trigger) --------------- */

enum utrace_trigger_cmd {
	UTRACE_TRIG_TRACEON,
	UTRACE_TRIG_TRACEOFF,
	UTRACE_TRIG_SNAPSHOT,
	UTRACE_TRIG_STACKTRACE,
	UTRACE_TRIG_ENABLE_EVENT,
	UTRACE_TRIG_DISABLE_EVENT,
	UTRACE_TRIG_ENABLE_HIST,
	UTRACE_TRIG_DISABLE_HIST,
	UTRACE_TRIG_HIST,
};

/* command[:count] [if filter], or "!command..." to remove one. */
struct utrace_trigger {
	enum utrace_trigger_cmd cmd;
	bool remove;
	long count;			    /* -1: unlimited */
	char *target_system, *target_event; /* enable_/disable_event, _hist */
	struct utrace_hist_spec *hist;	    /* UTRACE_TRIG_HIST */
	char *filter;			    /* after "if ", NULL if none */
	unsigned filter_pos;		    /* its column in the text; 0: no "if" */
	unsigned filter_skip; /* the -e's filter put before it (trigger_spec.c) */
	unsigned refs;	      /* holders besides the first (utrace_trigger_get) */
};

/* Parses any trigger; errors as utrace_hist_parse (code -1 and the kernel's
 * -EINVAL for a command it does not know or a malformed count). */
int utrace_trigger_parse(const char *text, struct utrace_trigger **out, int *code,
			 struct utrace_error *err);
/* utrace_trigger_free drops one holder's hold: the last frees t. */
void utrace_trigger_free(struct utrace_trigger *t);
/* One more holder of t, which keeps it as parsed (a trigger is parsed
 * once, when it is written, and its holders share it); returns t. */
struct utrace_trigger *utrace_trigger_get(const struct utrace_trigger *t);
/* The command's name as the kernel spells it ("enable_event"). */
const char *utrace_trigger_cmd_name(enum utrace_trigger_cmd cmd);

/*
 * The -R triggers of an -e (lib/events/event_select.h), parsed once
 * (trigger_spec.c): trigger k of sp as parsed before, else parsed now and
 * kept in sp->trigs (allocated if NULL, nr_triggers long), or NULL with
 * *code and err as utrace_trigger_parse says.  utrace_trigger_parsed only
 * reads: NULL if k is not parsed (or did not parse).  free_spec frees
 * what sp->trigs holds, and the array.
 */
struct utrace_event_spec;
struct utrace_event_format;
const struct utrace_trigger *utrace_trigger_of(struct utrace_event_spec *sp, unsigned k, int *code,
					       struct utrace_error *err);
const struct utrace_trigger *utrace_trigger_parsed(const struct utrace_event_spec *sp, unsigned k);
void utrace_trigger_free_spec(struct utrace_event_spec *sp);
/*
 * The check is the compile: the check of -R compiles trigger k of sp for
 * each format of the files the command will load and keeps the program
 * here (utrace_trigger_keep takes prog; 0 or -ENOMEM), the recorder takes
 * it for an object of that file (utrace_trigger_kept: the program kept for
 * k and the event SYSTEM:NAME of the file path, NULL if none) instead of
 * compiling it again.  utrace_trigger_free_kept frees them.
 */
int utrace_trigger_keep(struct utrace_event_spec *sp, unsigned k, const char *path,
			const struct utrace_event_format *f, void *prog, uint32_t len);
const void *utrace_trigger_kept(const struct utrace_event_spec *sp, unsigned k, const char *path,
				const char *system, const char *name, uint32_t *len);
void utrace_trigger_free_kept(struct utrace_event_spec *sp);

/*
 * Parses "hist:..." (the text as written to events/SYS/EVENT/trigger).  On
 * error returns < 0 with *code one of UTRACE_HIST_ERR_* (or -1 for a
 * syntax error that the kernel reports with -EINVAL and no text) and
 * err->pos the column, and err->msg "TEXT" of that code.
 */
int utrace_hist_parse(const char *text, struct utrace_hist_spec **out, int *code,
		      struct utrace_error *err);
void utrace_hist_spec_free(struct utrace_hist_spec *s);

/* ---- the hist file (hist_print.c, hist_spec_text.c) ----------------- */

struct utrace_hist_hdr;	  /* common/hist_prog.h */

/*
 * One histogram as read from its table.  Each key i is read through
 * prog->slots[i]: a number (UTRACE_HSLOT_NUM, 8 bytes; a stacktrace key
 * is len / 8 addresses, 0-terminated) or a string (UTRACE_HSLOT_STR, len
 * bytes, NUL-padded).  Each element is prog->key_size bytes of key, then
 * prog->nr_sums u64 sums: sums[0] the hit count, the values after it as
 * utrace_hist_val_sum() says.
 */
struct utrace_hist_table {
	const struct utrace_hist_hdr *prog;
	uint64_t hits, drops; /* the map header's counters */
	/* The entries in the table's slot order: the kernel lists them so
	 * before it sorts them with an unstable heapsort, so entries that
	 * compare equal come out as in the kernel only in that order. */
	const uint8_t *elts;
	uint32_t nr_elts;
	bool paused; /* " [paused]" instead of " [active]" */
	/* the map header's snapshot (common/hist_map.h): how many were taken
	 * (0: none, no "Snapshot taken" lines) and the last one's value */
	uint64_t snap_seq, snap_val;
};

/* The lookups of key modifiers; any may be NULL. */
struct utrace_hist_names {
	/* .execname: the name of pid; NULL: "<...>" */
	const char *(*comm)(void *arg, int pid);
	/* .sym, .sym-offset, stacktrace: "name" or "name+0xoff/0xsize" into
	 * buf; NULL: the kernel's "0x%llx" of an unknown address */
	const char *(*sym)(void *arg, uint64_t addr, char *buf, size_t n, bool with_offset);
	/* .syscall: the name of syscall nr on the traced machine; NULL:
	 * "unknown_syscall", as the kernel for a number it does not know */
	const char *(*syscall)(void *arg, int nr);
	void *arg;
};

/*
 * Writes the kernel's hist file for one trigger: the "# event histogram"
 * header with the trigger info, the entries sorted by spec's sort keys
 * (hitcount ascending if none), each with its handlers' "max:" or
 * "changed:" and saved fields, the "Snapshot taken" lines of a snapshot()
 * action that took one, then the Totals.  0, or -EINVAL (err filled) if
 * t does not fit spec.
 */
int utrace_hist_print(FILE *out, const struct utrace_hist_spec *spec,
		      const struct utrace_hist_table *t, const struct utrace_hist_names *names,
		      struct utrace_error *err);

/*
 * The trigger info as event_hist_trigger_print() writes it, without the
 * " [active]": "hist:keys=...:vals=hitcount,...:sort=...:size=N[:clock=C]
 * [:nohitcount][:handler.action(...)][ if FILTER]".  Into buf (n bytes,
 * NUL-terminated); returns the length it needs, as snprintf().
 */
int utrace_hist_spec_text(const struct utrace_hist_spec *spec, char *buf, size_t n);

/*
 * Whether a and b are one trigger for the kernel (hist_trigger_match): the
 * same keys, values, variables, sort, name, actions and filter.  Neither
 * size= nor clock= nor :pause/:cont/:clear makes them differ: a trigger
 * written with :pause, :cont or :clear acts on the one it is the same as
 * (event_hist_trigger_parse), `!` removes it, and another is EEXIST.
 */
bool utrace_hist_spec_same(const struct utrace_hist_spec *a, const struct utrace_hist_spec *b);

/*
 * A variable reference's name, "var" or "sys.event.var": the variable, and
 * in sys/ev (each n bytes) the event it is qualified with ("" if none);
 * NULL for "a.b", which names no variable.
 */
const char *utrace_hist_var_name(const char *name, char *sys, char *ev, size_t n);

#endif
