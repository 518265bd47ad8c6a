/* SPDX-License-Identifier: MIT */
/*
 * recorder_internal.h - the recorder's core, shared by its files: the
 * session (struct utrace_recorder), its connections, objects and
 * buffers, and the functions of the files that run them:
 *   recorder.c        the session: socket, finish, clock, symbols
 *   recorder_poll.c   the poll loop: connections accepted, read, closed
 *   recorder_msg.c    the messages of the runtime's protocol
 *   recorder_conn.c   sending to a process (and the live channel's end)
 *   recorder_drain.c  saving sub-buffers of the shared ring buffers
 *   recorder_proc.c   a process that closed its connection and goes on
 *
 * Each mechanism keeps its state in a struct of its own, made and freed
 * with the recorder (the session holds only a pointer to it), and
 * declares its functions in its own header; the others reach its state
 * only through them:
 *   recorder_hist.h    hist tables        recorder_hist.c, recorder_hist_map.c,
 *                      recorder_hist_send.c, recorder_histlive.c
 *   recorder_trig.h    trigger commands   recorder_trig.c, recorder_ktrig.c (the
 *                      kernel events': kept, traceon/off, snapshot due)
 *   recorder_kernel.h  kernel pages       recorder_kernel.c (the API),
 *                      recorder_kfmt.c (formats, clock), recorder_khist.c
 *                      (their triggers set up), recorder_kmerge.c (merge)
 *   recorder_live.h    live control       recorder_live.c, recorder_liveev.c,
 *                      recorder_livetrig.c (trigger lists),
 *                      recorder_livevar.c, recorder_livepid.c (the
 *                      pid lists) (record --tracefs)
 *   recorder_inproc_probe.h  in-process probes  recorder_inproc_probe.c
 *   recorder_snap.h    snapshots          recorder_snap.c
 *   recorder_fpatch.h  entries patched    recorder_fpatch.c
 *   recorder_quiesce.h attach's stops     recorder_quiesce.c
 *   recorder_libcall.h --libcall's names  recorder_libcall.c
 *   recorder_symtab.h  symbol tables      recorder_symtab.c
 * recorder_attach.c (utrace_recorder_detach) and recorder_extract.c (the
 * recording so far as a file) use the core only.
 *
 * recorder_poll.c hands each message to recorder_msg.c, each buffer to
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
#include "lib/record/recorder.h"

struct rec_object {
	char *path;
	uint64_t bias;
	uint32_t id_base, nr_sites, flags, received;
	uint64_t *vaddrs;
	struct rec_symtab *syms;
	struct rec_live_keys *lk; /* recorder_live.h: --tracefs: its events' keys */
};

struct rec_conn {
	int fd;
	int pidfd; /* closed its socket but runs on: readable at its exit, else -1 */
	uint32_t image;
	int pid;
	int ppid; /* its parent's, as its HELLO says */
	bool open;
	int live_fd; /* the live channel (recorder_msg.c's LIVE), else -1: rec_live_close */
	struct rec_object *objs;
	uint32_t nr_objs, cap_objs;
	struct rec_fpatch_due *fp_due; /* recorder_fpatch.c: an FPATCH_AREA is due */
	struct rec_quiesce *q;	       /* recorder_quiesce.c: a QUIESCE under way */
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
	uint32_t subbuf_size; /* meta.subbuf_size, checked when it came */
	/* the thread had a buffer of this level before in this process: this
	 * one replaced it (another sub-buffer size, runtime/ring_buffer.c
	 * rb_resize), so the thread is counted once */
	bool again;
	char comm[16];
	bool done;
	/* the sub-buffer in progress, saved as far as it was committed when
	 * the trace was read (rec_drain_partial): its index, bytes, records */
	bool part;
	uint32_t part_commit;
	uint64_t part_idx, part_records;
	dev_t dev; /* the memfd's, to find it in /proc/PID/maps */
	ino_t ino;
};

struct utrace_wakeup_lat;

