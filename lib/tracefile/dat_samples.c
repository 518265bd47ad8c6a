/* SPDX-License-Identifier: MIT */
/*
 * dat_samples.c - the samples of a utrace.dat (dat_samples.h).
 *
 * Design: like the PAGE records, the PERF records are only indexed when
 * the file is opened (file offset, length, CPU); utrace_dat_samples_each()
 * reads them one block at a time with pread, so memory holds one block,
 * whatever the number of samples.  The first call also collects what the
 * kernel reported besides samples (MMAP, COMM, FORK) into small tables:
 * the maps of each process, in the order they were made (the latest that
 * covers an address wins, as after a munmap and a new mmap), each
 * thread's name, each child's parent.  Every record is checked against
 * its block before it is read: a damaged one ends its block with a
 * warning.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefile/dat_internal.h"
#include "lib/tracefile/dat_samples.h"
#include "lib/tracefile/perf_sample.h"

struct dat_block {
	uint64_t off; /* of the records, after struct utrace_dat_perf */
	uint32_t len, cpu;
	bool offcpu; /* UTRACE_DAT_PERF_OFFCPU's samples */
};

struct dat_map {
	int32_t pid;
	uint64_t start, len, pgoff;
	char *path;
};

struct dat_comm {
	int32_t tid;
	char comm[16];
};

struct dat_fork {
	int32_t pid, ppid;
};

struct dat_ksym {
	uint64_t start;
	const char *name; /* in ksym_text */
};

struct dat_samples {
	struct utrace_dat_perf_attr attr;
	bool have_attr, scanned;
	struct dat_block *blocks;
	size_t nr_blocks, cap_blocks;
	struct dat_map *maps;
	size_t nr_maps, cap_maps;
	struct dat_comm *comms;
	size_t nr_comms, cap_comms;
	struct dat_fork *forks;
	size_t nr_forks, cap_forks;
	uint64_t lost;
	struct utrace_perf_parser parser; /* one sample's chain and registers */
	char *ksym_text;		  /* the PERF_KSYMS payload, NUL-terminated */
	struct dat_ksym *ksyms;
	size_t nr_ksyms;
	struct dat_sgraph *sgraph; /* dat_samples_graph.c's, freed by sgraph_free */
	void (*sgraph_free)(struct dat_sgraph *g);
	dat_sample_fix_fn fix; /* of the current pass */
	uint64_t sample_no;    /* of the current pass, in file order */
};

static struct dat_samples *samples(struct utrace_dat *d)
{
	if (!d->samples)
		d->samples = calloc(1, sizeof(*d->samples));
	return d->samples;
}

int dat_samples_attr(struct utrace_dat *d, const char *p, uint32_t len, uint64_t off)
{
	struct dat_samples *s = samples(d);

	if (!s)
		return -ENOMEM;
	if (len < offsetof(struct utrace_dat_perf_attr, regs_user)) {
		dat_warn(d, "%s: record at offset %llu (type %u): too short: skipped", d->path,
			 (unsigned long long)off, UTRACE_DAT_PERF_ATTR);
		return 0;
	}
	/* an older, shorter one: no stack copies (the rest zero) */
	memcpy(&s->attr, p, len < sizeof(s->attr) ? len : sizeof(s->attr));
	s->have_attr = true;
	return 0;
}

int dat_samples_index(struct utrace_dat *d, const unsigned char *head, size_t n, uint32_t len,
		      uint64_t off, bool offcpu)
{
	struct dat_samples *s = samples(d);
	struct utrace_dat_perf hdr;

	if (!s)
		return -ENOMEM;
	if (len < sizeof(hdr) || n < sizeof(struct utrace_dat_rec) + sizeof(hdr)) {
		dat_warn(d, "%s: record at offset %llu (type %u): too short: skipped", d->path,
			 (unsigned long long)off, UTRACE_DAT_PERF);
		return 0;
	}
	memcpy(&hdr, head + sizeof(struct utrace_dat_rec), sizeof(hdr));
	if (UTRACE_GROW(s->blocks, s->cap_blocks, s->nr_blocks + 1))
		return -ENOMEM;
	s->blocks[s->nr_blocks++] =
	    (struct dat_block){off + sizeof(struct utrace_dat_rec) + sizeof(hdr),
			       len - (uint32_t)sizeof(hdr), hdr.cpu, offcpu};
	return 0;
}

