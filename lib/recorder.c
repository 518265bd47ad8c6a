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
 * Every poll saves the sub-buffers that producers have finished (in
 * producer/consumer mode) and gives them back by advancing tail.  When a
 * thread closes its buffer, or its process goes away (exit, exec, even
 * SIGKILL: we still map the memfd), the buffer is drained to the last
 * committed record and unmapped.  Overwrite-mode buffers are read only
 * then, newest nr_subbufs - 1 full sub-buffers plus the partial one, each
 * checked against its sequence number so a page overwritten during the
 * copy is discarded, never saved torn.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/rb_abi.h"
#include "common/record.h"
#include "common/scm.h"
#include "lib/dat_format.h"
#include "lib/dat_writer.h"
#include "lib/event_select.h"
#include "lib/ftrace_filter.h"
#include "lib/recorder.h"
#include "lib/symtab.h"

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
	uint32_t image;
	int pid;
	bool open;
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
	int pid, tid;
	char comm[16];
	bool done;
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
	struct pollfd *pfd; /* poll set, one slot per open connection */
	struct rec_conn **who;
	uint32_t cap_poll;
	uint8_t page[UTRACE_SUBBUF_SIZE] __attribute__((aligned(8))); /* records are u32 words */
};

static uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static uint64_t mono_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A (tsc, ns) pair read as close together as we can: the tightest of a
 * few tries, stamped in the middle. */
static void clock_pair(uint64_t *tsc, uint64_t *ns)
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

static int rec_write(struct utrace_recorder *r, enum utrace_dat_type type, const void *a,
		     size_t alen, const void *b, size_t blen, struct utrace_error *err)
{
	struct iovec iov[2] = {{(void *)a, alen}, {(void *)b, blen}};

	return utrace_dat_write(r->w, type, iov, b ? 2 : 1, err);
}

static int write_meta(struct utrace_recorder *r, struct utrace_error *err)
{
	static const char *const tracers[] = {"nop", "function", "function_graph"};
	char host[256] = "", text[8192];
	time_t now = time(NULL);
	char date[64];
	int n;

	gethostname(host, sizeof(host) - 1);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
	n = snprintf(text, sizeof(text),
		     "tracer=%s\ncommand=%s\ndate=%s\nhostname=%s\nbuffer_kb=%u\n"
		     "overwrite=%d\nmax_graph_depth=%u\nthresh_us=%llu\nclock=x86-tsc\nnr_cpus=%ld\n",
		     tracers[r->o.tracer], r->o.command ? r->o.command : "", date, host,
		     r->o.buffer_kb, r->o.overwrite, r->o.max_depth,
		     (unsigned long long)(r->o.thresh_ns / 1000), sysconf(_SC_NPROCESSORS_ONLN));
	if (n < 0 || n >= (int)sizeof(text))
		n = (int)strlen(text);
	return rec_write(r, UTRACE_DAT_META, text, (size_t)n, NULL, 0, err);
}

int utrace_recorder_new(const struct utrace_recorder_opts *opts, struct utrace_recorder **out,
			struct utrace_error *err)
{
	struct utrace_recorder *r = calloc(1, sizeof(*r));
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	uint64_t t0, n0;
	int ret;

	if (!r)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	r->o = *opts;
	r->listen_fd = r->ctl_fd = -1;
	r->nr_subbufs = (uint32_t)((uint64_t)opts->buffer_kb * 1024 / UTRACE_SUBBUF_SIZE);
	if (r->nr_subbufs < UTRACE_RB_MIN_SUBBUFS)
		r->nr_subbufs = UTRACE_RB_MIN_SUBBUFS;

