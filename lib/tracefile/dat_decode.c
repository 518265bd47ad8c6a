/* SPDX-License-Identifier: MIT */
/*
 * dat_decode.c - decodes the sub-buffers of one buffer (one thread) into
 * ENTRY / EXIT / FUNC / LOST records, page by page in file order.
 *
 * Design: a cursor holds one sub-buffer (read with pread when the previous
 * one is used up), the running time in TSC ticks, the cpu, and the
 * thread's call stack, which pairs each EXIT with its ENTRY (an EXIT does
 * not name its function, common/record.h).  The stack is `base` frames
 * nothing is known of plus an array of frames with id and entry time: a
 * CONTEXT record, or a sub-buffer whose predecessor is missing, sets it to
 * what the producer says is open.  Every record word is checked against
 * the committed size before it is read; a record that runs past it, an
 * unknown extended type or an impossible value cuts the sub-buffer short
 * at that point and counts a warning, and the next sub-buffer starts over
 * from its own header.  The records are written straight into the events
 * the iterator gives out (dat_cursor_event: two per cursor, the event and
 * the record looked ahead at), with a short ENTRY or EXIT decoded inline;
 * a damaged record's count and the CONTEXT and SWITCH records' stacks
 * are dat_stacks.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rb_abi.h"
#include "common/record.h"
#include "lib/base/grow.h"
#include "lib/tracefile/dat_decode.h"

/* extra EXIT events an EXIT_UNWIND may report beyond the known frames */
#define UNWIND_EXTRA_MAX 64

void dat_cursor_init(struct dat_cursor *c, struct utrace_dat *d, uint32_t bufidx,
		     struct dat_warnings *warn)
{
	memset(c, 0, sizeof(*c));
	c->d = d;
	c->b = &d->buffers[bufidx];
	c->bufidx = bufidx;
	c->warn = warn;
}

void dat_cursor_fini(struct dat_cursor *c)
{
	free(c->raw);
	free(c->frames);
	for (size_t i = 0; i < c->cap_stacks; i++)
		free(c->stacks[i].frames);
	free(c->stacks);
	c->stacks = NULL;
	c->nr_stacks = c->cap_stacks = 0;
	dat_mark_fini(&c->start);
	c->raw = NULL;
	c->frames = NULL;
	c->cap_raw = c->cap_frames = 0;
	c->nr_frames = 0;
	c->in_page = 0;
}

static uint64_t u64_at(const uint32_t *w)
{
	return (uint64_t)w[0] | (uint64_t)w[1] << 32;
}

static uint32_t cur_depth(const struct dat_cursor *c)
{
	uint64_t depth = c->base + c->nr_frames;

	return depth > UINT32_MAX ? UINT32_MAX : (uint32_t)depth;
}

static int load_page(struct dat_cursor *c, struct utrace_error *err)
{
	const struct dat_page_ref *ref = &c->b->pages[c->next_page++];
	size_t need = (sizeof(struct utrace_subbuf) + ref->commit) / 4;
	struct utrace_subbuf sb;
	int gap, ret;

	if (UTRACE_GROW(c->raw, c->cap_raw, need) < 0)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", c->d->path);
	ret = dat_pread(c->d, c->raw, need * 4, ref->off, err);
	if (ret < 0)
		return ret;
	memcpy(&sb, c->raw, sizeof(sb));
	c->page_off = ref->off;
	c->words = c->raw + sizeof(sb) / 4;
	c->nwords = ref->commit / 4;
	c->pos = 0;
	c->in_page = 1;
	c->page_records = sb.records;
	if ((sb.commit & ~3u) != ref->commit)
		return dat_cursor_corrupt(c, "the sub-buffer header changed since the file was opened", 0);

	c->tick = sb.time_stamp;
	c->cpu = sb.cpu;
	gap = c->have_seq && sb.seq != c->last_seq + 1;
	c->last_seq = sb.seq;
	c->have_seq = 1;
	/* When this sub-buffer does not follow the previous one, what is open
	 * is what the producer says: a CONTEXT record, or without one (nothing
	 * was open, or the producer did not say) the depth in its header. */
	if (sb.lost_before || gap || c->broken)
		c->nr_stacks = 0; /* what other stacks had open is not known either */
	if ((sb.lost_before || gap || c->broken) && !(sb.flags & UTRACE_SB_CONTEXT))
		dat_unknown_stack(c, sb.depth < DAT_MAX_DEPTH ? sb.depth : 0);
	c->broken = 0;
	if (sb.lost_before || gap) {
		c->lost_pending = 1;
		c->lost_count = sb.lost_before;
		c->lost_flags = sb.lost_before ? 0 : UTRACE_EVF_LOST_UNKNOWN;
	}
	return 0;
}

