/* SPDX-License-Identifier: MIT */
/*
 * bt_session.c - a program's uprobes in the traced processes: each site
 * (one function of one attach point) becomes an in-process probe of a
 * recording (lib/session, `--probe 'p:bt/pN FUNC a0=%di:u64 ...'`) on the
 * command started (-c) or the process attached to (-p).  Its records hold
 * what the bytecode may read: the six argument registers (or the return
 * value), the thread's name, the string at each argument str() reads
 * (read at the hit: the process may be gone when the record is read),
 * and what the action reads at addresses computed at run time, which the
 * runtime appends to the record (hit_captured: bt_session_inproc.c sends
 * such an action as a capture program).
 * The records are read back in time order and each runs its site's
 * program (common/bt_prog.h) on the hit it describes; interval probes
 * fire on the records' clock, between the records they fall between.
 *
 * An action that only aggregates runs at the hit instead, in the program,
 * and writes no record (bt_session_inproc.c); the others run here, in the
 * tool, on the recorded hits, so such a hit still costs a record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/fetch_prog.h"
#include "common/record.h"
#include "lib/bt/bt_longval.h"
#include "lib/bt/bt_profile.h"
#include "lib/bt/bt_run_internal.h"
#include "lib/bt/bt_tracepoint.h"
#include "lib/bt/bt_types.h"
#include "lib/bt/bt_usdt.h"
#include "lib/events/event_format.h"
#include "lib/kernel/kernel_kcap.h"
#include "lib/session/session.h"
#include "lib/tracefile/dat_reader.h"

static const char *const arg_regs[6] = {"%di", "%si", "%dx", "%cx", "%r8", "%r9"};

/* The strings a hit captured, served to STR's loads as memory, and the
 * reads its capture program made at the hit (common/bt_prog.h's
 * UTRACE_BT_CAP_MAGIC), served to LOAD's and STR's. */
#define HS_MAX 64 /* str(argN) and str(retval), args.FIELD's, a kernel event's captures */

struct hit_strs {
	struct utrace_kcap_region rg[HS_MAX]; /* each string's address and bytes */
	unsigned n;
	uint64_t cap[UTRACE_FETCH_REC_MAX / 8];
	uint32_t ncap, next;
	bool captured;	 /* the record holds its reads */
	uint64_t missed; /* reads it does not hold */
};
static __thread struct hit_strs *cur_strs;
/* The hit being run, for its DWARF members (bt_session_field). */
static __thread const struct bt_site *cur_site;
static __thread const struct utrace_event *cur_ev;

/* A string of a hit at addr: len bytes at s. */
static void hs_add(struct hit_strs *hs, uint64_t addr, const char *s, size_t len)
{
	hs->rg[hs->n++] = (struct utrace_kcap_region){addr, (const uint8_t *)s, len};
}

static int load_captured(uint64_t addr, unsigned size, uint64_t *out)
{
	struct hit_strs *h = cur_strs;
	int ret;

	/* (an aligned word may hold the end of one string and the start of
	 * the next, and a string's NUL is one past its bytes) */
	if (h && utrace_kcap_regions_load(h->rg, h->n, addr, size, out) == 0)
		return 0;
	if (!h || !h->captured)
		return -1;
	ret = utrace_bt_cap_find(h->cap, h->ncap, &h->next, addr, size, out);
	h->missed += ret == -2;
	return ret < 0 ? -1 : 0;
}

/* The reads a capture program appended to ev's record, into h. */
static void hit_captured(const struct bt_site *s, const struct utrace_event *ev,
			 struct hit_strs *h)
{
	const uint8_t *d = ev->data;
	uint64_t t;
	uint32_t n;

	if (!s->code.hit_reads || ev->data_len < 8)
		return;
	h->captured = true;
	memcpy(&t, d + ev->data_len - 8, 8);
	n = (uint32_t)t & ~UTRACE_BT_CAP_FULL;
	if (t >> 32 != UTRACE_BT_CAP_MAGIC || 16ull * n + 8 > ev->data_len ||
	    2 * n > sizeof(h->cap) / 8)
		return; /* none (a kernel uprobe's hit): every read is missed */
	memcpy(h->cap, d + ev->data_len - 8 - 16ull * n, 16ull * n);
	h->ncap = n;
}

bool bt_site_ustack(const struct bt_site *s)
{
	return s->code.ustack;
}

/* The definition of site k's probe: group/pK at where (in-process:
 * MODULE:FUNC; the kernel's: PATH:FUNC); comm: with the thread's name. */
