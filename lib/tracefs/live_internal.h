/* SPDX-License-Identifier: MIT */
/*
 * live_internal.h - lib/tracefs's private state, shared by its files (live.h
 * lists them).  live_fs.c calls live_files.c, which calls live_state.c.
 */
#ifndef UTRACE_LIB_LIVE_INT_H
#define UTRACE_LIB_LIVE_INT_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/events/ftrace_filter.h"
#include "lib/tracefs/live.h"

#define LIVE_ERRLOG_MAX 16 /* the kernel keeps the last 16 errors */

/* The expressions of one function list (set_ftrace_filter, ...). */
struct live_list {
	char **expr;
	size_t n, cap;
};

/* A trace_pipe (live_pipe.c): what its readers consumed, up to ns, and
 * the text fetched that none has read yet. */
struct live_pipe {
	uint64_t ns;
	char *text;
	size_t len, off;
};

struct live_inst;

struct utrace_live {
	struct utrace_live_ops ops;
	/* the top level (itself, or the tracefs of an instance: the one
	 * whose lock every file's callbacks hold), and an instance's name */
	struct utrace_live *root;
	char *name;
	unsigned nopen; /* its files open now: rmdir is EBUSY (live_inst.c) */
	/* live_inst.c: instances/NAME, the top level's, by name */
	struct live_inst *insts;
	size_t ninsts, cap_insts;
	char *dir;
	struct fuse *fuse;
	pthread_t thread;
	bool serving;
	pthread_mutex_t lock; /* everything below */
	struct live_handle *open; /* the files open: FUSE releases none at an unmount */
	enum utrace_tracer tracer;
	int wakeup;	    /* live_wakeup.c: LIVE_WAKEUP_* of current_tracer */
	uint32_t max_depth; /* max_graph_depth */
	uint32_t options;   /* trace_options: ops->set_option's word */
	/* by enum utrace_filter_list; the graph lists come from the command
	 * line (-g, --graph-notrace) and are kept */
	struct live_list lists[UTRACE_FILTER_LISTS];
	struct utrace_func_filter **filters; /* every filter handed to ops: freed at stop */
	size_t nfilters, cap_filters;
	char *errlog[LIVE_ERRLOG_MAX]; /* oldest first */
	unsigned nerr;
	uint64_t clear_ns; /* `echo > trace`: CLOCK_MONOTONIC of the clear */
	/* trace_pipe (live_pipe.c), and per_cpu/cpuN/trace_pipe by N */
	struct live_pipe pipe;
	struct live_pipe *cpu_pipes;
	bool pipe_used; /* trace_pipe was opened: utrace_live_drain waits */
	bool stopping; /* unmounting: blocked readers give up */
	int ncpu;      /* per_cpu/cpu0 ... */
	uint64_t *cpu_clear_ns; /* `echo > per_cpu/cpuN/trace`, by N */
	/* live_dynev.c: the events of dynamic_events, oldest first */
	struct live_dyn *dyn;
	size_t ndyn, cap_dyn;
	bool dyn_init;
	/* live_events.c: the event lists of the object files, by path */
	char **ev_paths;
	struct utrace_event_list **ev_lists;
	size_t nev_paths, cap_ev_paths, cap_ev_lists;
	struct live_evconf *evconfs; /* live_evconf.c: filters, triggers */
	struct utrace_event_format *print_fmt; /* live_events.c: ftrace:print's */
	struct live_fv *fvs;	     /* live_fieldvar.c: the triggers field variables added */
	/* live_snapshot.c: whether `echo 1` "allocated" it, and how many
	 * snapshots the recording held at the last clear (shown: those after) */
	bool snap_allocated;
	unsigned snap_from;
	uint64_t thresh_us; /* live_buffers.c: tracing_thresh */
	/* live_pids.c: set_event_pid, set_event_notrace_pid, set_ftrace_pid,
	 * set_ftrace_notrace_pid (enum utrace_live_pids), as the recording
	 * had them at the last open of one (forks add to them); follow: the
	 * options event-fork and function-fork (UTRACE_LIVE_FOLLOW_*) */
	int32_t *pids[4];
	unsigned npids[4];
	unsigned follow;
	bool dump_on_crash; /* live_options.c: options/dump-on-crash */
	bool graph_retval;  /* live_options.c: options/funcgraph-retval */
	char clock[16]; /* live_clock.c: trace_clock's current clock */
	/* live_ftcmd.c: set_ftrace_filter's function commands, by function */
	struct live_ftcmd *ftcmds;
	size_t nftcmds, cap_ftcmds;
	unsigned ftcmd_serial;
	uint64_t cpu_off; /* live_buffers.c: the CPUs tracing_cpumask leaves out */
	/* live_fprofile.c: function_profile_enabled, and the window of the
	 * last profile (to 0: still on; prof_used: there was one) */
	bool prof_on, prof_used;
	uint64_t prof_from_ns, prof_to_ns;
	/* live_stack.c: utrace.stack_tracer_enabled's value (the kernel's
	 * sysctl: an int, on when not 0), stack_trace_filter's expressions */
	int stack_enabled;
	struct live_list stack_list;
};