/* Field by field, not a memset: this runs for every record, and the
 * memset of the whole record (args included) was a fifth of a profile
 * pass.  r is the iterator's event, reused record after record: its args
 * are cleared only when the last record there had some (dat_decode.h). */
static inline void raw_init(const struct dat_cursor *c, struct dat_raw *r, uint32_t kind)
{
	if (r->ev.has_args)
		memset(r->ev.args, 0, sizeof(r->ev.args));
	r->ev.kind = kind;
	r->ev.flags = 0;
	r->ev.tsc = c->tick;
	r->entry_tick = 0;
	r->dur_ticks = 0;
	r->ev.id = UTRACE_DAT_NO_ID;
	r->ev.cpu = c->cpu;
	r->ev.depth = 0;
	r->ev.stack = c->stack;
	r->ev.parent_ip = 0;
	r->ev.lost = 0;
	r->ev.data = NULL;
	r->ev.data_len = 0;
	r->ev.has_args = 0;
	r->ev.nargs = 0;
	r->ev.has_retval = 0;
	r->ev.retval = 0;
	r->ev.retaddr = 0;
}

static inline int push_entry(struct dat_cursor *c, struct dat_raw *r, uint32_t id)
{
	struct dat_frame *f;

	raw_init(c, r, UTRACE_EV_ENTRY);
	r->ev.id = id;
	r->ev.depth = cur_depth(c);
	if (c->nr_frames >= DAT_MAX_DEPTH) {
		/* runaway recursion: forget the outer half */
		size_t half = c->nr_frames / 2;

		memmove(c->frames, c->frames + half, (c->nr_frames - half) * sizeof(*c->frames));
		c->nr_frames -= half;
		c->base += half;
	}
	if (dat_reserve_frames(c, c->nr_frames + 1)) {
		c->base++; /* out of memory: the frame becomes unknown */
		return 1;
	}
	f = &c->frames[c->nr_frames++];
	f->id = id;
	f->known = DAT_FRAME_TICK;
	f->tick = c->tick;
	return 1;
}

static inline void pop_exit(struct dat_cursor *c, struct dat_raw *r)
{
	raw_init(c, r, UTRACE_EV_EXIT);
	if (c->nr_frames) {
		const struct dat_frame *f = &c->frames[--c->nr_frames];

		r->ev.id = f->id;
		if (f->known & DAT_FRAME_TICK)
			r->entry_tick = f->tick;
		else
			r->ev.flags = UTRACE_EVF_NO_DURATION | UTRACE_EVF_NO_ENTRY;
		if (f->known & DAT_FRAME_MARKED)
			r->ev.flags |= UTRACE_EVF_NO_ENTRY;
		if (f->id == UTRACE_DAT_NO_ID)
			r->ev.flags |= UTRACE_EVF_NO_ID;
	} else {
		if (c->base)
			c->base--;
		r->ev.flags = UTRACE_EVF_NO_DURATION | UTRACE_EVF_NO_ENTRY | UTRACE_EVF_NO_ID;
	}
	r->ev.depth = cur_depth(c);
}

