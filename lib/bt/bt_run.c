/* SPDX-License-Identifier: MIT */
/*
 * bt_run.c - a bpftrace program from its text to its last map: parsed and
 * checked (bt_parse.c, bt_check*.c), its uprobes resolved to functions (a
 * wildcard to every function it matches; a probe that matches nothing
 * stops everything before anything runs, as bpftrace's "No probes to
 * attach"), each attach point compiled once (bt_compile.c), then run as
 * bpftrace runs it: BEGIN, the probes while the command lives
 * (bt_session.c), END, and every non-empty map printed.  BEGIN and END
 * run here, in the tool, as bpftrace runs them in its own process.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "lib/bt/bt_longval.h"
#include "lib/bt/bt_run_internal.h"
#include "lib/elf/symtab.h"
#include "lib/session/session.h"
#include "lib/bt/bt_tracepoint.h"
#include "lib/bt/bt_types.h"
#include "lib/bt/bt_usdt.h"

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Bit i for each str(argi) in the tree, bit 6 for str(retval). */
static unsigned str_args(struct bt_node *const *v, unsigned n);

static unsigned str_args_of(const struct bt_node *x)
{
	unsigned m = 0;

	if (!x)
		return 0;
	if (x->kind == BT_N_CALL && !strcmp(x->str, "str") && x->nargs &&
	    x->args[0]->kind == BT_N_BUILTIN) {
		const char *a = x->args[0]->str;

		if (!strncmp(a, "arg", 3) && a[3] >= '0' && a[3] <= '5' && !a[4])
			m |= 1u << (a[3] - '0');
		else if (!strcmp(a, "retval"))
			m |= 1u << 6;
	}
	return m | str_args_of(x->a) | str_args_of(x->b) | str_args_of(x->c) |
	       str_args(x->args, x->nargs) | str_args(x->body, x->nbody) |
	       str_args(x->orelse, x->norelse);
}

static unsigned str_args(struct bt_node *const *v, unsigned n)
{
	unsigned m = 0;

	for (unsigned i = 0; i < n; i++)
		m |= str_args_of(v[i]);
	return m;
}

static int add_site(struct bt_run *r, const struct bt_probe *pr, const struct bt_attach *ap,
		    const char *func)
{
	struct bt_site *s = realloc(r->sites, (r->nsites + 1) * sizeof(*s));
	int ret;

	if (!s)
		return utrace_error_set(r->err, -ENOMEM, "out of memory");
	r->sites = s;
	s = &r->sites[r->nsites];
	*s = (struct bt_site){.type = ap->type, .off = ap->off, .period_ns = ap->period_ns,
			      .strargs = str_args_of(pr->pred) | str_args(pr->body, pr->nbody)};
	if (ap->target && (!(s->target = strdup(ap->target)) || !(s->func = strdup(func))))
		return utrace_error_set(r->err, -ENOMEM, "out of memory");
	r->nsites++;
	ret = bt_compile(&r->prog, pr, ap, func ? func : "", &r->fmts, &s->code, r->err);
	return ret;
}

/* A usdt attach point: a site per location of each note it matches. */
static int resolve_usdt(struct bt_run *r, const struct bt_probe *pr, const struct bt_attach *ap)
{
	struct bt_usdt_site *v = NULL;
	size_t n = 0;
	int ret = bt_usdt_find(ap->target, ap->func, r->o->pid, r->o->argv, &v, &n);

	if (ret < 0)
		utrace_error_set(r->err, ret, "%s: %s", ap->target, strerror(-ret));
	else if (!n) /* bpftrace's words, before anything runs */
		ret = utrace_error_set(r->err, -ENOENT, "No probes to attach");
	for (size_t i = 0; i < n && !ret; i++) {
		struct bt_site *s;

		if ((ret = add_site(r, pr, ap, v[i].probe)) < 0)
			break;
		s = &r->sites[r->nsites - 1];
		free(s->target);
		s->target = v[i].shown;
		s->file = v[i].file;
		s->note = v[i].note;
		v[i].shown = v[i].file = NULL;
	}
	bt_usdt_sites_free(v, n);
	return ret;
}

