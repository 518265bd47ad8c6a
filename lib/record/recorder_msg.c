/* SPDX-License-Identifier: MIT */
/*
 * recorder_msg.c - the recorder's side of the runtime's protocol
 * (common/proto.h): HELLO gets the CONFIG and the control page, OBJECT and
 * SITES describe call sites and get the SELECT flags the filters give,
 * EVENTS get the ENABLE of the selected tracepoints, BUFFER hands over a
 * thread's ring buffer, NOTICE carries a message for the user.  Each one
 * is also written to the trace file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/scm.h"
#include "lib/base/grow.h"
#include "lib/base/proc_self.h"
#include "lib/events/event_select.h"
#include "lib/events/ftrace_filter.h"
#include "lib/hist/synth.h"
#include "lib/probes/inproc_probe.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_fpatch.h"
#include "lib/record/recorder_hist.h"
#include "lib/record/recorder_inproc_probe.h"
#include "lib/record/recorder_libcall.h"
#include "lib/record/recorder_live.h"
#include "lib/record/recorder_symtab.h"
#include "lib/record/recorder_quiesce.h"
#include "lib/record/recorder_trig.h"
#include "lib/elf/symtab.h"
#include "lib/probes/dwarf.h"

/* funcgraph-args: the DWARF of an object with call sites, opened once;
 * one without it gets no arguments, and a notice says why. */
static void open_dwarf(struct utrace_recorder *r, struct rec_conn *c, struct rec_symtab *s)
{
	struct utrace_error e;

	if (s->dwarf_tried)
		return;
	s->dwarf_tried = true;
	if (utrace_dwarf_open(s->path, &s->dwarf, &e) == 0)
		return;
	s->dwarf = NULL;
	if (r->o.notice) {
		char text[sizeof(e.msg) + 64];

		snprintf(text, sizeof(text), "funcgraph-args: %s: no arguments recorded", e.msg);
		r->o.notice(r->o.notice_arg, c->pid, text);
	}
}

/* funcgraph-args: the site flags that record the argument registers the
 * parameters of the function at vaddr of s use (maybe none: floating-point
 * ones, but the report still shows them); 0 if it has no parameter. */
static unsigned site_args(struct rec_symtab *s, uint64_t vaddr)
{
	struct utrace_dwarf_sig sig;

	if (!s->dwarf || utrace_dwarf_func_sig(s->dwarf, vaddr, &sig) < 0 || !sig.nparams)
		return 0;
	return UTRACE_SITE_GRAPH_ARGS | sig.int_regs << UTRACE_SITE_GRAPH_NREGS_SHIFT;
}

/* The stack tracer on: stack_trace_filter's choice of o's sites, sent
 * before their SELECTs (common/proto.h UTRACE_SELECT_STACK); none for a
 * libcall part, whose sites are GOT slots. */
static int select_stack(struct utrace_recorder *r, struct rec_conn *c, uint32_t idx,
			struct utrace_msg_select *sel)
{
	struct rec_object *o = &c->objs[idx];
	int ret = 0;

	if (!r->stack_on || o->flags & UTRACE_OBJ_LIBCALL)
		return 0;
	for (uint32_t first = 0; first < o->nr_sites && ret >= 0; first += UTRACE_SITES_PER_MSG) {
		uint32_t cnt = o->nr_sites - first;

		if (cnt > UTRACE_SITES_PER_MSG)
			cnt = UTRACE_SITES_PER_MSG;
		*sel = (struct utrace_msg_select){{(uint32_t)(sizeof(*sel) + cnt), UTRACE_MSG_SELECT},
						  idx, first, cnt, UTRACE_SELECT_STACK};
		for (uint32_t i = 0; i < cnt; i++) {
			const struct utrace_sym *sym = NULL;
			uint64_t va = o->vaddrs[first + i], off;

			if (va && o->syms && o->syms->tab)
				sym = utrace_symtab_lookup(o->syms->tab, va, &off);
			sel->flags[i] = sym && (!r->stack_filter ||
						utrace_func_filter_select(r->stack_filter, sym->name,
									  sym->raw, o->path) &
						    UTRACE_SITE_TRACE);
		}
		ret = rec_conn_send(c, sel, sel->hdr.size, -1);
	}
	return ret;
}