/*
 * The ARGS or RETVAL record the writer put right after an ENTRY or EXIT
 * (in one piece with it, so in the same sub-buffer), if there is one:
 * into r.
 */
static void attach_extra_ext(struct dat_cursor *c, struct dat_raw *r);

/* Inline, the test that finds none (most calls' records have none: the
 * call made for it was 3% of --profile) */
static inline __attribute__((always_inline)) void attach_extra(struct dat_cursor *c,
								struct dat_raw *r)
{
	if (c->pos < c->nwords && urec_kind(c->words[c->pos]) == UREC_EXT)
		attach_extra_ext(c, r);
}

static void attach_extra_ext(struct dat_cursor *c, struct dat_raw *r)
{
	const uint32_t *w = c->words + c->pos;
	uint32_t left = c->nwords - c->pos, n;

	n = urec_ext_words(w[0]);
	if (urec_ext_type(w[0]) == UEXT_ARGS && r->ev.kind == UTRACE_EV_ENTRY && n <= left &&
	    urec_ext_payload(w[0]) <= 12) {
		r->ev.has_args = 1;
		r->ev.nargs = urec_ext_payload(w[0]) / 2;
		for (uint32_t i = 0; i < 6; i++)
			r->ev.args[i] = i < r->ev.nargs ? u64_at(w + 1 + 2 * i) : 0;
		c->pos += n;
		attach_extra(c, r); /* a RETADDR after the ARGS */
	} else if (urec_ext_type(w[0]) == UEXT_RETADDR && r->ev.kind == UTRACE_EV_ENTRY && n <= left) {
		r->ev.retaddr = u64_at(w + 1);
		c->pos += n;
	} else if (urec_ext_type(w[0]) == UEXT_RETVAL && r->ev.kind == UTRACE_EV_EXIT && n <= left) {
		r->ev.has_retval = 1;
		r->ev.retval = u64_at(w + 1);
		c->pos += n;
	}
}

/* Decodes the extended record at c->pos.  1 with a record in r, 0 if it
 * only changed the state (or cut the page short). */