/* A tracepoint attach point: a site per kernel event its globs match. */
static int resolve_tracepoint(struct bt_run *r, const struct bt_probe *pr,
			      const struct bt_attach *ap)
{
	char **v = NULL;
	size_t n = 0;
	int ret = bt_tracepoint_find_in(r->prog.exe, ap->target, ap->func, &v, &n);

	if (ret < 0)
		utrace_error_set(r->err, ret, "tracefs available_events: %s", strerror(-ret));
	else if (!n && pr->naps > 1) /* bpftrace 0.17 runs the others */
		fprintf(r->o->log, "WARNING: tracepoint not found: %s:%s\n", ap->target, ap->func);
	else if (!n) /* bpftrace's words */
		ret = utrace_error_set(r->err, -ENOENT, "tracepoint not found: %s:%s", ap->target,
				       ap->func);
	for (size_t i = 0; i < n; i++) {
		if (!ret)
			ret = add_site(r, pr, ap, v[i]);
		free(v[i]);
	}
	free(v);
	return ret;
}

/* uprobe:BIN:FUNC+OFF: OFF inside FUNC, else bpftrace's error. */
static int check_offset(struct bt_run *r, const struct bt_attach *ap, const char *func)
{
	struct utrace_symtab *tab = NULL;
	struct utrace_error e = {0};
	int ret = 0;

	if (!ap->off || utrace_symtab_load(ap->target, &tab, &e) < 0)
		return 0; /* no symbols: the probe's own check */
	for (size_t i = 0; i < utrace_symtab_count(tab); i++) {
		const struct utrace_sym *s = utrace_symtab_get(tab, i);

		if (!strcmp(s->name, func) && s->size && ap->off >= s->size) {
			ret = utrace_error_set(r->err, -EINVAL, "Offset outside the function bounds "
					       "('%s' size is %llu)", func,
					       (unsigned long long)s->size);
			break;
		}
	}
	utrace_symtab_free(tab);
	return ret;
}

/* uprobe:BIN:ADDRESS (a number, bpftrace's): the function holding it, as
 * FUNC+OFF; 1 if func is no number, 0 when resolved, <0 with err. */
static int resolve_address(struct bt_run *r, const struct bt_attach *ap, char **name,
			   uint64_t *off)
{
	struct utrace_symtab *tab = NULL;
	struct utrace_error e = {0};
	const struct utrace_sym *s = NULL;
	char *end;
	uint64_t addr;

	if (ap->func[0] < '0' || ap->func[0] > '9')
		return 1;
	addr = strtoull(ap->func, &end, 0);
	if (*end)
		return 1;
	if (utrace_symtab_load(ap->target, &tab, &e) == 0)
		s = utrace_symtab_lookup(tab, addr, off);
	if (s && !(*name = strdup(s->name)))
		s = NULL, e.code = -ENOMEM;
	utrace_symtab_free(tab);
	if (!s && e.code == -ENOMEM)
		return utrace_error_set(r->err, -ENOMEM, "out of memory");
	if (!s) /* bpftrace's words */
		return utrace_error_set(r->err, -ENOENT, "Could not resolve address: %s:0x%llx",
					ap->target, (unsigned long long)addr);
	return 0;
}

/* Every attach point of every probe into sites. */
static int resolve(struct bt_run *r)
{
	int ret = 0;

	for (unsigned i = 0; i < r->prog.nprobes && !ret; i++) {
		const struct bt_probe *pr = &r->prog.probes[i];

		for (unsigned k = 0; k < pr->naps && !ret; k++) {
			const struct bt_attach *ap = &pr->aps[k];
			char **funcs = NULL, *name = NULL;
			size_t n = 0;
			uint64_t off = 0;

			if (ap->type == BT_P_USDT) {
				ret = resolve_usdt(r, pr, ap);
				continue;
			}
			if (ap->type == BT_P_TRACEPOINT) {
				ret = resolve_tracepoint(r, pr, ap);
				continue;
			}
			if (ap->type != BT_P_UPROBE && ap->type != BT_P_URETPROBE) {
				ret = add_site(r, pr, ap, NULL);
				continue;
			}
			if ((ret = resolve_address(r, ap, &name, &off)) <= 0) {
				if (!ret && !(ret = add_site(r, pr, ap, name)))
					r->sites[r->nsites - 1].off = off;
				free(name);
				name = NULL;
				continue;
			}
			ret = bt_resolve_funcs(ap->target, ap->func, &funcs, &n);
			if (ret < 0)
				utrace_error_set(r->err, ret, "%s: %s", ap->target, strerror(-ret));
			else if (!n) /* bpftrace's words, before anything runs */
				ret = utrace_error_set(r->err, -ENOENT, "No probes to attach");
			for (size_t f = 0; f < n; f++) {
				if (!ret)
					ret = check_offset(r, ap, funcs[f]);
				if (!ret)
					ret = add_site(r, pr, ap, funcs[f]);
				free(funcs[f]);
			}
			free(funcs);
		}
	}
	return ret;
}

