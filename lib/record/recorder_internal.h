/* SPDX-License-Identifier: MIT */
/*
 * recorder_internal.h - the recorder's private state, shared by its files:
 *   recorder.c        the session: socket, poll loop, finish, clock, symbols
 *   recorder_msg.c    the messages of the runtime's protocol
 *   recorder_drain.c  saving sub-buffers of the shared ring buffers
 *   recorder_kernel.c the kernel pages and formats of lib/kernel/kernel_trace.c
 *   recorder_kmerge.c the kernel records in time order, for their triggers
 *   recorder_khist.c  the kernel events' hist triggers and synthetic events
 *   recorder_proc.c   a process that closed its connection and goes on
 *   recorder_snap.c   snapshots the runtime asks for on the control page
 *   recorder_live.c   changes while the program runs (the live channel)
 *   recorder_liveev.c the events' switches, filters, triggers of a live one
 *   recorder_livevar.c what it set per event, where an event is, its $vars
 *   recorder_histlive.c its hist tables read, paused, cleared, dropped
 *   recorder_libcall.c the names of library calls (--libcall)
 *   recorder_fpatch.c function entries patched in objects without call sites
 *   recorder_symtab.c a SYMTAB record written (functions, library calls)
 *   recorder_extract.c what the recording holds now, as a file of its own
 *
 * recorder.c hands each message to recorder_msg.c, each buffer to
 * recorder_drain.c, each connection that ends to recorder_proc.c; they
 * write through rec_write() below, never back into recorder.c (but
 * rec_clock_pair and rec_write_symtabs, which finish and
 * recorder_extract.c share).
 */
#ifndef UTRACE_LIB_RECORDER_INTERNAL_H
#define UTRACE_LIB_RECORDER_INTERNAL_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#include "common/proto.h"
#include "common/rb_abi.h"
#include "lib/tracefile/dat_format.h"
#include "lib/tracefile/dat_writer.h"
#include "lib/events/event_format.h"
#include "lib/hist/hist_compile.h"
#include "lib/record/recorder.h"

struct rec_object {
	char *path;
	uint64_t bias;
	uint32_t id_base, nr_sites, flags, received;
	uint64_t *vaddrs;
	struct rec_symtab *syms;
	struct rec_evkey *evkeys; /* --tracefs: its events' keys (recorder_live.c) */
	uint32_t nr_evkeys;
};

struct utrace_dwarf;
struct rec_symtab { /* cache: one load per path */
	char *path;
	struct utrace_symtab *tab; /* NULL if the file could not be read */
	struct utrace_dwarf *dwarf; /* funcgraph-args; NULL: none or not tried */
	bool dwarf_tried;
	struct utrace_symtab *imports; /* --libcall: the file's PLT imports */
	bool imports_tried;
	struct rec_symtab *next;
};

struct rec_conn {
	int fd;
	int pidfd; /* closed its socket but runs on: readable at its exit, else -1 */
	uint32_t image;
	int pid;
	bool open;
	int live_fd; /* the runtime's live channel (recorder_live.c), else -1 */
	struct rec_object *objs;
	uint32_t nr_objs;
	struct rec_fplan *fp_pending; /* recorder_fpatch.c: an FPATCH_AREA is due */
	/* recorder_attach.c: a QUIESCE's addresses so far, the threads it stopped */
	uint64_t *q_addrs;
	size_t q_n;
	struct utrace_attach_stopped *q_stopped;
	uint32_t fp_obj;
	uint64_t fp_bias;
};

struct rec_buffer {
	uint32_t id;
	struct rec_conn *conn;
	struct utrace_rb_meta *meta;
	uint64_t size;
	uint64_t tail;
	uint64_t pages, overrun, records, lost;
	uint64_t woken; /* times a producer waiting on a full buffer was woken */
	uint64_t waits, wait_tsc; /* the producer's, read when it is done */
	uint64_t seen_ns; /* CLOCK_MONOTONIC when a drain last found
			   * sub-buffers (0: none yet) */
	int pid, tid;
	uint32_t nest; /* meta.nest: 0 for a thread's own buffer */
	char comm[16];
	bool done;
	dev_t dev; /* the memfd's, to find it in /proc/PID/maps */
	ino_t ino;
};