	strcpy(r->dir, "/tmp/utrace-XXXXXX");
	if (!mkdtemp(r->dir)) {
		r->dir[0] = 0;
		ret = utrace_error_set(err, -errno, "cannot create a directory in /tmp: %s",
				       strerror(errno));
		goto fail;
	}
	snprintf(r->sock_path, sizeof(r->sock_path), "%s/sock", r->dir);
	strcpy(sa.sun_path, r->sock_path);
	r->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (r->listen_fd < 0 || bind(r->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(r->listen_fd, 64) < 0) {
		ret = utrace_error_set(err, -errno, "cannot listen on %s: %s", r->sock_path,
				       strerror(errno));
		goto fail;
	}

	r->ctl_fd = memfd_create("utrace-control", MFD_CLOEXEC);
	if (r->ctl_fd < 0 || ftruncate(r->ctl_fd, sizeof(struct utrace_control)) < 0 ||
	    (r->ctl = mmap(NULL, sizeof(struct utrace_control), PROT_READ | PROT_WRITE, MAP_SHARED,
			   r->ctl_fd, 0)) == MAP_FAILED) {
		r->ctl = NULL;
		ret = utrace_error_set(err, -errno, "cannot create the control page: %s",
				       strerror(errno));
		goto fail;
	}
	r->ctl->size = sizeof(*r->ctl);
	memcpy(r->ctl->tid_filter, opts->tids, sizeof(r->ctl->tid_filter));
	r->ctl->tracing_on = 1;

	/* TSC rate for tracing_thresh and for a file whose recording was cut
	 * short: 2 ms give it to 1e-3 with a known-frequency TSC; the CLOCK
	 * record written at the end spans the whole recording. */
	clock_pair(&t0, &n0);
	r->clock.tsc0 = t0;
	r->clock.ns0 = n0;
	r->clock.realtime_ns = mono_ns(CLOCK_REALTIME);
	usleep(2000);
	clock_pair(&r->clock.tsc1, &r->clock.ns1);
	r->tsc_per_us_q16 = (r->clock.tsc1 - t0) * 1000 * 65536 / (r->clock.ns1 - n0 ? r->clock.ns1 - n0 : 1);

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

/* ---- messages -------------------------------------------------------- */

static int conn_send(struct rec_conn *c, const void *msg, size_t len, int fd)
{
	/* The process waits for this answer; a full socket only means it is
	 * slow, so block (the fd is non-blocking: poll for room). */
	for (;;) {
		long n = utrace_scm_send(c->fd, msg, len, fd);
		struct pollfd p = {c->fd, POLLOUT, 0};

		if (n == (long)len)
			return 0;
		if (n == -EAGAIN || n == -EINTR) {
			poll(&p, 1, 100);
			continue;
		}
		return -EPIPE;
	}
}

static struct rec_symtab *symtab_get(struct utrace_recorder *r, const char *path)
{
	struct rec_symtab *s;
	struct utrace_error e;

	for (s = r->symtabs; s; s = s->next)
		if (!strcmp(s->path, path))
			return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->path = strdup(path);
	if (utrace_symtab_load(path, &s->tab, &e) < 0)
		s->tab = NULL;
	s->next = r->symtabs;
	r->symtabs = s;
	return s;
}

static int conn_select(struct utrace_recorder *r, struct rec_conn *c, uint32_t idx)
{
	struct rec_object *o = &c->objs[idx];
	struct utrace_msg_select *sel = malloc(sizeof(*sel) + UTRACE_SITES_PER_MSG);
	int ret = 0;

	if (!sel)
		return -ENOMEM;
	o->syms = symtab_get(r, o->path);
	for (uint32_t first = 0; first < o->nr_sites && ret >= 0; first += UTRACE_SITES_PER_MSG) {
		uint32_t cnt = o->nr_sites - first;

		if (cnt > UTRACE_SITES_PER_MSG)
			cnt = UTRACE_SITES_PER_MSG;
		sel->hdr.type = UTRACE_MSG_SELECT;
		sel->hdr.size = (uint32_t)(sizeof(*sel) + cnt);
		sel->obj = idx;
		sel->first = first;
		sel->count = cnt;
		sel->reserved = 0;
		for (uint32_t i = 0; i < cnt; i++) {
			const struct utrace_sym *sym = NULL;
			uint64_t va = o->vaddrs[first + i], off;
			unsigned f = 0;

			if (va && o->syms && o->syms->tab)
				sym = utrace_symtab_lookup(o->syms->tab, va, &off);
			if (sym && r->o.tracer != UTRACE_TRACER_NOP)
				f = r->o.filter ? utrace_func_filter_select(r->o.filter, sym->name,
									   sym->raw, o->path)
						: UTRACE_SITE_TRACE;
			sel->flags[i] = (uint8_t)f;
		}
		ret = conn_send(c, sel, sel->hdr.size, -1);
	}
	free(sel);
	return ret;
}

static int msg_hello(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		     struct utrace_error *err)
{
	const struct utrace_msg_hello *h = buf;
	struct utrace_msg_config cfg = {0};
	struct utrace_dat_image img = {0};
	size_t elen = n - sizeof(*h);

	if (n < sizeof(*h) || h->version != UTRACE_PROTO_VERSION)
		return -EPROTO;
	c->pid = h->pid;
	img.image = c->image;
	img.pid = h->pid;
	img.ppid = h->ppid;
	img.flags = h->flags;
	if (rec_write(r, UTRACE_DAT_IMAGE, &img, sizeof(img), h->exe, strnlen(h->exe, elen), err) < 0)
		return err->code;
	cfg.hdr.type = UTRACE_MSG_CONFIG;
	cfg.hdr.size = sizeof(cfg);
	cfg.tracer = r->o.tracer;
	cfg.flags = (r->o.overwrite ? UTRACE_CFG_OVERWRITE : 0) |
		    (r->o.filter && utrace_func_filter_count(r->o.filter, UTRACE_GRAPH)
			     ? UTRACE_CFG_GRAPH_FUNCS
			     : 0);
	cfg.nr_subbufs = r->nr_subbufs;
	cfg.max_depth = r->o.max_depth;
	cfg.thresh_ns = r->o.thresh_ns;
	cfg.tsc_per_us_q16 = r->tsc_per_us_q16;
	return conn_send(c, &cfg, sizeof(cfg), r->ctl_fd);
}

static int msg_object(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		      struct utrace_error *err)
{
	const struct utrace_msg_object *m = buf;
	struct utrace_dat_object d = {0};
	struct rec_object *o, *objs;

	if (n < sizeof(*m) + 1 || m->obj != c->nr_objs || m->nr_sites > (1u << 24))
		return -EPROTO;
	objs = realloc(c->objs, (c->nr_objs + 1) * sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	c->objs = objs;
	o = &objs[c->nr_objs++];
	memset(o, 0, sizeof(*o));
	o->path = strndup(m->path, n - sizeof(*m));
	o->bias = m->bias;
	o->id_base = m->id_base;
	o->nr_sites = m->nr_sites;
	o->flags = m->flags;
	o->vaddrs = calloc(m->nr_sites ? m->nr_sites : 1, sizeof(uint64_t));
	if (!o->path || !o->vaddrs)
		return -ENOMEM;
	d.image = c->image;
	d.obj = m->obj;
	d.flags = m->flags;
	d.id_base = m->id_base;
	d.nr_sites = m->nr_sites;
	d.bias = m->bias;
	return rec_write(r, UTRACE_DAT_OBJECT, &d, sizeof(d), o->path, strlen(o->path) + 1, err);
}

static int msg_sites(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		     struct utrace_error *err)
{
	const struct utrace_msg_sites *m = buf;
	struct utrace_dat_sites d = {0};
	struct rec_object *o;

	if (n < sizeof(*m) || m->obj >= c->nr_objs)
		return -EPROTO;
	o = &c->objs[m->obj];
	if (m->first != o->received || m->count > o->nr_sites - o->received ||
	    n < sizeof(*m) + m->count * sizeof(uint64_t))
		return -EPROTO;
	memcpy(o->vaddrs + m->first, m->vaddr, m->count * sizeof(uint64_t));
	o->received += m->count;
	d.image = c->image;
	d.obj = m->obj;
	d.first = m->first;
	d.count = m->count;
	if (rec_write(r, UTRACE_DAT_SITES, &d, sizeof(d), m->vaddr, m->count * sizeof(uint64_t),
		      err) < 0)
		return err->code;
	if (o->received == o->nr_sites && !(o->flags & UTRACE_OBJ_INHERITED))
		return conn_select(r, c, m->obj);
	return 0;
}

/* The static tracepoints of an object: enable the selected ones. */
static int msg_events(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		      struct utrace_error *err)
{
	const struct utrace_msg_events *m = buf;
	struct utrace_msg_enable *en = malloc(UTRACE_MSG_MAX);
	struct rec_object *o;
	int ret = 0;

	if (!en)
		return -ENOMEM;
	if (n < sizeof(*m) || m->obj >= c->nr_objs || m->count > UTRACE_EVENTS_PER_MSG ||
	    n < sizeof(*m) + m->count * sizeof(m->ev[0]) || m->first + m->count > m->total) {
		free(en);
		return -EPROTO;
	}
	o = &c->objs[m->obj];
	for (uint32_t i = 0; i < m->count && ret >= 0 && r->o.events; i++) {
		char sys[65], name[65];
		const char *format;
		const void *prog;
		uint32_t plen;
		int id, on;

		memcpy(sys, m->ev[i].system, 64);
		memcpy(name, m->ev[i].name, 64);
		sys[64] = name[64] = 0;
		on = utrace_event_select_match(r->o.events, o->path, sys, name, &id, &prog, &plen,
					       &format, err);
		if (on < 0) {
			/* a filter that does not fit this object's event: say
			 * so and leave the event off, the recording goes on */
			if (r->o.notice)
				r->o.notice(r->o.notice_arg, c->pid, err->msg);
			continue;
		}
		if (!on || sizeof(*en) + plen > UTRACE_MSG_MAX)
			continue;
		if (format) {
			struct utrace_dat_event_format ef = {.id = (uint32_t)id};
			struct iovec iov[3] = {{&ef, sizeof(ef)}, {sys, strlen(sys) + 1},
					       {(void *)format, strlen(format) + 1}};

			ret = utrace_dat_write(r->w, UTRACE_DAT_EVENT_FORMAT, iov, 3, err);
			if (ret < 0)
				break;
		}
		en->hdr.type = UTRACE_MSG_ENABLE;
		en->hdr.size = (uint32_t)(sizeof(*en) + plen);
		en->obj = m->obj;
		en->key = m->ev[i].key;
		en->id = id;
		en->filter_len = plen;
		if (plen)
			memcpy(en->filter, prog, plen);
		ret = conn_send(c, en, en->hdr.size, -1);
	}
	if (ret >= 0) {
		/* answered once the object's last EVENTS message is in */
		if (m->first + m->count == m->total) {
			en->hdr.type = UTRACE_MSG_ENABLE;
			en->hdr.size = sizeof(*en);
			en->obj = m->obj;
			en->key = UTRACE_ENABLE_DONE;
			en->id = -1;
			en->filter_len = 0;
			ret = conn_send(c, en, sizeof(*en), -1);
		}
	}
	free(en);
	return ret;
}

static int msg_buffer(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		      int fd, struct utrace_error *err)
{
	const struct utrace_msg_buffer *m = buf;
	struct utrace_dat_buffer d = {0};
	struct rec_buffer *b, **bufs;
	struct stat st;
	void *map;

	if (n < sizeof(*m) || fd < 0 || m->nr_subbufs < UTRACE_RB_MIN_SUBBUFS)
		return -EPROTO;
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size != utrace_rb_bytes(m->nr_subbufs))
		return -EPROTO;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	b = calloc(1, sizeof(*b));
	bufs = realloc(r->bufs, (r->nr_bufs + 1) * sizeof(*bufs));
	if (!b || !bufs) {
		free(b);
		munmap(map, (size_t)st.st_size);
		return -ENOMEM;
	}
	r->bufs = bufs;
	b->meta = map;
	b->size = (uint64_t)st.st_size;
	if (b->meta->magic != UTRACE_RB_MAGIC || b->meta->nr_subbufs != m->nr_subbufs ||
	    b->meta->subbuf_size != UTRACE_SUBBUF_SIZE) {
		munmap(map, (size_t)st.st_size);
		free(b);
		return -EPROTO;
	}
	b->id = r->nr_bufs;
	b->conn = c;
	b->pid = c->pid;
	b->tid = m->tid;
	memcpy(b->comm, m->comm, sizeof(b->comm));
	b->comm[15] = 0;
	r->bufs[r->nr_bufs++] = b;
	d.buf = b->id;
	d.image = c->image;
	d.pid = b->pid;
	d.tid = b->tid;
	d.flags = b->meta->flags;
	memcpy(d.comm, b->comm, sizeof(d.comm));
	return rec_write(r, UTRACE_DAT_BUFFER, &d, sizeof(d), NULL, 0, err);
}

static int msg_notice(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		      struct utrace_error *err)
{
	const struct utrace_msg_notice *m = buf;
	char text[256], line[320];
	int len;

	if (n < sizeof(*m))
		return -EPROTO;
	snprintf(text, sizeof(text), "%.*s", (int)strnlen(m->text, n - sizeof(*m)), m->text);
	if (r->o.notice)
		r->o.notice(r->o.notice_arg, m->pid, text);
	len = snprintf(line, sizeof(line), "%d %d %s", m->pid, m->tid, text);
	if (len >= (int)sizeof(line))
		len = (int)sizeof(line) - 1;
	return rec_write(r, UTRACE_DAT_NOTICE, line, (size_t)len, NULL, 0, err);
}

/* ---- draining -------------------------------------------------------- */

static struct utrace_subbuf *buf_slot(struct rec_buffer *b, uint64_t idx)
{
	return (struct utrace_subbuf *)((uint8_t *)b->meta + UTRACE_RB_META_SIZE +
					(idx % b->meta->nr_subbufs) * UTRACE_SUBBUF_SIZE);
}

/* Records in a saved sub-buffer: the recorder's own count, complete even
 * for a process that was killed before it could publish its counters. */
static uint64_t count_records(const uint32_t *w, uint32_t n)
{
	uint64_t count = 0;

	for (uint32_t i = 0; i < n;) {
		uint32_t len = 1;

		if (urec_kind(w[i]) == UREC_EXT) {
			enum utrace_ext_type t = urec_ext_type(w[i]);

			len = urec_ext_words(w[i]);
			if (!len || t == UEXT_PAD)
				break;
			count += t != UEXT_TIME_EXTEND && t != UEXT_CPU && t != UEXT_CONTEXT;
		} else {
			len = urec_kind(w[i]) == UREC_FUNC ? 3 : 1;
			count++;
		}
		i += len;
	}
	return count;
}

/*
 * Save sub-buffer idx.  A finished sub-buffer in producer/consumer mode is
 * ours until tail moves past it, so it is written straight from the shared
 * mapping.  check_seq: the producer may be rewriting it (overwrite mode,
 * or the partial one of a thread that may still run), so it is copied out
 * first and kept only if its sequence number did not move (a seqlock).
 */
static int save_subbuf(struct utrace_recorder *r, struct rec_buffer *b, uint64_t idx, bool check_seq,
		       struct utrace_error *err)
{
	struct utrace_subbuf *sb = buf_slot(b, idx);
	struct utrace_dat_page pg = {.buf = b->id};
	struct utrace_subbuf hdr;
	const void *data = sb + 1;
	uint32_t commit;

	if (check_seq && __atomic_load_n(&sb->seq, __ATOMIC_ACQUIRE) != (uint32_t)idx)
		return 0;
	/* acquire: the records under commit are visible once we see it */
	commit = __atomic_load_n(&sb->commit, __ATOMIC_ACQUIRE);
	if (commit > UTRACE_SUBBUF_DATA)
		commit = UTRACE_SUBBUF_DATA;
	commit &= ~3u;
	memcpy(&hdr, sb, sizeof(hdr));
	if (check_seq) {
		memcpy(r->page, data, commit);
		data = r->page;
		/* the seqlock check: was it being rewritten while we copied? */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&sb->seq, __ATOMIC_RELAXED) != (uint32_t)idx) {
			b->overrun++;
			return 0;
		}
	}
	if (!commit)
		return 0;
	hdr.commit = commit;
	b->records += hdr.records ? hdr.records : count_records(data, commit / 4);
	b->pages++;
	{
		struct iovec iov[3] = {{&pg, sizeof(pg)}, {&hdr, sizeof(hdr)}, {(void *)data, commit}};

		return utrace_dat_write(r->w, UTRACE_DAT_PAGE, iov, 3, err);
	}
}

