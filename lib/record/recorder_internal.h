/* SPDX-License-Identifier: MIT */
/*
 * recorder_internal.h - the recorder's private state, shared by its files:
 *   recorder.c        the session: socket, poll loop, finish, clock, symbols
 *   recorder_msg.c    the messages of the runtime's protocol
 *   recorder_drain.c  saving sub-buffers of the shared ring buffers
 *   recorder_kernel.c the kernel pages and formats of lib/kernel/kernel_trace.c
 *   recorder_proc.c   a process that closed its connection and goes on
 *   recorder_live.c   changes while the program runs (the live channel)
 *
 * recorder.c hands each message to recorder_msg.c, each buffer to
 * recorder_drain.c, each connection that ends to recorder_proc.c; they
 * write through rec_write() below, never back into recorder.c.
 */
#ifndef UTRACE_LIB_RECORDER_INTERNAL_H
#define UTRACE_LIB_RECORDER_INTERNAL_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "common/proto.h"
#include "common/rb_abi.h"
#include "lib/tracefile/dat_format.h"
#include "lib/tracefile/dat_writer.h"
#include "lib/hist/hist_compile.h"
#include "lib/record/recorder.h"

struct rec_object {
	char *path;
	uint64_t bias;
	uint32_t id_base, nr_sites, flags, received;
	uint64_t *vaddrs;
	struct rec_symtab *syms;
};

struct rec_symtab { /* cache: one load per path */
	char *path;
	struct utrace_symtab *tab; /* NULL if the file could not be read */
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
	struct kbuffer *kb;	/* recorder_hist.c: decoding kernel pages for triggers */
	struct rec_trig *trigs; /* recorder_trig.c: the trigger commands */
	uint32_t nr_counts;	/* their :N counters in ctl */
	bool busy; /* the last poll saved sub-buffers: poll again without sleeping */
	uint64_t last_busy_ns; /* CLOCK_MONOTONIC of the last poll that saved some */
	uint8_t page[UTRACE_SUBBUF_SIZE] __attribute__((aligned(8))); /* records are u32 words */
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
struct rec_symtab *rec_symtab_get(struct utrace_recorder *r, const char *path);
/* The SELECTs of object idx of c, from the tracer and filter now in r->o. */
int rec_conn_select(struct utrace_recorder *r, struct rec_conn *c, uint32_t idx);

/* recorder_live.c: c's live channel (recorder_msg.c's LIVE set it),
 * closed with the connection */
void rec_live_close(struct rec_conn *c);

/* recorder_conn.c: send one message (and a descriptor) to a process */
int rec_conn_send(struct rec_conn *c, const void *msg, size_t len, int fd);
/* A message made of a header struct (its size field set here) and a
 * payload of plen bytes after it. */
int rec_conn_send_with(struct rec_conn *c, void *hdr, size_t hlen, const void *payload,
		       size_t plen, int fd);

/* recorder_hist.c: the event's hist triggers, sent before its ENABLE;
 * the tables saved at the end; freed with the recorder */
int rec_hist_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		  const char *path, const char *system, const char *name,
		  struct utrace_error *err);
int rec_hist_save_all(struct utrace_recorder *r, struct utrace_error *err);
/* kernel events: the triggers compiled for a format, run on a page's
 * records; whether the pages are only read for them (all -e after -v) */
int rec_hist_kformat(struct utrace_recorder *r, const char *system, const char *name, int id,
		     const char *text, struct utrace_error *err);
void rec_hist_kpage(struct utrace_recorder *r, uint32_t cpu, const void *page, size_t len);
bool rec_hist_ksoft(const struct utrace_recorder *r);
void rec_hist_free(struct utrace_recorder *r);

/* recorder_msg.c: one event's format, triggers and ENABLE; the DONE. */
int rec_event_enable(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		     const char *path, const char *sys, const char *name,
		     struct utrace_msg_enable *en, struct utrace_error *err);
int rec_enable_done(struct rec_conn *c, uint32_t obj, struct utrace_msg_enable *en);

/* recorder_hist.c: the synthetic event an action names (--synthetic) */
int rec_synth_lookup(void *arg, const char *name, struct utrace_hist_synth_info *out);

/* recorder_trig.c: the trigger commands set up at the start, the flags an
 * event's ENABLE needs, sent before it; freed with the recorder */
int rec_trig_init(struct utrace_recorder *r, struct utrace_error *err);
uint32_t rec_trig_flags(struct utrace_recorder *r, const char *system, const char *name);
int rec_trig_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		  const char *path, const char *system, const char *name,
		  struct utrace_error *err);
void rec_trig_free(struct utrace_recorder *r);

/* recorder_drain.c: save what buffer b committed (all of it when final) */
int rec_drain(struct utrace_recorder *r, struct rec_buffer *b, bool final,
	      struct utrace_error *err);

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