/* BEGIN, END and interval run in the tool: the tool's own pid and name. */
static void run_here(struct bt_run *r, enum bt_probe_type type)
{
	struct utrace_bt_hit hit = {0};

	bt_hit_tool(r, &hit);
	bt_tool_comm(hit.comm);
	hit.builtin[UTRACE_BB_NSECS] = now_ns();
	hit.builtin[UTRACE_BB_ELAPSED] = now_ns() - r->start_ns;
	for (unsigned i = 0; i < r->nsites; i++)
		if (r->sites[i].type == type && !(r->exiting && type != BT_P_END))
			bt_run_action(r, r->sites[i].code.prog, &hit);
}

/* After exit(), SIGINT or SIGTERM, bpftrace reads no more of its output
 * buffers before END: the printf, system, cat, print, clear, zero and
 * exit of hits it had not read yet are dropped (their map updates, made
 * at the hit until the probes are detached, stay).  utrace bt runs the
 * hits recorded up to then, and drops their output the same way. */
static bool emit_dropped(const struct bt_run *r)
{
	return !r->in_end && (r->exiting || bt_interrupted || utrace_session_signal());
}

static void emit_now(struct bt_run *r, const void *rec, uint32_t len)
{
	struct utrace_bt_rec_hdr h;

	if (emit_dropped(r))
		return;
	if (bt_format_record(r, rec, len) == 1) {
		memcpy(&h, rec, sizeof(h));
		bt_run_command(r, &h, (const uint8_t *)rec + sizeof(h));
	}
}

/* A record of the action running, kept (its length, then its bytes)
 * until the action ends; handled at once if it cannot be kept. */
static void emit_cb(void *arg, const void *rec, uint32_t len)
{
	struct bt_run *r = arg;
	size_t need = r->npend + sizeof(len) + len;

	if (r->deferring && need > r->cpend) {
		size_t cap = r->cpend ? 2 * r->cpend : 4096;
		uint8_t *p = realloc(r->pend, cap > need ? cap : need);

		if (p) {
			r->pend = p;
			r->cpend = cap > need ? cap : need;
		}
	}
	if (!r->deferring || need > r->cpend) {
		emit_now(r, rec, len);
		return;
	}
	memcpy(r->pend + r->npend, &len, sizeof(len));
	memcpy(r->pend + r->npend + sizeof(len), rec, len);
	r->npend = need;
}

/* bpftrace's action sends printf, print, clear, zero, exit ... to its
 * user space, which handles them once the action has ended: a map
 * changed after print() in the same action prints its later value.  So
 * here: the records are kept while the action runs (bt_run_action), then
 * handled in their order (printf's values were taken when it ran). */
static void flush(struct bt_run *r)
{
	size_t off = 0;

	while (off + sizeof(uint32_t) <= r->npend) {
		uint32_t len;

		memcpy(&len, r->pend + off, sizeof(len));
		emit_now(r, r->pend + off + sizeof(len), len);
		off += sizeof(len) + len;
	}
	r->npend = 0;
}

/* BEGIN, END and interval read the tool's own memory, as bpftrace's read
 * bpftrace's: through the kernel, so that a bad address fails (-1)
 * instead of faulting. */
static int load_self(uint64_t addr, unsigned size, uint64_t *out)
{
	struct iovec local = {out, size}, remote = {(void *)(uintptr_t)addr, size};

	*out = 0;
	if (size > 8 || process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)size) {
		*out = 0;
		return -1;
	}
	return 0;
}

/* LOADREC: the struct or array at addr, read as load_self reads. */
static void record_cb(void *arg, uint64_t addr, uint32_t type, char *out)
{
	const struct bt_program *p = &((struct bt_run *)arg)->prog;
	const struct bt_ctype *t = bt_ctype(p, type);
	uint8_t b[512];
	struct iovec local = {b, t ? t->size : 0}, remote = {(void *)(uintptr_t)addr, local.iov_len};

	memset(b, 0, sizeof(b));
	out[0] = 0;
	if (!t || t->size > sizeof(b))
		return;
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)t->size)
		memset(b, 0, sizeof(b)); /* as a failed probe_read leaves it */
	bt_record_text(p, type, b, t->size, ((struct bt_run *)arg)->longvals, out);
}