char *bt_probe_def(const struct bt_site *s, unsigned k, const char *group, const char *where,
		   bool comm)
{
	char buf[1024];
	bool ret = s->type == BT_P_URETPROBE;
	size_t n;

	if (s->off)
		n = (size_t)snprintf(buf, sizeof(buf), "p:%s/p%u %s+%llu", group, k, where,
				     (unsigned long long)s->off);
	else
		n = (size_t)snprintf(buf, sizeof(buf), "%s:%s/p%u %s", ret ? "r" : "p", group, k,
				     where);
	for (unsigned i = 0; i < 6 && !ret && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " a%u=%s:u64", i, arg_regs[i]);
	if (ret && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " ret=$retval:u64");
	for (unsigned i = 0; i < 7 && n < sizeof(buf); i++) {
		if (!(s->strargs >> i & 1))
			continue;
		if (i == 6)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, " s6=+0($retval):string");
		else
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, " s%u=+0(%s):string", i,
					      arg_regs[i]);
	}
	for (unsigned i = 0; i < s->code.nfields && n < sizeof(buf); i++) /* DWARF members */
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " f%u=%s", i, s->code.fields[i]);
	if (comm && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " comm=$comm");
	return n < sizeof(buf) ? strdup(buf) : NULL;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Where site s's in-process probe goes: MODULE:FUNC, MODULE the file name
 * of the target (the kernel's MODULE:SYMBOL, lib/probes/inproc_probe.c),
 * so that `uprobe:libc:strcmp` is libc's strcmp and not also ld.so's or
 * the program's own function of that name, as a kernel uprobe is on one
 * file; the target's real file's name (a link's target has its own
 * name), and FUNC alone if that name could not be parsed as a module.
 */
static char *inproc_where(const struct bt_site *s)
{
	char *real = realpath(s->target, NULL), *out = NULL;
	const char *path = real ? real : s->target, *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!*base || strpbrk(base, ": \t"))
		out = strdup(s->func);
	else if (asprintf(&out, "%s:%s", base, s->func) < 0)
		out = NULL;
	free(real);
	return out;
}

/* ustack: site k's event with the stacktrace trigger, its stack the
 * record after each hit's. */
static int stack_trigger(struct bt_run *r, struct utrace_session_opts *so, unsigned k)
{
	char ev[32];
	int ret;

	snprintf(ev, sizeof(ev), "bt:p%u", k);
	if (!(r->defs[r->ndefs] = strdup(ev)))
		return utrace_error_set(r->err, -ENOMEM, "out of memory");
	ret = utrace_session_opts_set(so, "event", r->defs[r->ndefs++], r->err);
	return ret ? ret : utrace_session_opts_set(so, "trigger", "stacktrace", r->err);
}

/* Whether site i is the first of its kernel event (one -e each). */
static bool first_of_event(const struct bt_run *r, unsigned i)
{
	for (unsigned k = 0; k < i; k++)
		if (r->sites[k].type == BT_P_TRACEPOINT && !strcmp(r->sites[k].func, r->sites[i].func))
			return false;
	return true;
}

/* The kernel's probes of the recording: a kernel uprobe per usdt site (an
 * in-process probe for one whose arguments only that fetches), an -e per
 * tracepoint's event.  As bpftrace's, a tracepoint sees every process, -c
 * and -p or not (they name the processes of uprobes and usdt); usdt hits
 * are every process's with no process named (also the processes started
 * later; --usdt-file-activation is this too), the recording holding a
 * process of its own till the end.  With -c or -p and a tracepoint, the
 * kernel instance no longer follows the traced processes, so the replay
 * keeps the usdt hits of the command's or PID's process only (bpftrace
 * attaches usdt to that pid).  0, or <0 with r->err. */
static int kernel_probes(struct bt_run *r, struct utrace_session_opts *so)
{
	static char *waiter[] = {"sleep", "2147483647", NULL};
	bool kernel = false, tp = false;
	int ret = 0;

	for (unsigned i = 0; i < r->nsites && !ret; i++) {
		struct bt_site *s = &r->sites[i];
		bool inproc;
		char *def;

		if (s->type == BT_P_TRACEPOINT && r->o->verbose)
			fprintf(r->o->log, "tracepoint:%s: a kernel event of the recording's "
					   "kernel instance (every process's); its hits replayed by "
					   "utrace bt\n", s->func);
		if (s->type == BT_P_TRACEPOINT && first_of_event(r, i))
			ret = utrace_session_opts_set(so, "event", s->func, r->err);
		tp |= s->type == BT_P_TRACEPOINT;
		kernel |= s->type == BT_P_TRACEPOINT;
		if (s->type != BT_P_USDT || ret)
			continue;
		if (!(def = bt_usdt_def(r, s, i, &inproc)))
			return -EINVAL;
		if (r->o->verbose)
			fprintf(r->o->log,
				"usdt:%s: %s (%s); its hits recorded and replayed by "
				"utrace bt\n",
				s->func, inproc ? "in-process probe" : "kernel uprobe", def);
		kernel |= !inproc;
		r->defs[r->ndefs++] = def; /* kept: the options keep the pointer */
		ret = utrace_session_opts_set(so, "probe", def, r->err);
	}
	so->argv = r->o->argv;
	if (!ret && !so->argv && !r->o->pid) {
		so->argv = waiter;
		so->own_command = true; /* Ctrl-C ends it too: not the user's */
		r->waiting = true;
	} else {
		kernel = tp;
		r->usdt_own = tp;
	}
	if (!ret && kernel)
		ret = utrace_session_opts_set(so, "system-wide", NULL, r->err);
	return ret;
}

