/* SPDX-License-Identifier: MIT */
/*
 * dat_kernel.c - the kernel events of a utrace.dat.
 *
 * Design: the open pass indexes KPAGE records per CPU (file offset and
 * length only, like PAGE records per buffer); a cursor per CPU reads one
 * page at a time and decodes it with libtraceevent's kbuffer, the
 * kernel's own ring-buffer format (event headers, time extends, absolute
 * time stamps, padding, the missed-events flags).  Times are in the
 * instance's trace_clock: x86-tsc ticks convert to ns exactly as the user
 * records do (utrace_dat_tsc_to_ns), so a merge by time interleaves both;
 * mono is already ns.
 *
 * Every event must belong to a buffer (struct utrace_event.buf), since
 * the printers name the task from it: a kernel event of a thread that has
 * a user buffer gets that buffer (the one that thread had at the time:
 * a thread that execs gets a new one), any other task gets a buffer of
 * its own, made at open, with no pages, named from the KTASKS record (or,
 * in a file whose recorder was killed before writing it, from a pass over
 * the pages, as "<...>").
 *
 * The kernel's kernel_stack entries (a stacktrace trigger the kernel ran,
 * lib/kernel/kernel_trigger.c) are STACK events flagged STACK_KERNEL,
 * their addresses named from the KSYMS record (dat_ksyms.c).  The
 * ftrace:print entries a live recording puts among the kernel's (a
 * trace_marker write, lib/record/recorder_kernel.c) are PRINT events of
 * their writer, their text the entry's buf.
 *
 * A reading refreshed as its file grows (dat_reader.c utrace_dat_refresh)
 * keeps its tasks, their buffers and the map: the tasks the new pages
 * name get their buffers, and their map entries, sorted, are merged in
 * (a shell loop's new pids are the highest: little moves).  The map is
 * made again only when the user buffers changed (a first page, a BUFFER
 * record); a buffer added after the tasks' ones makes the refresh read
 * the file anew, so the buffers stay in a fresh open's order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/kbuffer.h>

#include "lib/base/grow.h"
#include "lib/tracefile/dat_kernel.h"

#define KPAGE_MAX (1u << 20) /* a page larger than this is damage */
#define KCOMMIT_MASK ((1u << 27) - 1)
#define KMISSED_STORED (1ull << 30)
#define KBUF_BASE 0xf0000000u /* file ids of the buffers made for kernel tasks */

struct kpage_ref {
	uint64_t off; /* the page (after struct utrace_dat_kpage) */
	uint32_t len;
	uint32_t reserved;
	uint64_t ts; /* its time_stamp, in ticks (0: cut short before it) */
};

struct kcpu {
	uint32_t cpu;
	struct kpage_ref *pages;
	size_t nr_pages, cap_pages;
	uint64_t first_ts; /* time_stamp of the first page, in ticks */
};

struct ktid { /* kernel pid -> buffer, from the time the buffer starts */
	int32_t tid;
	uint32_t buf;
	uint64_t from_ns;
};

struct dat_kernel {
	struct utrace_dat_kheader hdr;
	int have_hdr, have_tasks;
	struct kcpu *cpus;
	size_t nr_cpus, cap_cpus;
	struct utrace_dat_ktask *tasks;
	size_t nr_tasks, cap_tasks;
	struct ktid *map; /* sorted by (tid, from_ns) */
	size_t nr_map, cap_map;
	uint32_t *by_pid; /* the tasks' indexes, sorted by (pid, index) */
	size_t cap_by_pid;
	/* what the map holds (a refresh adds the rest): the tasks, the
	 * kscan's pids taken as tasks, the buffers then, of which KBUF ones */
	size_t nr_mapped, nr_scanned, nr_bufs_mapped, nr_kbufs;
	bool mono;     /* hdr.clock is "mono": time stamps are ns already */
	int kstack_id; /* ftrace:kernel_stack's common_type, -1: none */
	int print_id;  /* ftrace:print's (trace_marker's), -1: none */
};

struct dat_kcursor {
	struct utrace_dat *d;
	struct kcpu *kc;
	struct dat_warnings *warn;
	struct kbuffer *kb;
	size_t next_page;
	uint8_t *page;
	size_t cap;
	uint32_t end; /* bytes of the loaded page that hold events */
	void *rec;    /* next record of the loaded page, NULL: load one */
	unsigned long long ts;
	long long lost; /* owed LOST event: -1 unknown count, 0 none */
	uint32_t last_buf;
	int have_last;
	int have_tb; /* the map's entries of task tb_tid: tb_n at tb_lo */
	int32_t tb_tid;
	size_t tb_lo, tb_n;
};