static const char *long_text_cb(void *arg, const char *slot)
{
	return bt_longval_text(((struct bt_run *)arg)->longvals, slot);
}

static void long_put_cb(void *arg, const char *text, unsigned len, char *slot)
{
	bt_longval_put(((struct bt_run *)arg)->longvals, text, len, slot);
}

static int get_cb(void *arg, unsigned map, const uint8_t *key, struct utrace_bt_mval *v)
{
	return bt_maps_get(((struct bt_run *)arg)->maps, map, key, v);
}

static void update_cb(void *arg, unsigned map, const uint8_t *key, int agg,
		      const struct utrace_bt_mval *v)
{
	bt_maps_update(((struct bt_run *)arg)->maps, map, key, agg, v);
}

static int64_t ustack_cb(void *arg, unsigned limit, unsigned mode)
{
	return bt_usym_stack(((struct bt_run *)arg)->usym, limit, mode);
}

static void usym_cb(void *arg, uint64_t addr, char *out)
{
	bt_usym_name(((struct bt_run *)arg)->usym, addr, out, UTRACE_BT_STRLEN);
}

/* The maps keyed on, or holding, ustack print its frames. */
static int stack_maps(struct bt_run *r)
{
	if (bt_usym_new(&r->usym) < 0)
		return -ENOMEM;
	for (unsigned i = 0; i < r->prog.nmaps; i++) {
		const struct bt_mapdef *d = &r->prog.maps[i];
		const struct bt_ctype *vt;
		uint32_t keys = 0;

		for (unsigned k = 0; k < d->nkeys; k++)
			if (d->key_types[k] == BT_T_STACK)
				keys |= 1u << k;
		bt_maps_set_stacks(r->maps, i, keys, d->vtype == BT_T_STACK, r->usym);
		vt = bt_ctype(&r->prog, d->vctype);
		if ((d->agg == UTRACE_BT_AGG_SCALAR && d->vtype == BT_T_INT && vt &&
		     vt->kind == BT_C_INT && !vt->is_signed) ||
		    (d->agg == UTRACE_BT_AGG_SUM && d->vusgn))
			bt_maps_set_unsigned(r->maps, i); /* bpftrace's uint64: bt_check_sign.c */
	}
	return 0;
}

int bt_run_command(struct bt_run *r, const struct utrace_bt_rec_hdr *h, const uint8_t *vals)
{
	int64_t top = 0, div = 0;

	if (h->kind == UTRACE_BREC_EXIT) {
		r->exiting = true;
		return 0;
	}
	if (h->id >= r->prog.nmaps)
		return -EINVAL;
	switch (h->kind) {
	case UTRACE_BREC_PRINT_MAP:
		memcpy(&top, vals, 8);
		memcpy(&div, vals + 8, 8);
		return bt_maps_print(r->maps, h->id, r->prog.maps[h->id].name,
				     top > 0 ? (size_t)top : 0, div > 0 ? (uint64_t)div : 0, r->fmt,
				     r->out);
	case UTRACE_BREC_CLEAR:
		bt_maps_clear(r->maps, h->id);
		return 0;
	case UTRACE_BREC_ZERO:
		bt_maps_zero(r->maps, h->id);
		return 0;
	default:
		return -EINVAL;
	}
}

/* At exit: two blank lines, then the maps.  bpftrace writes the lines to
 * its stdout even with -o FILE, and the maps to FILE. */
static void print_maps(struct bt_run *r)
{
	FILE *term = r->o->term ? r->o->term : r->out;

	fputs("\n\n", term); /* bpftrace's, maps or not, text or json */
	if (term != r->out)
		fflush(term);
	bt_print_all(r);
}

/* bpftrace's first line: the probes attached, each function once. */
static void attaching(struct bt_run *r)
{
	if (r->fmt == UTRACE_BT_JSON)
		fprintf(r->out, "{\"type\": \"attached_probes\", \"data\": {\"probes\": %u}}\n",
			r->nsites);
	else
		fprintf(r->out, "Attaching %u probe%s...\n", r->nsites, r->nsites == 1 ? "" : "s");
	fflush(r->out);
}