/* Site i's probe: an in-process probe on the target's file (bt/pK
 * MODULE:FUNC), or with r->kuprobes a kernel uprobe (utrace_PID/pK
 * PATH:FUNC); NULL with r->err.  A site whose action runs at the hit
 * and never reads comm has no comm=$comm: its record is written only if
 * the runtime refuses its program, and its replay would not read the
 * name; and a probe of registers alone gets a compiled stub that calls
 * the program straight (runtime/inproc_probe_jit.c; before the stubs,
 * the lean way: 38.6 to 34 ns a hit in bench/hotpaths.sh's bt row). */
static char *uprobe_def(struct bt_run *r, unsigned i)
{
	const struct bt_site *s = &r->sites[i];
	char *where = NULL, *def = NULL;
	bool comm = r->kuprobes || s->inproc_no || bt_code_uses_comm(&s->code);

	if (r->kuprobes) { /* checked: bt_target.c */
		if (asprintf(&where, "%s:%s", s->target, s->func) < 0)
			where = NULL;
	} else {
		where = inproc_where(s);
	}
	if (!where || !(def = bt_probe_def(s, i, r->kuprobes ? "utrace" : "bt", where, comm)))
		utrace_error_set(r->err, -ENOMEM, "out of memory");
	free(where);
	return def;
}

/* The uprobes' probes of the recording, each said with -v. */
static int uprobe_probes(struct bt_run *r, struct utrace_session_opts *so)
{
	int ret;

	if ((ret = bt_inproc_setup(r, &so->rec)) < 0)
		return ret;
	for (unsigned i = 0; i < r->nsites && !ret; i++) {
		const struct bt_site *s = &r->sites[i];
		char *def;

		if (s->type != BT_P_UPROBE && s->type != BT_P_URETPROBE)
			continue;
		if (!(def = uprobe_def(r, i)))
			return r->err->code;
		if (r->o->verbose)
			fprintf(r->o->log, "%s:%s:%s: %s (%s); %s%s%s\n",
				s->type == BT_P_UPROBE ? "uprobe" : "uretprobe", s->target, s->func,
				r->kuprobes ? "kernel uprobe" : "in-process probe", def,
				s->inproc_no ? "its hits recorded and replayed by utrace bt: "
					     : "its action runs at the hit, in the program",
				s->inproc_no ? s->inproc_no : "",
				s->inproc_no && s->code.hit_reads ? " (the memory it reads read at the hit)"
								  : "");
		r->defs[r->ndefs++] = def; /* kept: the options keep the pointer */
		ret = utrace_session_opts_set(so, "probe", def, r->err);
		if (!ret && bt_site_ustack(s))
			ret = stack_trigger(r, so, i);
	}
	return ret;
}

/* The recording of the sites' probes into path: 0, 1 if it was
 * interrupted before it began (nothing recorded), <0 with r->err. */