static int by_start(const void *a, const void *b)
{
	uint64_t x = ((const struct dat_ksym *)a)->start, y = ((const struct dat_ksym *)b)->start;

	return x < y ? -1 : x > y;
}

int dat_samples_ksyms(struct utrace_dat *d, const char *p, uint32_t len)
{
	struct dat_samples *s = samples(d);
	size_t at = 0, n = 0;
	char *t;

	if (!s || !(t = malloc((size_t)len + 1)))
		return -ENOMEM;
	memcpy(t, p, len);
	t[len] = 0; /* a name cut short ends at the end */
	free(s->ksym_text);
	free(s->ksyms);
	s->ksym_text = t;
	s->ksyms = malloc((len / 9 + 1) * sizeof(*s->ksyms));
	s->nr_ksyms = 0;
	if (!s->ksyms)
		return -ENOMEM;
	while (at + 8 < len) { /* {u64 start, name NUL} */
		memcpy(&s->ksyms[n].start, t + at, 8);
		s->ksyms[n++].name = t + at + 8;
		at += 8 + strlen(t + at + 8) + 1;
	}
	qsort(s->ksyms, n, sizeof(*s->ksyms), by_start); /* sorted as written, unless damaged */
	s->nr_ksyms = n;
	return 0;
}

const char *utrace_dat_sample_ksym(struct utrace_dat *d, uint64_t addr, uint64_t *start)
{
	const struct dat_samples *s = d->samples;
	size_t lo = 0, hi = s ? s->nr_ksyms : 0;

	while (lo < hi) { /* the first symbol above addr */
		size_t mid = (lo + hi) / 2;

		if (s->ksyms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	*start = s->ksyms[lo - 1].start;
	return s->ksyms[lo - 1].name;
}

struct dat_sgraph **dat_samples_sgraph(struct utrace_dat *d,
				       void (**free_fn)(struct dat_sgraph *g))
{
	if (!d->samples || !d->samples->have_attr)
		return NULL;
	if (free_fn)
		d->samples->sgraph_free = *free_fn;
	return &d->samples->sgraph;
}

void dat_samples_free(struct utrace_dat *d)
{
	struct dat_samples *s = d->samples;

	if (!s)
		return;
	if (s->sgraph_free)
		s->sgraph_free(s->sgraph);
	for (size_t i = 0; i < s->nr_maps; i++)
		free(s->maps[i].path);
	free(s->maps);
	free(s->blocks);
	free(s->comms);
	free(s->forks);
	utrace_perf_parser_free(&s->parser);
	free(s->ksym_text);
	free(s->ksyms);
	free(s);
	d->samples = NULL;
}

bool utrace_dat_has_samples(const struct utrace_dat *d, uint32_t *freq, bool *user_only)
{
	const struct dat_samples *s = d->samples;

	if (!s || !s->have_attr)
		return false;
	if (freq)
		*freq = s->attr.freq;
	if (user_only)
		*user_only = s->attr.flags & UTRACE_DAT_PERF_USER_ONLY;
	return true;
}

bool utrace_dat_samples_have_chains(const struct utrace_dat *d)
{
	const struct dat_samples *s = d->samples;

	return s && s->have_attr &&
	       (s->attr.sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER));
}

bool utrace_dat_samples_have_stacks(const struct utrace_dat *d)
{
	const struct dat_samples *s = d->samples;

	return s && s->have_attr && (s->attr.sample_type & PERF_SAMPLE_STACK_USER);
}

/* ---- the records besides samples ---- */

static int add_map(struct dat_samples *s, const unsigned char *r, size_t size)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
	} m;
	size_t fixed = sizeof(struct perf_event_header) + sizeof(m);
	char *path;

	if (size <= fixed)
		return 1;
	memcpy(&m, r + sizeof(struct perf_event_header), sizeof(m));
	path = strndup((const char *)r + fixed, size - fixed);
	if (!path || UTRACE_GROW(s->maps, s->cap_maps, s->nr_maps + 1)) {
		free(path);
		return -ENOMEM;
	}
	s->maps[s->nr_maps++] = (struct dat_map){(int32_t)m.pid, m.addr, m.len, m.pgoff, path};
	return 0;
}

static const char *comm_of(const struct dat_samples *s, int32_t tid)
{
	for (size_t i = 0; s && i < s->nr_comms; i++)
		if (s->comms[i].tid == tid)
			return s->comms[i].comm;
	return NULL;
}

