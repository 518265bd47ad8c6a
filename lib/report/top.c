/* SPDX-License-Identifier: MIT */
/*
 * top.c - utrace top's live profile (top.h).
 *
 * Design: a drain hands the sampler's records to the shared sample parser
 * (lib/tracefile/perf_sample.h), and each sample to report --samples'
 * accounting (samples_add, samples_internal.h) with a struct report whose
 * names come from the live system instead of a recording
 * (struct samples_names):
 *
 *   user address   /proc/PID/maps, read when a pid is first met and again
 *                  (once a screen) when an address falls outside what was
 *                  read (a new mapping); the file's symbols as the report
 *                  loads them, once per file
 *   kernel address /proc/kallsyms, read once (lib/sample/ksyms.h)
 *
 * A screen sorts the entries and prints perf top --stdio's header and
 * rows.  Counts add up from the start, or each screen alone with -z.
 * A process gone keeps the maps last read: its late samples still name.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/report/samples_internal.h"
#include "lib/report/top.h"
#include "lib/sample/ksyms.h"
#include "lib/tracefile/perf_sample.h"

struct pmap {
	uint64_t start, end, off;
	char *path;
};

struct proc {
	int32_t pid;
	struct pmap *v;
	size_t nr, cap;
	uint64_t screen; /* when the maps were last read */
	struct proc *next;
};

struct utrace_top {
	struct utrace_top_opts o;
	struct utrace_sampler *sp;
	struct utrace_sampler_attr attr;
	struct utrace_perf_parser parser;
	struct utrace_samples_opts so;
	struct report r;
	struct dso *dsos;
	struct proc *procs;
	struct utrace_kallsyms *ks; /* NULL: the kernel left out or hidden */
	uint64_t screen;
	uint64_t samples, kernel; /* since the last screen */
	char comm[32];
};

/* ---- names from /proc ---- */

static void free_maps(struct proc *p)
{
	for (size_t i = 0; i < p->nr; i++)
		free(p->v[i].path);
	free(p->v);
	p->v = NULL;
	p->nr = p->cap = 0;
}

/* /proc/PID/maps' file mappings (a process gone: the old ones kept). */
static void read_maps(struct proc *p)
{
	char path[64], line[4096 + 128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
	if (!(f = fopen(path, "r")))
		return;
	free_maps(p);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char *name = strchr(line, '/');

		if (!name || sscanf(line, "%llx-%llx %*s %llx", &s, &e, &off) != 3)
			continue;
		name[strcspn(name, "\n")] = 0;
		if (UTRACE_GROW(p->v, p->cap, p->nr + 1) < 0 || !(p->v[p->nr].path = strdup(name)))
			break;
		p->v[p->nr].start = s;
		p->v[p->nr].end = e;
		p->v[p->nr++].off = off;
	}
	fclose(f);
}

static struct proc *proc_of(struct utrace_top *t, int32_t pid)
{
	struct proc *p;

	for (p = t->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!(p = calloc(1, sizeof(*p))))
		return NULL;
	p->pid = pid;
	p->next = t->procs;
	t->procs = p;
	p->screen = t->screen;
	read_maps(p);
	return p;
}

static const struct pmap *find(const struct proc *p, uint64_t ip)
{
	for (size_t i = 0; i < p->nr; i++)
		if (ip >= p->v[i].start && ip < p->v[i].end)
			return &p->v[i];
	return NULL;
}

static const char *live_map(void *arg, int32_t pid, uint64_t ip, uint64_t *off)
{
	struct utrace_top *t = arg;
	struct proc *p = proc_of(t, pid);
	const struct pmap *m = p ? find(p, ip) : NULL;

	if (p && !m && p->screen != t->screen) { /* mapped since: once a screen */
		p->screen = t->screen;
		read_maps(p);
		m = find(p, ip);
	}
	if (!m)
		return NULL;
	*off = ip - m->start + m->off;
	return m->path;
}

static const char *live_ksym(void *arg, uint64_t addr, uint64_t *start)
{
	struct utrace_top *t = arg;

	return t->ks ? utrace_kallsyms_find(t->ks, addr, start) : NULL;
}

static const char *live_comm(void *arg, int32_t pid, int32_t tid)
{
	struct utrace_top *t = arg;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	if (!(f = fopen(path, "r")))
		return NULL;
	if (!fgets(t->comm, sizeof(t->comm), f))
		t->comm[0] = 0;
	fclose(f);
	t->comm[strcspn(t->comm, "\n")] = 0;
	return t->comm;
}