static int record(struct bt_run *r, const char *path, int *status)
{
	struct utrace_session_opts so;
	struct utrace_session *s = NULL;
	bool early = false;
	char pid[16];
	int ret;

	if (utrace_session_opts_init(&so) < 0)
		return utrace_error_set(r->err, -ENOMEM, "out of memory");
	so.log = r->o->log;
	so.quiet = true;
	ret = utrace_session_opts_set(&so, "tracer", "nop", r->err);
	if (!ret)
		ret = utrace_session_opts_set(&so, "output", path, r->err);
	if (!ret && r->o->pid) {
		snprintf(pid, sizeof(pid), "%d", r->o->pid);
		ret = utrace_session_opts_set(&so, "pid", pid, r->err);
	}
	if (!ret)
		ret = uprobe_probes(r, &so);
	if (!ret)
		ret = kernel_probes(r, &so);
	if (!ret)
		bt_kcap_attach(r);
	so.step = bt_live_step; /* bt_live.c: printf while the program runs */
	so.step_arg = r;
	if (!ret)
		ret = utrace_session_opts_finish(&so, r->err) ? 2 : 0;
	if (!ret)
		ret = utrace_session_new(&so, &s) < 0 ? 1 : 0;
	/* (the recording's probes go on in it: the intervals count from its
	 * start, so that a hit right after does not come before their first
	 * tick, which bpftrace starts as it attaches) */
	r->attach_ns = mono_ns();
	if (!ret)
		ret = utrace_session_start(s, r->err);
	/* Ctrl-C while the probes were being attached: nothing hit them,
	 * the run ends as an interrupted one (END, the maps, 0) */
	early = ret && utrace_session_signal() && !r->err->msg[0];
	if (!ret) {
		utrace_session_run(s);
		if (r->waiting) /* (Ctrl-C given to utrace bt alone too) */
			utrace_session_end_command(s);
		ret = utrace_session_stop(s);
		if (ret == UTRACE_SESSION_RAN) {
			*status = utrace_session_status(s);
			ret = 0;
		}
	}
	utrace_session_free(s);
	so.argv = NULL;
	utrace_session_opts_free(&so);
	return early ? 1 : ret ? -EINVAL : 0;
}

/* Which site each event of the recording is: "bt/pK" is site K. */
/* A kernel event of sites of tracepoint:SYSTEM:EVENT (each its func
 * "SYSTEM:EVENT"): those sites are it; whether there were any. */
static bool map_tracepoint(struct bt_run *r, const char *sys, const char *text, int id,
			   struct utrace_event_format **fmt)
{
	size_t n = strlen(sys);
	bool found = false;
	struct utrace_error e = {0};

	for (unsigned k = 0; k < r->nsites; k++) {
		struct bt_site *s = &r->sites[k];

		if (s->type != BT_P_TRACEPOINT || strncmp(s->func, sys, n) || s->func[n] != ':')
			continue;
		if (!*fmt && utrace_event_format_parse(sys, text, fmt, &e) < 0)
			return false;
		if (strcmp((*fmt)->name, s->func + n + 1))
			continue;
		s->event_id = id;
		bt_site_format(r, s, *fmt);
		found = true;
	}
	return found;
}

static int map_events(struct bt_run *r, struct utrace_dat *d, struct utrace_event_format ***fmts)
{
	unsigned n = utrace_dat_event_format_count(d);

	*fmts = calloc(n + 1, sizeof(**fmts));
	if (!*fmts)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		const char *sys = NULL;
		int id = -1;
		const char *text = utrace_dat_event_format(d, i, &id, &sys);
		unsigned k;
		struct utrace_error e = {0};

		if (text && sys && (map_tracepoint(r, sys, text, id, &(*fmts)[i]) || (*fmts)[i]))
			continue;
		/* bt/pK: in-process; utrace_PID/btpK: a kernel uprobe (usdt),
		 * utrace_PID/pK: a kernel uprobe (r->kuprobes) */
		if (!text || !sys || (strcmp(sys, "bt") && strncmp(sys, "utrace_", 7)) ||
		    utrace_event_format_parse(sys, text, &(*fmts)[i], &e) < 0)
			continue;
		if ((sscanf((*fmts)[i]->name, "p%u", &k) == 1 ||
		     (strcmp(sys, "bt") && sscanf((*fmts)[i]->name, "btp%u", &k) == 1)) &&
		    k < r->nsites) {
			r->sites[k].event_id = id;
			bt_site_format(r, &r->sites[k], (*fmts)[i]);
		}
	}
	return 0;
}

void bt_site_format(const struct bt_run *r, struct bt_site *s,
		    const struct utrace_event_format *f)
{
	struct bt_site_fields *fl = &s->fl;

	s->fmt = f;
	fl->comm = utrace_event_field_find(f, "comm");
	fl->ret = utrace_event_field_find(f, "ret");
	for (unsigned i = 0; i < 7; i++) {
		char name[3] = {'a', (char)('0' + i), 0};

		if (i < 6)
			fl->a[i] = utrace_event_field_find(f, name);
		name[0] = 's';
		fl->s[i] = utrace_event_field_find(f, name);
	}
	for (unsigned i = 0; i < 6; i++)
		fl->tp[i] = i < r->prog.ntp_fields ? utrace_event_field_find(f, r->prog.tp_fields[i])
						   : NULL;
}

static uint64_t field_u64(const struct utrace_event_field *fl, const struct utrace_event *ev)
{
	uint64_t v = 0;

	if (fl && fl->offset >= 8 && fl->offset - 8 + 8 <= ev->data_len)
		memcpy(&v, (const uint8_t *)ev->data + fl->offset - 8, 8);
	return v;
}