int rec_conn_select(struct utrace_recorder *r, struct rec_conn *c, uint32_t idx)
{
	struct rec_object *o = &c->objs[idx];
	struct utrace_msg_select *sel = malloc(sizeof(*sel) + UTRACE_SITES_PER_MSG);
	unsigned extra = o->flags & UTRACE_OBJ_FPATCH ? rec_fpatch_site_flags(r, o->path) : 0;
	int ret = 0;

	if (!sel)
		return -ENOMEM;
	o->syms = rec_symtab_get(r, o->path);
	if (o->syms && r->o.funcgraph_args && o->nr_sites && !(o->flags & UTRACE_OBJ_LIBCALL))
		open_dwarf(r, c, o->syms);
	ret = select_stack(r, c, idx, sel);
	for (uint32_t first = 0; first < o->nr_sites && ret >= 0; first += UTRACE_SITES_PER_MSG) {
		uint32_t cnt = o->nr_sites - first;

		if (cnt > UTRACE_SITES_PER_MSG)
			cnt = UTRACE_SITES_PER_MSG;
		sel->hdr.type = UTRACE_MSG_SELECT;
		sel->hdr.size = (uint32_t)(sizeof(*sel) + cnt);
		sel->obj = idx;
		sel->first = first;
		sel->count = cnt;
		sel->kind = UTRACE_SELECT_SITES;
		for (uint32_t i = 0; i < cnt; i++) {
			const struct utrace_sym *sym = NULL;
			uint64_t va = o->vaddrs[first + i], off;
			const char *name = NULL, *raw = NULL;
			bool lib = o->flags & UTRACE_OBJ_LIBCALL;
			unsigned f = 0;

			if (lib) {
				name = rec_libcall_name(o->syms, va, &raw);
			} else if (va && o->syms && o->syms->tab &&
				   (sym = utrace_symtab_lookup(o->syms->tab, va, &off))) {
				name = sym->name;
				raw = sym->raw;
			}
			if (name && r->o.tracer != UTRACE_TRACER_NOP &&
			    !(lib && rec_libcall_refused(raw)))
				f = r->o.filter ? utrace_func_filter_select_hits(
						      r->o.filter, name, raw, o->path, r->filter_hits)
						: UTRACE_SITE_TRACE;
			if ((f & UTRACE_SITE_TRACE) && r->o.funcgraph_args && !lib &&
			    r->o.tracer == UTRACE_TRACER_FUNCTION_GRAPH)
				f |= site_args(o->syms, va);
			if (f & UTRACE_SITE_TRACE)
				f |= extra;
			sel->flags[i] = (uint8_t)f;
		}
		ret = rec_conn_send(c, sel, sel->hdr.size, -1);
	}
	free(sel);
	return ret;
}

static int rec_synth_send(struct utrace_recorder *r, struct rec_conn *c,
			  struct utrace_error *err);
static int rec_inproc_probe_send(struct utrace_recorder *r, struct rec_conn *c,
			   struct utrace_error *err);