/* Without -c or -p: 1 if the probes are uprobes (and BEGIN, END,
 * interval), the kernel's to serve (bt_kernel.c); -1 if uprobes are mixed
 * with the recording's kinds (usdt, tracepoint, profile); 0 otherwise. */
static int uprobes_alone(const struct bt_run *r)
{
	bool up = false, rec = false;

	if (r->o->argv || r->o->pid)
		return 0;
	for (unsigned i = 0; i < r->nsites; i++) {
		up |= r->sites[i].type == BT_P_UPROBE || r->sites[i].type == BT_P_URETPROBE;
		rec |= r->sites[i].type == BT_P_USDT || r->sites[i].type == BT_P_TRACEPOINT ||
		       r->sites[i].type == BT_P_PROFILE;
	}
	return up ? (rec ? -1 : 1) : 0;
}

static bool has_uprobes(const struct bt_run *r)
{
	for (unsigned i = 0; i < r->nsites; i++)
		if (r->sites[i].type == BT_P_UPROBE || r->sites[i].type == BT_P_URETPROBE ||
		    r->sites[i].type == BT_P_USDT || r->sites[i].type == BT_P_TRACEPOINT ||
		    r->sites[i].type == BT_P_PROFILE)
			return true;
	return false;
}


/* No process to trace: as bpftrace, the program runs until exit() or
 * Ctrl-C, its intervals firing on time. */
static void run_alone(struct bt_run *r)
{
	struct sigaction sa = {.sa_handler = bt_on_signal}, old_int, old_term;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	bt_interrupted = 0;
	bt_live_notify(r);
	while (!r->exiting && !bt_interrupted) {
		uint64_t next = UINT64_MAX;
		struct timespec ts;

		for (unsigned i = 0; i < r->nsites; i++)
			if (r->sites[i].type == BT_P_INTERVAL && r->sites[i].next_tick < next)
				next = r->sites[i].next_tick;
		if (next == UINT64_MAX) {
			pause();
			bt_usr1_poll(r);
			continue;
		}
		ts.tv_sec = (time_t)(next / 1000000000);
		ts.tv_nsec = (long)(next % 1000000000);
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == 0)
			bt_run_ticks(r, next);
		bt_usr1_poll(r);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
}

/* -v: where the probes that are not uprobes run (bt_session.c says it
 * of each uprobe). */
static void say_mechanisms(const struct bt_run *r)
{
	for (unsigned i = 0; i < r->nsites; i++) {
		const struct bt_site *s = &r->sites[i];

		if (s->type == BT_P_BEGIN || s->type == BT_P_END)
			fprintf(r->o->log, "%s: runs in utrace bt itself\n",
				s->type == BT_P_BEGIN ? "BEGIN" : "END");
		else if (s->type == BT_P_INTERVAL)
			fprintf(r->o->log, "interval (%llu ns): runs in utrace bt, on %s\n",
				(unsigned long long)s->period_ns,
				has_uprobes(r) ? "the recorded hits' clock" : "the clock");
	}
}