struct utrace_recorder {
	struct utrace_recorder_opts o;
	/* the most capable tracer the recording has had (enum utrace_tracer:
	 * nop < function < function_graph); a live change past the first
	 * one is written as the file's last META tracer (recorder.c) */
	uint32_t tracer_first, tracer_max;
	/* the readers' thread-id lists (recorder_livepid.c): by reader (0 the
	 * top level, 1 .. UTRACE_READERS - 1 an instance's), the readers that
	 * count (bit N reader N; bit UTRACE_READERS: one without lists; 0:
	 * the top level alone, no log), the forks' and exits' changes to them
	 * not handed over yet */
	struct rec_pid_lists {
		int32_t l[4][UTRACE_RECORDER_PIDS_MAX]; /* enum utrace_recorder_pids */
		unsigned n[4];
		unsigned follow; /* UTRACE_RECORDER_FOLLOW_*: event-fork, function-fork */
	} pid_lists[UTRACE_READERS];
	unsigned pid_readers;
	struct utrace_recorder_pid_change *pid_log;
	size_t npid_log, cap_pid_log;
	bool crash_ever; /* options/dump-on-crash was 1 at some time: every symbol table */
	char dir[64];
	char sock_path[128];
	int listen_fd;
	int ctl_fd;
	struct utrace_control *ctl;
	struct utrace_dat_writer *w;
	struct rec_conn **conns;
	uint32_t nr_conns, cap_conns;
	struct rec_buffer **bufs;
	uint32_t nr_bufs, cap_bufs;
	struct rec_symtab *symtabs; /* recorder_symtab.c: the cache */
	struct rec_fpatch *fp; /* recorder_fpatch.c */
	struct utrace_dat_clock clock;
	uint64_t tsc_per_us_q16;
	uint32_t nr_subbufs;
	bool ever_connected;
	/* the stack tracer (recorder_stack.c): on (utrace_control.stack.enabled
	 * too), and stack_trace_filter (NULL: every function) */
	bool stack_on;
	const struct utrace_func_filter *stack_filter;
	uint32_t *filter_hits; /* per function filter expression: functions matched */
	size_t cap_filter_hits;
	uint64_t nr_sites;     /* call sites of every object registered */
	uint32_t nr_orphans;   /* processes that closed their connection */
	struct pollfd *pfd;    /* poll set, one slot per open connection */
	struct rec_conn **who;
	uint32_t cap_pfd, cap_who;
	struct rec_hists *hist;	/* recorder_hist.h: the hist tables */
	struct rec_trigs *trig; /* recorder_trig.c: the trigger commands */
	struct rec_kfmts *kf;	/* recorder_kfmt.c: the kernel events' formats */
	struct rec_kmerge *km;	/* recorder_kmerge.c: NULL if no kernel trigger */
	struct rec_keps *kep;	/* recorder_keprobe.c: event probes the merge runs */
	struct rec_live_evs *lev; /* recorder_live.h: what the tracefs set */
	struct rec_snap *snap; /* recorder_snap.c */
	struct utrace_wakeup_lat *wk; /* recorder_wakeup.c: the wakeup tracers, once set */
	bool busy; /* the last poll saved sub-buffers of a buffer that could
		    * fill soon (rec_drain): poll again without sleeping */
	uint64_t last_busy_ns; /* CLOCK_MONOTONIC of the last poll that saved some */
	struct rec_inproc_probes *ipp;	  /* recorder_inproc_probe.c: probes added while running */
	struct rec_live *live;	  /* recorder_live.c: synthetic events defined so */
	/* a sub-buffer's records, of any buffer's size; records are u32 words */
	uint8_t page[UTRACE_SUBBUF_MAX] __attribute__((aligned(8)));
};

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
/* The SELECTs of object idx of c, from the tracer and filter now in r->o. */
int rec_conn_select(struct utrace_recorder *r, struct rec_conn *c, uint32_t idx);

/* recorder_conn.c: send one message (and a descriptor) to a process */
int rec_conn_send(struct rec_conn *c, const void *msg, size_t len, int fd);
/* A message made of a header struct (its size field set here) and a
 * payload of plen bytes after it. */
int rec_conn_send_with(struct rec_conn *c, void *hdr, size_t hlen, const void *payload,
		       size_t plen, int fd);
/* recorder_conn.c: c's live channel (recorder_msg.c's LIVE set it),
 * closed with the connection */
void rec_live_close(struct rec_conn *c);
/* Whether ret, of a send to or an answer from a process's live channel,
 * says the process went away (it exited or exec'ed): not an error of
 * the change sent, which is the recording's all the same. */
bool rec_live_gone(int ret);
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

/* recorder_msg.c: one event's format, triggers and ENABLE; the DONE. */
int rec_event_enable(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		     const char *path, const char *sys, const char *name,
		     struct utrace_msg_enable *en, struct utrace_error *err);
int rec_enable_done(struct rec_conn *c, uint32_t obj, struct utrace_msg_enable *en);

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

/* recorder_drain.c: save the committed part of the sub-buffer b's thread
 * is writing (after rec_drain), so that a read of the trace holds it */
int rec_drain_partial(struct utrace_recorder *r, struct rec_buffer *b, struct utrace_error *err);

/* recorder_drain.c: copy sub-buffer idx through its seqlock: bytes of
 * records (header into *hdr), 0 for none, -1 if it was torn */
int rec_subbuf_copy(struct rec_buffer *b, uint64_t idx, struct utrace_subbuf *hdr, void *dst);

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