static int msg_hello(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		     struct utrace_error *err)
{
	const struct utrace_msg_hello *h = buf;
	struct utrace_msg_config cfg = {0};
	struct utrace_dat_image img = {0};
	size_t elen = n - sizeof(*h);
	int ret;

	/* version and pid sit where every version of the hello has them */
	if (n >= offsetof(struct utrace_msg_hello, ppid) && h->version != UTRACE_PROTO_VERSION) {
		char why[192];

		snprintf(why, sizeof(why),
			 "its runtime (libutrace.so) speaks protocol %u, this utrace %u: a "
			 "runtime of another build or install is not recorded",
			 h->version, UTRACE_PROTO_VERSION);
		if (r->o.notice)
			r->o.notice(r->o.notice_arg, h->pid, why);
		return -EPROTO;
	}
	if (n < sizeof(*h))
		return -EPROTO;
	c->pid = h->pid;
	c->ppid = h->ppid;
	if (h->flags & UTRACE_HELLO_FORKED)
		rec_live_pids_fork(r, h->ptid, h->pid);
	img.image = c->image;
	img.pid = h->pid;
	img.ppid = h->ppid;
	img.flags = h->flags;
	if (rec_write(r, UTRACE_DAT_IMAGE, &img, sizeof(img), h->exe, strnlen(h->exe, elen), err) <
	    0)
		return err->code;
	cfg.hdr.type = UTRACE_MSG_CONFIG;
	cfg.hdr.size = sizeof(cfg);
	cfg.tracer = r->o.tracer;
	cfg.flags = (r->o.overwrite ? UTRACE_CFG_OVERWRITE
				    : r->o.drop ? 0
						: UTRACE_CFG_BLOCK) |
		    (r->o.filter && utrace_func_filter_count(r->o.filter, UTRACE_GRAPH)
			 ? UTRACE_CFG_GRAPH_FUNCS
			 : 0) |
		    (r->o.funcgraph_retval ? UTRACE_CFG_GRAPH_RETVAL : 0) |
		    (r->o.funcgraph_retaddr ? UTRACE_CFG_GRAPH_RETADDR : 0) |
		    (r->o.live ? UTRACE_CFG_LIVE : 0) |
		    (r->o.libcall ? UTRACE_CFG_LIBCALL : 0) |
		    (r->o.dump_on_crash ? UTRACE_CFG_DUMP_ON_CRASH : 0);
	cfg.nr_subbufs = r->nr_subbufs;
	cfg.max_depth = r->o.max_depth;
	cfg.thresh_ns = r->o.thresh_ns;
	cfg.tsc_per_us_q16 = r->tsc_per_us_q16;
	cfg.nr_synth = r->o.events ? r->o.nr_synths : 0;
	/* (probes added while running are recorded without any -e) */
	cfg.nr_inproc_probes = r->o.events || rec_inproc_probe_any_live(r) ? r->o.nr_inproc_probes : 0;
	ret = rec_conn_send(c, &cfg, sizeof(cfg), r->ctl_fd);
	if (ret >= 0)
		ret = rec_synth_send(r, c, err);
	return ret < 0 ? ret : rec_inproc_probe_send(r, c, err);
}

/* An object's path as the process c names it (len bytes), as the tool
 * opens it: through /proc/PID/root when the process's mount namespace or
 * root makes it another file than ours (its symbols, its probes' places);
 * the recording keeps that name.  A process that ended before this was
 * asked (a short fork child) has no /proc/PID/root: if the name is no
 * file here, its parent's view is asked, whose objects a fork child's
 * are.  *via_root: the name is such a /proc/PID/root one. */
static char *object_path(const struct rec_conn *c, const char *name, size_t len, bool *via_root)
{
	char *path = strndup(name, len), at[PATH_MAX + 64];
	int pids[2] = {c->pid, c->ppid};
	struct stat st;

	*via_root = false;
	for (int i = 0; path && i < 2 && pids[i] > 0; i++) {
		if (utrace_proc_path(pids[i], path, at, sizeof(at)) > 0 && strcmp(at, path)) {
			free(path);
			*via_root = true;
			return strdup(at);
		}
		if (!stat(path, &st))
			break;
	}
	return path;
}

static int msg_object(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		      struct utrace_error *err)
{
	const struct utrace_msg_object *m = buf;
	struct utrace_dat_object d = {0};
	struct rec_object *o;
	bool via_root;

	if (n < sizeof(*m) + 1 || m->obj != c->nr_objs || m->nr_sites > (1u << 24))
		return -EPROTO;
	if (UTRACE_GROW(c->objs, c->cap_objs, c->nr_objs + 1) < 0)
		return -ENOMEM;
	o = &c->objs[c->nr_objs++];
	memset(o, 0, sizeof(*o));
	o->path = object_path(c, m->path, n - sizeof(*m), &via_root);
	o->bias = m->bias;
	o->id_base = m->id_base;
	o->nr_sites = m->nr_sites;
	o->flags = m->flags;
	if (!(m->flags & UTRACE_OBJ_LIBCALL)) /* call sites: the program's own */
		r->nr_sites += m->nr_sites;
	o->vaddrs = calloc(m->nr_sites ? m->nr_sites : 1, sizeof(uint64_t));
	if (!o->path || !o->vaddrs)
		return -ENOMEM;
	/* a name through /proc/PID/root opens only while the process lives:
	 * its symbols (a libcall object's imports) are read now, not when the
	 * recording ends */
	if (via_root && (o->syms = rec_symtab_get(r, o->path)) && (m->flags & UTRACE_OBJ_LIBCALL))
		rec_libcall_read_imports(o->syms);
	if ((m->flags & UTRACE_OBJ_SYMTAB_SITES) && !(m->flags & UTRACE_OBJ_INHERITED) &&
	    r->o.notice) {
		char text[PATH_MAX + 200];

		snprintf(text, sizeof(text),
			 "%s: some functions start with the instrumented NOP but are missing "
			 "from its call-site section (a gcc 12 bug with COMDAT functions; see "
			 "utrace cflags): traced from its symbols",
			 o->path);
		r->o.notice(r->o.notice_arg, c->pid, text);
	}
	d.image = c->image;
	d.obj = m->obj;
	d.flags = m->flags;
	d.id_base = m->id_base;
	d.nr_sites = m->nr_sites;
	d.bias = m->bias;
	return rec_write(r, UTRACE_DAT_OBJECT, &d, sizeof(d), o->path, strlen(o->path) + 1, err);
}

