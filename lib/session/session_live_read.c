/* SPDX-License-Identifier: MIT */
/*
 * session_live_read.c - what the live tracefs reads of the recording: the
 * file written so far (or, with --overwrite, an extract of the rings),
 * opened with the recorder held, printed as `utrace report` prints it
 * (lib/report): trace, the newest events after the last clearing;
 * trace_pipe and per_cpu/cpuN/trace_pipe, the oldest after what they
 * consumed, read on from bookmarks (lib/tracefile/dat_resume.c) so that a
 * read does not cost the whole file; utrace.dat, an extract; and
 * per_cpu/cpuN/stats, counted over the same selection.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/grow.h"
#include "lib/session/session_internal.h"
#include "lib/session/session_live_internal.h"
#include "lib/report/report_filter.h"
#include "lib/session/session_dynev.h"
#include "lib/report/report_text.h"
#include "lib/report/fprofile.h"

int session_live_merge(struct session_live *rl, struct utrace_error *err)
{
	/* messages not read yet first (the BUFFER of a thread that just
	 * started, as trace_marker's), then every sub-buffer done */
	int ret = utrace_recorder_poll(rl->r, 0, err);

	/* the kernel's pages so far, every CPU's: a round, after which the
	 * merge runs their triggers up to the read's start, as far as a CPU
	 * that handed over pages (which holds it at its last record) allows;
	 * so a second round, in which such a CPU has nothing older left
	 * (recorder_kmerge.c) */
	if (rl->kt)
		utrace_recorder_kread_begin(rl->r);
	for (int i = 0; i < 2 && ret >= 0 && rl->kt; i++)
		if ((ret = utrace_ktrace_poll(rl->kt, true, session_kpage, rl->r, err)) > 0)
			ret = utrace_recorder_kround(rl->r, err);
	if (rl->kt)
		utrace_recorder_kread_end(rl->r);
	return ret;
}

void session_live_catch_up(struct session_live *rl)
{
	struct utrace_error err = {0};

	if (rl->kt)
		(void)session_live_merge(rl, &err); /* the loop's next poll says a failure */
}

/* The file as written so far, opened while the recorder is held: what
 * the reader indexes is whole records. */