static int drain(struct utrace_recorder *r, struct rec_buffer *b, bool final, struct utrace_error *err)
{
	struct utrace_rb_meta *m = b->meta;
	uint64_t head, start;
	bool overwrite;
	int ret = 0;

	if (b->done) /* and unmapped: m is NULL */
		return 0;
	overwrite = m->flags & UTRACE_RB_OVERWRITE;
	if (overwrite && !final)
		return 0;
	/* acquire: pairs with the producer's release of head */
	head = __atomic_load_n(&m->head, __ATOMIC_ACQUIRE);
	start = b->tail;
	if (overwrite && head >= m->nr_subbufs && head - m->nr_subbufs + 1 > start) {
		b->overrun += head - m->nr_subbufs + 1 - start;
		start = head - m->nr_subbufs + 1;
	}
	if (head - start > m->nr_subbufs) /* a producer that broke the protocol */
		start = head - m->nr_subbufs;
	for (uint64_t i = start; i < head && ret >= 0; i++)
		ret = save_subbuf(r, b, i, overwrite, err);
	b->tail = head;
	/* release: our copies are done before the producer may reuse them */
	if (!overwrite)
		__atomic_store_n(&m->tail, head, __ATOMIC_RELEASE);
	if (!final || ret < 0)
		return ret;

	/* the sub-buffer in progress, if the producer had started it */
	ret = save_subbuf(r, b, head, true, err);
	b->lost = __atomic_load_n(&m->lost, __ATOMIC_RELAXED);
	if (m->comm[0])
		memcpy(b->comm, m->comm, sizeof(b->comm) - 1);
	b->done = true;
	munmap(b->meta, b->size);
	b->meta = NULL;
	if (ret >= 0) {
		struct utrace_dat_stats s = {.buf = b->id,
					     .written = b->records,
					     .lost = b->lost,
					     .pages = b->pages,
					     .overrun = b->overrun};

		ret = rec_write(r, UTRACE_DAT_STATS, &s, sizeof(s), NULL, 0, err);
	}
	return ret;
}