static int msg_sites(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		     struct utrace_error *err)
{
	const struct utrace_msg_sites *m = buf;
	struct utrace_dat_sites d = {0};
	struct rec_object *o;

	if (n < sizeof(*m) || m->obj >= c->nr_objs)
		return -EPROTO;
	o = &c->objs[m->obj];
	if (m->first != o->received || m->count > o->nr_sites - o->received ||
	    n < sizeof(*m) + m->count * sizeof(uint64_t))
		return -EPROTO;
	memcpy(o->vaddrs + m->first, m->vaddr, m->count * sizeof(uint64_t));
	o->received += m->count;
	d.image = c->image;
	d.obj = m->obj;
	d.first = m->first;
	d.count = m->count;
	if (rec_write(r, UTRACE_DAT_SITES, &d, sizeof(d), m->vaddr, m->count * sizeof(uint64_t),
		      err) < 0)
		return err->code;
	if (o->received == o->nr_sites && !(o->flags & UTRACE_OBJ_INHERITED))
		return rec_conn_select(r, c, m->obj);
	return 0;
}

/*
 * One event of an object (or a synthetic event, obj UTRACE_SYNTH_OBJ and
 * path UTRACE_EVENT_NOOBJ): if the recording selects it, its format is
 * saved the first time, its hist triggers and trigger commands go out,
 * then its ENABLE.  en: a UTRACE_MSG_MAX buffer.
 */
int rec_event_enable(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		     const char *path, const char *sys, const char *name,
		     struct utrace_msg_enable *en, struct utrace_error *err)
{
	const char *format;
	const void *prog;
	uint32_t plen;
	int id, on, ret;

	on = utrace_event_select_match(r->o.events, path, sys, name, &id, &prog, &plen, &format,
				       err);
	if (on < 0) {
		/* a filter that does not fit this object's event: say so and
		 * leave the event off, the recording goes on */
		if (r->o.notice)
			r->o.notice(r->o.notice_arg, c->pid, err->msg);
		return 0;
	}
	if (on > 0 && r->o.live)
		rec_live_event_prog(r, c, path, sys, name, id, &prog, &plen);
	if (!on || sizeof(*en) + plen > UTRACE_MSG_MAX)
		return 0;
	if (format) {
		struct utrace_dat_event_format ef = {.id = (uint32_t)id};
		struct iovec iov[3] = {{&ef, sizeof(ef)},
				       {(void *)sys, strlen(sys) + 1},
				       {(void *)format, strlen(format) + 1}};

		ret = utrace_dat_write(r->w, UTRACE_DAT_EVENT_FORMAT, iov, 3, err);
		if (ret < 0)
			return ret;
	}
	ret = rec_hist_send(r, c, obj, key, path, sys, name, err);
	if (ret >= 0)
		ret = rec_trig_send(r, c, obj, key, path, sys, name, err);
	if (ret >= 0 && r->o.live)
		ret = rec_live_event_trigs(r, c, obj, key, path, sys, name, id);
	if (ret < 0)
		return ret;
	en->hdr.type = UTRACE_MSG_ENABLE;
	en->hdr.size = (uint32_t)(sizeof(*en) + plen);
	en->obj = obj;
	en->key = key;
	en->id = id;
	en->filter_len = plen;
	en->flags = r->o.live ? rec_live_event_flags(r, c, obj, key, sys, name, id, format != NULL)
		    : (utrace_event_select_soft(r->o.events, sys, name) ? UTRACE_ENABLE_SOFT : 0) |
			  rec_trig_flags(r, sys, name);
	en->reserved = 0;
	if (plen)
		memcpy(en->filter, prog, plen);
	return rec_conn_send(c, en, en->hdr.size, -1);
}

