/* SPDX-License-Identifier: MIT */
/*
 * event_enable.c - which static tracepoints are on, and how.
 *
 * At registration the runtime names an object's event keys to the
 * recorder (EVENTS) and receives what to turn on: per event its HISTs
 * (program checked whole, table mapped), the TABLEs other triggers
 * RESOLVE in, its TRIGGERs, then one ENABLE with the id and filter.  An
 * enabled key gets its configuration and trace_events.c's write
 * function, then every jump site of an enabled key is patched.  The live
 * channel (live.c) sends the same messages while the program runs; the
 * in-process probes' and synthetic events' keys are pseudo-objects.
 * The hit itself (filter, triggers, record) is trace_events.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/x86_64/insn.h"
#include "common/fetch_prog.h"
#include "common/filter_prog.h"
#include "common/hist_prog.h"
#include "common/record.h"
#include "include/utrace/tracepoint.h"
#include "runtime/rt.h"
#include "runtime/trace_events.h"

struct rt_jump {
	uint64_t code, target, key;
};

static struct rt_object ev_synth_obj = {.index = UTRACE_SYNTH_OBJ};

/* ---- registration ------------------------------------------------------ */

static int ev_send_names(struct rt_object *obj, struct utrace_event_key *keys, uint32_t nr)
{
	size_t size = sizeof(struct utrace_msg_events) +
		      UTRACE_EVENTS_PER_MSG * sizeof(struct utrace_msg_event_name);
	struct utrace_msg_events *m = calloc(1, size);
	int ret = 0;

	if (!m)
		return -1;
	for (uint32_t first = 0; first < nr && ret >= 0; first += UTRACE_EVENTS_PER_MSG) {
		uint32_t cnt =
		    nr - first < UTRACE_EVENTS_PER_MSG ? nr - first : UTRACE_EVENTS_PER_MSG;

		m->hdr.type = UTRACE_MSG_EVENTS;
		m->hdr.size = (uint32_t)(sizeof(*m) + cnt * sizeof(m->ev[0]));
		m->obj = obj->index;
		m->first = first;
		m->count = cnt;
		m->total = nr;
		for (uint32_t i = 0; i < cnt; i++) {
			const struct utrace_event_key *k = &keys[first + i];
			const struct utrace_fmt_event *fe = k->fmt;

			memset(&m->ev[i], 0, sizeof(m->ev[i]));
			m->ev[i].key = first + i;
			if (k->size != sizeof(*k) || !fe || fe->kind != UTRACE_FMT_EVENT)
				continue; /* an ABI we do not know: never enabled */
			memcpy(m->ev[i].system, fe->system, sizeof(m->ev[i].system) - 1);
			memcpy(m->ev[i].name, fe->name, sizeof(m->ev[i].name) - 1);
		}
		ret = rt_send(m, m->hdr.size, -1);
	}
	free(m);
	return ret;
}

/* A hist trigger for the next ENABLE: its program, checked whole once
 * here (each run checks only what it runs), and its table mapped. */