static const struct samples_names live = {live_map, live_ksym, live_comm};

/* ---- sampling ---- */

static int top_records(void *arg, uint32_t cpu, const void *records, size_t len,
		       struct utrace_error *err)
{
	struct utrace_top *t = arg;
	const unsigned char *p = records;
	size_t off = 0;

	(void)cpu;
	while (off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;
		struct utrace_dat_sample s;
		int ret;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			ret = utrace_perf_parse_sample(&t->parser, t->attr.sample_type, p + off,
						       h.size, &s);
			if (ret < 0)
				return utrace_error_set(err, ret, "out of memory");
			if (ret == 0 && (ret = samples_add(&t->r, &s, err)) < 0)
				return ret;
			t->samples++;
			t->kernel += (int64_t)s.ip < 0;
		}
		off += h.size;
	}
	return 0;
}

int utrace_top_drain(struct utrace_top *t, struct utrace_error *err)
{
	return utrace_sampler_drain(t->sp, top_records, NULL, false, t, err);
}

static void reset(struct utrace_top *t)
{
	samples_report_free(&t->r);
	t->r = (struct report){.o = &t->so, .dsos = &t->dsos, .names = &live, .names_arg = t};
}

int utrace_top_open(const struct utrace_top_opts *o, struct utrace_top **out,
		    struct utrace_error *err)
{
	struct utrace_top *t = calloc(1, sizeof(*t));
	struct utrace_sampler_opts so = {.target = o->target, .freq = o->freq};
	int ret;

	*out = NULL;
	if (!t)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	t->o = *o;
	so.user_only = !utrace_ksyms_allowed();
	ret = utrace_samples_parse_sort("dso,sym", t->so.order, &t->so.n, err);
	if (ret == 0)
		ret = utrace_sampler_open(o->pid, &so, &t->sp, err);
	if (ret == 0 && !so.user_only && utrace_kallsyms_load(NULL, &t->ks, err) < 0)
		t->ks = NULL; /* kernel entries in hex, as perf without symbols */
	if (ret < 0) {
		utrace_top_close(t);
		return ret;
	}
	utrace_sampler_attr(t->sp, &t->attr);
	reset(t);
	*out = t;
	return 0;
}

static void print_header(struct utrace_top *t, double secs, FILE *out)
{
	uint64_t samples, lost;

	utrace_sampler_stats(t->sp, &samples, &lost, NULL);
	fprintf(out,
		"   PerfTop: %7.0f irqs/sec  kernel:%4.1f%%  lost: %" PRIu64
		" [%uHz cpu-clock%s],  (%s, %u CPU%s)\n",
		secs > 0 ? (double)t->samples / secs : 0.0,
		t->samples ? 100.0 * (double)t->kernel / (double)t->samples : 0.0, lost,
		t->attr.freq, t->ks ? "" : ":u", t->o.what ? t->o.what : "all", t->attr.nr_cpus,
		t->attr.nr_cpus == 1 ? "" : "s");
	for (int i = 0; i < 79; i++)
		fputc('-', out);
	fputs("\n\n", out);
}

int utrace_top_print(struct utrace_top *t, double secs, FILE *out, struct utrace_error *err)
{
	int ret = 0;
	struct entry **v = samples_sorted(&t->r, &ret, err);
	size_t n = t->o.lines && t->o.lines < t->r.nr ? t->o.lines : t->r.nr, w[4];

	if (ret < 0)
		return ret;
	print_header(t, secs, out);
	samples_widths(&t->r, v, n, w);
	for (size_t i = 0; i < n; i++)
		samples_print_row(&t->r, v[i], w, out);
	fputc('\n', out);
	fflush(out);
	free(v);
	t->samples = t->kernel = 0;
	t->screen++;
	if (t->o.zero)
		reset(t);
	return 0;
}

void utrace_top_close(struct utrace_top *t)
{
	if (!t)
		return;
	utrace_sampler_close(t->sp);
	samples_report_free(&t->r);
	samples_dsos_free(t->dsos);
	utrace_perf_parser_free(&t->parser);
	utrace_kallsyms_free(t->ks);
	while (t->procs) {
		struct proc *p = t->procs;

		t->procs = p->next;
		free_maps(p);
		free(p);
	}
	free(t);
}