struct utrace_recorder {
	struct utrace_recorder_opts o;
	char dir[64];
	char sock_path[128];
	int listen_fd;
	int ctl_fd;
	struct utrace_control *ctl;
	struct utrace_dat_writer *w;
	struct rec_conn **conns;
	uint32_t nr_conns;
	struct rec_buffer **bufs;
	uint32_t nr_bufs;
	struct rec_symtab *symtabs;
	struct rec_fplan *fplans; /* recorder_fpatch.c: one per file */
	uint32_t fp_plans, fp_reused; /* plans made, and asks a plan made already answered */
	struct utrace_dat_clock clock;
	uint64_t tsc_per_us_q16;
	uint32_t nr_subbufs;
	bool ever_connected;
	uint32_t *filter_hits; /* per function filter expression: functions matched */
	uint64_t nr_sites;     /* call sites of every object registered */
	uint32_t nr_orphans;   /* processes that closed their connection */
	struct pollfd *pfd;    /* poll set, one slot per open connection */
	struct rec_conn **who;
	uint32_t cap_poll;
	struct rec_hist *hists; /* recorder_hist.c */
	uint32_t hist_tids;	/* recorder_hist.c: table ids handed out */
	struct rec_trig *trigs; /* recorder_trig.c: the trigger commands */
	struct rec_kfmt *kfmts; /* recorder_khist.c: the kernel events' formats */
	struct rec_ktrig *ktrigs; /* recorder_trig.c: kernel trigger commands, bound */
	struct rec_kmerge *km;	/* recorder_kmerge.c: NULL if no kernel trigger */
	struct rec_live_ev *live_evs; /* recorder_liveev.c: what the tracefs set */
	uint32_t live_serial;	      /* recorder_liveev.c: triggers added so far */
	uint8_t *kstate;	/* by kernel id: enum utrace_ev_state (recorder_trig.c) */
	int kstack_id;		/* ftrace:kernel_stack's kernel id, -1: none */
	int ksnap_kid; /* a kernel snapshot to take: its event, -2 a hist's snapshot(), -1 none */
	bool ktsc;		/* the kernel's trace_clock is x86-tsc */
	bool kon;		/* kernel records saved: traceon/traceoff */
	uint32_t ksubbuf;	/* the kernel's sub-buffer size */
	uint32_t nr_counts;	/* their :N counters in ctl */
	uint64_t snap_taken; /* recorder_snap.c: requests handled (the next ticket) */
	uint32_t snap_ids;   /* snapshots written */
	uint64_t snap_stall_ns; /* when snap_taken was first seen unpublished */
	bool busy; /* the last poll saved sub-buffers of a buffer that could
		    * fill soon (rec_drain): poll again without sleeping */
	uint64_t last_busy_ns; /* CLOCK_MONOTONIC of the last poll that saved some */
	/* recorder_live.c: o.kprobes and the probes added while running (the
	 * recorder's: o.kprobes points here once one is); by key, the event
	 * id of one added while running, 0 for the others */
	struct utrace_kprobe **kp_own;
	int32_t *kp_live_id;
	/* the same for o.synths: those from synth_first_live on are the
	 * recorder's, defined while running (a removed one's name is "") */
	struct utrace_synth **synth_own;
	unsigned synth_first_live;
	uint8_t page[UTRACE_SUBBUF_SIZE] __attribute__((aligned(8))); /* records are u32 words */
};

/* A kernel event's format (recorder_khist.c), kept from the start: the
 * triggers are compiled once every format is known (a $var may name an
 * event that comes later).  Synthetic events fired by kernel events get
 * one too, with a kernel id of their own (after the kernel's). */
struct rec_kfmt {
	int id;
	int synth; /* the synthetic event's index, -1 for the kernel's */
	struct utrace_event_format *fmt;
	struct rec_kfmt *next;
};

#define REC_KIDS 65536u /* kernel ids are u16 (common_type) */

static inline const struct rec_kfmt *rec_kfmt_find(const struct utrace_recorder *r,
						   const char *sys, const char *name)
{
	for (const struct rec_kfmt *k = r->kfmts; k; k = k->next)
		if (!strcmp(k->fmt->system, sys) && !strcmp(k->fmt->name, name))
			return k;
	return NULL;
}

/* One record of a header a[0..alen) and an optional payload b[0..blen),
 * through the session's writer (lib/tracefile/dat_writer.h). */