/* The `which` of stack_trace_filter (live_stack.c): a function list of
 * set_ftrace_filter's syntax (live_files.c), not one of the tracer's. */
#define LIVE_STACK_LIST UTRACE_FILTER_LISTS

/* One open file. */
struct live_handle {
	const struct live_file *f;
	struct utrace_live *l; /* whose file: the top level or an instance's */
	char *buf; /* what a read sees: made at open */
	size_t len;
	struct live_list pending; /* a function list being written */
	bool dirty;		  /* pending is to be applied at flush */
	bool wrote;		  /* a write came since the open (live_files.c flush_list) */
	int cpu;		  /* per_cpu/cpuN/: N, else -1 */
	int dir;		  /* a directory: enum live_dir; a file: 0 */
	char sys[65], ev[65];	  /* events/SYS/EVENT/; options/NAME: ev */
	struct live_handle *prev, *next; /* l->open: freed at the stop if still open */
};

enum live_dir {
	LIVE_DIR_ROOT = 1,
	LIVE_DIR_PER_CPU,
	LIVE_DIR_CPU,
	LIVE_DIR_EVENTS,
	LIVE_DIR_SYSTEM,
	LIVE_DIR_EVENT,
	LIVE_DIR_OPTIONS,
	LIVE_DIR_FTRACE,       /* events/ftrace (live_ftrace.c) */
	LIVE_DIR_FTRACE_EVENT, /* events/ftrace/EVENT */
	LIVE_DIR_TRACE_STAT,   /* trace_stat (live_fprofile.c) */
	LIVE_DIR_INSTANCES,    /* instances (live_inst.c) */
};

/* One file of the filesystem.  The callbacks return 0 or -errno; write
 * returns the bytes taken. */
struct live_file {
	const char *name;
	mode_t mode;
	int (*show)(struct utrace_live *l, const struct live_handle *h, FILE *out);
	int (*open)(struct utrace_live *l, struct live_handle *h, int flags);
	long (*write)(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);
	int (*flush)(struct utrace_live *l, struct live_handle *h);
	int which; /* the function list of set_ftrace_filter/notrace; the
		    * enum live_dyn_file of live_dynev.c's; the pid
		    * lists' enum utrace_live_pids */
	bool pipe; /* read by live_pipe_read, not from a snapshot */
};

/* live_pipe.c: a read of trace_pipe (cpu -1) or per_cpu/cpuN/trace_pipe:
 * blocks (l->lock let go meanwhile) until there is something; the bytes
 * given or -errno.  What is consumed of CPU N's events: up to the time
 * live_pipe_read_ns says. */
long live_pipe_read(struct utrace_live *l, int cpu, char *buf, size_t size, bool nonblock);
uint64_t live_pipe_read_ns(const struct utrace_live *l, int cpu);

/* live_stack.c: the stack tracer's files; stack_trace_filter's list
 * applied (0 or -errno) */
