/* SPDX-License-Identifier: MIT */
/*
 * bt_kernel.c - uprobes in the processes utrace neither started nor
 * attached to: as bpftrace, a `uprobe:BIN:FUNC` without -c or -p applies
 * to every process running BIN, also those that start later.  Those are
 * served by the kernel's uprobes (lib/probes/uprobe.h, as `utrace record
 * --probe 'p:EV PATH:FUNC'` does): each site becomes the event
 * utrace_<pid>/pK of uprobe_events with the fetch args its action needs
 * (the six argument registers or the return value, the strings str()
 * reads, the thread's name), enabled system-wide in utrace's own tracefs
 * instance (lib/kernel/kernel_trace.h).  Its pages are read as they fill
 * and each record runs its site's program in the tool, as the replay of
 * bt_session.c runs a recorded hit, so printf output comes as the hits
 * do, and exit() or a signal ends the run.
 *
 * An action that reads memory at an address computed at run time (a
 * while loop down a list) is refused: the kernel's uprobe reads only the
 * fetch-args its definition names, and the replay comes too late to read
 * the rest (in-process probes read it at the hit, runtime/bt_probe.c).
 *
 * What the kernel's record does not give: the process id (common_pid is
 * the thread's: the process is read from /proc while it lives) and a
 * time stamp on CLOCK_MONOTONIC (the instance's clock is the TSC: nsecs
 * is when the record was read).  ustack comes from the instance's
 * options/userstacktrace, the user_stack record the kernel writes after
 * the event (its frame-pointer walk, as bpftrace's, 8 frames at most),
 * named from the process's maps while it lives (bt_usym.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <traceevent/kbuffer.h>
#include <unistd.h>

#include "lib/bt/bt_run_internal.h"
#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/kernel/kernel_trace.h"
#include "lib/kernel/kernel_tracefs.h"
#include "lib/probes/uprobe.h"
#include "lib/tracefile/dat_reader.h"

struct bt_kernel {
	struct bt_run *r;
	char group[32];
	struct utrace_uprobe **probes; /* registered, one a uprobe site (NULL: none) */
	struct utrace_event_format **fmts;
	int *ids;	   /* each site's kernel event id, -1 if none */
	unsigned *leader;  /* the first site at the same place: its event serves both */
	struct utrace_ktrace *kt;
	struct kbuffer *kb;
	int last_tid, last_tgid;
	int stack_id;	      /* ftrace/user_stack's id: ustack is used, else -1 */
	struct bt_held *held; /* per CPU: a hit waiting for its user_stack */
	unsigned nheld;
};

/* A hit of a site that takes ustack, until the user_stack record the
 * kernel writes right after it on the same CPU (options/userstacktrace). */
struct bt_held {
	unsigned site;
	struct utrace_event ev;
	void *data; /* ev's copy; NULL: none held */
};

/* SIGINT and SIGTERM end a run that waits (here, and bt_run.c's
 * run_alone): its END runs and its maps are printed, as bpftrace's. */
volatile sig_atomic_t bt_interrupted;

void bt_on_signal(int sig)
{
	(void)sig;
	bt_interrupted = 1;
}

static int64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The process of thread tid, from /proc while it lives (else tid). */
static int tgid_of(struct bt_kernel *k, int tid)
{
	char path[64], line[128];
	FILE *f;
	int tgid = tid;

	if (tid == k->last_tid)
		return k->last_tgid;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "Tgid: %d", &tgid) == 1)
				break;
		fclose(f);
	}
	k->last_tid = tid;
	k->last_tgid = tgid;
	return tgid;
}

static bool same_place(const struct bt_site *a, const struct bt_site *b)
{
	return a->type == b->type && a->off == b->off && !strcmp(a->target, b->target) &&
	       !strcmp(a->func, b->func) && !a->code.nfields && !b->code.nfields;
}

/* Registers site i's uprobe: group/pI at TARGET:FUNC, with the strings
 * every site at the same place reads (their programs run on its records,
 * in the program's order, as bpftrace runs the probes of one place). */