/* Thread c->tid is called c->comm from now on. */
static int set_comm(struct dat_samples *s, const struct dat_comm *c)
{
	size_t i;

	for (i = 0; i < s->nr_comms; i++)
		if (s->comms[i].tid == c->tid)
			break;
	if (i == s->nr_comms &&
	    UTRACE_GROW(s->comms, s->cap_comms, s->nr_comms + 1))
		return -ENOMEM;
	s->comms[i] = *c;
	s->nr_comms += i == s->nr_comms;
	return 0;
}

static int add_comm(struct dat_samples *s, const unsigned char *r, size_t size)
{
	struct dat_comm c = {0};
	uint32_t ids[2];
	size_t fixed = sizeof(struct perf_event_header) + sizeof(ids);

	if (size <= fixed)
		return 1;
	memcpy(ids, r + sizeof(struct perf_event_header), sizeof(ids));
	c.tid = (int32_t)ids[1];
	memcpy(c.comm, r + fixed, size - fixed < 15 ? size - fixed : 15);
	return set_comm(s, &c);
}

static int add_fork(struct dat_samples *s, const unsigned char *r, size_t size)
{
	uint32_t ids[4]; /* pid, ppid, tid, ptid */

	if (size < sizeof(struct perf_event_header) + sizeof(ids))
		return 1;
	memcpy(ids, r + sizeof(struct perf_event_header), sizeof(ids));
	if (ids[0] == ids[1]) { /* a new thread: named as the one that made it */
		const char *comm = comm_of(s, (int32_t)ids[3]);
		struct dat_comm c = {.tid = (int32_t)ids[2]};

		if (!comm || comm_of(s, c.tid))
			return 0;
		memcpy(c.comm, comm, sizeof(c.comm) - 1);
		return set_comm(s, &c);
	}
	if (UTRACE_GROW(s->forks, s->cap_forks, s->nr_forks + 1))
		return -ENOMEM;
	s->forks[s->nr_forks++] = (struct dat_fork){(int32_t)ids[0], (int32_t)ids[1]};
	return 0;
}

/* ---- samples (their layout: perf_sample.c) ---- */

/* What one block holds; samples go to fn when fn is set. */
static int walk_block(struct utrace_dat *d, const unsigned char *b, size_t len,
		      const struct dat_block *bl,
		      int (*fn)(void *, const struct utrace_dat_sample *, struct utrace_error *),
		      void *arg, struct utrace_error *err)
{
	struct dat_samples *s = d->samples;
	size_t off = 0;
	int ret = 0;

	while (ret == 0 && off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;
		struct utrace_dat_sample smp;
		uint64_t lost[2];

		memcpy(&h, b + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off) {
			ret = 1;
			break;
		}
		if (h.type == PERF_RECORD_SAMPLE && fn) {
			s->parser.regs_user = s->attr.regs_user;
			ret = utrace_perf_parse_sample(&s->parser,
						       bl->offcpu ? UTRACE_DAT_OFFCPU_SAMPLE_TYPE
								  : s->attr.sample_type,
						       b + off, h.size, &smp);
			smp.offcpu = bl->offcpu;
			if (ret == 0) {
				if (!bl->offcpu && !(s->attr.sample_type & PERF_SAMPLE_CPU))
					smp.cpu = bl->cpu;
				smp.nr_graph_rets = 0;
				smp.graph_rets = NULL;
				if (s->fix)
					s->fix(d, s->sample_no, &smp);
				s->sample_no++;
				ret = fn(arg, &smp, err);
				if (ret > 0) /* the caller's stop, not damage */
					return ret;
			}
		} else if (!fn && h.type == PERF_RECORD_MMAP) {
			ret = add_map(s, b + off, h.size);
		} else if (!fn && h.type == PERF_RECORD_COMM) {
			ret = add_comm(s, b + off, h.size);
		} else if (!fn && h.type == PERF_RECORD_FORK) {
			ret = add_fork(s, b + off, h.size);
		} else if (!fn && h.type == PERF_RECORD_LOST &&
			   h.size >= sizeof(h) + sizeof(lost)) {
			memcpy(lost, b + off + sizeof(h), sizeof(lost));
			s->lost += lost[1];
		}
		off += h.size;
	}
	if (ret == 1) {
		dat_warn(d, "%s: a damaged sample record (cpu %u): the rest of its block skipped",
			 d->path, bl->cpu);
		return 0;
	}
	return ret;
}

