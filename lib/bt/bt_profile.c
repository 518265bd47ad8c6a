/* SPDX-License-Identifier: MIT */
/*
 * bt_profile.c - `profile:hz:N` (and :s/:ms/:us) in utrace bt: utrace's
 * sampler (lib/sample: perf_event_open's cpu-clock, one event per CPU) on
 * the traced process (-p, or the command once it runs) or, without one,
 * on every CPU's tasks as bpftrace's profile probes; the samples are
 * read at each step of the recording (bt_live.c) and run the probe's
 * action in the tool, on the sample's pid, tid, CPU and time (comm from
 * /proc).  A sample is run when its CPU's buffer is read, not in time
 * order with the recorded hits of other probes.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/bt/bt_profile.h"
#include "lib/bt/bt_run_internal.h"
#include "lib/sample/sampler.h"
#include "lib/tracefile/perf_sample.h"

struct bt_profile {
	struct bt_run *r;
	struct bt_site *site;
	struct utrace_sampler *sampler;
	struct utrace_sampler_attr attr;
	struct utrace_perf_parser parser;
	struct bt_profile *next;
	/* the names of the threads seen last (PERF_RECORD_COMM, /proc): a
	 * sample read after its thread ended still has its name */
	struct {
		int tid;
		char comm[16];
	} names[64];
	unsigned next_name;
};

static void name_keep(struct bt_profile *p, int tid, const char *comm)
{
	unsigned i;

	for (i = 0; i < 64 && p->names[i].tid != tid; i++)
		;
	if (i == 64) {
		i = p->next_name++ % 64;
		p->names[i].tid = tid;
	}
	snprintf(p->names[i].comm, sizeof(p->names[i].comm), "%s", comm);
}

static void sample_comm(struct bt_profile *p, const struct utrace_dat_sample *s, char *comm,
			size_t size)
{
	char path[64];
	FILE *f;

	if (s->tid == 0) { /* the idle task, as the kernel names it */
		snprintf(comm, size, "swapper/%u", s->cpu);
		return;
	}
	snprintf(comm, size, "<...>");
	for (unsigned i = 0; i < 64; i++)
		if (p->names[i].tid == s->tid) {
			snprintf(comm, size, "%s", p->names[i].comm);
			return;
		}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", s->pid, s->tid);
	if ((f = fopen(path, "r")) != NULL) {
		if (fgets(comm, (int)size, f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
		name_keep(p, s->tid, comm);
	}
}

static void run_sample(struct bt_profile *p, const struct utrace_dat_sample *s)
{
	struct bt_run *r = p->r;
	struct utrace_bt_hit hit = {0};

	if (r->waiter_pid && s->pid == r->waiter_pid)
		return; /* the recording's own waiting process */
	hit.builtin[UTRACE_BB_PID] = s->pid;
	hit.builtin[UTRACE_BB_TID] = s->tid;
	hit.builtin[UTRACE_BB_UID] = getuid();
	hit.builtin[UTRACE_BB_GID] = getgid();
	hit.builtin[UTRACE_BB_NSECS] = (int64_t)s->ts;
	hit.builtin[UTRACE_BB_ELAPSED] = (int64_t)s->ts - r->start_ns;
	hit.builtin[UTRACE_BB_CPU] = s->cpu;
	hit.builtin[UTRACE_BB_NUMAID] = bt_cpu_node(s->cpu);
	hit.builtin[UTRACE_BB_CPID] = r->cpid;
	sample_comm(p, s, hit.comm, sizeof(hit.comm));
	bt_run_hit(r, p->site, &hit);
}

static int records(void *arg, uint32_t cpu, const void *recs, size_t len, struct utrace_error *err)
{
	struct bt_profile *p = arg;
	const unsigned char *b = recs;
	size_t off = 0;

	(void)cpu;
	while (off + sizeof(struct perf_event_header) <= len && !p->r->exiting) {
		struct perf_event_header h;
		struct utrace_dat_sample s;
		int ret;

		memcpy(&h, b + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			ret = utrace_perf_parse_sample(&p->parser, p->attr.sample_type, b + off, h.size,
						       &s);
			if (ret < 0)
				return utrace_error_set(err, ret, "out of memory");
			if (ret == 0)
				run_sample(p, &s);
		} else if (h.type == PERF_RECORD_COMM && h.size >= sizeof(h) + 9) {
			int32_t tid; /* u32 pid, tid; char comm[] */
			char comm[16] = {0};

			memcpy(&tid, b + off + sizeof(h) + 4, 4);
			memcpy(comm, b + off + sizeof(h) + 8,
			       h.size - sizeof(h) - 8 < 15 ? h.size - sizeof(h) - 8 : 15);
			name_keep(p, tid, comm);
		}
		off += h.size;
	}
	return 0;
}

int bt_profile_open(struct bt_run *r, int pid)
{
	for (unsigned i = 0; i < r->nsites; i++) {
		struct bt_site *s = &r->sites[i];
		struct utrace_sampler_opts so = {
		    .target = pid > 0 ? UTRACE_SAMPLE_PROCESS : UTRACE_SAMPLE_SYSTEM};
		struct bt_profile *p;
		int ret;

		if (s->type != BT_P_PROFILE)
			continue;
		so.freq = s->period_ns ? (unsigned)(1000000000ull / s->period_ns) : 1;
		if (!so.freq)
			so.freq = 1;
		if (!(p = calloc(1, sizeof(*p))))
			return utrace_error_set(r->err, -ENOMEM, "out of memory");
		*p = (struct bt_profile){.r = r, .site = s, .next = r->profile};
		r->profile = p;
		ret = utrace_sampler_open(pid > 0 ? pid : 0, &so, &p->sampler, r->err);
		if (ret < 0)
			return ret;
		if (r->o->verbose)
			fprintf(r->o->log, "profile: utrace's sampler (cpu-clock, %u Hz) on %s; its "
					   "action runs in utrace bt on each sample\n",
				so.freq, pid > 0 ? "the traced process" : "every CPU");
		utrace_sampler_attr(p->sampler, &p->attr);
	}
	return 0;
}

void bt_profile_drain(struct bt_run *r)
{
	struct utrace_error err = {0};

	for (struct bt_profile *p = r->profile; p && !r->exiting; p = p->next)
		if (p->sampler)
			utrace_sampler_drain(p->sampler, records, NULL, false, p, &err);
}

void bt_profile_close(struct bt_run *r)
{
	while (r->profile) {
		struct bt_profile *p = r->profile;

		r->profile = p->next;
		utrace_sampler_close(p->sampler);
		utrace_perf_parser_free(&p->parser);
		free(p);
	}
}