/* A __data_loc string field: its bytes in the record, or "". */
static const char *field_str(const struct utrace_event_field *fl, const struct utrace_event *ev,
			     size_t *len)
{
	uint32_t loc = 0, off, n;

	*len = 0;
	if (!fl || fl->offset < 8 || fl->offset - 8 + 4 > ev->data_len)
		return "";
	memcpy(&loc, (const uint8_t *)ev->data + fl->offset - 8, 4);
	off = loc & 0xffff;
	n = loc >> 16;
	if (off < 8 || off - 8 + n > ev->data_len || !n)
		return "";
	*len = n;
	return (const char *)ev->data + off - 8;
}

int64_t bt_session_field(void *arg, unsigned k, char *out)
{
	char name[16];
	const struct utrace_event_field *fl;
	int64_t v = 0;

	snprintf(name, sizeof(name), "f%u", k);
	if (!cur_site || !cur_ev || !(fl = utrace_event_field_find(cur_site->fmt, name)))
		return 0;
	if (out && k < cur_site->code.nfields && cur_site->code.ftypes[k]) { /* a struct, an array */
		const uint8_t *b = (const uint8_t *)cur_ev->data + fl->offset - 8;

		if (fl->offset < 8 || fl->offset - 8 + fl->size > cur_ev->data_len)
			return 0;
		if (cur_site->code.ftypes[k] == BT_FTYPE_MACADDR && fl->size >= 6)
			snprintf(out, UTRACE_BT_STRLEN, "%02X:%02X:%02X:%02X:%02X:%02X", b[0], b[1],
				 b[2], b[3], b[4], b[5]);
		else if (cur_site->code.ftypes[k] == BT_FTYPE_BUF)
			utrace_bt_buf_bytes(out, b, fl->size);
		else if (cur_site->code.ftypes[k] != BT_FTYPE_MACADDR)
			bt_record_text(cur_site->code.p, cur_site->code.ftypes[k], b, fl->size,
				       ((struct bt_run *)arg)->longvals, out);
		return 0;
	}
	if (out) {
		size_t len;
		const char *s = field_str(fl, cur_ev, &len);

		snprintf(out, UTRACE_BT_STRLEN, "%.*s", (int)len, s);
		return 0;
	}
	if (fl->offset >= 8 && fl->size <= 8 && fl->offset - 8 + fl->size <= cur_ev->data_len) {
		memcpy(&v, (const uint8_t *)cur_ev->data + fl->offset - 8, fl->size);
		if (fl->is_signed && fl->size < 8 && (v >> (8 * fl->size - 1) & 1))
			v |= (int64_t)(~0ull << (8 * fl->size));
	}
	return v;
}

#define TP_STR_ADDR 0xbf00000000000000ull /* where a tracepoint's strings seem to be */

/* A tracepoint's args.FIELD values (r->prog.tp_fields) as its
 * arguments: an integer as the field holds it, a string at a made-up
 * address whose bytes the record serves (load_captured). */
static void tp_args(const struct bt_run *r, const struct bt_site *s, const struct utrace_event *ev,
		    struct utrace_bt_hit *hit, struct hit_strs *hs)
{
	for (unsigned i = 0; i < r->prog.ntp_fields && hs->n < HS_MAX; i++) {
		const struct utrace_event_field *fl = s->fl.tp[i];
		const uint8_t *p;
		uint64_t v = 0;
		size_t len = 0;

		if (!fl || fl->offset < 8 || fl->offset - 8 + fl->size > ev->data_len)
			continue;
		p = (const uint8_t *)ev->data + fl->offset - 8;
		if (fl->kind == UTRACE_EF_CHARS || fl->kind == UTRACE_EF_STRING) {
			const char *str = (const char *)p;

			hit->args[i] = (int64_t)(TP_STR_ADDR + ((uint64_t)i << 24));
			if (fl->kind == UTRACE_EF_CHARS)
				len = strnlen(str, fl->size);
			else
				str = field_str(fl, ev, &len);
			hs_add(hs, (uint64_t)hit->args[i], str, len);
		} else if (fl->size <= 8) {
			memcpy(&v, p, fl->size);
			if (fl->is_signed && fl->size < 8 && (v >> (8 * fl->size - 1) & 1))
				v |= ~0ull << (8 * fl->size);
			hit->args[i] = (int64_t)v;
		}
	}
}

/* What a BPF program read at the hit of a kernel event where its pointer
 * fields point, and the thread's name there (bt_kcap.c): whether it
 * read that. */