/* One pass over every block: the tables (fn NULL) or the samples. */
static int each_block(struct utrace_dat *d,
		      int (*fn)(void *, const struct utrace_dat_sample *, struct utrace_error *),
		      void *arg, struct utrace_error *err)
{
	struct dat_samples *s = d->samples;
	unsigned char *buf = NULL;
	size_t cap = 0;
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < s->nr_blocks; i++) {
		const struct dat_block *bl = &s->blocks[i];

		if (UTRACE_GROW(buf, cap, bl->len) < 0) {
			ret = utrace_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		ret = dat_pread(d, buf, bl->len, bl->off, err);
		if (ret == 0)
			ret = walk_block(d, buf, bl->len, bl, fn, arg, err);
		if (ret == -ENOMEM)
			utrace_error_set(err, ret, "out of memory");
	}
	free(buf);
	return ret;
}

static int scan_tables(struct utrace_dat *d, struct utrace_error *err)
{
	int ret;

	if (d->samples->scanned)
		return 0;
	ret = each_block(d, NULL, NULL, err);
	if (ret == 0)
		d->samples->scanned = true;
	return ret;
}

int dat_samples_each(struct utrace_dat *d,
		     int (*fn)(void *arg, const struct utrace_dat_sample *s, struct utrace_error *err),
		     void *arg, uint64_t *lost, dat_sample_fix_fn fix, struct utrace_error *err)
{
	int ret;

	*lost = 0;
	if (!d->samples || !d->samples->have_attr)
		return 0;
	if (d->samples->attr.sample_type & ~(uint64_t)UTRACE_PERF_KNOWN_SAMPLE)
		return utrace_error_set(err, -ENOTSUP,
					"%s: the samples hold fields this utrace cannot read "
					"(sample_type %#llx)",
					d->path, (unsigned long long)d->samples->attr.sample_type);
	ret = scan_tables(d, err);
	d->samples->sample_no = 0;
	d->samples->fix = fix;
	if (ret == 0)
		ret = each_block(d, fn, arg, err);
	d->samples->fix = NULL;
	*lost = d->samples->lost;
	return ret;
}

static int count_one(void *arg, const struct utrace_dat_sample *s, struct utrace_error *err)
{
	(void)s;
	(void)err;
	++*(uint64_t *)arg;
	return 0;
}

int utrace_dat_sample_count(struct utrace_dat *d, uint64_t *n, struct utrace_error *err)
{
	uint64_t lost;

	*n = 0;
	if (!utrace_dat_has_samples(d, NULL, NULL))
		return 0;
	return dat_samples_each(d, count_one, n, &lost, NULL, err); /* no chains needed */
}

static const struct dat_map *find_map(const struct dat_samples *s, int32_t pid, uint64_t ip)
{
	for (size_t i = s->nr_maps; i-- > 0;) {
		const struct dat_map *m = &s->maps[i];

		if (m->pid == pid && ip >= m->start && ip - m->start < m->len)
			return m;
	}
	return NULL;
}

const char *utrace_dat_sample_mapping(struct utrace_dat *d, int32_t pid, uint64_t ip,
				      struct utrace_dat_mapping *out)
{
	const struct dat_samples *s = d->samples;
	const struct dat_map *m = NULL;

	if (!s || !s->scanned)
		return NULL;
	/* a child sees its parent's maps until it makes its own (exec) */
	for (int hops = 0; !m && hops < 64; hops++) {
		size_t i;

		m = find_map(s, pid, ip);
		for (i = 0; !m && i < s->nr_forks && s->forks[i].pid != pid; i++)
			;
		if (m || i == s->nr_forks)
			break;
		pid = s->forks[i].ppid;
	}
	if (!m)
		return NULL;
	*out = (struct utrace_dat_mapping){m->start, m->len, m->pgoff, m->path};
	return m->path;
}

const char *utrace_dat_sample_map(struct utrace_dat *d, int32_t pid, uint64_t ip,
				  uint64_t *file_off)
{
	struct utrace_dat_mapping m;

	if (!utrace_dat_sample_mapping(d, pid, ip, &m))
		return NULL;
	*file_off = ip - m.start + m.pgoff;
	return m.path;
}

const char *utrace_dat_sample_comm(struct utrace_dat *d, int32_t tid)
{
	return comm_of(d->samples, tid);
}