static inline int rec_write(struct utrace_recorder *r, enum utrace_dat_type type, const void *a,
			    size_t alen, const void *b, size_t blen, struct utrace_error *err)
{
	struct iovec iov[2] = {{(void *)a, alen}, {(void *)b, blen}};

	return utrace_dat_write(r->w, type, iov, b ? 2 : 1, err);
}

/* recorder_msg.c: one message of connection c; <0 on a protocol error */
int rec_handle_msg(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n, int fd,
		   struct utrace_error *err);
struct rec_symtab *rec_symtab_get(struct utrace_recorder *r, const char *path);
/* The SELECTs of object idx of c, from the tracer and filter now in r->o. */
int rec_conn_select(struct utrace_recorder *r, struct rec_conn *c, uint32_t idx);

/* recorder_live.c: c's live channel (recorder_msg.c's LIVE set it),
 * closed with the connection */
void rec_live_close(struct rec_conn *c);
/* One event of an object: its key there and the recording's id. */
struct rec_evkey {
	uint32_t key;
	int id;
};

/* A trigger the tracefs added to an event. */
struct rec_live_trig {
	char *text;		  /* as written (a hist table's text points here) */
	struct utrace_trigger *t; /* parsed */
	uint32_t serial;	  /* its hist table's key (REC_HIST_LIVE | serial) */
	int target;		  /* enable_/disable_: the target's id */
	int count_idx;		  /* :N: its counter on the control page, else -1 */
};

/* What the tracefs set for one event of the recording. */
struct rec_live_ev {
	int id;
	char sys[65], name[65];
	char *filter; /* NULL: none */
	void *prog;   /* the last one compiled (for one object's format) */
	struct rec_live_trig *trigs;
	unsigned nr_trigs;
	struct rec_live_ev *next;
};

/* recorder_livevar.c: event id's settings; a new one if it has none and
 * sys (its name: sys, name) is given */
struct rec_live_ev *rec_live_ev_of(struct utrace_recorder *r, int id, const char *sys,
				   const char *name);
/* The format of sys:name where path (an object, or UTRACE_EVENT_NOOBJ for
 * a synthetic event or a probe) has it; an object of a traced process
 * whose keys hold event id, else UTRACE_EVENT_NOOBJ */
const struct utrace_event_format *rec_ev_fmt(struct utrace_recorder *r, const char *path,
					     const char *sys, const char *name);
const char *rec_ev_path(struct utrace_recorder *r, int id);

/* recorder_liveev.c: the filter the tracefs set for an event, for its
 * ENABLE at registration (*prog, *len replaced; owned here); freed with
 * the recorder */
void rec_live_event_prog(struct utrace_recorder *r, const char *path, const char *sys,
			 const char *name, int id, const void **prog, uint32_t *len);
void rec_live_ev_free(struct utrace_recorder *r);
/* recorder_livevar.c: the tracefs's hist triggers that define variable var (of event
 * sys:ev only, if sys is not ""): each to cb with its event, its text and
 * its table's spec (REC_HIST_LIVE | serial); how many */
unsigned rec_live_vars(struct utrace_recorder *r, const char *var, const char *sys,
		       const char *ev,
		       void (*cb)(void *arg, const char *sys, const char *ev, const char *text,
				  const struct utrace_trigger *t, unsigned spec, unsigned v),
		       void *arg);
/* ... the format of sys:name where path has it, else where it is (*where:
 * UTRACE_EVENT_NOOBJ for a synthetic event or a probe, or an object) */
const struct utrace_event_format *rec_live_fmt(struct utrace_recorder *r, const char *path,
					       const char *sys, const char *name,
					       const char **where);
/* recorder_hist.c: $name of a hist trigger of an event where path has
 * it, as its compile finds it (a UTRACE_HIST_ERR_* or 0) */
int rec_hist_var(struct utrace_recorder *r, const char *path, const char *name, const char *msys,
		 const char *mev, struct utrace_hist_var_info *out);
/* ... and its triggers, before that ENABLE */
int rec_live_event_trigs(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
			 uint32_t key, const char *path, const char *sys, const char *name,
			 int id);
/* The answer (size bytes, of type) to a request sent on a live channel,
 * within REC_LIVE_WAIT_MS: 0 or -errno. */
int rec_live_answer(int fd, void *msg, size_t size, uint32_t type);
/* The answer to a LIVE_DONE sent on a live channel: 0 or -errno. */
int rec_live_wait(int fd);
/* The end of a batch sent on c's live channel through ch (ret: how the
 * batch went): its LIVE_DONE sent and answered, the channel closed if
 * anything failed.  0 or -errno. */