/* The last ENABLE of an object: the runtime patches after it. */
int rec_enable_done(struct rec_conn *c, uint32_t obj, struct utrace_msg_enable *en)
{
	en->hdr.type = UTRACE_MSG_ENABLE;
	en->hdr.size = sizeof(*en);
	en->obj = obj;
	en->key = UTRACE_ENABLE_DONE;
	en->id = -1;
	en->filter_len = 0;
	en->flags = en->reserved = 0;
	return rec_conn_send(c, en, sizeof(*en), -1);
}

/*
 * The synthetic events of the recording (--synthetic): no object defines
 * them, so every process gets them right after its CONFIG, as the events
 * of an object of index UTRACE_SYNTH_OBJ whose key i is synthetic event
 * i (the id an EMIT carries), with their formats (saved once), filters,
 * hist triggers and trigger commands.
 */
static int rec_synth_send(struct utrace_recorder *r, struct rec_conn *c, struct utrace_error *err)
{
	struct utrace_msg_enable *en;
	int ret = 0;

	if (!r->o.events || !r->o.nr_synths)
		return 0;
	if (!(en = malloc(UTRACE_MSG_MAX)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < r->o.nr_synths && i < UTRACE_SYNTH_MAX && ret >= 0; i++)
		ret = rec_event_enable(r, c, UTRACE_SYNTH_OBJ, i, UTRACE_EVENT_NOOBJ, "synthetic",
				       r->o.synths[i]->name, en, err);
	if (ret >= 0)
		ret = rec_enable_done(c, UTRACE_SYNTH_OBJ, en);
	free(en);
	return ret;
}

/* Probe key i's bt program, if `utrace bt` gave it one: before its ENABLE. */
static int rec_bt_send(struct utrace_recorder *r, struct rec_conn *c, unsigned i)
{
	const char *g = utrace_inproc_probe_group(r->o.inproc_probes[i]);
	const char *e = utrace_inproc_probe_event(r->o.inproc_probes[i]);

	for (unsigned k = 0; k < r->o.nr_bt; k++) {
		const struct utrace_rec_bt *b = &r->o.bt[k];
		struct utrace_msg_bt m = {.hdr.type = UTRACE_MSG_BT,
					  .obj = UTRACE_INPROC_PROBE_OBJ,
					  .key = i,
					  .prog_len = b->prog_len,
					  .flags = b->flags,
					  .tables_size = b->tables_size};

		if (!strcmp(b->group, g) && !strcmp(b->event, e))
			return rec_conn_send_with(c, &m, sizeof(m), b->prog, b->prog_len, b->fd);
	}
	return 0;
}

/* The in-process probes' events, after the synthetic events': the
 * events of an object of index UTRACE_INPROC_PROBE_OBJ whose key i is probe i. */
static int rec_inproc_probe_send(struct utrace_recorder *r, struct rec_conn *c, struct utrace_error *err)
{
	struct utrace_msg_enable *en;
	int ret = 0;

	if ((!r->o.events && !rec_inproc_probe_any_live(r)) || !r->o.nr_inproc_probes)
		return 0;
	if (!(en = malloc(UTRACE_MSG_MAX)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < r->o.nr_inproc_probes && i < UTRACE_INPROC_PROBE_MAX && ret >= 0; i++)
		if (!(ret = rec_inproc_probe_live_enable(r, c, i, en)) && r->o.events &&
		    !(ret = rec_bt_send(r, c, i)))
			ret = rec_event_enable(r, c, UTRACE_INPROC_PROBE_OBJ, i, UTRACE_EVENT_NOOBJ,
					       utrace_inproc_probe_group(r->o.inproc_probes[i]),
					       utrace_inproc_probe_event(r->o.inproc_probes[i]), en, err);
	if (ret >= 0)
		ret = rec_enable_done(c, UTRACE_INPROC_PROBE_OBJ, en);
	free(en);
	return ret;
}

/* The static tracepoints of an object: enable the selected ones. */
static int msg_events(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		      struct utrace_error *err)
{
	const struct utrace_msg_events *m = buf;
	struct utrace_msg_enable *en = malloc(UTRACE_MSG_MAX);
	struct rec_object *o;
	int ret = 0;

	if (!en)
		return -ENOMEM;
	if (n < sizeof(*m) || m->obj >= c->nr_objs || m->count > UTRACE_EVENTS_PER_MSG ||
	    n < sizeof(*m) + m->count * sizeof(m->ev[0]) || m->first + m->count > m->total) {
		free(en);
		return -EPROTO;
	}
	o = &c->objs[m->obj];
	for (uint32_t i = 0; i < m->count && ret >= 0 && r->o.events; i++) {
		char sys[65], name[65];

		memcpy(sys, m->ev[i].system, 64);
		memcpy(name, m->ev[i].name, 64);
		sys[64] = name[64] = 0;
		ret = rec_event_enable(r, c, m->obj, m->ev[i].key, o->path, sys, name, en, err);
	}
	/* answered once the object's last EVENTS message is in */
	if (ret >= 0 && m->first + m->count == m->total)
		ret = rec_enable_done(c, m->obj, en);
	free(en);
	return ret;
}

/* A nested context's buffer (runtime/ring_buffer.c, rt_nest) belongs to
 * the context it interrupted: the newest buffer of the same thread one
 * level down, which the runtime always sends first.  Its id + 1, 0 if
 * b is a thread's own buffer. */
static uint32_t nested_base(const struct utrace_recorder *r, const struct rec_buffer *b)
{
	if (!b->nest)
		return 0;
	for (uint32_t i = b->id; i-- > 0;) {
		const struct rec_buffer *o = r->bufs[i];

		if (o->conn == b->conn && o->tid == b->tid && o->nest == b->nest - 1)
			return o->id + 1;
	}
	return 0;
}

static int msg_buffer(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		      int fd, struct utrace_error *err)
{
	const struct utrace_msg_buffer *m = buf;
	struct utrace_dat_buffer d = {0};
	struct rec_buffer *b;
	struct stat st;
	void *map;

	if (n < sizeof(*m) || fd < 0 || m->nr_subbufs < UTRACE_RB_MIN_SUBBUFS)
		return -EPROTO;
	/* its size: nr_subbufs of the sub-buffer size its meta says, which
	 * is checked once mapped */
	if (fstat(fd, &st) < 0 ||
	    (uint64_t)st.st_size < utrace_rb_bytes(m->nr_subbufs, UTRACE_SUBBUF_MIN) ||
	    (uint64_t)st.st_size > utrace_rb_bytes(m->nr_subbufs, UTRACE_SUBBUF_MAX))
		return -EPROTO;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	b = calloc(1, sizeof(*b));
	if (!b || UTRACE_GROW(r->bufs, r->cap_bufs, r->nr_bufs + 1) < 0) {
		free(b);
		munmap(map, (size_t)st.st_size);
		return -ENOMEM;
	}
	b->meta = map;
	b->size = (uint64_t)st.st_size;
	b->subbuf_size = b->meta->subbuf_size;
	if (b->meta->magic != UTRACE_RB_MAGIC || b->meta->nr_subbufs != m->nr_subbufs ||
	    !utrace_subbuf_size_ok(b->subbuf_size) ||
	    b->size != utrace_rb_bytes(m->nr_subbufs, b->subbuf_size)) {
		munmap(map, (size_t)st.st_size);
		free(b);
		return -EPROTO;
	}
	if (b->meta->nest > UTRACE_RB_NEST_MAX) {
		munmap(map, (size_t)st.st_size);
		free(b);
		return -EPROTO;
	}
	b->id = r->nr_bufs;
	b->conn = c;
	b->pid = c->pid;
	b->tid = m->tid;
	b->nest = b->meta->nest;
	b->dev = st.st_dev;
	b->ino = st.st_ino;
	memcpy(b->comm, m->comm, sizeof(b->comm));
	b->comm[15] = 0;
	r->bufs[r->nr_bufs++] = b;
	d.buf = b->id;
	d.image = c->image;
	d.pid = b->pid;
	d.tid = b->tid;
	d.flags = b->meta->flags;
	d.base = nested_base(r, b);
	for (uint32_t i = b->id; i-- > 0 && !b->again;)
		b->again = r->bufs[i]->conn == c && r->bufs[i]->tid == b->tid &&
			   r->bufs[i]->nest == b->nest;
	memcpy(d.comm, b->comm, sizeof(d.comm));
	return rec_write(r, UTRACE_DAT_BUFFER, &d, sizeof(d), NULL, 0, err);
}

static int msg_notice(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		      struct utrace_error *err)
{
	const struct utrace_msg_notice *m = buf;
	char text[256], line[320];
	int len;

	if (n < sizeof(*m))
		return -EPROTO;
	snprintf(text, sizeof(text), "%.*s", (int)strnlen(m->text, n - sizeof(*m)), m->text);
	if (r->o.notice)
		r->o.notice(r->o.notice_arg, m->pid, text);
	len = snprintf(line, sizeof(line), "%d %d %s", m->pid, m->tid, text);
	if (!strcmp(text, "attached")) { /* when, on the trace's clock: report says it */
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		len = snprintf(line, sizeof(line), "%d %d attached at %lld.%06ld", m->pid, m->tid,
			       (long long)now.tv_sec, now.tv_nsec / 1000);
	}
	if (len >= (int)sizeof(line))
		len = (int)sizeof(line) - 1;
	return rec_write(r, UTRACE_DAT_NOTICE, line, (size_t)len, NULL, 0, err);
}

/* LIVE: the runtime's end of its live channel (recorder_live.c), kept as
 * a copy (the caller closes fd). */
static int msg_live(struct rec_conn *c, int fd)
{
	if (fd < 0 || c->live_fd >= 0)
		return -EPROTO;
	c->live_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	return c->live_fd < 0 ? -errno : 0;
}

/* OWN: a window of the runtime's own work, saved for the readers, who
 * tell the kernel events in it from the program's (dat_own.c). */
int utrace_recorder_write_own(struct utrace_recorder *r, int32_t tid, uint32_t kind, uint64_t tsc0,
			      uint64_t tsc1, struct utrace_error *err)
{
	struct utrace_dat_own o = {tid, kind, tsc0, tsc1};

	return rec_write(r, UTRACE_DAT_OWN, &o, sizeof(o), NULL, 0, err);
}

static int msg_own(struct utrace_recorder *r, const void *buf, size_t n, struct utrace_error *err)
{
	const struct utrace_msg_own *m = buf;

	if (n < sizeof(*m) || m->tsc1 < m->tsc0)
		return -EPROTO;
	return utrace_recorder_write_own(r, m->tid, m->kind, m->tsc0, m->tsc1, err);
}

int rec_handle_msg(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n, int fd,
		   struct utrace_error *err)
{
	switch (((const struct utrace_msg *)buf)->type) {
	case UTRACE_MSG_HELLO:
		return msg_hello(r, c, buf, n, err);
	case UTRACE_MSG_OBJECT:
		return msg_object(r, c, buf, n, err);
	case UTRACE_MSG_SITES:
		return msg_sites(r, c, buf, n, err);
	case UTRACE_MSG_BUFFER:
		return msg_buffer(r, c, buf, n, fd, err);
	case UTRACE_MSG_NOTICE:
		return msg_notice(r, c, buf, n, err);
	case UTRACE_MSG_EVENTS:
		return msg_events(r, c, buf, n, err);
	case UTRACE_MSG_INPROC_PROBE_AREA:
		return rec_inproc_probe_area(r, c, buf, n, err);
	case UTRACE_MSG_LIVE:
		return msg_live(c, fd);
	case UTRACE_MSG_FPATCH_ASK:
		return rec_fpatch_ask(r, c, buf, n);
	case UTRACE_MSG_FPATCH_AREA:
		return rec_fpatch_area(r, c, buf, n);
	case UTRACE_MSG_OWN:
		return msg_own(r, buf, n, err);
	case UTRACE_MSG_QUIESCE:
		return rec_quiesce(c, buf, n);
	case UTRACE_MSG_RESUME:
		return rec_resume(c);
	default:
		return -EPROTO;
	}
}