static int run(struct bt_run *r)
{
	struct sigaction usr1 = {.sa_handler = bt_on_usr1}, old_usr1;
	int ret = 0;

	if (!r->nsites || bt_maps_new(r->sites[0].code.prog, &r->maps) < 0 || stack_maps(r) < 0)
		return utrace_error_set(r->err, -ENOMEM, "out of memory");
	bt_maps_set_longvals(r->maps, r->longvals);
	r->ctx = (struct utrace_bt_ctx){.arg = r, .load = load_self, .map_get = get_cb,
					.map_update = update_cb, .emit = emit_cb,
					.ustack = ustack_cb, .usym = usym_cb,
					.field = bt_session_field, .strftime = bt_strftime_cb,
					.record = record_cb, .name = bt_name_cb,
					.long_text = long_text_cb, .long_put = long_put_cb};
	r->flush = flush;
	r->start_ns = now_ns();
	if (has_uprobes(r) && (r->o->argv || r->o->pid) && (ret = bt_check_targets(r)) < 0)
		return ret;
	if (uprobes_alone(r) > 0 && (ret = bt_kernel_check(r)) < 0)
		return ret;
	if (!r->o->quiet)
		attaching(r);
	if (r->o->verbose)
		say_mechanisms(r);
	/* SIGUSR1 prints every map, as bpftrace's */
	sigemptyset(&usr1.sa_mask);
	sigaction(SIGUSR1, &usr1, &old_usr1);
	run_here(r, BT_P_BEGIN);
	/* bpftrace attaches the interval probes after BEGIN ran: the first
	 * fires a period after BEGIN's nsecs */
	for (unsigned i = 0; i < r->nsites; i++)
		r->sites[i].next_tick = (uint64_t)now_ns() + r->sites[i].period_ns;
	if (!r->exiting && uprobes_alone(r) < 0)
		ret = utrace_error_set(r->err, -EINVAL,
				       "uprobes without -c or -p are served by the kernel's uprobes, "
				       "which utrace bt does not mix with usdt, tracepoint or profile "
				       "probes yet: give -c CMD or -p PID");
	else if (!r->exiting && uprobes_alone(r) > 0)
		ret = bt_kernel_run(r); /* every process running the binaries */
	else if (!r->exiting && (has_uprobes(r) || r->o->argv || r->o->pid))
		ret = bt_session_run(r);
	else if (!r->exiting)
		run_alone(r);
	sigaction(SIGUSR1, &old_usr1, NULL);
	if (ret < 0) /* the probes could not run: no END, no maps */
		return ret;
	r->in_end = true;
	run_here(r, BT_P_END);
	print_maps(r);
	if (bt_maps_drops(r->maps))
		fprintf(r->o->log, "utrace bt: %llu map updates dropped: a map was full "
				   "(BPFTRACE_MAP_KEYS_MAX)\n",
			(unsigned long long)bt_maps_drops(r->maps));
	fflush(r->out);
	return ret;
}

static void run_free(struct bt_run *r)
{
	for (unsigned i = 0; i < r->nsites; i++) {
		free(r->sites[i].target);
		free(r->sites[i].func);
		free(r->sites[i].file);
		free(r->sites[i].code.prog);
		for (unsigned k = 0; k < r->sites[i].code.nfields; k++)
			free(r->sites[i].code.fields[k]);
		free(r->sites[i].code.fields);
		free(r->sites[i].code.ftypes);
	}
	free(r->sites);
	free(r->pend);
	bt_formats_free(&r->fmts);
	bt_maps_free(r->maps);
	bt_usym_free(r->usym);
	bt_longvals_free(r->longvals);
	bt_program_free(&r->prog);
	free(r->src);
}

int utrace_bt_run(const struct utrace_bt_opts *o, struct utrace_error *err)
{
	struct bt_run *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return utrace_error_set(err, -ENOMEM, "out of memory"), 1;
	*r = (struct bt_run){.o = o, .out = o->out ? o->out : stdout, .fmt = o->fmt, .err = err};
	if (bt_longvals_new(&r->longvals) < 0) {
		free(r);
		return utrace_error_set(err, -ENOMEM, "out of memory"), 1;
	}
	r->prog.longvals = r->longvals;
	r->prog.src = o->text;
	r->prog.name = o->name ? o->name : "stdin";
	r->prog.unsafe = o->unsafe;
	r->prog.has_child = o->argv != NULL;
	r->prog.pid = o->pid;
	r->prog.exe = r->exe = bt_tracepoint_exe(o->argv, o->pid); /* its own tracepoints */
	r->prog.helper_check = o->helper_check;
	r->prog.params = o->params;
	r->prog.nparams = o->nparams;
	ret = bt_preprocess(o->text,
			    &(struct bt_cpp_opts){.includes = o->includes,
						  .nincludes = o->nincludes,
						  .dirs = o->include_dirs,
						  .ndirs = o->ninclude_dirs},
			    &r->src, err);
	if (!ret) {
		r->prog.src = r->src;
		ret = bt_parse(&r->prog, err);
	}
	if (!ret)
		ret = bt_check(&r->prog, err);
	if (!ret && r->prog.warnings)
		fputs(r->prog.warnings, o->log); /* bpftrace's, on stderr before it attaches */
	if (!ret)
		ret = resolve(r);
	if (!ret && o->dump) {
		for (unsigned i = 0; i < r->nsites; i++) {
			fprintf(r->out, "%s%s%s:\n", r->sites[i].target ? r->sites[i].target : "",
				r->sites[i].func ? ":" : "", r->sites[i].func ? r->sites[i].func : "");
			bt_code_dump(&r->sites[i].code, r->out);
		}
	} else if (!ret) {
		ret = run(r);
	}
	run_free(r);
	free(r->exe);
	free(r);
	return ret < 0 ? 1 : 0;
}