static void conn_close(struct utrace_recorder *r, struct rec_conn *c, struct utrace_error *err)
{
	close(c->fd);
	c->fd = -1;
	c->open = false;
	for (uint32_t i = 0; i < r->nr_bufs; i++)
		if (r->bufs[i]->conn == c)
			drain(r, r->bufs[i], true, err);
}

static int conn_read(struct utrace_recorder *r, struct rec_conn *c, struct utrace_error *err)
{
	static uint8_t buf[UTRACE_MSG_MAX];
	const struct utrace_msg *hdr = (const void *)buf;
	int fd, ret;
	long n;

	n = utrace_scm_recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT, &fd);
	if (n == -EAGAIN || n == -EINTR)
		return 0;
	if (n <= 0) {
		conn_close(r, c, err);
		return 1;
	}
	if ((size_t)n < sizeof(*hdr) || hdr->size != (uint32_t)n) {
		ret = -EPROTO;
	} else {
		switch (hdr->type) {
		case UTRACE_MSG_HELLO:
			ret = msg_hello(r, c, buf, (size_t)n, err);
			break;
		case UTRACE_MSG_OBJECT:
			ret = msg_object(r, c, buf, (size_t)n, err);
			break;
		case UTRACE_MSG_SITES:
			ret = msg_sites(r, c, buf, (size_t)n, err);
			break;
		case UTRACE_MSG_BUFFER:
			ret = msg_buffer(r, c, buf, (size_t)n, fd, err);
			break;
		case UTRACE_MSG_NOTICE:
			ret = msg_notice(r, c, buf, (size_t)n, err);
			break;
		case UTRACE_MSG_EVENTS:
			ret = msg_events(r, c, buf, (size_t)n, err);
			break;
		default:
			ret = -EPROTO;
		}
	}
	if (fd >= 0)
		close(fd);
	if (ret < 0 && err->code != ret) {
		/* A process that speaks nonsense is cut off; the rest goes on. */
		if (r->o.notice)
			r->o.notice(r->o.notice_arg, c->pid,
				    "protocol error; this process is no longer recorded");
		conn_close(r, c, err);
		return 1;
	}
	return ret < 0 ? ret : 1;
}

