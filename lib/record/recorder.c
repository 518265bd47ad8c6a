/* SPDX-License-Identifier: MIT */
/*
 * recorder.c - the consumer of a recording session.
 *
 *   traced process (libutrace.so)            recorder (this file)
 *   +---------------------------+  socket   +--------------------------+
 *   | HELLO, OBJECT, SITES      | --------> | images, objects, sites   |
 *   | BUFFER (+memfd)           |           | symbol tables + filters  |
 *   |            CONFIG, SELECT | <-------- |   -> SELECT flags        |
 *   +---------------------------+           +--------------------------+
 *   | thread ring buffers (memfd, shared)   | drain: full sub-buffers  |
 *   |  head ------------------------------> |  -> PAGE records         |
 *   |  <----------------------------- tail  |                          |
 *   +---------------------------------------+--------------------------+
 *
 * (The loop's turn is recorder_poll.c's, the messages are in
 * recorder_msg.c, the saving of sub-buffers in recorder_drain.c,
 * connections that end in recorder_proc.c: this file and recorder_poll.c
 * call them, they never call back; what they share is
 * recorder_internal.h, the session's state and its writer.)
 * Every poll saves the sub-buffers that producers have finished (in
 * producer/consumer mode) and gives them back by advancing tail.  When a
 * thread closes its buffer, or its process goes away (exit, exec, even
 * SIGKILL: we still map the memfd), the buffer is drained to the last
 * committed record and unmapped (a process that closed its connection
 * and runs on keeps its buffers until it exits: recorder_proc.c).
 * Overwrite-mode buffers are read only then, newest nr_subbufs - 1 full
 * sub-buffers plus the partial one, each checked against its sequence
 * number so a page overwritten during the copy is discarded, never saved
 * torn.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common/rb_abi.h"
#include "common/record.h"
#include "lib/base/grow.h"
#include "lib/tracefile/dat_format.h"
#include "lib/tracefile/dat_writer.h"
#include "lib/events/event_select.h"
#include "lib/events/ftrace_filter.h"
#include "lib/probes/dwarf.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/wakeup_lat.h"
#include "lib/record/recorder_fpatch.h"
#include "lib/record/recorder_hist.h"
#include "lib/record/recorder_kernel.h"
#include "lib/record/recorder_inproc_probe.h"
#include "lib/record/recorder_libcall.h"
#include "lib/record/recorder_live.h"
#include "lib/record/recorder_quiesce.h"
#include "lib/record/recorder_snap.h"
#include "lib/record/recorder_symtab.h"
#include "lib/record/recorder_trig.h"
#include "lib/elf/symtab.h"

static uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

uint64_t utrace_recorder_tsc(void)
{
	return rdtsc();
}

static uint64_t mono_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}


/* A (tsc, ns) pair read as close together as we can: the tightest of a
 * few tries, stamped in the middle. */
void rec_clock_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 16; i++) {
		uint64_t a = rdtsc(), n = mono_ns(CLOCK_MONOTONIC), b = rdtsc();

		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}

static int write_meta(struct utrace_recorder *r, struct utrace_error *err)
{
	static const char *const tracers[] = {"nop", "function", "function_graph"};
	char host[256] = "", text[8192];
	time_t now = time(NULL);
	char date[64];
	struct utsname u;
	int n;

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	gethostname(host, sizeof(host) - 1);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
	n = snprintf(text, sizeof(text),
		     "tracer=%s\ncommand=%s\ndate=%s\nhostname=%s\nbuffer_kb=%u\n"
		     "overwrite=%d\nno_loss=%d\nmax_graph_depth=%u\nthresh_us=%llu\nclock=x86-tsc\n"
		     "nr_cpus=%ld\nkernel=%s %s %s\n",
		     tracers[r->o.tracer], r->o.command ? r->o.command : "", date, host,
		     r->o.buffer_kb, r->o.overwrite, !r->o.overwrite && !r->o.drop, r->o.max_depth,
		     (unsigned long long)(r->o.thresh_ns / 1000),
		     /* configured, not online: every CPU id a record can carry is
		      * below it (report --cpu refuses the others) */
		     sysconf(_SC_NPROCESSORS_CONF), u.sysname, u.release, u.machine);
	if (n < 0 || n >= (int)sizeof(text))
		n = (int)strlen(text);
	return rec_write(r, UTRACE_DAT_META, text, (size_t)n, NULL, 0, err);
}

