/* SPDX-License-Identifier: MIT */
/*
 * sched_latency.c - `perf sched latency`'s table from the histograms and
 * synthetic events of a recording (sched_latency.h says which).  The
 * layout is perf 6.1's output_lat_thread() and TOTAL lines, byte for byte.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist_prog.h"
#include "lib/base/grow.h"
#include "lib/report/sched_latency.h"

static const struct utrace_sched_lat_spec specs[] = {
    {"sched:sched_waking", "hist:keys=pid:ts0=common_timestamp", false},
    {"sched:sched_switch",
     "hist:keys=prev_pid:tsr=common_timestamp if prev_state==0 || "
     "prev_state==256",
     false},
    {"sched:sched_switch",
     "hist:keys=next_pid:lat=common_timestamp-$ts0:onmatch(sched.sched_waking)"
     ".wakeup_latency($lat,next_pid)",
     false},
    {"sched:sched_switch",
     "hist:keys=next_pid:latr=common_timestamp-$tsr:onmatch(sched.sched_switch)"
     ".wakeup_latency($latr,next_pid)",
     false},
    {"sched:sched_stat_runtime", "hist:keys=pid:vals=runtime", false},
    {"sched:sched_process_fork", "hist:keys=child_pid:vals=parent_pid", false},
    {"synthetic:wakeup_latency", "hist:keys=pid:vals=lat", true},
    {NULL, NULL, false},
};

/* The entries of specs[] the table reads. */
enum { SL_RUNTIME = 4, SL_FORKS = 5, SL_LAT = 6 };

const struct utrace_sched_lat_spec *utrace_sched_latency_specs(void)
{
	return specs;
}

struct sl_row {
	char comm[24];
	int pid, nr; /* nr: tasks merged into the row */
	uint64_t runtime, count, lat, max, max_start, max_end;
};

struct sl_table {
	struct sl_row *rows;
	size_t n, cap;
};

/* A hist of the recording by event and trigger, NULL if none. */
static const struct utrace_dat_hist_info *sl_hist(struct utrace_dat *d, const char *event,
						  const char *trigger)
{
	for (unsigned i = 0; i < utrace_dat_hist_count(d); i++) {
		const struct utrace_dat_hist_info *h = utrace_dat_hist_get(d, i);
		size_t ls = strlen(h->system);

		if (!strncmp(event, h->system, ls) && event[ls] == ':' &&
		    !strcmp(event + ls + 1, h->event) && !strcmp(h->trigger, trigger))
			return h;
	}
	return NULL;
}

/* Entry i's pid (the key's first slot) and sums[1]; hitcount in *hits. */
static int sl_entry(const struct utrace_dat_hist_info *h, uint32_t i, uint64_t *hits, uint64_t *val)
{
	const uint8_t *e = h->elts + (size_t)i * h->elt_size;
	int64_t pid;

	memcpy(&pid, e + h->prog->slots[0].off, 8);
	memcpy(hits, e + h->prog->key_size, 8);
	memcpy(val, e + h->prog->key_size + 8, 8);
	return (int)pid;
}

static bool sl_is_image(struct utrace_dat *d, int pid)
{
	for (unsigned i = 0; i < utrace_dat_image_count(d); i++)
		if (utrace_dat_image_get(d, i)->pid == pid)
			return true;
	return false;
}

/* Whether pid is a task of one of the traced processes, or of a task
 * they started (sched_process_fork's hist: its parent), all tasks if the
 * file names no process. */
static bool sl_traced(struct utrace_dat *d, const struct utrace_dat_hist_info *forks, int pid)
{
	if (!utrace_dat_image_count(d))
		return true;
	for (int depth = 0; depth < 64; depth++) {
		uint32_t k;
		uint64_t hits, parent = 0;

		if (sl_is_image(d, pid) || sl_is_image(d, utrace_dat_tgid(d, pid)))
			return true;
		for (k = 0; forks && k < forks->nr_elts; k++)
			if (sl_entry(forks, k, &hits, &parent) == pid)
				break;
		if (!forks || k == forks->nr_elts)
			return false;
		pid = (int)parent;
	}
	return false;
}

static struct sl_row *sl_row(struct sl_table *t, struct utrace_dat *d, int pid, bool per_pid)
{
	const char *comm = utrace_dat_comm(d, pid);
	char name[24];

	snprintf(name, sizeof(name), "%s", comm ? comm : "<...>");
	for (size_t i = 0; i < t->n; i++)
		if (per_pid ? t->rows[i].pid == pid : !strcmp(t->rows[i].comm, name))
			return &t->rows[i];
	if (UTRACE_GROW(t->rows, t->cap, t->n + 1) < 0)
		return NULL;
	t->rows[t->n] = (struct sl_row){.pid = pid};
	memcpy(t->rows[t->n].comm, name, sizeof(name));
	return &t->rows[t->n++];
}

/* The kernel id of synthetic:wakeup_latency, -1 if none. */
static int sl_synth_id(const struct utrace_dat *d)
{
	for (unsigned i = 0; i < utrace_dat_event_format_count(d); i++) {
		const char *sys, *text;
		int id;

		text = utrace_dat_event_format(d, i, &id, &sys);
		if (text && id < 32768 && !strcmp(sys, "synthetic") &&
		    !strncmp(text, "name: wakeup_latency\n", 21))
			return id;
	}
	return -1;
}

/* The longest delay of each row, from the synthetic events: it ended at
 * the event (the switch in), began lat before. */