static struct dat_kernel *kern(struct utrace_dat *d)
{
	if (!d->kern)
		d->kern = calloc(1, sizeof(*d->kern));
	return d->kern;
}

int dat_kernel_index(struct utrace_dat *d, const unsigned char *head, size_t n, uint32_t len,
		     uint64_t off)
{
	struct utrace_dat_kpage kp;
	struct dat_kernel *k = kern(d);
	struct kcpu *c = NULL;
	size_t hl = sizeof(struct utrace_dat_rec) + sizeof(kp);

	if (!k)
		return -ENOMEM;
	if (len < sizeof(kp) + 16 || n < hl + 8 || len - sizeof(kp) > KPAGE_MAX) {
		dat_warn(d, "%s: record at offset %llu (type %u): not a kernel page: skipped",
			 d->path, (unsigned long long)off, UTRACE_DAT_KPAGE);
		return 0;
	}
	memcpy(&kp, head + sizeof(struct utrace_dat_rec), sizeof(kp));
	if (kp.reserved != d->snap_sel)
		return 0; /* a snapshot's page, or the trace's when one is shown */
	if (kp.cpu > DAT_MAX_CPU) {
		dat_warn(d, "%s: record at offset %llu (type %u): cpu %u: skipped", d->path,
			 (unsigned long long)off, UTRACE_DAT_KPAGE, kp.cpu);
		return 0;
	}
	for (size_t i = 0; i < k->nr_cpus; i++)
		if (k->cpus[i].cpu == kp.cpu)
			c = &k->cpus[i];
	if (!c) {
		if (UTRACE_GROW(k->cpus, k->cap_cpus, k->nr_cpus + 1) < 0)
			return -ENOMEM;
		c = &k->cpus[k->nr_cpus++];
		memset(c, 0, sizeof(*c));
		c->cpu = kp.cpu;
		memcpy(&c->first_ts, head + hl, 8);
	}
	if (UTRACE_GROW(c->pages, c->cap_pages, c->nr_pages + 1) < 0)
		return -ENOMEM;
	c->pages[c->nr_pages].off = off + hl;
	c->pages[c->nr_pages].len = len - (uint32_t)sizeof(kp);
	c->pages[c->nr_pages].reserved = 0;
	c->pages[c->nr_pages].ts = 0;
	if (n >= hl + 8)
		memcpy(&c->pages[c->nr_pages].ts, head + hl, 8);
	c->nr_pages++;
	if (kp.cpu > d->max_cpu)
		d->max_cpu = kp.cpu;
	return 0;
}

int dat_kernel_meta(struct utrace_dat *d, uint32_t type, const char *p, uint32_t len, uint64_t off)
{
	struct dat_kernel *k = kern(d);

	if (!k)
		return -ENOMEM;
	if (type == UTRACE_DAT_KHEADER) {
		if (len < sizeof(k->hdr)) {
			dat_warn(d, "%s: record at offset %llu (type %u): too short: skipped",
				 d->path, (unsigned long long)off, type);
			return 0;
		}
		memcpy(&k->hdr, p, sizeof(k->hdr));
		k->hdr.clock[sizeof(k->hdr.clock) - 1] = 0;
		k->mono = !strcmp(k->hdr.clock, "mono");
		/* the kernel's sub-buffers are a power of two from a page to
		 * 1 MiB (buffer_subbuf_size_kb); anything else is damage, and
		 * a page buffer is sized from it (found by fuzz_dat) */
		if (k->hdr.subbuf_size < 4096 || k->hdr.subbuf_size > (1u << 20) ||
		    (k->hdr.subbuf_size & (k->hdr.subbuf_size - 1))) {
			dat_warn(d, "%s: record at offset %llu: kernel sub-buffers of %u bytes: "
				    "page size assumed",
				 d->path, (unsigned long long)off, k->hdr.subbuf_size);
			k->hdr.subbuf_size = 4096;
		}
		k->have_hdr = 1;
	} else if (type == UTRACE_DAT_KTASKS) {
		size_t n = len / sizeof(*k->tasks);
		struct utrace_dat_ktask *t;

		if (UTRACE_GROW(k->tasks, k->cap_tasks, k->nr_tasks + n + 1) < 0)
			return -ENOMEM;
		t = k->tasks;
		memcpy(t + k->nr_tasks, p, n * sizeof(*t));
		for (size_t i = 0; i < n; i++)
			t[k->nr_tasks + i].comm[sizeof(t->comm) - 1] = 0;
		k->nr_tasks += n;
		k->have_tasks = 1;
	}
	return 0;
}