/* The mechanisms' states (each file's own), made with the recorder. */
static int states_new(struct utrace_recorder *r)
{
	if (rec_snap_new(r) < 0 || rec_fpatch_new(r) < 0 || rec_hist_new(r) < 0 ||
	    rec_inproc_probe_new(r) < 0 || rec_live_new(r) < 0 || rec_live_evs_new(r) < 0 ||
	    rec_kfmt_new(r) < 0 || rec_trig_new(r) < 0)
		return -ENOMEM;
	return 0;
}

static void states_free(struct utrace_recorder *r)
{
	rec_snap_free(r);
}

/* The socket the traced processes connect to, in a directory of its own. */
static int listen_socket(struct utrace_recorder *r, struct utrace_error *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	strcpy(r->dir, "/tmp/utrace-XXXXXX");
	if (!mkdtemp(r->dir)) {
		r->dir[0] = 0;
		return utrace_error_set(err, -errno, "cannot create a directory in /tmp: %s",
					strerror(errno));
	}
	snprintf(r->sock_path, sizeof(r->sock_path), "%s/sock", r->dir);
	strcpy(sa.sun_path, r->sock_path);
	r->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (r->listen_fd < 0 || bind(r->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(r->listen_fd, 64) < 0)
		return utrace_error_set(err, -errno, "cannot listen on %s: %s", r->sock_path,
					strerror(errno));
	return 0;
}

/* The control page every traced process maps (struct utrace_control). */
static int control_page(struct utrace_recorder *r, const struct utrace_recorder_opts *opts,
			struct utrace_error *err)
{
	r->ctl_fd = memfd_create("utrace-control", MFD_CLOEXEC);
	if (r->ctl_fd < 0 || ftruncate(r->ctl_fd, sizeof(struct utrace_control)) < 0 ||
	    (r->ctl = mmap(NULL, sizeof(struct utrace_control), PROT_READ | PROT_WRITE, MAP_SHARED,
			   r->ctl_fd, 0)) == MAP_FAILED) {
		r->ctl = NULL;
		return utrace_error_set(err, -errno, "cannot create the control page: %s",
					strerror(errno));
	}
	r->ctl->size = sizeof(*r->ctl);
	memcpy(r->ctl->tid_filter, opts->tids, sizeof(r->ctl->tid_filter));
	r->ctl->tracing_on = 1;
	r->ctl->reader_on[0] = 1; /* the top level's own */
	r->ctl->dump_on_crash = opts->dump_on_crash;
	return 0;
}

/* TSC rate for tracing_thresh and for a file whose recording was cut
 * short: 2 ms give it to 1e-3 with a known-frequency TSC; the CLOCK
 * record written at the end spans the whole recording. */
static void clock_calibrate(struct utrace_recorder *r)
{
	uint64_t t0, n0;

	rec_clock_pair(&t0, &n0);
	r->clock.tsc0 = t0;
	r->clock.ns0 = n0;
	r->clock.realtime_ns = mono_ns(CLOCK_REALTIME);
	usleep(2000);
	rec_clock_pair(&r->clock.tsc1, &r->clock.ns1);
	r->tsc_per_us_q16 =
	    (r->clock.tsc1 - t0) * 1000 * 65536 / (r->clock.ns1 - n0 ? r->clock.ns1 - n0 : 1);
}

int utrace_recorder_new(const struct utrace_recorder_opts *opts, struct utrace_recorder **out,
			struct utrace_error *err)
{
	struct utrace_recorder *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	r->o = *opts;
	r->tracer_first = r->tracer_max = opts->tracer;
	r->listen_fd = r->ctl_fd = -1;
	if (opts->filter && UTRACE_GROW_ZERO(r->filter_hits, r->cap_filter_hits,
					     utrace_func_filter_total(opts->filter) + 1) < 0) {
		free(r);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	if (states_new(r) < 0) {
		utrace_recorder_free(r);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	r->nr_subbufs = (uint32_t)((uint64_t)opts->buffer_kb * 1024 / UTRACE_SUBBUF_SIZE);
	if (r->nr_subbufs < UTRACE_RB_MIN_SUBBUFS)
		r->nr_subbufs = UTRACE_RB_MIN_SUBBUFS;
	if ((ret = listen_socket(r, err)) < 0 || (ret = control_page(r, opts, err)) < 0)
		goto fail;
	if (rec_trig_init(r, err) < 0) {
		ret = err->code;
		goto fail;
	}
	clock_calibrate(r);
	ret = utrace_dat_writer_open(opts->output, &r->w, err);
	if (ret < 0)
		goto fail;
	ret = rec_write(r, UTRACE_DAT_CLOCK, &r->clock, sizeof(r->clock), NULL, 0, err);
	if (ret >= 0)
		ret = write_meta(r, err);
	if (ret < 0)
		goto fail;
	*out = r;
	return 0;
fail:
	utrace_recorder_free(r);
	return ret;
}

const char *utrace_recorder_sock_path(const struct utrace_recorder *r)
{
	return r->sock_path;
}

int utrace_recorder_write_record(struct utrace_recorder *r, uint32_t type, const struct iovec *iov,
				 int n, struct utrace_error *err)
{
	if (!r->w)
		return utrace_error_set(err, -EBADF, "the recording is finished");
	return utrace_dat_write(r->w, (enum utrace_dat_type)type, iov, n, err);
}

int utrace_recorder_write_failed(const struct utrace_recorder *r)
{
	return r->w ? utrace_dat_writer_failed(r->w) : 0;
}

bool utrace_recorder_idle(const struct utrace_recorder *r)
{
	for (uint32_t i = 0; i < r->nr_conns; i++)
		if (r->conns[i]->open || r->conns[i]->pidfd >= 0)
			return false;
	return true;
}

void utrace_recorder_stop(struct utrace_recorder *r)
{
	__atomic_store_n(&r->ctl->stopped, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&r->ctl->tracing_on, 0, __ATOMIC_RELEASE);
}

void utrace_recorder_refuse(struct utrace_recorder *r)
{
	/* a connection waiting to be accepted is reset: its process stops
	 * waiting for the CONFIG and runs on untraced */
	if (r->listen_fd >= 0)
		close(r->listen_fd);
	r->listen_fd = -1;
	unlink(r->sock_path);
	/* and one accepted already, whose process may wait for an answer
	 * (its CONFIG, a patch plan) that will not come: it reads the end,
	 * as if the recorder were gone, and runs on untraced */
	for (uint32_t i = 0; i < r->nr_conns; i++)
		if (r->conns[i]->fd >= 0)
			shutdown(r->conns[i]->fd, SHUT_RDWR);
}

/* Function symbols of an object, demangled, for the reader. */
static int write_symtab(struct utrace_recorder *r, struct rec_conn *c, uint32_t idx,
			struct utrace_error *err)
{
	struct rec_object *o = &c->objs[idx];
	struct utrace_dat_symtab h = {.image = c->image, .obj = idx};
	struct utrace_dat_sym *ents;
	char *strs;
	size_t n, strsz = 0, off = 0;

	if (!o->syms)
		o->syms = rec_symtab_get(r, o->path);
	if (o->flags & UTRACE_OBJ_LIBCALL)
		return o->syms ? rec_libcall_symtab(r, c, idx, o->syms, err) : 0;
	if (!o->syms || !o->syms->tab)
		return 0;
	n = utrace_symtab_count(o->syms->tab);
	for (size_t i = 0; i < n; i++)
		strsz += strlen(utrace_symtab_get(o->syms->tab, i)->name) + 1;
	ents = malloc(n * sizeof(*ents) + 1);
	strs = malloc(strsz + 1);
	if (!ents || !strs) {
		free(ents);
		free(strs);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		const struct utrace_sym *s = utrace_symtab_get(o->syms->tab, i);
		size_t len = strlen(s->name) + 1;

		ents[i].vaddr = s->vaddr;
		ents[i].size = s->size > UINT32_MAX ? UINT32_MAX : (uint32_t)s->size;
		ents[i].name = (uint32_t)off;
		memcpy(strs + off, s->name, len);
		off += len;
	}
	return rec_symtab_write(r, &h, ents, n, strs, strsz, err);
}

int rec_write_symtabs(struct utrace_recorder *r, struct utrace_error *err)
{
	/* Symbols: objects with call sites always; with the function tracer
	 * every object, to name the callers (parent ip); with in-process
	 * probes, to name a return probe's return address; with stacktrace
	 * triggers, to name the frames; with entries traced as the function
	 * tracer's under function_graph (Go, the JVM, V8), their callers;
	 * with --dump-on-crash, to name where a crash signal came (libc's
	 * abort, a fault in a library), or options/dump-on-crash once on. */
	bool all = r->o.tracer == UTRACE_TRACER_FUNCTION || r->o.nr_inproc_probes ||
		   rec_trig_wants_stacks(r) || rec_fpatch_entry_only_any(r) || r->o.dump_on_crash ||
		   r->crash_ever;
	int ret = 0;

	for (uint32_t i = 0; i < r->nr_conns && ret >= 0; i++) {
		struct rec_conn *c = r->conns[i];

		for (uint32_t k = 0; k < c->nr_objs && ret >= 0; k++)
			if (c->objs[k].nr_sites || all)
				ret = write_symtab(r, c, k, err);
	}
	return ret;
}

/* A tracer chosen live (--tracefs current_tracer) records more than the
 * first one: the reader takes the last META tracer, so report prints the
 * whole recording in the most capable tracer's format (function_graph
 * shows function lines and events too), and tracer_first says where it
 * started. */
static int write_meta_tracer(struct utrace_recorder *r, struct utrace_error *err)
{
	static const char *const tracers[] = {"nop", "function", "function_graph"};
	char text[96];
	int n = snprintf(text, sizeof(text), "tracer=%s\ntracer_first=%s\n",
			 tracers[r->tracer_max], tracers[r->tracer_first]);

	return rec_write(r, UTRACE_DAT_META, text, (size_t)n, NULL, 0, err);
}

int utrace_recorder_finish(struct utrace_recorder *r, struct utrace_recorder_stats *st,
			   struct utrace_error *err)
{
	uint64_t wait_tsc = 0;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	ret = rec_snap_poll(r, err);
	for (uint32_t i = 0; i < r->nr_bufs && ret >= 0; i++)
		ret = rec_drain(r, r->bufs[i], true, err);
	if (ret >= 0)
		ret = rec_write_symtabs(r, err);
	if (ret >= 0 && r->tracer_max != r->tracer_first)
		ret = write_meta_tracer(r, err);
	if (ret >= 0) /* the kernel records left, now that none can come */
		ret = rec_kmerge_round(r, true, err);
	if (ret >= 0)
		ret = rec_hist_save_all(r, err);
	if (ret >= 0) {
		rec_clock_pair(&r->clock.tsc1, &r->clock.ns1);
		ret = rec_write(r, UTRACE_DAT_CLOCK, &r->clock, sizeof(r->clock), NULL, 0, err);
	}
	if (ret >= 0)
		ret = utrace_dat_writer_end(r->w, err);
	st->file_bytes = utrace_dat_writer_bytes(r->w); /* END included: the file's size */
	if (ret >= 0)
		ret = utrace_dat_writer_close(r->w, err);
	else
		utrace_dat_writer_close(r->w, NULL);
	r->w = NULL;
	st->sites = r->nr_sites;
	for (uint32_t i = 0; i < r->nr_bufs; i++) {
		st->records += r->bufs[i]->records;
		st->lost += r->bufs[i]->lost;
		st->overrun += r->bufs[i]->overrun;
		st->pages += r->bufs[i]->pages;
		/* a nested context is its thread's, a buffer made again too */
		st->buffers += !r->bufs[i]->nest && !r->bufs[i]->again;
		st->waits += r->bufs[i]->waits;
		wait_tsc += r->bufs[i]->wait_tsc;
	}
	st->wait_ns = r->tsc_per_us_q16 ? wait_tsc * 1000 * 65536 / r->tsc_per_us_q16 : 0;
	st->images = r->nr_conns;
	st->disconnected = r->nr_orphans;
	rec_fpatch_stats(r, &st->fpatch_plans, &st->fpatch_reused);
	return ret;
}

void utrace_recorder_progress(const struct utrace_recorder *r, struct utrace_recorder_progress *p)
{
	*p = (struct utrace_recorder_progress){0};
	p->bytes = r->w ? utrace_dat_writer_bytes(r->w) : 0;
	for (uint32_t i = 0; i < r->nr_bufs; i++) {
		p->records += r->bufs[i]->records;
		p->lost += r->bufs[i]->lost;
		p->threads += !r->bufs[i]->nest && !r->bufs[i]->again;
	}
}

uint32_t utrace_recorder_filter_hits(const struct utrace_recorder *r, size_t i)
{
	return r->filter_hits ? r->filter_hits[i] : 0;
}

bool utrace_recorder_buffer_stats(const struct utrace_recorder *r, uint32_t i, int *pid, int *tid,
				  char comm[16], uint64_t *records, uint64_t *lost)
{
	if (i >= r->nr_bufs)
		return false;
	*pid = r->bufs[i]->pid;
	*tid = r->bufs[i]->tid;
	memcpy(comm, r->bufs[i]->comm, 16);
	*records = r->bufs[i]->records;
	*lost = r->bufs[i]->lost;
	return true;
}

void utrace_recorder_free(struct utrace_recorder *r)
{
	if (!r)
		return;
	if (r->w)
		utrace_dat_writer_close(r->w, NULL);
	if (r->listen_fd >= 0)
		close(r->listen_fd);
	if (r->sock_path[0])
		unlink(r->sock_path);
	if (r->dir[0])
		rmdir(r->dir);
	if (r->ctl)
		munmap(r->ctl, sizeof(*r->ctl));
	if (r->ctl_fd >= 0)
		close(r->ctl_fd);
	rec_live_free(r);
	free(r->pid_log);
	rec_inproc_probe_free(r);
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		struct rec_conn *c = r->conns[i];

		if (c->fd >= 0)
			close(c->fd);
		if (c->pidfd >= 0)
			close(c->pidfd);
		rec_live_close(c);
		rec_quiesce_end(c);
		rec_fpatch_conn_free(c);
		for (uint32_t k = 0; k < c->nr_objs; k++) {
			free(c->objs[k].path);
			free(c->objs[k].vaddrs);
			rec_live_keys_free(&c->objs[k]);
		}
		free(c->objs);
		free(c);
	}
	free(r->conns);
	free(r->pfd);
	free(r->filter_hits);
	free(r->who);
	for (uint32_t i = 0; i < r->nr_bufs; i++) {
		if (r->bufs[i]->meta)
			munmap(r->bufs[i]->meta, r->bufs[i]->size);
		free(r->bufs[i]);
	}
	free(r->bufs);
	rec_kep_free(r);
	rec_kmerge_free(r);
	utrace_wakeup_lat_free(r->wk);
	rec_hist_free(r);
	rec_trig_free(r);
	rec_live_ev_free(r);
	rec_kfmt_free(r);
	rec_fpatch_free(r);
	rec_symtab_free_all(r);
	states_free(r);
	free(r);
}