static int add_probe(struct bt_kernel *k, unsigned i)
{
	struct bt_site s = k->r->sites[i];
	char path[PATH_MAX], *where = NULL, *def = NULL;
	int ret;

	for (unsigned j = i + 1; j < k->r->nsites; j++)
		if (k->leader[j] == i)
			s.strargs |= k->r->sites[j].strargs;
	if (!realpath(s.target, path))
		return utrace_error_set(k->r->err, -errno, "%s: %s", s.target, strerror(errno));
	if (asprintf(&where, "%s:%s", path, s.func) < 0)
		return utrace_error_set(k->r->err, -ENOMEM, "out of memory");
	def = bt_probe_def(&s, i, k->group, where, true);
	free(where);
	if (!def)
		return utrace_error_set(k->r->err, -ENOMEM, "out of memory");
	ret = utrace_uprobe_parse(def, &k->probes[i], k->r->err);
	if (!ret && (ret = utrace_uprobe_register(NULL, k->probes[i], k->r->err)) < 0) {
		utrace_uprobe_free(k->probes[i]);
		k->probes[i] = NULL;
	}
	if (!ret && k->r->o->verbose)
		fprintf(k->r->o->log, "%s:%s:%s: kernel uprobe (%s), every process running it; "
				      "its hits run in utrace bt as they come\n",
			s.type == BT_P_UPROBE ? "uprobe" : "uretprobe", s.target, s.func, def);
	free(def);
	return ret;
}

/* utrace_ktrace_formats: event pI is site I's. */
static int take_format(void *arg, const char *sys, const char *name, int id, const char *text,
		       struct utrace_error *err)
{
	struct bt_kernel *k = arg;
	unsigned i;

	if (strcmp(sys, k->group) || sscanf(name, "p%u", &i) != 1 || i >= k->r->nsites ||
	    k->fmts[i])
		return 0;
	if (utrace_event_format_parse(sys, text, &k->fmts[i], err) < 0)
		return -EINVAL;
	for (unsigned j = i; j < k->r->nsites; j++) {
		if (k->leader[j] != i)
			continue;
		k->ids[j] = id;
		bt_site_format(k->r, &k->r->sites[j], k->fmts[i]);
		k->r->sites[j].event_id = id;
	}
	return 0;
}

/* Runs cpu's held hit, with the user_stack record rec (n bytes) or none. */
static void held_run(struct bt_kernel *k, uint32_t cpu, const uint8_t *rec, unsigned n)
{
	struct bt_held *h = &k->held[cpu];
	uint64_t pc[8];
	unsigned npc = 0;

	for (; rec && npc < 8 && 16 + 8 * (npc + 1) <= n; npc++)
		memcpy(&pc[npc], rec + 16 + 8 * npc, 8);
	bt_session_hit(k->r, NULL, h->site, &h->ev, rec ? pc : NULL, npc);
	free(h->data);
	h->data = NULL;
}

static int held_keep(struct bt_kernel *k, uint32_t cpu, unsigned site,
		     const struct utrace_event *ev)
{
	struct bt_held *h;

	if (cpu >= k->nheld) {
		h = realloc(k->held, (cpu + 1) * sizeof(*h));
		if (!h)
			return -ENOMEM;
		memset(h + k->nheld, 0, (cpu + 1 - k->nheld) * sizeof(*h));
		k->held = h;
		k->nheld = cpu + 1;
	}
	h = &k->held[cpu];
	if (h->data)
		held_run(k, cpu, NULL, 0);
	if (!(h->data = malloc(ev->data_len + 1)))
		return -ENOMEM;
	memcpy(h->data, ev->data, ev->data_len);
	h->site = site;
	h->ev = *ev;
	h->ev.data = h->data;
	return 0;
}