static int decode_ext(struct dat_cursor *c, struct dat_raw *r)
{
	const uint32_t *w = c->words + c->pos;
	uint32_t left = c->nwords - c->pos;
	uint32_t payload = urec_ext_payload(w[0]);
	uint32_t nw = urec_ext_words(w[0]);
	char what[64];

	if (!nw) {
		snprintf(what, sizeof(what), "unknown record type %u",
			 (unsigned)urec_ext_type(w[0]));
		return dat_cursor_corrupt(c, what, c->pos);
	}
	if (nw > left)
		return dat_cursor_corrupt(c, "record runs past the committed data", c->pos);

	switch (urec_ext_type(w[0])) {
	case UEXT_PAD:
		c->in_page = 0;
		return 0;
	case UEXT_TIME_EXTEND:
		c->tick += (uint64_t)w[1] << 24 | payload;
		break;
	case UEXT_TIME_STAMP:
		c->tick = u64_at(w + 1);
		break;
	case UEXT_ENTRY_LONG:
		c->pos += nw;
		c->tick += w[2];
		push_entry(c, r, w[1]);
		attach_extra(c, r);
		return 1;
	case UEXT_FUNC_LONG:
		c->pos += nw;
		c->tick += w[2];
		raw_init(c, r, UTRACE_EV_FUNC);
		r->ev.id = w[1];
		r->ev.parent_ip = u64_at(w + 3);
		r->ev.depth = cur_depth(c);
		return 1;
	case UEXT_EXIT_LONG:
		c->pos += nw;
		c->tick += u64_at(w + 1);
		pop_exit(c, r);
		return 1;
	case UEXT_CONTEXT:
		if (dat_set_context(c, w, payload) == 0 && !c->in_page)
			return 0; /* cut short */
		break;
	case UEXT_CPU:
		if (payload > DAT_MAX_CPU)
			return dat_cursor_corrupt(c, "impossible cpu number", c->pos);
		c->cpu = payload;
		break;
	case UEXT_LOST:
		c->pos += nw;
		raw_init(c, r, UTRACE_EV_LOST);
		r->ev.lost = u64_at(w + 1);
		r->ev.depth = cur_depth(c);
		c->lost_seen += r->ev.lost;
		return 1;
	case UEXT_GRAPH_LEAF:
		if (w[2] > DAT_MAX_DEPTH)
			return dat_cursor_corrupt(c, "impossible depth in GRAPH_LEAF record", c->pos);
		c->pos += nw;
		c->tick += payload;
		raw_init(c, r, UTRACE_EV_EXIT);
		r->ev.flags = UTRACE_EVF_NO_ENTRY | UTRACE_EVF_THRESH;
		r->ev.id = w[1];
		r->ev.depth = w[2];
		r->dur_ticks = u64_at(w + 3);
		return 1;
	case UEXT_EVENT:
	case UEXT_PRINT: {
		uint32_t bytes = urec_ext_type(w[0]) == UEXT_EVENT ? w[2] >> 16 : w[2];

		if (bytes > payload * 4)
			return dat_cursor_corrupt(c, "event record longer than its words", c->pos);
		c->pos += nw;
		c->tick += w[1];
		raw_init(c, r,
			 urec_ext_type(w[0]) == UEXT_EVENT ? UTRACE_EV_EVENT : UTRACE_EV_PRINT);
		if (r->ev.kind == UTRACE_EV_EVENT)
			r->ev.id = w[2] & 0xffff;
		r->ev.data = w + 3;
		r->ev.data_len = bytes;
		r->ev.depth = cur_depth(c);
		return 1;
	}
	case UEXT_STACK:
		if ((w[2] & 0xffff) * 2 > payload)
			return dat_cursor_corrupt(c, "stack record longer than its words", c->pos);
		c->pos += nw;
		c->tick += w[1];
		raw_init(c, r, UTRACE_EV_STACK);
		r->ev.flags = w[2] >> 16 & UREC_STACK_RET ? UTRACE_EVF_STACK_RET : 0;
		r->ev.flags |= (w[2] >> (16 + UREC_STACK_READERS_SHIFT) & 0xff)
			       << UTRACE_EVF_STACK_READERS_SHIFT;
		r->ev.data = w + 3;
		r->ev.data_len = (w[2] & 0xffff) * 8;
		r->ev.depth = cur_depth(c);
		return 1;
	case UEXT_SIGNAL:
		if (payload * 4 < sizeof(struct urec_signal))
			return dat_cursor_corrupt(c, "signal record shorter than its fields", c->pos);
		c->pos += nw;
		c->tick += w[1];
		raw_init(c, r, UTRACE_EV_SIGNAL);
		r->ev.id = w[2];
		r->ev.data = w + 3;
		r->ev.data_len = sizeof(struct urec_signal);
		r->ev.depth = cur_depth(c);
		return 1;
	case UEXT_SWITCH:
		c->tick += w[1];
		if (dat_switch_stack(c, w, payload) == 0 && !c->in_page)
			return 0; /* cut short */
		break;
	case UEXT_ARGS:
	case UEXT_RETVAL:
	case UEXT_RETADDR:
		break; /* not after its ENTRY or EXIT: nothing to attach it to */
	case UEXT_EXIT_UNWIND: {
		uint64_t max = (uint64_t)cur_depth(c) + UNWIND_EXTRA_MAX;

		c->tick += w[1];
		c->unwind_left = payload > max ? (uint32_t)max : payload;
		break;
	}
	default:
		return dat_cursor_corrupt(c, "unknown record type", c->pos);
	}
	c->pos += nw;
	return 0;
}

