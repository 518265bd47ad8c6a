/* SPDX-License-Identifier: MIT */
/*
 * dat_stacks.c - the decoder's rare paths, apart from dat_decode.c whose
 * every-record path they are not on: a damaged record (the sub-buffer cut
 * short, what could not be read counted), and the call stacks set from
 * what the producer says: a CONTEXT record (what is open after records
 * were lost), and a SWITCH record (the thread goes on on another program
 * stack, a coroutine's, each with its own open calls).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "common/rb_abi.h"
#include "common/record.h"
#include "lib/base/grow.h"
#include "lib/tracefile/dat_decode.h"

/*
 * Records among the first n words of the page, counted as the writer
 * counts them in the header (one per record it wrote: the words that only
 * change the decoder's state, and an ENTRY's ARGS or an EXIT's RETVAL,
 * which it wrote in one piece with them, are not records).  Those words
 * were decoded already: every length is sound.
 */
static uint32_t records_before(const struct dat_cursor *c, uint32_t n)
{
	uint32_t count = 0;

	for (uint32_t i = 0; i < n;) {
		const uint32_t w = c->words[i];
		uint32_t len = urec_kind(w) == UREC_FUNC ? 3 : 1;

		if (urec_kind(w) == UREC_EXT) {
			enum utrace_ext_type t = urec_ext_type(w);

			len = urec_ext_words(w);
			if (!len)
				break;
			count += t != UEXT_TIME_EXTEND && t != UEXT_CPU && t != UEXT_CONTEXT &&
				 t != UEXT_ARGS && t != UEXT_RETVAL && t != UEXT_RETADDR && t != UEXT_PAD &&
				 t != UEXT_TIME_STAMP;
		} else {
			count++;
		}
		i += len;
	}
	return count;
}

int dat_cursor_corrupt(struct dat_cursor *c, const char *what, uint32_t pos)
{
	struct dat_warnings *w = c->warn;
	uint32_t read = records_before(c, pos);

	/* what could not be read: the rest of the records the writer says it
	 * put here, at least the bad one when it does not say */
	if (c->page_records > read)
		w->unread += c->page_records - read;
	else if (!c->page_records)
		w->unread_unknown++;
	if (!w->count++)
		snprintf(w->first, sizeof(w->first),
			 "%s: thread %s-%d (buffer %u), sub-buffer at offset %llu: %s at byte %u",
			 c->d->path, c->b->info.comm, c->b->info.tid, c->b->info.buf,
			 (unsigned long long)c->page_off, what,
			 (unsigned)(sizeof(struct utrace_subbuf) + pos * 4u));
	c->in_page = 0;
	c->broken = 1;
	return 0;
}

int dat_set_context(struct dat_cursor *c, const uint32_t *w, uint32_t n)
{
	uint32_t depth = w[1];

	if (n > depth || depth > DAT_MAX_DEPTH)
		return dat_cursor_corrupt(c, "impossible CONTEXT record", c->pos);
	if (dat_reserve_frames(c, n)) {
		dat_unknown_stack(c, depth);
		return 0;
	}
	c->base = depth - n;
	c->nr_frames = n;
	for (uint32_t i = 0; i < n; i++) {
		c->frames[i].id = w[2 + i];
		c->frames[i].known = 0;
		c->frames[i].tick = 0;
	}
	return 0;
}

/* The kept stack named key, NULL if none. */
static struct dat_stack *stack_find(struct dat_cursor *c, uint32_t key)
{
	for (size_t i = 0; i < c->nr_stacks; i++)
		if (c->stacks[i].key == key)
			return &c->stacks[i];
	return NULL;
}

/* The cursor's stack and s's trade places (arrays included). */
static void stack_trade(struct dat_cursor *c, struct dat_stack *s)
{
	struct dat_stack cur = {s->key, c->base, c->frames, c->nr_frames, c->cap_frames};

	c->base = s->base;
	c->frames = s->frames;
	c->nr_frames = s->nr_frames;
	c->cap_frames = s->cap_frames;
	*s = cur;
}

/* The running stack kept under key; it is empty after. */
static int stack_keep(struct dat_cursor *c, uint32_t key)
{
	struct dat_stack *s = stack_find(c, key);

	if (!s) {
		if (UTRACE_GROW_ZERO(c->stacks, c->cap_stacks, c->nr_stacks + 1) < 0)
			return -ENOMEM;
		s = &c->stacks[c->nr_stacks++];
	}
	s->nr_frames = 0;
	s->base = 0;
	stack_trade(c, s);
	s->key = key;
	return 0;
}

/* Whether kept stack s is what a SWITCH says is open: its depth, and the
 * ids it names of the innermost frames. */
static int stack_matches(const struct dat_stack *s, const uint32_t *w, uint32_t n)
{
	if (s->base + s->nr_frames != w[4])
		return 0;
	for (uint32_t i = 0; i < n && i < s->nr_frames; i++)
		if (s->frames[s->nr_frames - 1 - i].id != w[5 + n - 1 - i])
			return 0;
	return 1;
}

/*
 * SWITCH: the thread goes on on another program stack (a coroutine).  The
 * stack left is kept under its key; the one entered is the one kept under
 * its own, with its entry times, if it is what the record says is open,
 * else (its records were not all seen) what the record says, as CONTEXT.
 */
int dat_switch_stack(struct dat_cursor *c, const uint32_t *w, uint32_t n)
{
	struct dat_stack *to, spare;

	if (n > w[4] || w[4] > DAT_MAX_DEPTH)
		return dat_cursor_corrupt(c, "impossible SWITCH record", c->pos);
	c->stack = w[3];
	if (stack_keep(c, w[2]) < 0)
		return dat_set_context(c, w + 3, n);
	to = stack_find(c, w[3]);
	if (!to || !stack_matches(to, w, n))
		return dat_set_context(c, w + 3, n);
	stack_trade(c, to);
	/* to is no longer kept: the last kept one takes its place, its array
	 * (the emptied one) stays beyond nr_stacks for reuse */
	spare = *to;
	*to = c->stacks[c->nr_stacks - 1];
	c->stacks[--c->nr_stacks] = spare;
	return 0;
}
