/* SPDX-License-Identifier: MIT */
/*
 * sampler.c - sampling a command with perf_event_open (sampler.h).
 *
 * Design: one cpu-clock software event per CPU (a VM has no PMU; cpu-clock
 * is what perf record falls back to), pid = the command, inherit = 1, so
 * every thread it creates is sampled by the event of the CPU it runs on.
 * Each event has its own ring buffer, mapped read-write so that we own
 * data_tail (the kernel then never overwrites unread records; it counts
 * what it could not write and says so in a PERF_RECORD_LOST):
 *
 *   +------------+-----------------------------------------------+
 *   | meta page  | data: 2^n pages, records wrap around the end  |
 *   +------------+-----------------------------------------------+
 *     data_head: written by the kernel; read with acquire, then the data
 *     data_tail: written by us with release, after we copied the data
 *
 * The barriers are those of tools/include/linux/ring_buffer.h: the
 * acquire on data_head orders the record reads after it; the release on
 * data_tail orders them before the kernel may reuse the room.  A drain
 * copies what is there into one linear buffer (a record that wraps is
 * made whole) and hands it out as it is.
 *
 * --off-cpu adds a second event per CPU, context switches with a period of
 * one and the switch records (context_switch), on rings of their own whose
 * records go to lib/sample/offcpu.c instead of out: what is saved is the
 * off-CPU samples made from them.
 */
#include <errno.h>
#include <linux/perf_event.h>
#if defined(__x86_64__)
#include <asm/perf_regs.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/grow.h"
#include "lib/sample/ksyms.h"
#include "lib/sample/offcpu.h"
#include "lib/sample/sampler.h"

#define DATA_PAGES 128 /* 512 KiB per CPU: ~2 s of 999 Hz samples with 64 frames */
/* With stack copies (8 KiB a sample by default): 2 MiB, still ~250 ms at
 * 999 Hz, against a drain every millisecond or so. */
#define DWARF_PAGES 512

struct ring {
	int fd;
	int *more; /* -p PID: the events of its other threads, output to this ring */
	unsigned nr_more, cap_more;
	void *base;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t size; /* of data, a power of two */
};

struct utrace_sampler {
	struct ring *rings;
	struct ring *cs; /* --off-cpu: the context-switch events, NULL without */
	struct utrace_offcpu *offcpu;
	struct utrace_ksyms *ksyms; /* the kernel's addresses met, NULL if user only */
	uint64_t last_drain;	    /* ns: switches before it are all written */
	unsigned nr;
	struct utrace_sampler_attr attr;
	unsigned char *chunk; /* a drain's copy, pages pages */
	uint64_t samples, lost;
	long page;
	unsigned pages; /* of a ring's data */
};

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
				unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

uint64_t utrace_sampler_dwarf_regs(void)
{
#if defined(__x86_64__)
	/* ax bx cx dx si di bp sp ip, r8-r15: not flags nor the segments */
	return ((1ull << (PERF_REG_X86_IP + 1)) - 1) |
	       (((1ull << (PERF_REG_X86_R15 + 1)) - 1) & ~((1ull << PERF_REG_X86_R8) - 1));
#else
	return 0;
#endif
}

static void make_attr(struct perf_event_attr *a, const struct utrace_sampler_opts *o)
{
	bool system = o->target == UTRACE_SAMPLE_SYSTEM;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->freq = 1;
	a->sample_freq = o->freq;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD | (o->callchain ? PERF_SAMPLE_CALLCHAIN : 0);
	if (o->stack_size) {
		/* perf's dwarf mode: the user part by the unwinder, the
		 * kernel's (when not excluded) by the kernel */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
				  (o->user_only ? 0 : PERF_SAMPLE_CALLCHAIN);
		a->sample_regs_user = utrace_sampler_dwarf_regs();
		a->sample_stack_user = o->stack_size;
		a->exclude_callchain_user = 1;
	}
	/* a held child starts at its exec; a running process or the system now */
	a->disabled = o->target == UTRACE_SAMPLE_EXEC;
	a->enable_on_exec = o->target == UTRACE_SAMPLE_EXEC;
	a->inherit = !system;
	a->mmap = 1;
	a->comm = 1;
	a->task = 1;
	a->sample_id_all = 0;
	a->exclude_kernel = o->user_only;
	a->exclude_hv = 1;
	/* the kernel's part of the stack, named from /proc/kallsyms (the
	 * recorder saves the symbols), unless the kernel is left out */
	a->exclude_callchain_kernel = o->user_only;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 0;
	a->wakeup_events = 0;
}

/* The context-switch event of --off-cpu: a sample with the user stack at
 * each switch-out, a PERF_RECORD_SWITCH at each switch-in.  The switch
 * happens in the kernel, so the kernel is not excluded (the kernel's
 * stack is: the user's is what names the blocked code). */
static void make_cs_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a->sample_period = 1;
	a->sample_type = UTRACE_OFFCPU_CS_TYPE;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->context_switch = 1;
	a->sample_id_all = 1;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