/* utrace_ktrace_poll: each record of the page runs its site's program. */
static int take_page(void *arg, uint32_t cpu, const void *page, size_t len,
		     struct utrace_error *err)
{
	struct bt_kernel *k = arg;
	unsigned long long ts;
	void *rec;

	(void)err;
	kbuffer_load_subbuffer(k->kb, (void *)page);
	for (rec = kbuffer_read_event(k->kb, &ts); rec; rec = kbuffer_next_event(k->kb, &ts)) {
		unsigned n = (unsigned)kbuffer_event_size(k->kb);
		struct utrace_event ev = {.kind = UTRACE_EV_EVENT, .cpu = cpu};
		uint16_t type;
		int32_t tid;

		if (n < 8 || (const uint8_t *)rec + n > (const uint8_t *)page + len)
			break;
		memcpy(&type, rec, 2);
		memcpy(&tid, (uint8_t *)rec + 4, 4);
		ev.ts = (uint64_t)mono_now();
		ev.tid = tid;
		ev.pid = tgid_of(k, tid);
		ev.data = (uint8_t *)rec + 8;
		ev.data_len = n - 8;
		if (cpu < k->nheld && k->held[cpu].data)
			held_run(k, cpu, type == k->stack_id ? rec : NULL, n);
		for (unsigned i = 0; i < k->r->nsites; i++) {
			if (k->ids[i] != (int)type) /* (after exit(): maps only) */
				continue;
			if (k->stack_id >= 0 && bt_site_ustack(&k->r->sites[i])) {
				if (held_keep(k, cpu, i, &ev) < 0)
					return -ENOMEM;
			} else {
				bt_session_hit(k->r, NULL, i, &ev, NULL, 0);
			}
		}
	}
	return 0;
}

/* ustack: the instance's options/userstacktrace on, so that the kernel
 * writes each event's user stack (8 frames) after it; k->stack_id. */
static int user_stacks(struct bt_kernel *k)
{
	char path[4096];
	char *text;
	const char *id;

	for (unsigned i = 0; i < k->r->nsites; i++)
		if (bt_site_ustack(&k->r->sites[i]))
			break;
		else if (i + 1 == k->r->nsites)
			return 0;
	text = utrace_tracefs_read(utrace_tracefs_path(path, utrace_tracefs_root(),
						       "events/ftrace/user_stack/format"));
	id = text ? strstr(text, "\nID: ") : NULL;
	k->stack_id = id ? atoi(id + 5) : -1;
	free(text);
	if (k->stack_id < 0 ||
	    utrace_tracefs_write(utrace_tracefs_path(path, utrace_tracefs_root(),
						     "instances/%s/options/userstacktrace",
						     utrace_ktrace_name(k->kt)),
				 "1", O_TRUNC) < 0) {
		k->stack_id = -1;
		return utrace_error_set(k->r->err, -ENOTSUP,
					"ustack without -c or -p needs the kernel's "
					"options/userstacktrace");
	}
	return 0;
}

static int attach(struct bt_kernel *k)
{
	struct bt_run *r = k->r;
	struct utrace_event_spec *specs = calloc(r->nsites + 1, sizeof(*specs));
	char (*pats)[64] = calloc(r->nsites + 1, sizeof(*pats));
	unsigned n = 0, bad = 0;
	int ret = specs && pats ? 0 : utrace_error_set(r->err, -ENOMEM, "out of memory");

	for (unsigned i = 0; i < r->nsites && !ret; i++) {
		if ((r->sites[i].type != BT_P_UPROBE && r->sites[i].type != BT_P_URETPROBE) ||
		    k->leader[i] != i)
			continue;
		if ((ret = add_probe(k, i)) < 0)
			break;
		snprintf(pats[n], sizeof(pats[n]), "%s:p%u", k->group, i);
		specs[n].pattern = pats[n];
		n++;
	}
	if (!ret)
		ret = utrace_ktrace_open(specs, n, 0, &k->kt, &bad, r->err);
	if (!ret)
		ret = utrace_ktrace_formats(k->kt, take_format, k, r->err);
	if (!ret)
		ret = user_stacks(k);
	if (!ret)
		ret = utrace_ktrace_start(k->kt, 0, false, r->err);
	free(specs);
	free(pats);
	return ret;
}

