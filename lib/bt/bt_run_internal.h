/* SPDX-License-Identifier: MIT */
/*
 * bt_run_internal.h - one run of a bpftrace program, shared by the files
 * that make it: bt_run.c (the whole: parse, resolve, compile, BEGIN,
 * the probes, END, the maps at exit), bt_session.c (the uprobes in the
 * traced processes), bt_format.c (the records into text).
 */
#ifndef UTRACE_LIB_BT_RUN_INTERNAL_H
#define UTRACE_LIB_BT_RUN_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/bt/bt.h"
#include "lib/bt/bt_compile.h"
#include "lib/bt/bt_maps.h"
#include "lib/bt/bt_tracepoint.h"

/* One attach point resolved: a program for one function (uprobes: each
 * function a wildcard matched), or for BEGIN, END, an interval. */
struct bt_site {
	enum bt_probe_type type;
	char *target, *func; /* uprobes */
	uint64_t off;
	uint64_t period_ns; /* interval */
	unsigned strargs;   /* bit i: str(argi) is read (bit 6: str(retval)) */
	struct bt_code code;
	/* while it runs */
	int event_id;	     /* its probe's event in the recording, -1 if none */
	const struct utrace_event_format *fmt; /* set with bt_site_format */
	/* the fields of fmt a hit reads, looked up once a format (NULL:
	 * none): comm, a0..a5, ret, s0..s6 (str(argN)), args.FIELD's */
	struct bt_site_fields {
		const struct utrace_event_field *comm, *ret, *a[6], *s[7], *tp[6];
	} fl;
	uint64_t next_tick; /* interval: the next firing, CLOCK_MONOTONIC ns */
	const char *inproc_no; /* uprobes: why its action is replayed, NULL: run at the hit */
	char *file;	       /* usdt: the ELF file, absolute, and its note's index */
	unsigned note;
	/* a kernel tracepoint's strings read at the event (bt_kcap.c): its
	 * capture's tag (-1: none), the slots in tp_fields of its fields,
	 * whether it reads the thread's name (a probe of the event uses comm) */
	int ktag;
	uint8_t kfield[6]; /* UTRACE_KCAP_FIELDS_MAX */
	unsigned nkfields;
	bool kcomm;
};

struct utrace_dat_resume;
struct bt_run;

/* Site s's events are of format f (NULL: none): its fields looked up. */
void bt_site_format(const struct bt_run *r, struct bt_site *s,
		    const struct utrace_event_format *f);

struct bt_run {
	const struct utrace_bt_opts *o;
	struct bt_program prog;
	struct bt_formats fmts;
	struct bt_site *sites;
	unsigned nsites;
	struct bt_maps *maps;
	struct bt_usym *usym; /* ustack ids, names (bt_usym.c) */
	struct bt_longvals *longvals; /* struct values longer than a slot */
	struct utrace_bt_state st;
	struct utrace_bt_ctx ctx;
	FILE *out;
	enum utrace_bt_format fmt;
	bool exiting; /* exit() ran */
	bool in_end;  /* END runs: its output is printed whatever ended the run */
	char **defs;  /* the probes' definitions given to the recording */
	unsigned ndefs;
	/* bt_session_inproc.c: the actions run at the hit, their tables */
	struct utrace_rec_bt *inproc;
	unsigned ninproc;
	int tables_fd;
	uint8_t *tables;
	uint64_t tables_size;
	uint64_t nreplayed; /* hits of uprobe sites run from the recording */
	/* bt_run.c: the records of the action running, handled once it has
	 * ended, as bpftrace's user space handles them */
	uint8_t *pend;
	size_t npend, cpend;
	bool deferring;
	void (*flush)(struct bt_run *r); /* handles them (bt_run.c's) */
	uint64_t cap_missed; /* reads a hit's capture did not hold (bt_session.c) */
	int64_t start_ns;
	struct utrace_error *err;
	char *src; /* the program, its preprocessor lines done (bt_cpp.c) */
	/* bt_live.c: the recording replayed while it runs */
	const char *dat_path;
	/* bt_session.c's bt_replay, given to bt_live.c (which bt_session.c
	 * calls: files call each other one way) */
	int (*replay)(struct bt_run *r, const char *path, uint64_t horizon);
	uint64_t replayed_ts; /* the newest event replayed, 0: none yet */
	/* its stamp as written: user (TSC), kernel (ns), and how many events
	 * of that very stamp were replayed (two CPUs' records may share one);
	 * again: how many of those this reading has met */
	struct bt_seen {
		uint64_t stamp;
		unsigned n, again;
	} seen_user, seen_kernel;
	struct utrace_dat_resume *resume;
	/* the recording as the last reading left it: the next one reads
	 * only what was added since (utrace_dat_refresh) */
	struct utrace_dat *dat;
	struct bt_cmdlines cmdlines; /* the names of threads gone, read once a reading */
	int64_t next_step_ns;
	int64_t attach_ns; /* when the recording's probes went on (the intervals count from it) */
	bool notified; /* __BPFTRACE_NOTIFY_PROBES_ATTACHED said */
	/* bt_session.c: no process named, the recording's own that waits
	 * (its pid once known: its events are left out) */
	bool waiting;
	int waiter_pid;
	int cpid; /* -c CMD's pid once started (cpid), else 0 */
	bool usdt_own; /* usdt hits of that pid (or -p's) only: bt_session.c */
	/* bt_session.c: why -c's uprobes are kernel uprobes of the recording
	 * (utrace's runtime cannot be preloaded into the command), or NULL */
	const char *kuprobes;
	struct bt_profile *profile; /* bt_profile.c: the samplers of profile probes */
	char *exe; /* the traced program's file (prog.exe), NULL if none */
	struct utrace_kcap *kcap; /* bt_kcap.c: kernel events' strings, NULL if none */
};