int rec_live_done(struct rec_conn *c, struct rec_conn *ch, int ret);
/* how long a process's live thread may take to answer (then its channel
 * is closed; it keeps what it had) */
#define REC_LIVE_WAIT_MS 5000
/* The ENABLE flags of an event of a live recording (every event is
 * enabled, switched by its ev_state byte), its key kept for later
 * changes; first: its id is new (its state starts from the -e). */
uint32_t rec_live_event_flags(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
			      uint32_t key, const char *sys, const char *name, int id, bool first);

/* recorder_conn.c: send one message (and a descriptor) to a process */
int rec_conn_send(struct rec_conn *c, const void *msg, size_t len, int fd);
/* A message made of a header struct (its size field set here) and a
 * payload of plen bytes after it. */
int rec_conn_send_with(struct rec_conn *c, void *hdr, size_t hlen, const void *payload,
		       size_t plen, int fd);

/* recorder_trig.c: whether an -R enable_/disable_event (or _hist) of a
 * user event names event id as its target (the kernel's soft mode) */
bool rec_trig_targets(const struct utrace_recorder *r, int id);

/* A hist trigger's table (recorder_hist.c), shared with the processes. */
struct rec_hist {
	unsigned spec, trig;
	int kid; /* kernel events: the event's id, else -1 */
	char *system, *name;
	const char *text; /* the -R as written (the cmd's string) */
	void *prog;
	uint32_t prog_len;
	int fd;
	struct utrace_hist_map *map;
	uint64_t map_size;
	char *table;		/* name=: the table's name, NULL if none */
	struct rec_hist *owner; /* name=: the trigger whose table this one shares */
	uint32_t tid;		/* its table's id, for RESOLVE (common/proto.h) */
	struct rec_hist *next;
};

/* recorder_hist.c: a user event's state byte (NULL for a kernel
 * event); the used elements of a table, in slot order (*n; free it);
 * one table freed */
uint8_t *rec_hist_state(struct utrace_recorder *r, const struct rec_hist *h);
struct utrace_hist_map;
uint8_t *rec_hist_entries(struct utrace_hist_map *m, uint32_t *n);
void rec_hist_free_one(struct rec_hist *h);

/* recorder_hist.c: the event's hist triggers, sent before its ENABLE;
 * the tables saved at the end; freed with the recorder */
int rec_hist_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		  const char *path, const char *system, const char *name,
		  struct utrace_error *err);
int rec_hist_save_all(struct utrace_recorder *r, struct utrace_error *err);
/* recorder_hist.c: the table of trigger k of spec (kspec | REC_HIST_KERNEL
 * for a kernel -e), t (parsed from text) compiled for fmt; NULL with err->code 0 if it is not a
 * hist trigger.  env_kernel: its $vars are the kernel events' ones. */
#define REC_HIST_KERNEL (1u << 31)
#define REC_HIST_LIVE (1u << 30) /* spec: a trigger the tracefs added, by serial */
struct rec_hist *rec_hist_get(struct utrace_recorder *r, unsigned spec, unsigned k,
			      const char *text, const struct utrace_trigger *t,
			      const struct utrace_event_format *fmt, bool env_kernel,
			      const char *path, struct utrace_error *err);
void rec_hist_set_kid(struct rec_hist *h, int kid);
/* recorder_liveev.c: one trigger's HIST (and the tables it RESOLVEs in)
 * to c; recorder_histlive.c: its table as it is now (*elts to free); a
 * removed one dropped */
int rec_hist_send_one(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		      const struct rec_hist *h);
struct utrace_hist_table;
int rec_hist_table(struct utrace_recorder *r, const struct rec_hist *h,
		   struct utrace_hist_table *t, uint8_t **elts);
void rec_hist_drop(struct utrace_recorder *r, unsigned spec);
/* Whether another trigger's program reads a variable of spec's table. */
bool rec_hist_referenced(const struct utrace_recorder *r, unsigned spec);
/* The table of spec paused, continued or cleared (hist:...:pause, :cont,
 * :clear written again), or only read: *paused, whether its hits count
 * now; -ENOENT if it has no table. */