static int open_ring(struct utrace_sampler *s, struct ring *r, struct perf_event_attr *a, pid_t pid,
		     unsigned cpu, struct utrace_error *err)
{
	long fd = sys_perf_event_open(a, pid, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
	size_t len = (size_t)(s->pages + 1) * (size_t)s->page;

	if (fd < 0) {
		int e = errno;

		if (e == EACCES || e == EPERM) /* perf's limits: the system needs <= 0 */
			return utrace_error_set(err, -e,
						"perf_event_open: %s (sampling %s needs root or "
						"kernel.perf_event_paranoid <= %d)",
						strerror(e), pid < 0 ? "every CPU" : "a process",
						pid < 0 ? 0 : a->exclude_kernel ? 2 : 1);
		return utrace_error_set(err, -e, "perf_event_open (cpu-clock sampling, cpu %u): %s",
					cpu, strerror(e));
	}
	r->fd = (int)fd;
	r->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->base == MAP_FAILED) {
		int e = errno;

		r->base = NULL;
		return utrace_error_set(err, -e, "mmap of the perf ring buffer: %s", strerror(e));
	}
	r->meta = r->base;
	r->data = (unsigned char *)r->base + s->page;
	r->size = (uint64_t)s->pages * (uint64_t)s->page;
	return 0;
}

static int open_cs(struct utrace_sampler *s, pid_t pid, unsigned ncpu, struct utrace_error *err)
{
	struct perf_event_attr a;
	int ret = 0;

	s->cs = calloc(ncpu, sizeof(*s->cs));
	s->offcpu = utrace_offcpu_new();
	if (!s->cs || !s->offcpu)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (unsigned cpu = 0; cpu < ncpu; cpu++)
		s->cs[cpu].fd = -1;
	make_cs_attr(&a);
	for (unsigned cpu = 0; ret == 0 && cpu < ncpu; cpu++)
		ret = open_ring(s, &s->cs[cpu], &a, pid, cpu, err);
	return ret;
}

/* -p PID: the event of each other thread of pid on cpu, its records sent
 * to r's ring (PERF_EVENT_IOC_SET_OUTPUT), so a ring per CPU serves all;
 * a thread gone meanwhile is skipped. */
static int open_threads(struct ring *r, struct perf_event_attr *a, pid_t pid, unsigned cpu,
			struct utrace_error *err)
{
	char path[64];
	struct dirent *de;
	DIR *dir;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(dir = opendir(path)))
		return utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	while (ret == 0 && (de = readdir(dir))) {
		long tid = strtol(de->d_name, NULL, 10), fd;

		if (tid <= 0 || tid == pid)
			continue;
		fd = sys_perf_event_open(a, (pid_t)tid, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			continue;
		if (UTRACE_GROW(r->more, r->cap_more, (size_t)r->nr_more + 1) < 0) {
			close((int)fd);
			ret = utrace_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		r->more[r->nr_more++] = (int)fd;
		if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0)
			ret = utrace_error_set(err, -errno, "perf_event_open: thread %ld: %s", tid,
					       strerror(errno));
	}
	closedir(dir);
	return ret;
}

static int open_rings(struct utrace_sampler *s, const struct utrace_sampler_opts *o, pid_t pid,
		      struct perf_event_attr *a, unsigned ncpu, struct utrace_error *err)
{
	int ret = 0;

	if (o->target == UTRACE_SAMPLE_SYSTEM)
		pid = -1;
	for (unsigned cpu = 0; ret == 0 && cpu < ncpu; cpu++) {
		ret = open_ring(s, &s->rings[cpu], a, pid, cpu, err);
		s->nr = cpu + 1;
		if (ret == 0 && o->target == UTRACE_SAMPLE_PROCESS)
			ret = open_threads(&s->rings[cpu], a, pid, cpu, err);
	}
	return ret;
}

int utrace_sampler_open(pid_t pid, const struct utrace_sampler_opts *o, struct utrace_sampler **out,
			struct utrace_error *err)
{
	struct utrace_sampler *s = calloc(1, sizeof(*s));
	struct perf_event_attr a;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int ret = 0;