int live_show_stack_trace(struct utrace_live *l, const struct live_handle *h, FILE *out);
int live_show_stack_max(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_stack_max(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);
int live_show_stack_enabled(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_stack_enabled(struct utrace_live *l, struct live_handle *h, const char *buf,
			      size_t n);
int live_stack_filter_apply(struct utrace_live *l, const struct live_list *list);

/* live_kprobes.c: utrace.kprobes_list, utrace.kprobes-optimization */
int live_show_kprobes_list(struct utrace_live *l, const struct live_handle *h, FILE *out);
int live_show_kprobes_opt(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_kprobes_opt(struct utrace_live *l, struct live_handle *h, const char *buf,
			    size_t n);

/* live_ftcmd.c: set_ftrace_filter's "FUNC:CMD[:PARAM]" (and "!...")
 * expressions: whether expr is one, running one (0 or -errno), listing
 * them after the functions, freeing them; at an instance's rmdir, the
 * probes of its commands removed through the top level's ops */
bool live_ftcmd_is(const char *expr);
int live_ftcmd_write(struct utrace_live *l, const char *expr);
void live_ftcmd_show(struct utrace_live *l, FILE *out);
void live_ftcmd_free(struct utrace_live *l);
void live_ftcmd_drop(struct utrace_live *l, struct utrace_live *top);

/* live_ftrace.c: events/header_page, header_event, ftrace/: resolving
 * the path after "events/" (1 if it is one of them, -ENOENT if under
 * ftrace/ but none, 0 if not theirs), a directory's names (events/: the
 * three) */
int live_ftrace_resolve(const char *p, struct live_handle *h);
void live_ftrace_names(const struct live_handle *h, void (*fill)(void *arg, const char *name),
		       void *arg);

/* live_events.c */
struct utrace_event_format;
const struct utrace_event_format *live_event_find(struct utrace_live *l, const char *system,
						  const char *name); /* name NULL: any */
void live_event_names(struct utrace_live *l, const char *sys,
		      void (*fill)(void *arg, const char *name), void *arg);
int live_show_events(struct utrace_live *l, const struct live_handle *h, FILE *out);
int live_show_format(struct utrace_live *l, const struct live_handle *h, FILE *out);
int live_show_id(struct utrace_live *l, const struct live_handle *h, FILE *out);
void live_events_free(struct utrace_live *l);
int live_show_enable(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_enable(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);
int live_show_set_event(struct utrace_live *l, const struct live_handle *h, FILE *out);
int live_open_set_event(struct utrace_live *l, struct live_handle *h, int flags);
long live_write_set_event(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);
/* live_pids.c: the words of a write to a thread-id list (set_event_pid,
 * set_ftrace_pid) added to old[0..nold) into *out (malloc'ed, *nout of
 * them, each once), or -EINVAL for a word that is not a thread id */
int live_pids_parse(const char *buf, size_t len, const int32_t *old, unsigned nold, int32_t **out,
		    unsigned *nout);
/* set_event_pid, set_event_notrace_pid, set_ftrace_pid,
 * set_ftrace_notrace_pid: the list h->f->which */
int live_show_pids(struct utrace_live *l, const struct live_handle *h, FILE *out);
int live_open_pids(struct utrace_live *l, struct live_handle *h, int flags);
long live_write_pids(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);
void live_pids_free(struct utrace_live *l);

/* live_fprofile.c: function_profile_enabled, trace_stat/functionN
 * (trace_stat/... resolved from p after "trace_stat") */
int live_show_profile_enabled(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_profile_enabled(struct utrace_live *l, struct live_handle *h, const char *buf,
				size_t n);
int live_resolve_trace_stat(struct utrace_live *l, const char *p, struct live_handle *h);
void live_trace_stat_names(struct utrace_live *l, void (*fill)(void *arg, const char *name),
			   void *arg);
int live_show_trace_stat(struct utrace_live *l, const struct live_handle *h, FILE *out);

/* live_clock.c: trace_clock */
void live_clock_init(struct utrace_live *l);
int live_show_clock(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_clock(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);

/* live_fieldvar.c: the triggers that onmatch() field variables need */
struct utrace_trigger;
struct live_fv_ops {
	/* the text of the first hist trigger of sys:ev, NULL if none */
	const char *(*first)(void *arg, const char *sys, const char *ev);
	/* a trigger added to (or removed from) sys:ev, as written */
	int (*add)(void *arg, const char *sys, const char *ev, const char *text);
	void (*remove)(void *arg, const char *sys, const char *ev, const char *text);
	void *arg;
};
/* Adds (ops->add) every trigger a field variable of hist trigger t of
 * sys:ev needs; 0 or the first add's error. */
int live_fv_plan(struct utrace_live *l, const char *sys, const char *ev,
		 const struct utrace_trigger *t, const struct live_fv_ops *ops);
/* That trigger owner of osys:oev needed text of tsys:tev. */
int live_fv_note(struct utrace_live *l, const char *osys, const char *oev, const char *owner,
		 const char *tsys, const char *tev, const char *text);
/* owner is gone: what it needed goes too (ops->remove; ops NULL: only
 * forgotten). */
void live_fv_take(struct utrace_live *l, const char *osys, const char *oev, const char *owner,
		  const struct live_fv_ops *ops);
void live_fv_free(struct utrace_live *l);

/* live_evconf.c */
int live_show_filter(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_filter(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);
int live_show_trigger(struct utrace_live *l, const struct live_handle *h, FILE *out);
int live_open_trigger(struct utrace_live *l, struct live_handle *h, int flags);
long live_write_trigger(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);
int live_show_hist(struct utrace_live *l, const struct live_handle *h, FILE *out);
void live_evconf_free(struct utrace_live *l);

/* live_snapshot.c */
int live_show_snapshot(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_snapshot(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);

/* live_readme.c */
int live_show_readme(struct utrace_live *l, const struct live_handle *h, FILE *out);

/* live_buffers.c */
int live_show_thresh(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_thresh(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);
int live_show_bufsize(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_bufsize(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);
/* The sub-buffer size of the buffers (bytes): buffer_subbuf_size_kb's */
uint32_t live_subbuf_size(struct utrace_live *l);
int live_show_subbuf(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_subbuf(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);
int live_show_cpumask(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_cpumask(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);
int live_show_total_kb(struct utrace_live *l, const struct live_handle *h, FILE *out);
int live_show_cpu_stats(struct utrace_live *l, const struct live_handle *h, FILE *out);

/* live_state.c: a number written as kstrtoull_from_user takes it (0x,
 * 0 prefixes; a trailing newline), else -EINVAL */
int live_number(const char *buf, size_t n, unsigned long long *v);
/* live_state.c: the text of a write without the white space around it
 * (the kernel's strstrip), as a string to free; NULL if out of memory */
char *live_strip(const char *buf, size_t n);
/* A sysctl's proc_dointvec_minmax: an int in [min, max] (blanks around
 * it, a sign) into *v: 0, -EINVAL or -ENOMEM. */
int live_dointvec(const char *buf, size_t n, long min, long max, long *v);

/* live_dynev.c: an event of dynamic_events; its line as the file lists
 * it, its format (the recording's), its kind (LIVE_DYN_*) */
enum {
	LIVE_DYN_KPROBE = 1,
	LIVE_DYN_FPROBE = 2,
	LIVE_DYN_UPROBE = 4,
	LIVE_DYN_SYNTH = 8,
	LIVE_DYN_EPROBE = 16
};
struct live_dyn {
	char *line;
	const struct utrace_event_format *fmt;
	unsigned kind;
};
/* the files of live_dynev.c, their live_file.which */
enum live_dyn_file { LIVE_DYN_DYNAMIC, LIVE_DYN_SYNTHETIC, LIVE_DYN_KPROBES, LIVE_DYN_UPROBES };
int live_show_dynev(struct utrace_live *l, const struct live_handle *h, FILE *out);
int live_open_dynev(struct utrace_live *l, struct live_handle *h, int flags);
long live_write_dynev(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);
extern const struct live_file live_dynev_enable; /* events/SYS/EVENT/enable of one */
/* The dynamic event (sys, name), NULL if none. */
const struct live_dyn *live_dynev_find(struct utrace_live *l, const char *sys, const char *name);
const struct utrace_event_format *live_dynev_format(struct utrace_live *l, size_t i);
/* Whether it has an enable of live_dynev.c's (one defined while running). */
bool live_dynev_has_enable(struct utrace_live *l, const char *sys, const char *name);
void live_dynev_free(struct utrace_live *l);

/* live_errpos.c: the kernel's caret (0-based) of a filter error of
 * enum utrace_filter_err code that utrace's compiler put at column
 * (1-based) of text */
unsigned live_filter_errpos(const char *text, int code, int column);

/* The top level of l (l itself for the top level, and for a struct set
 * up without utrace_live_start, as the unit tests'), and whether l is an
 * instance's. */
static inline struct utrace_live *live_top(struct utrace_live *l)
{
	return l->root ? l->root : l;
}

static inline bool live_is_inst(const struct utrace_live *l)
{
	return l->root && l->root != l;
}

/* live_inst.c: instances/NAME, each a tracefs of its own (a struct
 * utrace_live whose root is the top level) over the ops the recording
 * gives it (ops->instance_new).  live_inst_find: the instance of that
 * name (len bytes), NULL if none; live_inst_names: the instances' names;
 * mkdir, rmdir: the FUSE operations' (path is the whole path) */
struct utrace_live *live_inst_find(struct utrace_live *l, const char *name, size_t len);
void live_inst_names(struct utrace_live *l, void (*fill)(void *arg, const char *name), void *arg);
int live_inst_mkdir(struct utrace_live *l, const char *path);
int live_inst_rmdir(struct utrace_live *l, const char *path);
void live_inst_free_all(struct utrace_live *l);
/* live_inst.c: the state of a tracefs, top level or instance, set up
 * from ops (0 or -ENOMEM) and freed */
int live_state_init(struct utrace_live *l, const struct utrace_live_ops *ops);
void live_state_free(struct utrace_live *l);
/* live_files.c: whether a file of the top level is also an instance's */
bool live_file_in_instance(const char *name);

/* live_profile.c */
int live_show_kprobe_profile(struct utrace_live *l, const struct live_handle *h, FILE *out);
/* live_kallsyms.c: utrace.kallsyms; a probe point at an address */
int live_show_kallsyms(struct utrace_live *l, const struct live_handle *h, FILE *out);
int live_kaddr_point(struct utrace_live *l, const char *def, char **def_out, char **point,
		     struct utrace_error *err);
int live_kaddr_line(char **line, const char *point);

/* live_options.c */
bool live_option_known(struct utrace_live *l, const char *name);
void live_option_names(struct utrace_live *l, void (*fill)(void *arg, const char *name), void *arg);
int live_show_options(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_options(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);
int live_show_option(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_option(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n);

/* live_files.c: what path names: 0 with h->f (NULL for a directory,
 * then h->dir says which), h->cpu, h->sys and h->ev set, or -ENOENT.
 * With l->lock held, as live_dir_names. */
int live_resolve(struct utrace_live *l, const char *path, struct live_handle *h);
/* The names in the directory path, through fill; -ENOENT if none. */
int live_dir_names(struct utrace_live *l, const char *path,
		   void (*fill)(void *arg, const char *name), void *arg);

/* live_wakeup.c: the wakeup tracers (current_tracer names them; the
 * processes then run nop), tracing_max_latency */
enum { LIVE_WAKEUP_NONE, LIVE_WAKEUP, LIVE_WAKEUP_RT };
bool live_wakeup_available(struct utrace_live *l);
/* LIVE_WAKEUP_* of a tracer name, -1 if not one of them */
int live_wakeup_parse(struct utrace_live *l, const char *name);
/* current_tracer's name */
const char *live_current_tracer(struct utrace_live *l);
/* current_tracer written: wakeup (LIVE_WAKEUP_*) on, or off for another
 * tracer (LIVE_WAKEUP_NONE) */
int live_wakeup_set(struct utrace_live *l, int which, struct utrace_error *err);
int live_show_max_latency(struct utrace_live *l, const struct live_handle *h, FILE *out);
long live_write_max_latency(struct utrace_live *l, struct live_handle *h, const char *buf,
			    size_t n);

/* live_state.c */
/* From now on trace shows only what comes after (`echo > trace`). */
void live_trace_clear(struct utrace_live *l);
/* live_inst.c: live_trace_clear of the top level and every instance
 * (the buffers they share were emptied) */
void live_trace_clear_all(struct utrace_live *l);
const char *live_tracer_name(enum utrace_tracer t);
int live_tracer_parse(const char *name, enum utrace_tracer *out);
/* An error_log entry in the kernel's layout: "[ts] loc: error: text",
 * the command, a caret under column pos (0-based). */
void live_errlog_add(struct utrace_live *l, const char *loc, const char *cmd, const char *text,
		     unsigned pos);
void live_errlog_show(struct utrace_live *l, FILE *out);
void live_errlog_clear(struct utrace_live *l);
/* The tracer and lists made current in every traced process, then kept. */
int live_apply(struct utrace_live *l, enum utrace_tracer tracer,
	       const struct live_list lists[UTRACE_FILTER_LISTS], struct utrace_error *err);
int live_list_copy(struct live_list *dst, const struct live_list *src);
int live_list_add(struct live_list *l, const char *expr);
void live_list_free(struct live_list *l);
/* "*" when triggers manage the event (the kernel's soft mode), else "" */
const char *live_soft_mark(struct utrace_live *l, const char *sys, const char *ev);
/* A filter of the expressions of the lists; NULL with err set on a bad
 * one. */
struct utrace_func_filter *live_filter_make(const struct live_list lists[UTRACE_FILTER_LISTS],
					    struct utrace_error *err);
/* The lists of a filter (the command line's), into l->lists. */
int live_lists_from(struct utrace_live *l, const struct utrace_func_filter *f);

#endif