static int accept_conns(struct utrace_recorder *r)
{
	for (;;) {
		int fd = accept4(r->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct rec_conn *c, **conns;

		if (fd < 0)
			return errno == EAGAIN ? 0 : -errno;
		c = calloc(1, sizeof(*c));
		conns = realloc(r->conns, (r->nr_conns + 1) * sizeof(*conns));
		if (!c || !conns) {
			free(c);
			close(fd);
			return -ENOMEM;
		}
		r->conns = conns;
		c->fd = fd;
		c->image = r->nr_conns;
		c->open = true;
		r->conns[r->nr_conns++] = c;
		r->ever_connected = true;
	}
}

int utrace_recorder_poll(struct utrace_recorder *r, int timeout_ms, struct utrace_error *err)
{
	struct pollfd *pfd;
	struct rec_conn **who;
	unsigned n = 0;
	int ret;

	/* one slot per open connection, however many processes there are */
	if (r->cap_poll < r->nr_conns + 1) {
		uint32_t cap = (r->nr_conns + 1) * 2;
		struct pollfd *p = realloc(r->pfd, cap * sizeof(*p));
		struct rec_conn **w = p ? realloc(r->who, cap * sizeof(*w)) : NULL;

		if (p)
			r->pfd = p;
		if (!w)
			return utrace_error_set(err, -ENOMEM, "out of memory");
		r->who = w;
		r->cap_poll = cap;
	}
	pfd = r->pfd;
	who = r->who;
	pfd[n].fd = r->listen_fd;
	pfd[n++].events = POLLIN;
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		if (!r->conns[i]->open)
			continue;
		who[n] = r->conns[i];
		pfd[n].fd = r->conns[i]->fd;
		pfd[n++].events = POLLIN;
	}
	ret = poll(pfd, n, timeout_ms);
	if (ret < 0 && errno != EINTR)
		return utrace_error_set(err, -errno, "poll: %s", strerror(errno));
	if (ret > 0) {
		if (pfd[0].revents && accept_conns(r) < 0)
			return utrace_error_set(err, -errno, "accept: %s", strerror(errno));
		for (unsigned i = 1; i < n; i++) {
			/* a burst of messages (a process registering its objects)
			 * is read in one go */
			for (int k = 0; k < 64 && pfd[i].revents && who[i]->open; k++) {
				ret = conn_read(r, who[i], err);
				if (ret < 0)
					return ret;
				if (!ret)
					break;
			}
		}
	}
	for (uint32_t i = 0; i < r->nr_bufs; i++) {
		struct rec_buffer *b = r->bufs[i];
		bool closed;

		if (b->done)
			continue;
		closed = __atomic_load_n(&b->meta->state, __ATOMIC_ACQUIRE) == UTRACE_RB_CLOSED;
		ret = drain(r, b, closed, err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int utrace_recorder_write_record(struct utrace_recorder *r, uint32_t type, const struct iovec *iov,
				 int n, struct utrace_error *err)
{
	if (!r->w)
		return utrace_error_set(err, -EBADF, "the recording is finished");
	return utrace_dat_write(r->w, (enum utrace_dat_type)type, iov, n, err);
}

bool utrace_recorder_idle(const struct utrace_recorder *r)
{
	for (uint32_t i = 0; i < r->nr_conns; i++)
		if (r->conns[i]->open)
			return false;
	return true;
}

void utrace_recorder_stop(struct utrace_recorder *r)
{
	__atomic_store_n(&r->ctl->tracing_on, 0, __ATOMIC_RELEASE);
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
	int ret;

	if (!o->syms)
		o->syms = symtab_get(r, o->path);
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
	h.nr_syms = (uint32_t)n;
	h.str_size = (uint32_t)strsz;
	{
		struct iovec iov[3] = {{&h, sizeof(h)}, {ents, n * sizeof(*ents)}, {strs, strsz}};

		ret = utrace_dat_write(r->w, UTRACE_DAT_SYMTAB, iov, 3, err);
	}
	free(ents);
	free(strs);
	return ret;
}

int utrace_recorder_finish(struct utrace_recorder *r, struct utrace_recorder_stats *st,
			   struct utrace_error *err)
{
	int ret = 0;

	memset(st, 0, sizeof(*st));
	for (uint32_t i = 0; i < r->nr_bufs && ret >= 0; i++)
		ret = drain(r, r->bufs[i], true, err);
	/* Symbols: objects with call sites always; with the function tracer
	 * every object, to name the callers (parent ip). */
	for (uint32_t i = 0; i < r->nr_conns && ret >= 0; i++) {
		struct rec_conn *c = r->conns[i];

		for (uint32_t k = 0; k < c->nr_objs && ret >= 0; k++)
			if (c->objs[k].nr_sites || r->o.tracer == UTRACE_TRACER_FUNCTION)
				ret = write_symtab(r, c, k, err);
	}
	if (ret >= 0) {
		clock_pair(&r->clock.tsc1, &r->clock.ns1);
		ret = rec_write(r, UTRACE_DAT_CLOCK, &r->clock, sizeof(r->clock), NULL, 0, err);
	}
	if (ret >= 0)
		ret = utrace_dat_writer_flush(r->w, err);
	st->file_bytes = utrace_dat_writer_bytes(r->w);
	if (ret >= 0)
		ret = utrace_dat_writer_close(r->w, err);
	else
		utrace_dat_writer_close(r->w, NULL);
	r->w = NULL;
	for (uint32_t i = 0; i < r->nr_bufs; i++) {
		st->records += r->bufs[i]->records;
		st->lost += r->bufs[i]->lost;
		st->overrun += r->bufs[i]->overrun;
		st->pages += r->bufs[i]->pages;
	}
	st->buffers = r->nr_bufs;
	st->images = r->nr_conns;
	return ret;
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
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		struct rec_conn *c = r->conns[i];

		if (c->fd >= 0)
			close(c->fd);
		for (uint32_t k = 0; k < c->nr_objs; k++) {
			free(c->objs[k].path);
			free(c->objs[k].vaddrs);
		}
		free(c->objs);
		free(c);
	}
	free(r->conns);
	free(r->pfd);
	free(r->who);
	for (uint32_t i = 0; i < r->nr_bufs; i++) {
		if (r->bufs[i]->meta)
			munmap(r->bufs[i]->meta, r->bufs[i]->size);
		free(r->bufs[i]);
	}
	free(r->bufs);
	while (r->symtabs) {
		struct rec_symtab *s = r->symtabs;

		r->symtabs = s->next;
		if (s->tab)
			utrace_symtab_free(s->tab);
		free(s->path);
		free(s);
	}
	free(r);
}