static bool kernel_strs(struct bt_run *r, unsigned k, const struct utrace_event *ev,
			struct utrace_bt_hit *hit, struct hit_strs *hs)
{
	struct utrace_kcap_region rg[HS_MAX];
	bool named;
	unsigned n = bt_kcap_take(r, k, (int)ev->tid, ev->ts, hit->args, rg, HS_MAX - hs->n,
				  hit->comm, &named);

	for (unsigned i = 0; i < n; i++)
		hs->rg[hs->n++] = rg[i];
	return named;
}

static void hit_of(struct bt_run *r, const struct bt_site *s, const struct utrace_event *ev,
		   struct utrace_bt_hit *hit, struct hit_strs *hs)
{
	static int64_t ids[2];
	static bool ids_read;
	size_t len;
	const char *comm = field_str(s->fl.comm, ev, &len);

	memset(hit, 0, sizeof(*hit));
	memset(hs, 0, sizeof(*hs));
	for (unsigned i = 0; i < 6; i++)
		hit->args[i] = (int64_t)field_u64(s->fl.a[i], ev);
	if (s->type == BT_P_USDT)
		bt_usdt_args(s->fmt, ev, hit);
	hit->builtin[UTRACE_BB_RETVAL] = (int64_t)field_u64(s->fl.ret, ev);
	hit->builtin[UTRACE_BB_PID] = ev->pid;
	hit->builtin[UTRACE_BB_TID] = ev->tid;
	if (!ids_read) { /* the tool's (as bpftrace's uid of a replay): read once */
		ids[0] = getuid();
		ids[1] = getgid();
		ids_read = true;
	}
	hit->builtin[UTRACE_BB_UID] = ids[0];
	hit->builtin[UTRACE_BB_GID] = ids[1];
	hit->builtin[UTRACE_BB_NSECS] = (int64_t)ev->ts;
	hit->builtin[UTRACE_BB_ELAPSED] = (int64_t)ev->ts - r->start_ns;
	hit->builtin[UTRACE_BB_CPU] = ev->cpu;
	hit->builtin[UTRACE_BB_NUMAID] = bt_cpu_node(ev->cpu);
	hit->builtin[UTRACE_BB_CPID] = r->cpid;
	snprintf(hit->comm, sizeof(hit->comm), "%.*s", (int)len, comm);
	for (unsigned i = 0; i < 7; i++) {
		if (!(s->strargs >> i & 1))
			continue;
		const char *str = field_str(s->fl.s[i], ev, &len);

		hs_add(hs,
		       i == 6 ? (uint64_t)hit->builtin[UTRACE_BB_RETVAL] : (uint64_t)hit->args[i],
		       str, len);
	}
}

void bt_run_ticks(struct bt_run *r, uint64_t ts)
{
	for (;;) {
		struct bt_site *due = NULL;
		struct utrace_bt_hit hit = {0};

		for (unsigned i = 0; i < r->nsites; i++)
			if (r->sites[i].type == BT_P_INTERVAL && r->sites[i].next_tick <= ts &&
			    (!due || r->sites[i].next_tick < due->next_tick))
				due = &r->sites[i];
		if (!due || r->exiting)
			return;
		bt_hit_tool(r, &hit);
		bt_tool_comm(hit.comm);
		hit.builtin[UTRACE_BB_NSECS] = (int64_t)due->next_tick;
		hit.builtin[UTRACE_BB_ELAPSED] = (int64_t)due->next_tick - r->start_ns;
		due->next_tick += due->period_ns;
		bt_run_hit(r, due, &hit);
	}
}

/* Whether an earlier reading replayed ev: its time stamp as written (a
 * user record's TSC count, a kernel record's count of its trace_clock:
 * the TSC's under x86-tsc, ns under mono), not ts, which a later reading
 * of the grown file may calibrate a little differently (a kernel record
 * replayed twice, or never, at the edge of two readings);
 * else it is the newest replayed.  Records of the newest stamp are
 * counted: a flood of openat on two CPUs gives two records the same
 * stamp now and then, and the second is not one replayed already. */
static bool bt_replayed_already(struct bt_run *r, const struct utrace_event *ev, bool kmono)
{
	struct bt_seen *seen = ev->has_ctx ? &r->seen_kernel : &r->seen_user;
	uint64_t stamp = ev->has_ctx && kmono ? ev->ts : ev->tsc;

	if (seen->stamp && stamp < seen->stamp)
		return true;
	if (seen->stamp && stamp == seen->stamp && seen->again++ < seen->n)
		return true;
	if (stamp == seen->stamp) {
		seen->n++;
	} else {
		seen->stamp = stamp;
		seen->n = seen->again = 1;
	}
	if (ev->ts > r->replayed_ts)
		r->replayed_ts = ev->ts;
	return false;
}