enum { REC_HIST_READ, REC_HIST_PAUSE, REC_HIST_CONT, REC_HIST_CLEAR };
int rec_hist_ctl(struct utrace_recorder *r, unsigned spec, int what, bool *paused);
const struct rec_hist *rec_hist_find(const struct utrace_recorder *r, unsigned spec);
/* The hists of kernel id kid run on one record (recorder_khist.c). */
struct utrace_hist_ctx;
void rec_hist_krun(struct utrace_recorder *r, int kid, struct utrace_hist_ctx *c);
/* Whether a hist of kernel id kid keys on its stack (common_stacktrace). */
bool rec_hist_kwants_stack(const struct utrace_recorder *r, int kid);
/* Whether kernel id kid has a -R stacktrace (its stacks are saved). */
bool rec_trig_kstack(const struct utrace_recorder *r, int kid);
/* enable_hist/disable_hist on kernel id kid; whether one of its is paused */
void rec_hist_kpause(struct utrace_recorder *r, int kid, bool paused);
bool rec_hist_kpaused(const struct utrace_recorder *r, int kid);

/* recorder_khist.c: the kernel formats kept, the triggers compiled when
 * the last has come (rec_kready), the synthetic events they fire. */
int rec_hist_kformat(struct utrace_recorder *r, const char *system, const char *name, int id,
		     const char *text, struct utrace_error *err);
int rec_kready(struct utrace_recorder *r, struct utrace_error *err);
void rec_kfmt_free(struct utrace_recorder *r);

/* recorder_kmerge.c: the kernel pages queued per CPU, run in time order
 * across CPUs up to what every CPU has surely handed over (a round: one
 * read of every CPU), saved as pages again; at the end all of it. */
int rec_kmerge_new(struct utrace_recorder *r, struct utrace_error *err);
int rec_kmerge_page(struct utrace_recorder *r, uint32_t cpu, const void *page, size_t len,
		    struct utrace_error *err);
int rec_kmerge_round(struct utrace_recorder *r, bool final, struct utrace_error *err);
void rec_kmerge_free(struct utrace_recorder *r);
/* Whether a kernel event has a snapshot trigger (pages are kept for it). */
bool rec_trig_ksnap(const struct utrace_recorder *r);

void rec_hist_free(struct utrace_recorder *r);

/* recorder_msg.c: one event's format, triggers and ENABLE; the DONE. */
int rec_event_enable(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		     const char *path, const char *sys, const char *name,
		     struct utrace_msg_enable *en, struct utrace_error *err);
int rec_enable_done(struct rec_conn *c, uint32_t obj, struct utrace_msg_enable *en);

/* recorder_kprobe.c: the in-process probes' KPROBEs for an object's
 * KPROBE_AREA */
int rec_kprobe_area(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		    struct utrace_error *err);
/* Probe i's KPROBE for object obj at slot *slot of the area am names
 * (moved past it), sent on c (0 also when it does not land there: said
 * as a notice); others: where the object's probes are. */
int rec_kprobe_one(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
		   const struct utrace_msg_kprobe_area *am, unsigned i, uint32_t *slot,
		   const uint64_t *others, size_t nothers, struct utrace_msg_kprobe *m);
/* recorder_kprobe.c: probe key i's ENABLE when it was added while running
 * (its records follow ev_state: STATEFUL): 1 once sent, 0 if it was
 * not added so, <0 if the send failed. */
int rec_kprobe_live_enable(struct utrace_recorder *r, struct rec_conn *c, unsigned i,
			   struct utrace_msg_enable *en);
/* recorder_live.c: what utrace_recorder_kprobe_add and _synth_add kept */
void rec_live_free(struct utrace_recorder *r);

/* recorder_fpatch.c: FPATCH_ASK and FPATCH_AREA of an object without
 * call sites; the plans freed with the recorder */
/* recorder_attach.c: an attached process's QUIESCE and RESUME; its
 * threads let go when its connection ends */
int rec_quiesce(struct rec_conn *c, const void *buf, size_t n);
int rec_resume(struct rec_conn *c);
void rec_quiesce_end(struct rec_conn *c);
int rec_fpatch_ask(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n);
int rec_fpatch_area(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n);
void rec_fpatch_free(struct utrace_recorder *r);
/* The site flags every function of the planned object at path adds:
 * UTRACE_SITE_ENTRY_ONLY where its runtime reads return addresses. */