static int sl_max(struct utrace_dat *d, const struct utrace_dat_hist_info *forks,
		  struct sl_table *t, bool per_pid, struct utrace_error *err)
{
	struct utrace_dat_iter *it;
	struct utrace_event ev;
	int id = sl_synth_id(d), ret;

	if (id < 0 || utrace_dat_iter_open(d, &it, err) < 0)
		return id < 0 ? 0 : err->code;
	while ((ret = utrace_dat_iter_next(it, &ev, err)) > 0) {
		uint64_t lat;
		int32_t pid;
		struct sl_row *r;

		if (ev.kind != UTRACE_EV_EVENT || ev.id != (uint32_t)id || ev.data_len < 16)
			continue;
		memcpy(&lat, ev.data, 8);
		memcpy(&pid, (const uint8_t *)ev.data + 8, 4);
		if (!sl_traced(d, forks, pid) || !(r = sl_row(t, d, pid, per_pid)))
			continue;
		if (lat > r->max) {
			r->max = lat;
			r->max_end = ev.ts;
			r->max_start = ev.ts - lat;
		}
	}
	utrace_dat_iter_close(it);
	return ret;
}

/* perf's default sort: avg, max, switch, runtime, each largest first. */
static int sl_cmp(const void *a, const void *b)
{
	const struct sl_row *x = a, *y = b;
	uint64_t ax = x->count ? x->lat / x->count : 0, ay = y->count ? y->lat / y->count : 0;

	if (ax != ay)
		return ax < ay ? 1 : -1;
	if (x->max != y->max)
		return x->max < y->max ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->runtime != y->runtime)
		return x->runtime < y->runtime ? 1 : -1;
	return strcmp(x->comm, y->comm) ? strcmp(x->comm, y->comm) : x->pid - y->pid;
}

static void sl_ts(char *buf, size_t n, uint64_t ns)
{
	snprintf(buf, n, "%" PRIu64 ".%06" PRIu64, ns / 1000000000u, ns % 1000000000u / 1000u);
}

static void sl_print_row(const struct sl_row *r, bool per_pid, FILE *f)
{
	char start[32], end[32];
	int len = per_pid || r->nr == 1 ? fprintf(f, "  %s:%d ", r->comm, r->pid)
					: fprintf(f, "  %s:(%d) ", r->comm, r->nr);

	for (int i = len; i < 24; i++)
		fputc(' ', f);
	sl_ts(start, sizeof(start), r->max_start);
	sl_ts(end, sizeof(end), r->max_end);
	fprintf(f,
		"|%11.3f ms |%9" PRIu64 " | avg:%8.3f ms | max:%8.3f ms | max start: %12s s | max "
		"end: %12s s\n",
		(double)r->runtime / 1e6, r->count, (double)(r->lat / r->count) / 1e6,
		(double)r->max / 1e6, start, end);
}

static void sl_print(struct sl_table *t, bool per_pid, FILE *f)
{
	uint64_t runtime = 0, count = 0;

	qsort(t->rows, t->n, sizeof(*t->rows), sl_cmp);
	fprintf(f, "\n -------------------------------------------------------------------------"
		   "------------------------------------------------------------------\n");
	fprintf(f, "  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max "
		   "delay ms    | Max delay start           | Max delay end          |\n");
	fprintf(f, " -------------------------------------------------------------------------"
		   "------------------------------------------------------------------\n");
	for (size_t i = 0; i < t->n; i++) {
		if (!t->rows[i].count)
			continue; /* perf skips a task without a delay */
		sl_print_row(&t->rows[i], per_pid, f);
		runtime += t->rows[i].runtime;
		count += t->rows[i].count;
	}
	fprintf(f, " -------------------------------------------------------------------------"
		   "----------------------------------------\n");
	fprintf(f, "  TOTAL:                |%11.3f ms |%9" PRIu64 " |\n", (double)runtime / 1e6,
		count);
	fprintf(f, " ---------------------------------------------------\n\n");
}

int utrace_sched_latency_print(struct utrace_dat *d, const struct utrace_sched_lat_opts *o, FILE *f,
			       struct utrace_error *err)
{
	const struct utrace_dat_hist_info *lat =
	    sl_hist(d, specs[SL_LAT].event, specs[SL_LAT].trigger);
	const struct utrace_dat_hist_info *run =
	    sl_hist(d, specs[SL_RUNTIME].event, specs[SL_RUNTIME].trigger);
	const struct utrace_dat_hist_info *forks =
	    sl_hist(d, specs[SL_FORKS].event, specs[SL_FORKS].trigger);
	struct sl_table t = {0};
	int ret = 0;

	if (!lat)
		return utrace_error_set(err, -ENOENT,
					"%s holds no wakeup_latency histogram "
					"(recorded by utrace sched-latency?)",
					utrace_dat_path(d));
	for (uint32_t i = 0; i < lat->nr_elts && ret >= 0; i++) {
		uint64_t hits, sum;
		int pid = sl_entry(lat, i, &hits, &sum);
		struct sl_row *r;

		if (!sl_traced(d, forks, pid))
			continue;
		if (!(r = sl_row(&t, d, pid, o->per_pid))) {
			ret = utrace_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		r->nr++;
		r->count += hits;
		r->lat += sum;
		for (uint32_t k = 0; run && k < run->nr_elts; k++) {
			uint64_t h, ns;

			if (sl_entry(run, k, &h, &ns) == pid)
				r->runtime += ns;
		}
	}
	if (ret >= 0)
		ret = sl_max(d, forks, &t, o->per_pid, err);
	if (ret >= 0)
		sl_print(&t, o->per_pid, f);
	free(t.rows);
	return ret < 0 ? ret : 0;
}