int session_live_open_dat(struct session_live *rl, struct utrace_dat **d, struct utrace_error *err)
{
	int ret;

	live_lock(rl);
	ret = session_live_merge(rl, err);
	if (ret >= 0 && !rl->overwrite)
		ret = utrace_recorder_sync(rl->r, err);
	/* (its kernel pages' tasks read from where the last reading stopped) */
	if (ret >= 0 && !rl->overwrite && !rl->kscan && !(rl->kscan = utrace_dat_kscan_new()))
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	if (ret >= 0 && !rl->overwrite)
		ret = utrace_dat_open_kscan(rl->output, rl->kscan, d, err);
	/* a flight recorder's records are in the rings only: a copy of what
	 * they hold, opened then unlinked (the reader keeps its descriptor);
	 * on the start's clock, as the file's own reads above, so that a
	 * record's time is the same in every read, as in the kernel's (the
	 * time trace_pipe consumed up to must mean the same record: with a
	 * new clock pair each read it moved by a few ns, and the last record
	 * consumed came back in trace, or one after it was skipped) */
	if (ret >= 0 && rl->overwrite) {
		ret = utrace_recorder_extract(rl->r, rl->extract, UTRACE_EXTRACT_START_CLOCK, err);
		if (ret >= 0)
			ret = utrace_dat_open(rl->extract, d, err);
		unlink(rl->extract);
	}
	/* the kernel's tasks named so far (a task is named from /proc when
	 * its first record is read, lib/kernel/kernel_tasks.c) */
	if (ret >= 0 && rl->kt) {
		size_t n;
		const struct utrace_dat_ktask *t = utrace_ktrace_tasks(rl->kt, &n);

		utrace_dat_name_ktasks(*d, t, n);
	}
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

/* utrace.dat: an extract, copied into out. */
int session_live_extract(void *arg, FILE *out, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	char buf[65536];
	FILE *in = NULL;
	size_t n;
	int ret;

	live_lock(rl);
	ret = utrace_recorder_poll(rl->r, 0, err);
	if (ret >= 0)
		ret = utrace_recorder_extract(rl->r, rl->extract, 0, err);
	if (ret >= 0 && !(in = fopen(rl->extract, "r")))
		ret = utrace_error_set(err, -errno, "%s: %s", rl->extract, strerror(errno));
	unlink(rl->extract);
	pthread_mutex_unlock(&rl->lock);
	while (in && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n) {
			ret = utrace_error_set(err, -ENOMEM, "out of memory");
			break;
		}
	if (in)
		fclose(in);
	return ret;
}

/*
 * A read of trace shows at most the newest LIVE_TRACE_MAX events, as the
 * kernel's shows what its ring buffer still holds: the text is made in
 * memory at open, and the file may hold far more.
 */
#define LIVE_TRACE_MAX 1000000

struct live_scan {
	uint64_t events;	/* LOST records not counted */
	uint64_t skip, from_ts; /* second pass: the time of event `skip` */
};

static int live_count(void *arg, const struct utrace_event *ev, struct utrace_error *err)
{
	struct live_scan *s = arg;

	if (ev->kind == UTRACE_EV_LOST)
		return 0;
	if (s->events++ == s->skip)
		s->from_ts = ev->ts;
	return 0;
}

/* A selection's own choice of the records (session_inst.c), or none */
struct live_keep {
	utrace_report_keep_fn fn;
	void *arg;
};

/* The events at or after since_ns (0: all) of cpu (-1: all), of k's
 * choice, read on from rs's bookmarks if rs. */
static int live_select(struct utrace_report_filter **f, uint64_t since_ns, int cpu,
		       struct utrace_dat_resume *rs, const struct live_keep *k,
		       struct utrace_error *err)
{
	char v[64];

	*f = NULL;
	if (!since_ns && cpu < 0 && !k->fn)
		return 0;
	if (utrace_report_filter_new(f, err) < 0)
		return err->code;
	utrace_report_filter_set_keep(*f, k->fn, k->arg);
	snprintf(v, sizeof(v), "%llu.%09llu~", (unsigned long long)(since_ns / 1000000000u),
		 (unsigned long long)(since_ns % 1000000000u));
	if (since_ns && utrace_report_filter_add(*f, "time-range", v, err) < 0)
		return err->code;
	snprintf(v, sizeof(v), "%d", cpu);
	if (cpu >= 0 && utrace_report_filter_add(*f, "cpu", v, err) < 0)
		return err->code;
	utrace_report_filter_set_resume(*f, rs);
	return 0;
}

/* How many events the selection holds, the last one's time, and, past
 * LIVE_TRACE_MAX, the time from which the newest ones are (a second
 * pass); *since_ns moved there, *f then reading from rs's bookmarks. */
static int live_scan(struct utrace_dat *d, struct utrace_report_filter **f, uint64_t *since_ns,
		     int cpu, struct utrace_dat_resume *rs, const struct live_keep *k,
		     struct live_scan *s, struct utrace_error *err)
{
	struct utrace_pass_stats st;
	uint64_t n;

	s->skip = UINT64_MAX;
	if (utrace_report_filter_run(*f, d, live_count, s, &st, err) < 0)
		return err->code;
	if (s->events <= LIVE_TRACE_MAX)
		return 0;
	n = s->events;
	*s = (struct live_scan){.skip = n - LIVE_TRACE_MAX};
	if (utrace_report_filter_run(*f, d, live_count, s, &st, err) < 0)
		return err->code;
	*since_ns = s->from_ts;
	utrace_report_filter_free(*f);
	return live_select(f, *since_ns, cpu, rs, k, err);
}

/*
 * The bookmarks of a reading of trace or trace_pipe (pipe) of cpu (-1:
 * every CPU): its counting passes read from one time (what trace_pipe
 * consumed, or trace's last clearing), its printing pass maybe from a
 * later one (the newest LIVE_TRACE_MAX events), and each of those times
 * only grows, so each gets bookmarks of its own (which == 0, 1).  NULL if
 * none: a flight recorder's file is a new extract each time.
 */
static struct utrace_dat_resume *live_resume(struct session_live *rl, int cpu, bool pipe, int which,
					     const struct live_keep *k)
{
	size_t i = ((size_t)(cpu + 1) * 2 + pipe) * 2 + (size_t)which;

	if (rl->overwrite || k->fn)
		return NULL;
	if (i >= rl->nr_resumes) {
		if (UTRACE_GROW_ZERO(rl->resumes, rl->cap_resumes, i + 1) < 0)
			return NULL;
		rl->nr_resumes = i + 1;
	}
	if (!rl->resumes[i] && utrace_dat_resume_new(&rl->resumes[i]) < 0)
		return NULL;
	return rl->resumes[i];
}

/* trace: the newest LIVE_TRACE_MAX events after the last clearing (a
 * pass to count them first). */
static int live_print_all(struct session_live *rl, struct utrace_dat *d, FILE *out,
			  struct utrace_report_opts *o, uint64_t since_ns, int cpu,
			  const struct live_keep *k, struct utrace_error *err)
{
	struct utrace_report_filter *f = NULL;
	struct live_scan scan = {0};
	int ret;

	ret = live_select(&f, since_ns, cpu, live_resume(rl, cpu, false, 0, k), k, err);
	if (ret >= 0)
		ret = live_scan(d, &f, &since_ns, cpu, live_resume(rl, cpu, false, 1, k), k, &scan,
				err);
	o->filter = f;
	if (ret >= 0) /* with its header even when empty */
		ret = utrace_report_print(d, out, o, NULL, err);
	utrace_report_filter_free(f);
	return ret;
}

/* trace_pipe: the oldest LIVE_TRACE_MAX events after what it consumed,
 * in one pass, which says where they end (*last_ns, 0 if none). */
static int live_print_pipe(struct session_live *rl, struct utrace_dat *d, FILE *out,
			   struct utrace_report_opts *o, uint64_t since_ns, int cpu,
			   uint64_t *last_ns, const struct live_keep *k, struct utrace_error *err)
{
	struct utrace_report_filter *f = NULL;
	int ret;

	*last_ns = 0;
	ret = live_select(&f, since_ns, cpu, live_resume(rl, cpu, true, 0, k), k, err);
	if (ret >= 0 && !f)
		ret = utrace_report_filter_new(&f, err);
	if (ret < 0)
		return ret;
	utrace_report_filter_set_limit(f, LIVE_TRACE_MAX);
	o->filter = f;
	ret = utrace_report_print(d, out, o, NULL, err);
	*last_ns = utrace_report_filter_last(f);
	utrace_report_filter_free(f);
	return ret;
}

int session_live_print_trace(void *arg, FILE *out, const char *tracer, uint32_t options,
			     uint64_t since_ns, int cpu, uint64_t *last_ns,
			     struct utrace_error *err)
{
	return session_live_print_sel(live_rl(arg), NULL, NULL, out, tracer, options, since_ns,
				      cpu, last_ns, err);
}

int session_live_print_sel(struct session_live *rl, utrace_report_keep_fn keep, void *sel,
			   FILE *out, const char *tracer, uint32_t options, uint64_t since_ns,
			   int cpu, uint64_t *last_ns, struct utrace_error *err)
{
	struct live_keep k = {keep, sel};
	struct utrace_report_opts o;
	struct utrace_dat *d;
	int ret;

	if (session_live_open_dat(rl, &d, err) < 0)
		return err->code;
	utrace_report_opts_init(&o);
	o.tracer = tracer;
	o.flags = options;
	if (last_ns)
		ret = live_print_pipe(rl, d, out, &o, since_ns, cpu, last_ns, &k, err);
	else
		ret = live_print_all(rl, d, out, &o, since_ns, cpu, &k, err);
	utrace_dat_close(d);
	return ret;
}

int session_live_print_profile(void *arg, FILE *out, int cpu, uint64_t from_ns, uint64_t to_ns,
			       uint64_t thresh_ns, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	struct utrace_dat *d;
	int ret;

	if (session_live_open_dat(rl, &d, err) < 0)
		return err->code;
	ret = utrace_fprofile_print(d, out, cpu, from_ns, to_ns, thresh_ns, err);
	utrace_dat_close(d);
	return ret;
}

void session_live_resumes_free(struct session_live *rl)
{
	for (size_t i = 0; i < rl->nr_resumes; i++)
		utrace_dat_resume_free(rl->resumes[i]);
	free(rl->resumes);
	rl->resumes = NULL;
	rl->nr_resumes = 0;
	rl->cap_resumes = 0;
}

struct live_cpu_scan {
	struct utrace_live_stats *st;
	uint64_t read_ns;
};

/* A record's bytes in the threads' encoding (common/record.h). */
static uint64_t live_record_bytes(const struct utrace_event *ev)
{
	switch (ev->kind) {
	case UTRACE_EV_ENTRY:
	case UTRACE_EV_EXIT:
		return 4;
	case UTRACE_EV_LEAF: /* an entry and its exit shown as one line */
		return 8;
	case UTRACE_EV_FUNC:
		return 12;
	default: /* EVENT, PRINT, STACK: three words and the data */
		return 12 + ((uint64_t)ev->data_len + 3) / 4 * 4;
	}
}

static int live_cpu_count(void *arg, const struct utrace_event *ev, struct utrace_error *err)
{
	struct live_cpu_scan *s = arg;

	if (ev->kind == UTRACE_EV_LOST) {
		s->st->dropped += ev->lost;
		return 0;
	}
	if (ev->ts <= s->read_ns) { /* consumed by trace_pipe */
		s->st->read++;
		return 0;
	}
	if (!s->st->entries++ || ev->ts < s->st->oldest_ns)
		s->st->oldest_ns = ev->ts;
	s->st->bytes += live_record_bytes(ev);
	return 0;
}

int session_live_cpu_stats(void *arg, int cpu, uint64_t since_ns, uint64_t read_ns,
			   struct utrace_live_stats *st, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	struct live_cpu_scan s = {st, read_ns};
	struct utrace_report_filter *f = NULL;
	struct utrace_pass_stats ps;
	struct utrace_dat *d;
	int ret;

	if (session_live_open_dat(rl, &d, err) < 0)
		return err->code;
	ret = live_select(&f, since_ns, cpu, NULL, &(struct live_keep){NULL, NULL}, err);
	if (ret >= 0)
		ret = utrace_report_filter_run(f, d, live_cpu_count, &s, &ps, err);
	utrace_report_filter_free(f);
	utrace_dat_close(d);
	return ret < 0 ? ret : 0;
}

struct live_hit_scan {
	uint32_t id;
	uint64_t hits;
};

static int live_hit_count(void *arg, const struct utrace_event *ev, struct utrace_error *err)
{
	struct live_hit_scan *s = arg;

	if (ev->kind == UTRACE_EV_EVENT && ev->id == s->id)
		s->hits++;
	return 0;
}

int session_live_event_hits(void *arg, const char *system, const char *name, uint64_t *hits,
			    uint64_t *missed, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	struct live_hit_scan s = {0};
	struct utrace_pass_stats ps;
	struct utrace_dat *d;
	int id, ret;

	live_lock(rl);
	id = session_dynev_event_id(rl, system, name);
	pthread_mutex_unlock(&rl->lock);
	if (id < 0)
		return utrace_error_set(err, id, "%s/%s: no id", system, name);
	s.id = (uint32_t)id;
	if (session_live_open_dat(rl, &d, err) < 0)
		return err->code;
	ret = utrace_report_filter_run(NULL, d, live_hit_count, &s, &ps, err);
	utrace_dat_close(d);
	*hits = s.hits;
	/* the kernel's misses are hits its probe skipped (recursion); an
	 * in-process probe skips none (a record lost to a full buffer is
	 * per_cpu/cpuN/stats' dropped: its event is not known) */
	*missed = 0;
	return ret < 0 ? ret : 0;
}