static uint64_t kticks_to_ns(const struct utrace_dat *d, uint64_t ts)
{
	if (d->kern && d->kern->mono)
		return ts;
	return utrace_dat_tsc_to_ns(d, ts);
}

/* The TSC count of a kernel time stamp: itself under x86-tsc; under mono,
 * the count the file's two calibration points put at that time. */
static uint64_t kticks_to_tsc(const struct utrace_dat *d, uint64_t ts)
{
	const struct utrace_dat_clock *c = &d->clock;
	__int128 dns = (__int128)c->ns1 - c->ns0, v;

	if (!d->kern || !d->kern->mono)
		return ts;
	if (!d->have_clock || dns <= 0 || c->tsc1 <= c->tsc0)
		return ts;
	v = (__int128)c->tsc0 + ((__int128)ts - c->ns0) * (__int128)(c->tsc1 - c->tsc0) / dns;
	return v < 0 ? 0 : (uint64_t)v;
}

/* Loads page i of c into c->page (zero-padded): its event bytes, or 0 if
 * it is damaged (with a warning), or <0 on an I/O error. */
static int load_page(struct dat_kcursor *c, size_t i, struct utrace_error *err)
{
	const struct kpage_ref *pr = &c->kc->pages[i];
	size_t need = pr->len + 64;
	uint64_t commit;
	int ret;

	if (need < c->d->kern->hdr.subbuf_size + 64u)
		need = c->d->kern->hdr.subbuf_size + 64u;
	if (UTRACE_GROW(c->page, c->cap, need) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	memset(c->page, 0, c->cap);
	ret = dat_pread(c->d, c->page, pr->len, pr->off, err);
	if (ret < 0)
		return ret;
	memcpy(&commit, c->page + 8, 8);
	if (16 + (commit & KCOMMIT_MASK) + (commit & KMISSED_STORED ? 8 : 0) > pr->len) {
		if (!c->warn->count++)
			snprintf(c->warn->first, sizeof(c->warn->first),
				 "%s: kernel page at offset %llu (cpu %u): commit %llu is larger "
				 "than the page: skipped",
				 c->d->path, (unsigned long long)pr->off, c->kc->cpu,
				 (unsigned long long)(commit & KCOMMIT_MASK));
		return 0;
	}
	return (int)(16 + (commit & KCOMMIT_MASK));
}

/* The entries of kernel pid tid in k->map: the first at *lo, how many. */
static size_t task_range(const struct dat_kernel *k, int32_t tid, size_t *lo_out)
{
	size_t lo = 0, hi = k->nr_map, n = 0;

	while (lo < hi) { /* first entry with this tid */
		size_t mid = (lo + hi) / 2;

		if (k->map[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + n < k->nr_map && k->map[lo + n].tid == tid)
		n++;
	*lo_out = lo;
	return n;
}

/* The buffer of the n entries at lo (one pid's) at time ns. */
static uint32_t range_buf(const struct dat_kernel *k, size_t lo, size_t n, uint64_t ns)
{
	size_t best = lo;

	if (!n)
		return UINT32_MAX;
	for (size_t i = lo + 1; i < lo + n && k->map[i].from_ns <= ns; i++)
		best = i;
	return k->map[best].buf;
}

/* The buffer of kernel pid tid at time ns, or UINT32_MAX. */
static uint32_t task_buf(const struct dat_kernel *k, int32_t tid, uint64_t ns)
{
	size_t lo, n = task_range(k, tid, &lo);

	return range_buf(k, lo, n, ns);
}

/* The same for a cursor's record: a CPU runs one task for many records
 * in a row, so the last one's entries are kept. */
static uint32_t cursor_task_buf(struct dat_kcursor *c, int32_t tid, uint64_t ns)
{
	const struct dat_kernel *k = c->d->kern;

	if (!c->have_tb || c->tb_tid != tid) {
		c->tb_n = task_range(k, tid, &c->tb_lo);
		c->tb_tid = tid;
		c->have_tb = 1;
	}
	return range_buf(k, c->tb_lo, c->tb_n, ns);
}

/* The event of record rec (NULL: the cursor's last task), size bytes. */
static void make_event(struct dat_kcursor *c, struct utrace_event *ev, const uint8_t *rec,
		       uint32_t size)
{
	const struct dat_kernel *k = c->d->kern;
	uint16_t type = 0;
	int32_t pid = -1;
	uint32_t b;

	memset(ev, 0, sizeof(*ev));
	ev->kind = UTRACE_EV_EVENT;
	ev->ts = kticks_to_ns(c->d, c->ts);
	ev->tsc = kticks_to_tsc(c->d, c->ts);
	ev->cpu = c->kc->cpu;
	if (rec) {
		memcpy(&type, rec, 2);
		memcpy(&pid, rec + 4, 4);
		ev->ctx_flags = rec[2];
		ev->ctx_preempt = rec[3];
		ev->has_ctx = 1;
		ev->data = rec + 8;
		ev->data_len = size - 8;
	}
	b = rec ? cursor_task_buf(c, pid, ev->ts) : UINT32_MAX;
	if (b == UINT32_MAX)
		b = c->have_last ? c->last_buf : 0;
	ev->id = type;
	ev->buf = b;
	if (rec && type == k->kstack_id && size >= 16) { /* int size; long caller[size] */
		int32_t n;

		memcpy(&n, rec + 8, 4);
		ev->kind = UTRACE_EV_STACK;
		ev->flags = UTRACE_EVF_STACK_KERNEL;
		ev->data = rec + 16;
		ev->data_len =
		    n > 0 && (uint32_t)n <= (size - 16) / 8 ? (uint32_t)n * 8 : size - 16;
	}
	if (rec && type == k->print_id && size > 16) { /* unsigned long ip; char buf[] */
		ev->kind = UTRACE_EV_PRINT;
		ev->data = rec + 16;
		ev->data_len = size - 16;
	}
	ev->tid = ev->pid = pid;
	if (b < c->d->nr_buffers) {
		const struct utrace_dat_buffer_info *bi = &c->d->buffers[b].info;

		ev->image = bi->image;
		ev->pid = bi->pid;
		if (!rec)
			ev->tid = bi->tid;
	}
	c->last_buf = b;
	c->have_last = 1;
}

int dat_kcursor_next(struct dat_kcursor *c, struct utrace_event *ev, struct utrace_error *err)
{
	for (;;) {
		uint8_t *rec = c->rec;
		int size;

		if (!rec) {
			int end;

			if (c->next_page >= c->kc->nr_pages)
				return 0;
			end = load_page(c, c->next_page++, err);
			if (end < 0)
				return end;
			if (!end)
				continue;
			c->end = (uint32_t)end;
			kbuffer_load_subbuffer(c->kb, c->page);
			c->lost = kbuffer_missed_events(c->kb);
			c->rec = kbuffer_read_event(c->kb, &c->ts);
			if (c->lost && (c->rec || c->have_last)) {
				uint64_t ts = kbuffer_subbuf_timestamp(c->kb, c->page);

				/* in the task of the page's first event, else the last one */
				if (c->rec && kbuffer_event_size(c->kb) >= 8)
					make_event(c, ev, c->rec, 8);
				else
					make_event(c, ev, NULL, 8);
				ev->kind = UTRACE_EV_LOST;
				ev->id = UTRACE_DAT_NO_ID;
				ev->data = NULL;
				ev->data_len = 0;
				ev->ts = kticks_to_ns(c->d, ts);
				ev->tsc = kticks_to_tsc(c->d, ts);
				ev->lost = c->lost > 0 ? (uint64_t)c->lost : 0;
				ev->flags = c->lost < 0 ? UTRACE_EVF_LOST_UNKNOWN : 0;
				return 1;
			}
			continue;
		}
		size = kbuffer_event_size(c->kb);
		if (size < 8 || rec + size > c->page + c->end) {
			if (!c->warn->count++)
				snprintf(
				    c->warn->first, sizeof(c->warn->first),
				    "%s: kernel page %zu of cpu %u: event of %d bytes past the "
				    "end of the page: page cut short",
				    c->d->path, c->next_page - 1, c->kc->cpu, size);
			c->rec = NULL;
			continue;
		}
		make_event(c, ev, rec, (uint32_t)size);
		c->rec = kbuffer_next_event(c->kb, &c->ts);
		if (dat_own_hit(c->d, ev->tid, ev->tsc)) { /* utrace's own work */
			c->warn->own++;
			continue;
		}
		return 1;
	}
}

size_t dat_kernel_cpu_count(const struct utrace_dat *d)
{
	return d->kern ? d->kern->nr_cpus : 0;
}

struct dat_kcursor *dat_kcursor_new(struct utrace_dat *d, size_t i, struct dat_warnings *warn)
{
	struct dat_kcursor *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->d = d;
	c->kc = &d->kern->cpus[i];
	c->warn = warn;
	c->kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	if (!c->kb) {
		free(c);
		return NULL;
	}
	return c;
}

uint64_t dat_kcursor_first_ns(const struct dat_kcursor *c)
{
	return kticks_to_ns(c->d, c->kc->first_ts);
}

/*
 * A CPU's events come out of its ring buffer in time order, and a page is
 * stamped with the time of its first event: the events of page i lie at
 * or before page i + 1's stamp.  So the pages before the last one stamped
 * before since hold none at or after it; one more page is read before
 * that, in case a nested write (an interrupt's event) stamped a page a
 * little out of order.
 */
uint64_t dat_kcursor_seek(struct dat_kcursor *c, uint64_t since_ns)
{
	const struct kcpu *kc = c->kc;
	size_t lo = 0, hi = kc->nr_pages;

	if (c->next_page || c->rec || !kc->nr_pages)
		return dat_kcursor_first_ns(c); /* started: left as it is */
	while (lo < hi) { /* lo: the pages stamped before since */
		size_t mid = (lo + hi) / 2;

		if (kticks_to_ns(c->d, kc->pages[mid].ts) < since_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	c->next_page = lo > 2 ? lo - 2 : 0;
	return c->next_page ? kticks_to_ns(c->d, kc->pages[c->next_page].ts)
			    : dat_kcursor_first_ns(c);
}

void dat_kcursor_free(struct dat_kcursor *c)
{
	if (!c)
		return;
	if (c->kb)
		kbuffer_free(c->kb);
	free(c->page);
	free(c);
}

/* ---- tasks ---------------------------------------------------------- */

/* A task not in k yet (the pages' pids, kept as a set by the scan). */
static int add_task_new(struct dat_kernel *k, int32_t pid)
{
	struct utrace_dat_ktask *t;

	if (UTRACE_GROW(k->tasks, k->cap_tasks, k->nr_tasks + 1) < 0)
		return -ENOMEM;
	t = &k->tasks[k->nr_tasks++];
	memset(t, 0, sizeof(*t));
	t->pid = t->tgid = pid;
	strcpy(t->comm, pid ? "<...>" : "<idle>");
	return 0;
}

/*
 * The tasks the kernel pages name, where no KTASKS record does (a file
 * still being written, or whose recorder was killed): kept in a kscan
 * (dat_reader.h), the caller's across openings of a growing file (else
 * the reading's own, across its refreshes), which
 * holds them as a set (open addressing, pid + 1 a slot, 0 empty) and
 * each CPU's pages read so far: an opening reads only the pages added
 * since, and the last one read again (it may have been written out
 * before it was full).
 */
struct utrace_dat_kscan {
	uint32_t *set;
	size_t cap, nr; /* slots (a power of two), pids in the set */
	int32_t *pids;	/* in the order found */
	size_t cap_pids;
	struct kscan_cpu {
		uint32_t cpu;
		size_t pages;
	} * cpus;
	size_t nr_cpus, cap_cpus;
};

struct utrace_dat_kscan *utrace_dat_kscan_new(void)
{
	return calloc(1, sizeof(struct utrace_dat_kscan));
}

void utrace_dat_kscan_free(struct utrace_dat_kscan *s)
{
	if (!s)
		return;
	free(s->set);
	free(s->pids);
	free(s->cpus);
	free(s);
}

/* pid added to s: 1 if new, 0 if there, <0 out of memory. */
static int kscan_add(struct utrace_dat_kscan *s, int32_t pid)
{
	size_t i;

	if (2 * (s->nr + 1) > s->cap) { /* grown: every pid placed again */
		size_t cap = s->cap ? 2 * s->cap : 256;
		uint32_t *set = calloc(cap, sizeof(*set));

		if (!set)
			return -ENOMEM;
		for (size_t k = 0; k < s->nr; k++) {
			for (i = ((uint32_t)s->pids[k] * 2654435761u) & (cap - 1); set[i];
			     i = (i + 1) & (cap - 1))
				;
			set[i] = (uint32_t)s->pids[k] + 1;
		}
		free(s->set);
		s->set = set;
		s->cap = cap;
	}
	for (i = ((uint32_t)pid * 2654435761u) & (s->cap - 1); s->set[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->set[i] == (uint32_t)pid + 1)
			return 0;
	if (UTRACE_GROW(s->pids, s->cap_pids, s->nr + 1) < 0)
		return -ENOMEM;
	s->set[i] = (uint32_t)pid + 1;
	s->pids[s->nr++] = pid;
	return 1;
}

/* CPU cpu's entry in s (made if new), NULL if out of memory. */
static struct kscan_cpu *kscan_cpu(struct utrace_dat_kscan *s, uint32_t cpu)
{
	for (size_t i = 0; i < s->nr_cpus; i++)
		if (s->cpus[i].cpu == cpu)
			return &s->cpus[i];
	if (UTRACE_GROW(s->cpus, s->cap_cpus, s->nr_cpus + 1) < 0)
		return NULL;
	s->cpus[s->nr_cpus] = (struct kscan_cpu){cpu, 0};
	return &s->cpus[s->nr_cpus++];
}

static int scan_cpu(struct utrace_dat *d, struct utrace_dat_kscan *s, size_t i,
		    struct dat_warnings *warn)
{
	struct kscan_cpu *sc = kscan_cpu(s, d->kern->cpus[i].cpu);
	struct dat_kcursor *c = sc ? dat_kcursor_new(d, i, warn) : NULL;
	struct utrace_event ev;
	struct utrace_error err;
	int ret;

	if (!c)
		return -ENOMEM;
	c->next_page = sc->pages ? sc->pages - 1 : 0;
	while ((ret = dat_kcursor_next(c, &ev, &err)) > 0)
		if ((ev.kind == UTRACE_EV_EVENT || ev.kind == UTRACE_EV_PRINT) &&
		    kscan_add(s, ev.tid) < 0)
			ret = -ENOMEM;
	if (ret >= 0)
		sc->pages = c->kc->nr_pages;
	dat_kcursor_free(c);
	return ret == -ENOMEM ? ret : 0;
}

/* The tasks the pages added since the last time (d's kscan: the caller's,
 * else its own, kept for a refresh). */
static int scan_tasks(struct utrace_dat *d)
{
	struct dat_kernel *k = d->kern;
	struct dat_warnings warn = {0};
	struct utrace_dat_kscan *s;
	int ret = 0;

	if (!d->kscan) {
		if (!(d->kscan = utrace_dat_kscan_new()))
			return -ENOMEM;
		d->own_kscan = true;
	}
	s = d->kscan;
	for (size_t i = 0; i < k->nr_cpus && ret >= 0; i++)
		ret = scan_cpu(d, s, i, &warn);
	for (; ret >= 0 && k->nr_scanned < s->nr; k->nr_scanned++)
		ret = add_task_new(k, s->pids[k->nr_scanned]);
	return ret;
}

static int cmp_by_pid(const void *a, const void *b, void *arg)
{
	const struct dat_kernel *k = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (k->tasks[x].pid != k->tasks[y].pid)
		return k->tasks[x].pid < k->tasks[y].pid ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_map(const void *a, const void *b)
{
	const struct ktid *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->from_ns != y->from_ns)
		return x->from_ns < y->from_ns ? -1 : 1;
	return x->buf < y->buf ? -1 : x->buf > y->buf;
}

static int cmp_map_r(const void *a, const void *b, void *arg)
{
	(void)arg;
	return cmp_map(a, b);
}

/* a[0..n) and a[n..n + m), each sorted, merged in place, from the end: a
 * refresh's new tasks mostly have the highest pids, so few entries move.
 * 0, or -ENOMEM. */
static int merge_tail(void *base, size_t n, size_t m, size_t size,
		      int (*cmp)(const void *, const void *, void *), void *arg)
{
	char *a = base, *tmp;
	size_t i = n, j = m, o = n + m;

	if (!n || !m)
		return 0;
	if (!(tmp = malloc(m * size)))
		return -ENOMEM;
	memcpy(tmp, a + n * size, m * size);
	while (j > 0) {
		if (i > 0 && cmp(a + (i - 1) * size, tmp + (j - 1) * size, arg) > 0)
			memcpy(a + --o * size, a + --i * size, size);
		else
			memcpy(a + --o * size, tmp + --j * size, size);
	}
	free(tmp);
	return 0;
}

/* Whether buffer u is a user buffer of thread tid. */
static bool user_buf_of(const struct utrace_dat *d, size_t u, int32_t tid)
{
	return !d->buffers[u].info.kernel && d->buffers[u].info.tid == tid;
}

/* Task i's entry in the map, and its buffer (made if new) where no user
 * buffer among the first nr_user has its pid; DAT_READ_ANEW if one has
 * and a KBUF one was made for it before (a fresh open makes none).
 * The map has room. */
static int map_task(struct utrace_dat *d, struct dat_kernel *k, size_t i, size_t nr_user)
{
	const struct utrace_dat_ktask *t = &k->tasks[i];
	struct dat_buffer *b;
	size_t u;

	for (u = 0; u < nr_user && !user_buf_of(d, u, t->pid); u++)
		;
	if (u < nr_user) /* a traced thread: its user buffer */
		return dat_buf_find(d, KBUF_BASE + (uint32_t)i) ? DAT_READ_ANEW : 0;
	if (!(b = dat_buf_find(d, KBUF_BASE + (uint32_t)i))) {
		if (!(b = dat_buf_get(d, KBUF_BASE + (uint32_t)i)))
			return -ENOMEM;
		k->nr_kbufs++;
	}
	b->info.image = UTRACE_DAT_NO_ID;
	b->info.pid = t->tgid;
	b->info.tid = t->pid;
	b->info.kernel = 1;
	b->info.has_stats = 1; /* nothing of it is missing: no user records */
	if (t->comm[0])
		snprintf(b->info.comm, sizeof(b->info.comm), "%s", t->comm);
	k->map[k->nr_map].tid = t->pid;
	k->map[k->nr_map].buf = (uint32_t)(b - d->buffers);
	k->map[k->nr_map++].from_ns = 0;
	return 0;
}

/* The map and by_pid made whole: every user buffer's thread from its
 * first page on, every task's own buffer. */
static int map_build(struct utrace_dat *d, struct dat_kernel *k)
{
	/* the user buffers come first, the KBUF ones after (a refresh that
	 * would put one after those reads the file anew) */
	size_t nr_user = d->nr_buffers - k->nr_kbufs;
	int ret = 0;

	k->nr_map = 0;
	if (UTRACE_GROW(k->map, k->cap_map, nr_user + k->nr_tasks + 1) < 0 ||
	    UTRACE_GROW(k->by_pid, k->cap_by_pid, k->nr_tasks + 1) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < k->nr_tasks; i++)
		k->by_pid[i] = (uint32_t)i;
	qsort_r(k->by_pid, k->nr_tasks, sizeof(*k->by_pid), cmp_by_pid, k);
	for (size_t i = 0; i < nr_user; i++) {
		const struct dat_buffer *b = &d->buffers[i];

		if (b->info.kernel)
			continue;
		k->map[k->nr_map].tid = b->info.tid;
		k->map[k->nr_map].buf = (uint32_t)i;
		k->map[k->nr_map++].from_ns =
		    b->nr_pages ? utrace_dat_tsc_to_ns(d, b->first_tsc) : 0;
	}
	for (size_t i = 0; i < k->nr_tasks && !ret; i++)
		ret = map_task(d, k, i, nr_user);
	qsort(k->map, k->nr_map, sizeof(*k->map), cmp_map);
	return ret;
}

/* The tasks from `from` on added to the map and by_pid, the user buffers
 * unchanged since they were made. */
static int map_add(struct utrace_dat *d, struct dat_kernel *k, size_t from)
{
	size_t nr_user = d->nr_buffers - k->nr_kbufs, n = k->nr_map, m = k->nr_tasks - from;
	int ret = 0;

	if (!m)
		return 0;
	if (UTRACE_GROW(k->map, k->cap_map, n + m + 1) < 0 ||
	    UTRACE_GROW(k->by_pid, k->cap_by_pid, k->nr_tasks + 1) < 0)
		return -ENOMEM;
	for (size_t i = from; i < k->nr_tasks; i++)
		k->by_pid[i] = (uint32_t)i;
	qsort_r(k->by_pid + from, m, sizeof(*k->by_pid), cmp_by_pid, k);
	for (size_t i = from; i < k->nr_tasks && !ret; i++)
		ret = map_task(d, k, i, nr_user);
	if (ret)
		return ret;
	qsort(k->map + n, k->nr_map - n, sizeof(*k->map), cmp_map);
	if (merge_tail(k->by_pid, from, m, sizeof(*k->by_pid), cmp_by_pid, k) < 0 ||
	    merge_tail(k->map, n, k->nr_map - n, sizeof(*k->map), cmp_map_r, NULL) < 0)
		return -ENOMEM;
	return 0;
}

int dat_kernel_finish(struct utrace_dat *d)
{
	struct dat_kernel *k = d->kern;
	size_t from;
	int ret;

	if (!k || !k->nr_cpus)
		return 0;
	k->kstack_id = k->print_id = -1;
	for (size_t i = 0; i < d->nr_evfmts; i++) {
		if (strcmp(d->evfmts[i].system, "ftrace"))
			continue;
		if (!strncmp(d->evfmts[i].text, "name: kernel_stack\n", 19))
			k->kstack_id = d->evfmts[i].id;
		if (!strncmp(d->evfmts[i].text, "name: print\n", 12))
			k->print_id = d->evfmts[i].id;
	}
	if (!k->have_hdr) { /* a file cut short before it: the recorder's defaults */
		k->hdr.subbuf_size = 4096;
		strcpy(k->hdr.clock, "x86-tsc");
	}
	/* a fresh open puts the kernel tasks' buffers after every other */
	if (k->nr_kbufs && d->nr_buffers != k->nr_bufs_mapped)
		return DAT_READ_ANEW;
	from = k->nr_mapped;
	if (!k->have_tasks && scan_tasks(d) < 0)
		return -ENOMEM;
	/* (a refresh: the tasks found since; all again if a buffer changed) */
	ret = !k->map || d->kmap_stale ? map_build(d, k) : map_add(d, k, from);
	k->nr_mapped = k->nr_tasks;
	k->nr_bufs_mapped = d->nr_buffers;
	return ret;
}

void dat_kernel_free(struct utrace_dat *d)
{
	struct dat_kernel *k = d->kern;

	if (!k)
		return;
	for (size_t i = 0; i < k->nr_cpus; i++)
		free(k->cpus[i].pages);
	free(k->cpus);
	free(k->tasks);
	free(k->by_pid);
	free(k->map);
	free(k);
	d->kern = NULL;
}

/* The first task of pid (in the file's order) that has a comm, or NULL. */
static const struct utrace_dat_ktask *task_named(const struct dat_kernel *k, int pid)
{
	size_t lo = 0, hi = k->by_pid ? k->nr_tasks : 0;

	while (lo < hi) { /* first index with this pid */
		size_t mid = (lo + hi) / 2;

		if (k->tasks[k->by_pid[mid]].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < k->nr_tasks && k->by_pid && k->tasks[k->by_pid[lo]].pid == pid; lo++)
		if (k->tasks[k->by_pid[lo]].comm[0])
			return &k->tasks[k->by_pid[lo]];
	return NULL;
}

/* A task's name: the kernel's, else its buffer's (the last one; looked up
 * in the sorted tables: a reader names every kernel record's task). */
const char *utrace_dat_comm(const struct utrace_dat *d, int pid)
{
	const struct dat_kernel *k = d->kern;
	const struct utrace_dat_ktask *t = k ? task_named(k, pid) : NULL;
	uint32_t b = k && k->map ? task_buf(k, pid, UINT64_MAX) : UINT32_MAX;

	if (t)
		return t->comm;
	if (b != UINT32_MAX && b < d->nr_buffers)
		return d->buffers[b].info.comm;
	for (size_t i = d->nr_buffers; !(k && k->map) && i-- > 0;)
		if (d->buffers[i].info.tid == pid)
			return d->buffers[i].info.comm;
	for (size_t i = 0; i < d->nr_live_names; i++)
		if (d->live_names[i].pid == pid && d->live_names[i].comm[0])
			return d->live_names[i].comm;
	return NULL;
}

void utrace_dat_name_ktasks(struct utrace_dat *d, const struct utrace_dat_ktask *names,
			    size_t n)
{
	struct dat_kernel *k = d->kern;

	/* a task none of whose records the file has (its events read but
	 * not saved: a hist's .execname of it, as the kernel's comm of the
	 * task that hit) */
	free(d->live_names);
	d->live_names = NULL;
	d->nr_live_names = 0;
	if (n && (d->live_names = malloc(n * sizeof(*names)))) {
		memcpy(d->live_names, names, n * sizeof(*names));
		for (size_t i = 0; i < n; i++)
			d->live_names[i].comm[sizeof(names[i].comm) - 1] = 0;
		d->nr_live_names = n;
	}

	for (size_t i = 0; k && !k->have_tasks && i < k->nr_tasks; i++) {
		struct utrace_dat_ktask *t = &k->tasks[i];
		struct dat_buffer *b = dat_buf_find(d, KBUF_BASE + (uint32_t)i);
		size_t j;

		for (j = 0; j < n && (names[j].pid != t->pid || !names[j].comm[0]); j++)
			;
		if (j == n)
			continue;
		memcpy(t->comm, names[j].comm, sizeof(t->comm));
		t->comm[sizeof(t->comm) - 1] = 0;
		if (names[j].tgid > 0)
			t->tgid = names[j].tgid;
		if (b && b->info.kernel) {
			snprintf(b->info.comm, sizeof(b->info.comm), "%s", t->comm);
			b->info.pid = t->tgid;
		}
	}
}

int utrace_dat_tgid(const struct utrace_dat *d, int pid)
{
	const struct dat_kernel *k = d->kern;

	for (size_t i = 0; k && i < k->nr_tasks; i++)
		if (k->tasks[i].pid == pid && k->tasks[i].tgid > 0)
			return k->tasks[i].tgid;
	for (size_t i = d->nr_buffers; i-- > 0;)
		if (d->buffers[i].info.tid == pid && !d->buffers[i].info.kernel)
			return d->buffers[i].info.pid;
	return -1;
}

const char *utrace_dat_kernel_clock(const struct utrace_dat *d)
{
	return d->kern && d->kern->nr_cpus ? d->kern->hdr.clock : NULL;
}