/* One hit of site k, with its stack (pc, n) if it took one. */
void bt_session_hit(struct bt_run *r, struct utrace_dat *d, unsigned k,
		     const struct utrace_event *ev, const uint64_t *pc, unsigned n)
{
	struct utrace_bt_hit hit;
	struct hit_strs hs;

	r->nreplayed++;
	hit_of(r, &r->sites[k], ev, &hit, &hs);
	if (r->sites[k].type == BT_P_TRACEPOINT && d) {
		tp_args(r, &r->sites[k], ev, &hit, &hs);
		if (!kernel_strs(r, k, ev, &hit, &hs)) /* no name read at the hit: now's */
			bt_tracepoint_comm(d, &r->cmdlines, ev->tid, ev->ts, hit.comm,
					   sizeof(hit.comm));
	}
	hit_captured(&r->sites[k], ev, &hs);
	r->ctx.load = load_captured;
	cur_strs = &hs;
	cur_site = &r->sites[k];
	cur_ev = ev;
	if (d)
		bt_usym_hit(r->usym, d, ev->image, pc, n);
	else /* the kernel's uprobes: a live process */
		bt_usym_hit_live(r->usym, ev->pid, pc, n);
	bt_run_hit(r, &r->sites[k], &hit);
	bt_usym_hit(r->usym, NULL, 0, NULL, 0);
	r->cap_missed += hs.missed;
	cur_strs = NULL;
	cur_site = NULL;
	cur_ev = NULL;
}

/* A hit whose action takes ustack waits for the stack its thread writes
 * right after it (the stacktrace trigger's record, UTRACE_EV_STACK). */
struct held {
	unsigned site;
	struct utrace_event ev;
	void *data; /* a copy of ev's: NULL when none is held */
};

static int held_keep(struct held *h, unsigned site, const struct utrace_event *ev)
{
	h->site = site;
	h->ev = *ev;
	if (!(h->data = malloc(ev->data_len + 1)))
		return -ENOMEM;
	memcpy(h->data, ev->data, ev->data_len);
	h->ev.data = h->data;
	return 0;
}

static void held_run(struct bt_run *r, struct utrace_dat *d, struct held *h, const void *stack,
		     unsigned n)
{
	uint64_t pc[UREC_STACK_MAX];

	if (n > UREC_STACK_MAX)
		n = UREC_STACK_MAX;
	if (stack)
		memcpy(pc, stack, n * sizeof(uint64_t));
	bt_session_hit(r, d, h->site, &h->ev, stack ? pc : NULL, n);
	free(h->data);
	h->data = NULL;
}

/* The recording as it is now into r->dat: opened at the first reading,
 * then refreshed (what was added since the last one read only). */
static int replay_open(struct bt_run *r, const char *path)
{
	int ret;

	if (!r->dat)
		return utrace_dat_open(path, &r->dat, r->err);
	ret = utrace_dat_refresh(r->dat, r->err);
	if (ret < 0) {
		utrace_dat_close(r->dat);
		r->dat = NULL;
	}
	return ret;
}

/* The recording's events after those replayed already (r->replayed_ts)
 * up to horizon (CLOCK_MONOTONIC ns), in time order: while it records
 * (bt_live.c), and once more for the rest when it has ended. */