unsigned rec_fpatch_site_flags(const struct utrace_recorder *r, const char *path);
/* Whether a planned object has entries traced as FUNC records under
 * function_graph (their callers must be named). */
bool rec_fpatch_entry_only_any(const struct utrace_recorder *r);

/* recorder_hist.c: the synthetic event an action names (--synthetic) */
int rec_synth_lookup(void *arg, const char *name, struct utrace_hist_synth_info *out);

/* recorder_trig.c: the trigger commands set up at the start, the flags an
 * event's ENABLE needs, sent before it; freed with the recorder */
int rec_trig_init(struct utrace_recorder *r, struct utrace_error *err);
/* The runtime's command (UTRACE_TC_*) of a trigger's (UTRACE_TRIG_*), 0 if
 * the runtime has none for it (hist: a table of its own). */
uint32_t rec_trig_cmd(uint32_t cmd);
uint32_t rec_trig_flags(struct utrace_recorder *r, const char *system, const char *name);
int rec_trig_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		  const char *path, const char *system, const char *name,
		  struct utrace_error *err);
bool rec_trig_wants_stacks(const struct utrace_recorder *r);
void rec_trig_free(struct utrace_recorder *r);
/* The kernel events' trigger commands: bound to the kernel ids once the
 * formats are known, run on each record in time order. */
int rec_trig_kready(struct utrace_recorder *r, struct utrace_error *err);
void rec_trig_krun(struct utrace_recorder *r, int kid, const uint8_t *rec, uint32_t len);

/* recorder.c: a (tsc, CLOCK_MONOTONIC ns) pair read close together; the
 * symbol tables of every object the reader needs, written (finish, and
 * extract's file) */
void rec_clock_pair(uint64_t *tsc, uint64_t *ns);
int rec_write_symtabs(struct utrace_recorder *r, struct utrace_error *err);

/* CLOCK_MONOTONIC now, in ns */
static inline uint64_t rec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
/* recorder_drain.c: save what buffer b committed (all of it when final) */
int rec_drain(struct utrace_recorder *r, struct rec_buffer *b, bool final,
	      struct utrace_error *err);

/* recorder_drain.c: copy sub-buffer idx through its seqlock: bytes of
 * records (header into *hdr), 0 for none, -1 if it was torn */
int rec_subbuf_copy(struct rec_buffer *b, uint64_t idx, struct utrace_subbuf *hdr, void *dst);

/* recorder_snap.c: the snapshots asked for since the last call, taken */
int rec_snap_poll(struct utrace_recorder *r, struct utrace_error *err);
/* Every live thread's ring into snapshot s (its SNAP_PAGEs, s->pages and
 * s->torn counted), the sub-buffers up to s->tsc; the caller writes the
 * SNAPSHOT record. */
int rec_snap_threads(struct utrace_recorder *r, struct utrace_dat_snapshot *s,
		     struct utrace_error *err);

/* recorder_libcall.c: library calls (UTRACE_OBJ_LIBCALL objects) */
bool rec_libcall_refused(const char *name);
const char *rec_libcall_name(struct rec_symtab *s, uint64_t va, const char **raw);
/* recorder_symtab.c: writes a SYMTAB record of n entries (h's counts set
 * here) and frees ents and strs. */
struct utrace_dat_symtab;
struct utrace_dat_sym;
int rec_symtab_write(struct utrace_recorder *r, struct utrace_dat_symtab *h,
		     struct utrace_dat_sym *ents, size_t n, char *strs, size_t strsz,
		     struct utrace_error *err);
int rec_libcall_symtab(struct utrace_recorder *r, struct rec_conn *c, uint32_t idx,
		       struct rec_symtab *s, struct utrace_error *err);

/* recorder_proc.c: c's socket reached its end.  rec_image_alive: its
 * process runs on in the same image (it closed the socket itself);
 * rec_conn_orphan then says so and watches for its exit (c->pidfd), and
 * rec_conn_exited, at that exit, drains what is left, as rec_conn_drain
 * does for a connection that ended with its process. */
bool rec_image_alive(struct utrace_recorder *r, struct rec_conn *c);
int rec_conn_orphan(struct utrace_recorder *r, struct rec_conn *c, struct utrace_error *err);
int rec_conn_exited(struct utrace_recorder *r, struct rec_conn *c, struct utrace_error *err);
int rec_conn_drain(struct utrace_recorder *r, struct rec_conn *c, struct utrace_error *err);

#endif