/* Decodes the record at c->pos: 1 with a record in r, 0 if none. */
static int decode_one(struct dat_cursor *c, struct dat_raw *r)
{
	const uint32_t *w = c->words + c->pos;
	uint32_t left = c->nwords - c->pos;

	switch (urec_kind(w[0])) {
	case UREC_ENTRY:
		c->pos++;
		c->tick += urec_short_delta(w[0]);
		push_entry(c, r, urec_short_id(w[0]));
		attach_extra(c, r);
		return 1;
	case UREC_EXIT:
		c->pos++;
		c->tick += urec_exit_delta(w[0]);
		pop_exit(c, r);
		attach_extra(c, r);
		return 1;
	case UREC_FUNC:
		if (left < 3)
			return dat_cursor_corrupt(c, "FUNC record runs past the committed data", c->pos);
		c->pos += 3;
		c->tick += urec_short_delta(w[0]);
		raw_init(c, r, UTRACE_EV_FUNC);
		r->ev.id = urec_short_id(w[0]);
		r->ev.parent_ip = u64_at(w + 1);
		r->ev.depth = cur_depth(c);
		return 1;
	default:
		return decode_ext(c, r);
	}
}

/*
 * The end of a buffer.  Records a producer dropped after its last
 * sub-buffer (it never got another to say so in), and calls of signal
 * handlers that interrupted it, are counted only in the buffer's STATS:
 * they come out here as one last LOST event, so that the LOST events of a
 * buffer add up to its STATS, which the recorder's summary and
 * report --stat give.  1 with that event, else 0 (the end).
 */
static int lost_at_end(struct dat_cursor *c, struct dat_raw *r)
{
	const struct utrace_dat_buffer_info *bi = &c->b->info;

	if (c->tail_done || !bi->has_stats || bi->lost <= c->lost_seen)
		return 0;
	c->tail_done = 1;
	raw_init(c, r, UTRACE_EV_LOST);
	r->ev.lost = bi->lost - c->lost_seen;
	r->ev.depth = cur_depth(c);
	c->lost_seen = bi->lost;
	return 1;
}

/* dat_cursor_next, every case: what is owed first, a new page, any record */
static __attribute__((noinline)) int cursor_next_any(struct dat_cursor *c, struct dat_raw *r,
						     struct utrace_error *err)
{
	int ret;

	for (;;) {
		if (c->unwind_left) {
			c->unwind_left--;
			pop_exit(c, r);
			r->ev.flags |= UTRACE_EVF_UNWIND;
			return 1;
		}
		if (c->lost_pending) {
			c->lost_pending = 0;
			raw_init(c, r, UTRACE_EV_LOST);
			r->ev.lost = c->lost_count;
			r->ev.flags = c->lost_flags;
			r->ev.depth = cur_depth(c);
			c->lost_seen += r->ev.lost;
			return 1;
		}
		if (!c->in_page) {
			if (c->next_page >= c->b->nr_pages)
				return lost_at_end(c, r);
			if (c->keep)
				dat_mark_take(c, &c->start);
			ret = load_page(c, err);
			if (ret < 0)
				return ret;
			continue;
		}
		if (c->pos >= c->nwords) {
			c->in_page = 0;
			if (c->keep)
				dat_mark_keep(c);
			continue;
		}
		if (decode_one(c, r))
			return 1;
	}
}

/* The common case inline: a short ENTRY or EXIT in the page, nothing owed
 * (the call of the whole decoder, and its frame, for every record was a
 * tenth of a --profile pass). */
static inline int cursor_next(struct dat_cursor *c, struct dat_raw *r, struct utrace_error *err)
{
	if (c->in_page && c->pos < c->nwords && !c->unwind_left && !c->lost_pending) {
		const uint32_t w = c->words[c->pos];

		if (urec_kind(w) == UREC_ENTRY) {
			c->pos++;
			c->tick += urec_short_delta(w);
			push_entry(c, r, urec_short_id(w));
			attach_extra(c, r);
			return 1;
		}
		if (urec_kind(w) == UREC_EXIT) {
			c->pos++;
			c->tick += urec_exit_delta(w);
			pop_exit(c, r);
			attach_extra(c, r);
			return 1;
		}
	}
	return cursor_next_any(c, r, err);
}