int bt_replay(struct bt_run *r, const char *path, uint64_t horizon)
{
	struct held *held = NULL;
	struct utrace_event_format **fmts = NULL;
	struct utrace_dat_iter *it = NULL;
	struct utrace_dat *d;
	struct utrace_event ev;
	int ret = replay_open(r, path);
	const char *kclock;
	bool kmono, ustack = false;

	d = r->dat;
	kclock = ret ? NULL : utrace_dat_kernel_clock(d);
	kmono = kclock && !strcmp(kclock, "mono");
	for (unsigned i = 0; i < r->nsites; i++)
		ustack |= bt_site_ustack(&r->sites[i]);

	bt_cmdlines_stale(&r->cmdlines); /* a thread gone, or renamed, since the last reading */
	r->seen_user.again = r->seen_kernel.again = 0;
	if (!ret)
		ret = map_events(r, d, &fmts);
	if (!ret)
		ret = utrace_dat_iter_open(d, &it, r->err);
	/* (a hit waits for its stack only where a site takes one: not a
	 * held hit per thread, thousands of kernel tasks, at every reading) */
	if (!ret && ustack && !(held = calloc(utrace_dat_buffer_count(d) + 1, sizeof(*held))))
		ret = -ENOMEM;
	/* (a millisecond early: a record's time may come out a little
	 * earlier in a later reading, the file's clock calibrated anew) */
	if (!ret && r->resume)
		ret = utrace_dat_iter_resume(it, r->resume,
					     r->replayed_ts > 1000000 ? r->replayed_ts - 1000000 : 0,
					     r->err);
	/* (after exit(), the hits recorded until the probes went: their
	 * maps only, as bpftrace's hits until it detaches) */
	while (!ret && (ret = utrace_dat_iter_next(it, &ev, r->err)) > 0) {
		struct held *h = held ? &held[ev.buf] : NULL;

		ret = 0;
		if (h && h->data && ev.kind == UTRACE_EV_STACK) { /* the held hit's stack */
			held_run(r, d, h, ev.data, ev.data_len / 8);
			continue;
		}
		if (ev.ts > horizon)
			break;
		if (bt_replayed_already(r, &ev, kmono))
			continue;
		bt_run_ticks(r, ev.ts);
		if (h && h->data && ev.kind == UTRACE_EV_EVENT)
			held_run(r, d, h, NULL, 0);
		if (ev.kind != UTRACE_EV_EVENT)
			continue;
		for (unsigned i = 0; i < r->nsites && !ret; i++) {
			if (r->sites[i].event_id != (int)ev.id || !r->sites[i].fmt)
				continue;
			if (r->waiter_pid && (ev.pid == r->waiter_pid || ev.tid == r->waiter_pid))
				break; /* the recording's own waiting process */
			if (r->usdt_own && r->sites[i].type == BT_P_USDT &&
			    (int)ev.pid != (r->o->pid ? r->o->pid : r->cpid))
				break; /* another process's: see kernel_probes */
			if (bt_site_ustack(&r->sites[i]))
				ret = held_keep(h, i, &ev);
			else
				bt_session_hit(r, d, i, &ev, NULL, 0);
		}
	}
	for (unsigned b = 0; held && b < utrace_dat_buffer_count(d); b++)
		if (held[b].data)
			held_run(r, d, &held[b], NULL, 0);
	free(held);
	if (ret > 0)
		ret = 0;
	if (!ret && horizon != UINT64_MAX) /* while it records: the intervals due */
		bt_run_ticks(r, horizon);
	for (unsigned i = 0; fmts && i < utrace_dat_event_format_count(d); i++)
		if (fmts[i])
			utrace_event_format_free(fmts[i]);
	free(fmts);
	utrace_dat_iter_close(it);
	if (ret < 0 && d) { /* the next reading opens it anew */
		utrace_dat_close(d);
		r->dat = NULL;
	}
	return ret;
}

int bt_session_run(struct bt_run *r)
{
	char dir[] = "/tmp/utrace-bt.XXXXXX", path[64];
	int status = 0, ret;
	bool early;

	if (!mkdtemp(dir))
		return utrace_error_set(r->err, -errno, "%s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/bt.dat", dir);
	r->defs = calloc(2 * r->nsites + 1, sizeof(*r->defs));
	for (unsigned i = 0; i < r->nsites; i++)
		r->sites[i].event_id = -1;
	r->tables_fd = -1;
	r->ctx.load = load_captured;
	r->dat_path = path;
	r->replay = bt_replay;
	ret = r->defs ? record(r, path, &status) : -ENOMEM;
	early = ret == 1;
	if (early)
		ret = 0;
	else if (!ret)
		ret = bt_replay(r, path, UINT64_MAX);
	utrace_dat_resume_free(r->resume);
	r->resume = NULL;
	utrace_dat_close(r->dat);
	r->dat = NULL;
	bt_cmdlines_free(&r->cmdlines);
	bt_kcap_end(r);
	bt_profile_drain(r);
	bt_profile_close(r);
	if (!ret && !early)
		ret = bt_inproc_collect(r);
	if (!ret && r->o->verbose)
		fprintf(r->o->log, "utrace bt: %llu hits replayed from the recording\n",
			(unsigned long long)r->nreplayed);
	if (!ret && r->cap_missed) /* the action took another path than at the hit */
		fprintf(r->o->log,
			"utrace bt: %llu reads of the program's memory were not made at the hit "
			"(a path that depends on a map's value, or more reads than a record "
			"holds): they read 0\n",
			(unsigned long long)r->cap_missed);
	if (!ret && bt_longvals_cut(r->longvals))
		fprintf(r->o->log,
			"utrace bt: %llu struct or array values were cut at 64 bytes: more than "
			"64 MiB of distinct long values\n",
			(unsigned long long)bt_longvals_cut(r->longvals));
	if (!ret)
		bt_run_ticks(r, (uint64_t)mono_ns());
	unlink(path);
	rmdir(dir);
	bt_inproc_free(r);
	for (unsigned i = 0; i < r->ndefs; i++)
		free(r->defs[i]);
	free(r->defs);
	(void)status;
	return ret;
}