/* The uprobe sites run in the traced processes (-c or -p), their hits
 * given to bt_run_hit in time order, intervals fired on the way. */
int bt_session_run(struct bt_run *r);
/* The interval sites due by ts (CLOCK_MONOTONIC ns), fired in time
 * order. */
void bt_run_ticks(struct bt_run *r, uint64_t ts);
/* The tool's own process name (comm of BEGIN, END, interval): "utrace",
 * or "bpftrace" when run by that name. */
void bt_tool_comm(char comm[16]);
/* bt_hitinfo.c: the NUMA node of cpu (numaid); the context's name
 * callback (common/bt_prog.h): a uid's name in /etc/passwd ("" if
 * none), an errno's text (strerror()). */
int64_t bt_cpu_node(unsigned cpu);
/* The builtins of a probe the tool runs (BEGIN, END, interval): the
 * tool's pid and ids, the CPU and node it runs on; cpid (its name:
 * bt_tool_comm). */
void bt_hit_tool(const struct bt_run *r, struct utrace_bt_hit *hit);
void bt_name_cb(void *arg, unsigned what, int64_t v, char *out);
/* bt_live.c: every map that holds something, by name, as bpftrace
 * prints them; SIGUSR1's handler (the run takes it), and, after one,
 * every map printed, as bpftrace does (the run's loops call it as they
 * wake). */
void bt_print_all(struct bt_run *r);
void bt_on_usr1(int sig);
void bt_usr1_poll(struct bt_run *r);
/* bt_session.c: the definition of site k's probe, group/pK at where
 * (the function; PATH:FUNC for the kernel's uprobes), malloc'd; and one
 * recorded hit of site k (d: the recording that names its addresses,
 * NULL: a live process's; pc and n its stack, NULL, 0: none). */
char *bt_probe_def(const struct bt_site *s, unsigned k, const char *group, const char *where,
		   bool comm);
/* The context's field callback (common/bt_prog.h): the running hit's
 * DWARF member k (its fetch-arg fK). */
int64_t bt_session_field(void *arg, unsigned k, char *out);
/* Whether site s's program takes the hit's stack (ustack). */
bool bt_site_ustack(const struct bt_site *s);
struct utrace_dat;
struct utrace_event;
void bt_session_hit(struct bt_run *r, struct utrace_dat *d, unsigned k,
		    const struct utrace_event *ev, const uint64_t *pc, unsigned n);
/* bt_kernel.c: the uprobe sites in every process running their binaries
 * (no -c, no -p), through the kernel's uprobes, read live until exit()
 * or a signal. */