	*out = NULL;
	if (ncpu < 1)
		ncpu = 1;
	if (!s || !(s->rings = calloc((size_t)ncpu, sizeof(*s->rings)))) {
		free(s);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	for (long i = 0; i < ncpu; i++)
		s->rings[i].fd = -1;
	s->page = sysconf(_SC_PAGESIZE);
	s->pages = o->stack_size ? DWARF_PAGES : DATA_PAGES;
	s->chunk = malloc((size_t)s->pages * (size_t)s->page);
	if (!s->chunk)
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	if (ret == 0 && o->stack_size && !utrace_sampler_dwarf_regs())
		ret = utrace_error_set(err, -ENOTSUP,
				       "--call-graph dwarf: not supported on this architecture");
	make_attr(&a, o);
	if (ret == 0)
		ret = open_rings(s, o, pid, &a, (unsigned)ncpu, err);
	if (ret == 0 && o->off_cpu)
		ret = open_cs(s, pid, (unsigned)ncpu, err);
	if (ret == 0 && !o->user_only && !(s->ksyms = utrace_ksyms_new()))
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	if (ret < 0) {
		utrace_sampler_close(s);
		return ret;
	}
	s->attr = (struct utrace_sampler_attr){a.sample_type, o->freq, (uint32_t)ncpu,
					       a.sample_regs_user, a.sample_stack_user};
	*out = s;
	return 0;
}

void utrace_sampler_attr(const struct utrace_sampler *s, struct utrace_sampler_attr *a)
{
	*a = s->attr;
}

/* Counts the samples and losses of len bytes of records. */
static void count(struct utrace_sampler *s, const unsigned char *p, size_t len)
{
	size_t off = 0;

	while (off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_SAMPLE)
			s->samples++;
		else if (h.type == PERF_RECORD_LOST && off + 24 <= len) {
			uint64_t lost;

			memcpy(&lost, p + off + 16, 8); /* {header, u64 id, u64 lost} */
			s->lost += lost;
		}
		off += h.size;
	}
}

static int drain_ring(struct utrace_sampler *s, struct ring *r, unsigned cpu, utrace_sampler_fn fn,
		      void *arg, struct utrace_error *err)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail, len = head - tail, at = tail & (r->size - 1);
	int ret = 0;

	if (!len)
		return 0;
	if (len > r->size) /* cannot happen with data_tail ours; be safe */
		len = r->size;
	if (at + len <= r->size) {
		memcpy(s->chunk, r->data + at, len);
	} else {
		memcpy(s->chunk, r->data + at, r->size - at);
		memcpy(s->chunk + (r->size - at), r->data, len - (r->size - at));
	}
	__atomic_store_n(&r->meta->data_tail, tail + len, __ATOMIC_RELEASE);
	if (r >= s->rings && r < s->rings + s->nr) {
		count(s, s->chunk, len);
		if (s->ksyms && utrace_ksyms_add(s->ksyms, s->attr.sample_type, s->chunk, len) < 0)
			return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	if (fn)
		ret = fn(arg, cpu, s->chunk, len, err);
	return ret;
}

static int feed_offcpu(void *arg, uint32_t cpu, const void *records, size_t len,
		       struct utrace_error *err)
{
	(void)cpu;
	if (utrace_offcpu_feed(arg, records, len) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

/* The context switches, paired up to the previous drain (offcpu.h). */
static int drain_offcpu(struct utrace_sampler *s, utrace_sampler_fn fn, bool last, void *arg,
			struct utrace_error *err)
{
	struct timespec now;
	const void *rec;
	size_t len;
	int ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	for (unsigned cpu = 0; ret == 0 && cpu < s->nr; cpu++)
		if (s->cs[cpu].meta)
			ret = drain_ring(s, &s->cs[cpu], cpu, feed_offcpu, s->offcpu, err);
	if (ret == 0 &&
	    utrace_offcpu_flush(s->offcpu, last ? UINT64_MAX : s->last_drain, &rec, &len) < 0)
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	s->last_drain = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	if (ret == 0 && len && fn)
		ret = fn(arg, 0, rec, len, err);
	return ret;
}

int utrace_sampler_drain(struct utrace_sampler *s, utrace_sampler_fn fn,
			 utrace_sampler_fn offcpu_fn, bool last, void *arg,
			 struct utrace_error *err)
{
	int ret = 0;

	for (unsigned cpu = 0; ret == 0 && cpu < s->nr; cpu++)
		if (s->rings[cpu].meta)
			ret = drain_ring(s, &s->rings[cpu], cpu, fn, arg, err);
	if (ret == 0 && s->cs)
		ret = drain_offcpu(s, offcpu_fn, last, arg, err);
	return ret;
}

int utrace_sampler_ksyms(struct utrace_sampler *s, void **out, size_t *len,
			 struct utrace_error *err)
{
	*out = NULL;
	*len = 0;
	return s->ksyms ? utrace_ksyms_resolve(s->ksyms, NULL, out, len, err) : 0;
}

void utrace_sampler_stats(const struct utrace_sampler *s, uint64_t *samples, uint64_t *lost,
			  uint64_t *offcpu)
{
	*samples = s->samples;
	*lost = s->lost;
	if (offcpu)
		*offcpu = s->offcpu ? utrace_offcpu_samples(s->offcpu) : 0;
}

static void close_ring(struct utrace_sampler *s, struct ring *r)
{
	if (r->base)
		munmap(r->base, (size_t)(s->pages + 1) * (size_t)s->page);
	if (r->fd >= 0)
		close(r->fd);
	for (unsigned i = 0; i < r->nr_more; i++)
		close(r->more[i]);
	free(r->more);
}

void utrace_sampler_close(struct utrace_sampler *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->nr; i++) {
		close_ring(s, &s->rings[i]);
		if (s->cs)
			close_ring(s, &s->cs[i]);
	}
	free(s->rings);
	free(s->cs);
	utrace_offcpu_free(s->offcpu);
	utrace_ksyms_free(s->ksyms);
	free(s->chunk);
	free(s);
}