static int ev_recv_hist(const struct utrace_msg_hist *m, int fd, struct rt_hist *h)
{
	const struct utrace_hist_hdr *hdr;
	struct utrace_hist_map *map;
	void *prog;

	if (fd < 0 || m->hdr.size < sizeof(*m) + m->prog_len)
		return -1;
	prog = aligned_alloc(8, (m->prog_len + 7) & ~7u);
	if (!prog)
		return -1;
	memcpy(prog, m->prog, m->prog_len);
	hdr = utrace_hist_hdr_ok(prog, m->prog_len);
	if (!hdr || (hdr->filter_len && utrace_filter_check(utrace_hist_filter(hdr),
							     hdr->filter_len) < 0) ||
	    m->map_size != utrace_hist_map_bytes(hdr->map_bits, hdr->key_size, hdr->nr_sums))
		goto bad;
	map = mmap(NULL, m->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto bad;
	if (map->magic != UTRACE_HIST_MAP_MAGIC || map->bits != hdr->map_bits ||
	    map->key_size != hdr->key_size || map->nr_sums != hdr->nr_sums) {
		munmap(map, m->map_size);
		goto bad;
	}
	h->prog = hdr;
	h->map = map;
	h->reader = m->reader < UTRACE_READERS ? m->reader : 0;
	utrace_hist_fast_of(hdr, &h->fast);
	h->memo = h->fast.ok && map->bits <= 16 ? calloc(UTRACE_HIST_MEMO, sizeof(uint64_t)) : NULL;
	if (m->table && m->table < UTRACE_HIST_TABLES_MAX && !ev_table(NULL, m->table))
		/* release: the map is whole before a RESOLVE can find it */
		__atomic_store_n(&ev_tables[m->table], map, __ATOMIC_RELEASE);
	return 0;
bad:
	rt_log("a hist trigger from the recorder is malformed; it stays off");
	free(prog);
	return 1;
}

/* Another trigger's table that a following program RESOLVEs in: mapped
 * once, checked whole as a HIST's table is. */
static void ev_recv_table(const struct utrace_msg_table *m, int fd)
{
	struct utrace_hist_map *map;

	if (fd < 0 || !m->table || m->table >= UTRACE_HIST_TABLES_MAX || ev_table(NULL, m->table) ||
	    m->map_size < UTRACE_HIST_MAP_HDR || m->map_size > (1ull << 40))
		return;
	map = mmap(NULL, m->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return;
	if (map->magic != UTRACE_HIST_MAP_MAGIC || map->bits > 20 || (map->key_size & 7) ||
	    map->key_size > UTRACE_HIST_KEY_MAX || !map->nr_sums ||
	    map->nr_sums > UTRACE_HIST_SUMS_MAX ||
	    m->map_size != utrace_hist_map_bytes(map->bits, map->key_size, map->nr_sums)) {
		rt_log("a hist table from the recorder is malformed; it is not used");
		munmap(map, m->map_size);
		return;
	}
	/* release: the map is whole before a RESOLVE can find it */
	__atomic_store_n(&ev_tables[m->table], map, __ATOMIC_RELEASE);
}

void (*rt_ev_fetch_ready)(void);
/* arch/x86_64/inproc_probe.S: a load that a fault makes -1 */
int utrace_fetch_load(uint64_t addr, unsigned size, uint64_t *out) RT_HIDDEN;

static void ev_eprobe_hit(uint32_t key, const void *prog, const void *rec);

/* A trigger command for the next ENABLE, its filter checked whole. */
static int ev_recv_trig(const struct utrace_msg_trigger *m, struct rt_trig *tr)
{
	uint64_t *filter = NULL, *prog = NULL;

	if (m->hdr.size < sizeof(*m) + (uint64_t)m->filter_len + m->prog_len || !m->cmd ||
	    m->cmd > UTRACE_TC_EPROBE || (m->cmd == UTRACE_TC_EPROBE) != !!m->prog_len)
		return -1;
	if (m->prog_len) { /* an event probe's: read memory safely from now on */
		prog = malloc((m->prog_len + 7) & ~7u);
		if (!prog)
			return -1;
		memcpy(prog, m->filter + m->filter_len, m->prog_len);
		if (utrace_fetch_check(prog, m->prog_len) < 0) {
			rt_log("an event probe's program from the recorder is malformed; it stays off");
			free(prog);
			return 1;
		}
		if (rt_ev_fetch_ready)
			rt_ev_fetch_ready();
		__atomic_store_n(&rt_trig_eprobe, ev_eprobe_hit, __ATOMIC_RELEASE);
	}
	if (m->filter_len) {
		filter = malloc((m->filter_len + 7) & ~7u);
		if (!filter)
			return -1;
		memcpy(filter, m->filter, m->filter_len);
		if (utrace_filter_check(filter, m->filter_len) < 0) {
			rt_log("a trigger's filter from the recorder is malformed; it stays off");
			free(filter);
			free(prog);
			return 1;
		}
	}
	*tr = (struct rt_trig){m->cmd, m->target, m->count_idx, m->filter_len, filter, prog,
			       m->reader < UTRACE_READERS ? m->reader : 0};
	return 0;
}

struct ev_pending { /* what the next ENABLE turns on with its event */
	struct rt_hist hist[UTRACE_EVENT_HISTS_MAX];
	uint32_t nr_hist;
	struct rt_trig trig[UTRACE_EVENT_TRIGS_MAX];
	uint32_t nr_trig;
};

/* The event's filter and triggers, as the runtime keeps them. */
static struct rt_event_conf *ev_conf(const struct utrace_msg_enable *m, const struct ev_pending *p)
{
	const struct rt_hist *h = p->hist;
	uint32_t nr_hist = p->nr_hist;
	struct rt_event_conf *f;

	if (!m->filter_len && !nr_hist && !p->nr_trig && !m->flags)
		return NULL;
	f = calloc(1, sizeof(*f) + ((m->filter_len + 7) & ~7u));
	if (!f)
		return NULL;
	f->len = m->filter_len;
	f->flags = m->flags & ~(uint32_t)UTRACE_ENABLE_RECONF; /* how it came, not what it is */
	f->nr_hist = nr_hist;
	memcpy(f->hist, h, nr_hist * sizeof(*h));
	f->nr_trig = p->nr_trig;
	memcpy(f->trig, p->trig, p->nr_trig * sizeof(p->trig[0]));
	f->plain_hists = nr_hist && !p->nr_trig && !(f->flags & ~(uint32_t)UTRACE_ENABLE_SOFT);
	for (uint32_t i = 0; i < nr_hist; i++) {
		const struct utrace_hist_fast *x = &h[i].fast;

		f->needs |= h[i].prog->needs;
		f->plain_hists &= x->ok && !h[i].reader;
		f->plain_common |= !x->ok || h[i].prog->filter_len || x->kld.off < 8;
		for (uint32_t v = 0; v < x->nr_vals; v++)
			f->plain_common |= x->vld[v].off < 8;
	}
	if (f->needs & (UTRACE_HIST_NEEDS_TS | UTRACE_HIST_NEEDS_CPU))
		f->plain_hists = 0;
	f->one_min = UINT64_MAX;
	if (f->plain_hists && nr_hist == 1 && h[0].memo)
		f->one_min = h[0].fast.hit_min > sizeof(struct utrace_trace_entry)
				     ? h[0].fast.hit_min
				     : sizeof(struct utrace_trace_entry);
	f->write = rt_event_conf_writer(f);
	memcpy(f->prog, m->filter, m->filter_len);
	if (f->len && utrace_filter_check(f->prog, f->len) < 0) {
		rt_log("an event filter from the recorder is malformed; the event stays off");
		free(f);
		return NULL;
	}
	return f;
}

static int ev_recv_enables(struct rt_object *obj, struct utrace_event_key *keys, uint32_t nr)
{
	struct utrace_msg_enable *m = malloc(UTRACE_MSG_MAX);
	struct ev_pending p = {.nr_hist = 0};
	int ret = -1, fd;

	if (!m)
		return -1;
	for (;;) {
		struct utrace_event_key *k;
		struct rt_event_conf *f;
		int n = rt_recv(m, UTRACE_MSG_MAX, &fd);

		if (n >= (int)sizeof(struct utrace_msg_hist) && m->hdr.type == UTRACE_MSG_HIST &&
		    m->obj == obj->index && p.nr_hist < UTRACE_EVENT_HISTS_MAX) {
			int r = ev_recv_hist((const void *)m, fd, &p.hist[p.nr_hist]);

			if (fd >= 0)
				close(fd);
			if (r < 0)
				break;
			p.nr_hist += !r;
			continue;
		}
		if (n >= (int)sizeof(struct utrace_msg_bt) && m->hdr.type == UTRACE_MSG_BT &&
		    obj->index == UTRACE_INPROC_PROBE_OBJ) {
			rt_bt_recv((const void *)m, (uint32_t)n, fd);
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (n >= (int)sizeof(struct utrace_msg_table) && m->hdr.type == UTRACE_MSG_TABLE) {
			ev_recv_table((const void *)m, fd);
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (n >= (int)sizeof(struct utrace_msg_trigger) && m->hdr.type == UTRACE_MSG_TRIGGER &&
		    m->obj == obj->index && p.nr_trig < UTRACE_EVENT_TRIGS_MAX) {
			int r = ev_recv_trig((const void *)m, &p.trig[p.nr_trig]);

			if (fd >= 0)
				close(fd);
			if (r < 0)
				break;
			p.nr_trig += !r;
			continue;
		}
		if (fd >= 0)
			close(fd);
		if (n < (int)sizeof(*m) || m->hdr.type != UTRACE_MSG_ENABLE || m->obj != obj->index)
			break;
		if (m->key == UTRACE_ENABLE_DONE) {
			ret = 0;
			break;
		}
		if (m->key >= nr || m->hdr.size < sizeof(*m) + m->filter_len)
			break;
		k = &keys[m->key];
		f = ev_conf(m, &p);
		p.nr_hist = p.nr_trig = 0;
		if (!f && (m->filter_len || m->flags))
			continue; /* malformed: said, the event stays off */
		k->id = m->id;
		k->filter = f;
		k->write = rt_event_write;
		/* release: id, filter and write are set before the key reads
		 * as enabled (the jump sites are patched after this too) */
		__atomic_store_n(&k->enabled, 1, __ATOMIC_RELEASE);
	}
	free(m);
	return ret;
}

/* Patch every jump site whose key is enabled and that is still a NOP. */
static int ev_patch_all(void)
{
	size_t n = 0, cap = 0;
	struct rt_poke *pokes = NULL;
	int ret;

	for (struct rt_object *o = rt.objects; o; o = o->next) {
		const struct rt_jump *j = o->jumps;

		for (uint32_t i = 0; i < o->nr_jumps; i++) {
			const struct utrace_event_key *k = (const void *)(uintptr_t)j[i].key;
			uint8_t *code = (uint8_t *)(uintptr_t)j[i].code;

			if (!k || !code || j[i].code < o->lo || j[i].code + 5 > o->hi ||
			    !insn_is_nop5(code) || !__atomic_load_n(&k->enabled, __ATOMIC_ACQUIRE))
				continue;
			if (n == cap) {
				struct rt_poke *p =
				    realloc(pokes, (cap = cap ? 2 * cap : 64) * sizeof(*p));

				if (!p) {
					free(pokes);
					return -1;
				}
				pokes = p;
			}
			pokes[n].addr = code;
			insn_rel32(pokes[n].bytes, INSN_JMP, j[i].code, j[i].target);
			n++;
		}
	}
	ret = rt_text_poke_batch(pokes, n);
	free(pokes);
	return ret;
}

/* The in-process probes' events (runtime/inproc_probes.c): keys of a
 * pseudo-object as the synthetic events', written by a probe's hit. */
struct utrace_event_key ev_inproc_probe_keys[UTRACE_INPROC_PROBE_MAX];
static struct rt_object ev_inproc_probe_obj = {.index = UTRACE_INPROC_PROBE_OBJ};

void rt_inproc_probe_event_write(uint32_t key, void *rec, uint32_t len)
{
	struct utrace_event_key *k = &ev_inproc_probe_keys[key % UTRACE_INPROC_PROBE_MAX];

	if (__atomic_load_n(&k->enabled, __ATOMIC_ACQUIRE))
		rt_event_write(k, rec, len);
}

/* An event probe's hit (trigger EPROBE on the attached event): its
 * record, the kernel's eprobe layout, from rec's fields and what they
 * point to (utrace_fetch_load: a fault writes the kernel's 0 or (fault)).
 * Its probe removed: nothing. */
static void ev_eprobe_hit(uint32_t key, const void *prog, const void *rec)
{
	uint64_t out[UTRACE_FETCH_REC_MAX / 8];
	struct utrace_fetch_regs regs = {{0}};
	uint32_t len;

	if (key >= UTRACE_INPROC_PROBE_MAX || utrace_ctl_inproc_probe_off(rt.ctl, key))
		return;
	regs.r[UTRACE_FR_EVENT] = (uint64_t)(uintptr_t)rec;
	out[0] = 0;
	len = utrace_fetch_run(prog, &regs, NULL, rt_self.comm, (uint8_t *)out, sizeof(out),
			       utrace_fetch_load);
	rt_inproc_probe_event_write(key, out, len);
}

bool rt_inproc_probe_has_triggers(uint32_t key)
{
	struct utrace_event_key *k = &ev_inproc_probe_keys[key % UTRACE_INPROC_PROBE_MAX];
	const struct rt_event_conf *f;

	if (!__atomic_load_n(&k->enabled, __ATOMIC_ACQUIRE))
		return false;
	f = __atomic_load_n(&k->filter, __ATOMIC_ACQUIRE);
	return f && f->nr_trig;
}

int rt_event_live_enable(const struct utrace_msg_enable *m, uint32_t size)
{
	static const struct ev_pending none;
	struct utrace_event_key *k;
	struct rt_event_conf *f;

	if (size < sizeof(*m) + m->filter_len)
		return -1;
	if (m->obj == UTRACE_INPROC_PROBE_OBJ && m->key < UTRACE_INPROC_PROBE_MAX)
		k = &ev_inproc_probe_keys[m->key];
	else if (m->obj == UTRACE_SYNTH_OBJ && m->key < UTRACE_SYNTH_MAX)
		k = &ev_synth_keys[m->key];
	else
		return -1;
	if (__atomic_load_n(&k->enabled, __ATOMIC_ACQUIRE))
		return -1; /* a key is never given twice */
	f = ev_conf(m, &none);
	if (!f && (m->filter_len || m->flags))
		return -1;
	k->id = m->id;
	k->filter = f;
	k->write = rt_event_write;
	/* release: as ev_recv_enables, id and filter before enabled */
	__atomic_store_n(&k->enabled, 1, __ATOMIC_RELEASE);
	return 0;
}

/* ---- live changes (runtime/live.c) ------------------------------------ */

/* The keys of object obj (or of a pseudo-object); the caller holds the
 * objects (rt_objects_lock). */
static struct utrace_event_key *ev_keys_of(uint32_t obj, uint32_t *nr)
{
	if (obj == UTRACE_SYNTH_OBJ) {
		*nr = UTRACE_SYNTH_MAX;
		return ev_synth_keys;
	}
	if (obj == UTRACE_INPROC_PROBE_OBJ) {
		*nr = UTRACE_INPROC_PROBE_MAX;
		return ev_inproc_probe_keys;
	}
	if (obj == UTRACE_PRINT_OBJ) {
		*nr = 1;
		return &ev_print_key;
	}
	for (struct rt_object *o = rt.objects; o; o = o->next)
		if (o->index == obj) {
			*nr = o->nr_keys;
			return o->keys;
		}
	return NULL;
}

/* What the next ENABLE of the live channel turns on: only the live
 * thread touches it. */
static struct ev_pending ev_live_pending;

/*
 * A key's new filter and triggers while the program runs (the tracefs's
 * filter and trigger files): HISTs, TABLEs and TRIGGERs as at
 * registration, then the ENABLE, which swaps the key's configuration in
 * one store.  The old one is not freed: a thread may be running it (a
 * hit loads the pointer once), and changes are few (written by hand).
 * A key that was off is turned on and its jump sites patched.
 */
int rt_events_live(const struct utrace_msg *msg, long n, int fd)
{
	struct ev_pending *p = &ev_live_pending;
	const struct utrace_msg_enable *m = (const void *)msg;
	struct utrace_event_key *keys, *k;
	struct rt_event_conf *f;
	uint32_t nr = 0;
	int ret = 0;

	if (msg->type == UTRACE_MSG_HIST && n >= (long)sizeof(struct utrace_msg_hist))
		return p->nr_hist < UTRACE_EVENT_HISTS_MAX &&
			       !ev_recv_hist((const void *)msg, fd, &p->hist[p->nr_hist])
			   ? (p->nr_hist++, 0)
			   : -EPROTO;
	if (msg->type == UTRACE_MSG_TABLE && n >= (long)sizeof(struct utrace_msg_table)) {
		ev_recv_table((const void *)msg, fd);
		return 0;
	}
	if (msg->type == UTRACE_MSG_TRIGGER && n >= (long)sizeof(struct utrace_msg_trigger))
		return p->nr_trig < UTRACE_EVENT_TRIGS_MAX &&
			       !ev_recv_trig((const void *)msg, &p->trig[p->nr_trig])
			   ? (p->nr_trig++, 0)
			   : -EPROTO;
	if (msg->type != UTRACE_MSG_ENABLE || n < (long)sizeof(*m) ||
	    m->hdr.size < sizeof(*m) + m->filter_len)
		return -EPROTO;
	f = ev_conf(m, p);
	p->nr_hist = p->nr_trig = 0;
	if (!f && (m->filter_len || m->flags))
		return -EPROTO; /* malformed: said */
	keys = ev_keys_of(m->obj, &nr);
	if (!keys || m->key >= nr)
		return -EPROTO;
	k = &keys[m->key];
	if (__atomic_load_n(&k->enabled, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&k->filter, f, __ATOMIC_RELEASE);
	} else {
		k->id = m->id;
		k->filter = f;
		k->write = rt_event_write;
		__atomic_store_n(&k->enabled, 1, __ATOMIC_RELEASE);
		ret = m->obj == UTRACE_SYNTH_OBJ || m->obj == UTRACE_INPROC_PROBE_OBJ ||
			      m->obj == UTRACE_PRINT_OBJ
			  ? 0
			  : ev_patch_all();
	}
	return ret < 0 ? -EIO : 0;
}

/* After CONFIG and the synthetic events: the probes' enables. */
int rt_inproc_probe_events_register(void)
{
	if (!rt.cfg.nr_inproc_probes)
		return 0;
	return ev_recv_enables(&ev_inproc_probe_obj, ev_inproc_probe_keys, UTRACE_INPROC_PROBE_MAX);
}

/* After CONFIG: the synthetic events the recorder enables, with their
 * filters and triggers, as for an object (common/proto.h). */
int rt_synth_register(void)
{
	if (!rt.cfg.nr_synth)
		return 0;
	return ev_recv_enables(&ev_synth_obj, ev_synth_keys, UTRACE_SYNTH_MAX);
}

/* Objects added by this scan: name their events, enable what the
 * recorder selects, then patch jump sites in every object. */
int rt_events_register(struct rt_object *added)
{
	bool any = false;

	for (struct rt_object *o = added; o; o = o->next) {
		if (!o->nr_keys)
			continue;
		if (ev_send_names(o, o->keys, o->nr_keys) < 0 ||
		    ev_recv_enables(o, o->keys, o->nr_keys) < 0)
			return -1;
		any = true;
	}
	for (struct rt_object *o = added; o && !any; o = o->next)
		any = o->nr_jumps;
	return any ? ev_patch_all() : 0;
}