/* Reads the pages until exit(), SIGINT or SIGTERM; intervals fire. */
static int loop(struct bt_kernel *k)
{
	struct bt_run *r = k->r;
	struct sigaction sa = {.sa_handler = bt_on_signal}, old_int, old_term;
	int ret = 0;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	bt_interrupted = 0;
	bt_live_notify(r);
	while (!ret && !r->exiting && !bt_interrupted) {
		ret = utrace_ktrace_poll(k->kt, false, take_page, k, r->err);
		bt_run_ticks(r, (uint64_t)mono_now());
		bt_usr1_poll(r);
		fflush(r->out);
		if (ret >= 0)
			ret = 0;
		usleep(10000);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return ret;
}

static void detach(struct bt_kernel *k)
{
	struct utrace_error e = {0};

	if (k->kt) {
		utrace_ktrace_stop(k->kt, take_page, k, &e);
		utrace_ktrace_close(k->kt, &e);
	}
	for (unsigned i = 0; i < k->r->nsites; i++) {
		if (k->probes && k->probes[i]) {
			utrace_uprobe_unregister(NULL, k->probes[i], &e);
			utrace_uprobe_free(k->probes[i]);
		}
		if (k->fmts && k->fmts[i])
			utrace_event_format_free(k->fmts[i]);
		bt_site_format(k->r, &k->r->sites[i], NULL);
	}
	for (unsigned c = 0; c < k->nheld; c++)
		if (k->held[c].data)
			held_run(k, c, NULL, 0);
	free(k->held);
	if (k->kb)
		kbuffer_free(k->kb);
	free(k->probes);
	free(k->fmts);
	free(k->ids);
	free(k->leader);
}

int bt_kernel_check(struct bt_run *r)
{
	for (unsigned i = 0; i < r->nsites; i++) /* the kernel reads what fetch-args say */
		if (r->sites[i].code.hit_reads)
			return utrace_error_set(r->err, -ENOTSUP,
						"uprobe:%s:%s: a read of memory at an address "
						"computed at run time needs -c or -p (an in-process "
						"probe): the kernel's uprobes read only at addresses "
						"the arguments give",
						r->sites[i].target, r->sites[i].func);
	return 0;
}

int bt_kernel_run(struct bt_run *r)
{
	struct bt_kernel k = {.r = r, .last_tid = -1, .stack_id = -1};
	const char *why = utrace_ktrace_unavailable();
	int ret;

	if (why)
		return utrace_error_set(r->err, -EPERM,
					"uprobes without -c or -p need the kernel's uprobes: %s", why);
	snprintf(k.group, sizeof(k.group), "utrace_%d", (int)getpid());
	k.probes = calloc(r->nsites + 1, sizeof(*k.probes));
	k.fmts = calloc(r->nsites + 1, sizeof(*k.fmts));
	k.ids = malloc((r->nsites + 1) * sizeof(*k.ids));
	k.leader = malloc((r->nsites + 1) * sizeof(*k.leader));
	k.kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	if (!k.probes || !k.fmts || !k.ids || !k.leader || !k.kb) {
		detach(&k);
		return utrace_error_set(r->err, -ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < r->nsites; i++) {
		k.ids[i] = -1;
		k.leader[i] = i;
		for (unsigned j = 0; j < i && k.leader[i] == i; j++)
			if ((r->sites[i].type == BT_P_UPROBE || r->sites[i].type == BT_P_URETPROBE) &&
			    same_place(&r->sites[i], &r->sites[j]))
				k.leader[i] = j;
	}
	ret = attach(&k);
	if (!ret)
		ret = loop(&k);
	r->exiting = true; /* the pages left: their maps only, as bpftrace's */
	detach(&k);
	return ret;
}