int bt_kernel_run(struct bt_run *r);
/* Before anything runs: 0, or <0 (r->err) if a site reads memory at an
 * address computed at run time, which the kernel's uprobes cannot. */
int bt_kernel_check(struct bt_run *r);
/* Set by SIGINT or SIGTERM while probes run (bt_kernel.c). */
extern volatile sig_atomic_t bt_interrupted;
void bt_on_signal(int sig);

/* One run of an action on hit, in the tool: its records kept while it
 * runs, handled once it has ended (bt_run.c's emit_cb and flush). */
static inline void bt_run_action(struct bt_run *r, const void *prog,
				 const struct utrace_bt_hit *hit)
{
	r->deferring = true;
	r->npend = 0;
	utrace_bt_exec(prog, hit, &r->ctx, &r->st);
	r->deferring = false;
	r->flush(r);
}

/* One hit of site s. */
static inline void bt_run_hit(struct bt_run *r, const struct bt_site *s,
			      const struct utrace_bt_hit *hit)
{
	/* after exit(): its maps only (bt_run.c's emit_dropped) */
	bt_run_action(r, s->code.prog, hit);
}

/* bt_session.c: the recording's events after r->replayed_ts up to
 * horizon replayed, and the intervals due by then (0 or <0 with
 * r->err).  bt_live.c: the recording's o->step, which replays it while
 * it runs; true once exit() ran. */
int bt_replay(struct bt_run *r, const char *path, uint64_t horizon);
struct utrace_session;
bool bt_live_step(void *arg, struct utrace_session *s);
/* __BPFTRACE_NOTIFY_PROBES_ATTACHED, once, if the environment asks. */
void bt_live_notify(struct bt_run *r);

/* bt_session_inproc.c: which uprobe sites run their action at the hit
 * (each site's inproc_no), their tables made and given to the recording
 * (o->rec.bt); 0 or -errno (r->err).  After the recording, the tables
 * read into r->maps; then everything let go. */
struct utrace_recorder_opts;
int bt_inproc_setup(struct bt_run *r, struct utrace_recorder_opts *o);
int bt_inproc_collect(struct bt_run *r);
void bt_inproc_free(struct bt_run *r);

/* bt_kcap.c: the kernel tracepoint sites' strings and thread names read
 * at the event attached (what cannot be said on r->o->log); the regions of
 * memory read at thread tid's hit of site k at ns whose tp_fields held args
 * (0 if none), and *named: comm (16 bytes) filled with the thread's name at
 * the hit (false: none read, comm left as is); at the end, the captures
 * lost said and the programs detached. */
struct utrace_kcap_region;
void bt_kcap_attach(struct bt_run *r);
unsigned bt_kcap_take(struct bt_run *r, unsigned k, int tid, uint64_t ns, const int64_t *args,
		      struct utrace_kcap_region *out, unsigned max, char *comm, bool *named);
void bt_kcap_end(struct bt_run *r);

/* A record emitted by a program printed: 0, or 1 if it is a command for
 * bt_run_command. */
int bt_format_record(struct bt_run *r, const void *rec, uint32_t len);
/* The context's strftime (bt_strftime.c): arg the run. */
int bt_strftime_cb(void *arg, uint32_t fmt, int64_t ns, char *dst);
/* -k: a map helper's failure printed from its text (bt_compile.h's
 * bt_helper_err_text): 0 or -EINVAL. */
int bt_helper_err_print(struct bt_run *r, const char *text);
/* cat()'s file (cat true) or system()'s command's output, printed
 * (bt_format_cmd.c); what: the path or the command. */
int bt_format_cat_system(struct bt_run *r, bool cat, const char *what);
/* print(@m), clear, zero, exit. */
int bt_run_command(struct bt_run *r, const struct utrace_bt_rec_hdr *h, const uint8_t *vals);
/* Every uprobe's binary is the traced program, or a library whose
 * function the program does not define too (bt_target.c); 0 or -EINVAL
 * with r->err. */
int bt_check_targets(struct bt_run *r);
/* The functions of target matching glob; NULL-terminated, malloc'ed. */
int bt_resolve_funcs(const char *target, const char *glob, char ***out, size_t *n);
/* Names (malloc'ed) sorted; unique: each once (the others freed, *n less) */
void bt_names_sort(char **v, size_t *n, bool unique);

#endif