/* A buffer's next record; a snapshot's stream ends at the moment it was
 * asked for (utrace_dat_open_snapshot): what the copy holds after it was
 * written while the recorder copied. */
static inline int cursor_raw(struct dat_cursor *c, struct dat_raw *r, struct utrace_error *err)
{
	int ret = cursor_next(c, r, err);

	return ret > 0 && c->d->snap_cut && r->ev.tsc > c->d->snap_cut ? 0 : ret;
}

static uint64_t ns_diff(const struct utrace_dat *d, uint64_t from, uint64_t to)
{
	uint64_t a = dat_tsc_ns(d, from), b = dat_tsc_ns(d, to);

	return b > a ? b - a : 0;
}

/* The event's times in ns, and its duration (EXIT) from its ticks. */
static inline void finish_event(const struct utrace_dat *d, struct dat_raw *r)
{
	struct utrace_event *ev = &r->ev;

	ev->ts = dat_tsc_ns(d, ev->tsc);
	ev->duration = 0;
	if (ev->kind != UTRACE_EV_EXIT || (ev->flags & UTRACE_EVF_NO_DURATION))
		return;
	if (ev->flags & UTRACE_EVF_THRESH) {
		if (r->dur_ticks <= ev->tsc)
			ev->duration = ns_diff(d, ev->tsc - r->dur_ticks, ev->tsc);
		else
			ev->duration = dat_ticks_to_ns(d, r->dur_ticks);
	} else {
		/* ev->ts is the exit's time already */
		uint64_t from = dat_tsc_ns(d, r->entry_tick);

		ev->duration = ev->ts > from ? ev->ts - from : 0;
	}
}

/*
 * The buffer's next event, into c->slot[c->cur].ev: 1, 0 at its end, <0.
 * An ENTRY immediately followed by its own EXIT is one LEAF event, as the
 * kernel's function_graph output folds "func();" lines: each ENTRY looks
 * one record ahead, into the other slot, which is the next event's when
 * it is not that EXIT.  Here, not in the iterator, so that the decoder's
 * every-record path is inline.
 */
int dat_cursor_event(struct dat_cursor *c, struct utrace_error *err)
{
	const struct utrace_dat *d = c->d;
	struct dat_raw *r, *n;
	int ret;

	if (c->has_look) {
		c->cur ^= 1;
		c->has_look = 0;
		r = &c->slot[c->cur];
	} else {
		r = &c->slot[c->cur];
		ret = cursor_raw(c, r, err);
		if (ret <= 0)
			return ret;
	}
	if (r->ev.kind == UTRACE_EV_ENTRY) {
		n = &c->slot[c->cur ^ 1];
		ret = cursor_raw(c, n, err);
		if (ret < 0)
			return ret;
		if (ret > 0 && n->ev.kind == UTRACE_EV_EXIT &&
		    !(n->ev.flags & (UTRACE_EVF_NO_DURATION | UTRACE_EVF_THRESH)) &&
		    n->ev.id == r->ev.id && n->ev.depth == r->ev.depth &&
		    n->entry_tick == r->ev.tsc) {
			finish_event(d, r);
			r->ev.kind = UTRACE_EV_LEAF;
			r->ev.flags = n->ev.flags & UTRACE_EVF_UNWIND;
			r->ev.duration = ns_diff(d, r->ev.tsc, n->ev.tsc);
			r->ev.has_retval = n->ev.has_retval;
			r->ev.retval = n->ev.retval;
			return 1;
		}
		c->has_look = ret > 0;
	}
	finish_event(d, r);
	return 1;
}
