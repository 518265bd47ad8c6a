/* SPDX-License-Identifier: MIT */
/*
 * dat_decode.h - the decoder of one buffer's sub-buffers (dat_decode.c),
 * used by the merging iterator (dat_iter.c).  Internal to the reader.
 */
#ifndef UTRACE_LIB_DAT_DECODE_H
#define UTRACE_LIB_DAT_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/tracefile/dat_internal.h"

/*
 * A decoded record, written straight into the event the iterator gives
 * out (no copy of a large struct per record): the decoder sets kind (never
 * LEAF), flags, tsc (the tick), id, cpu, depth, stack, parent_ip, lost,
 * data (in the cursor's page), data_len and the ARGS / RETVAL / RETADDR
 * fields; the iterator sets the rest (ts, duration, buf, image, pid, tid).
 * args are all zero whenever has_args is 0 (the decoder clears them only
 * after a record that had them), retval whenever has_retval is 0.
 */
struct dat_raw {
	struct utrace_event ev;
	uint64_t entry_tick; /* EXIT with a known entry */
	uint64_t dur_ticks;  /* EXIT of a GRAPH_LEAF record */
};

/* Damaged sub-buffers met by an iterator. */
struct dat_warnings {
	uint64_t count;	       /* sub-buffers cut short at a bad record */
	uint64_t unread;       /* records of theirs from the bad one on (the header's count) */
	uint64_t unread_unknown; /* of them, those whose header gives no count */
	uint64_t own;	       /* kernel events of utrace's own work left out (dat_own.c) */
	char first[512];
};

struct dat_frame {
	uint32_t id;
	uint32_t known; /* DAT_FRAME_* */
	uint64_t tick;
};
#define DAT_FRAME_TICK 1u   /* tick is the entry time */
#define DAT_FRAME_MARKED 2u /* entered before the bookmark it was restored
			     * from (dat_resume.c): its EXIT says NO_ENTRY */

/* A cursor's state where one of its sub-buffers starts: a bookmark
 * (dat_resume.c).  The buffer and the sub-buffer are checked on use. */
struct dat_mark {
	int valid;
	int32_t tid;
	uint32_t buf;
	size_t page;  /* next_page: the sub-buffer it starts at */
	uint64_t off; /* that sub-buffer's file offset (of its first version) */
	uint32_t last_seq;
	int have_seq;
	uint64_t tick;
	uint32_t cpu;
	uint64_t base;
	struct dat_frame *frames;
	size_t nr_frames, cap_frames;
	uint64_t lost_seen;
	uint32_t stack;
};

/* The call stack of another program stack of the thread (a coroutine's),
 * kept while the thread runs elsewhere (SWITCH records). */
struct dat_stack {
	uint32_t key;
	uint64_t base;
	struct dat_frame *frames;
	size_t nr_frames, cap_frames;
};

struct dat_cursor {
	struct utrace_dat *d;
	struct dat_buffer *b;
	uint32_t bufidx;
	struct dat_warnings *warn;

	size_t next_page;
	uint32_t *raw; /* the sub-buffer header, then the records */
	size_t cap_raw;
	const uint32_t *words;
	uint32_t nwords, pos;
	int in_page;
	uint64_t page_off;
	uint32_t last_seq;
	int have_seq;
	int broken; /* the previous page was cut short */
	uint32_t page_records; /* the sub-buffer header's count of records, 0: not given */

	uint64_t tick;
	uint32_t cpu;

	/* the call stack: `base` frames nothing is known of, then frames[] */
	uint64_t base;
	struct dat_frame *frames;
	size_t nr_frames, cap_frames;

	/* the thread's other program stacks: stacks[0, nr_stacks) are kept,
	 * up to cap_stacks hold arrays for reuse; forgotten (nr_stacks = 0)
	 * wherever the stack above is reset */
	struct dat_stack *stacks;
	size_t nr_stacks, cap_stacks;
	uint32_t stack; /* the key of the one above (0: the thread's own) */

	uint32_t unwind_left; /* EXIT events an EXIT_UNWIND still owes */
	int lost_pending;     /* a LOST event owed for the page just loaded */
	uint64_t lost_count;
	uint32_t lost_flags;
	uint64_t lost_seen; /* the counts of the LOST events given so far */
	int tail_done;	    /* the buffer's last LOST (see dat_cursor_next) is given */

	/* bookmarks: with keep set, each sub-buffer whose records all lie
	 * before keep_before_ns moves *keep to where it starts */
	struct dat_mark *keep;
	uint64_t keep_before_ns;
	struct dat_mark start; /* where the current sub-buffer started */

	/* the events given out (dat_cursor_event), written in place: slot[cur]
	 * the last, slot[cur ^ 1] the record looked ahead at if has_look */
	struct dat_raw slot[2];
	unsigned cur;
	int has_look;
};

/* Room for n frames on the cursor's stack: 0, <0 out of memory. */
static inline int dat_reserve_frames(struct dat_cursor *c, size_t n)
{
	return UTRACE_GROW(c->frames, c->cap_frames, n);
}

/* depth frames open, none of them known (another stack's too). */
static inline void dat_unknown_stack(struct dat_cursor *c, uint64_t depth)
{
	c->nr_frames = 0;
	c->base = depth;
	c->nr_stacks = 0;
}

/* dat_stacks.c: the sub-buffer cut short at word pos, for what, counted
 * in the warnings (0); a CONTEXT record's frames (w[1] the depth, then n
 * ids), a SWITCH record's change of program stack: 0 (cut short:
 * c->in_page 0) */
int dat_cursor_corrupt(struct dat_cursor *c, const char *what, uint32_t pos);
int dat_set_context(struct dat_cursor *c, const uint32_t *w, uint32_t n);
int dat_switch_stack(struct dat_cursor *c, const uint32_t *w, uint32_t n);

void dat_cursor_init(struct dat_cursor *c, struct utrace_dat *d, uint32_t bufidx,
		     struct dat_warnings *warn);
/* The buffer's next event, in c->slot[c->cur].ev (ENTRY+EXIT folded into
 * LEAF, times in ns): 1, 0 at the end of the buffer, <0 on an I/O error. */
int dat_cursor_event(struct dat_cursor *c, struct utrace_error *err);
void dat_cursor_fini(struct dat_cursor *c);

/* dat_resume.c */
void dat_mark_take(const struct dat_cursor *c, struct dat_mark *m);
void dat_mark_keep(struct dat_cursor *c);
int dat_cursor_restore(struct dat_cursor *c, const struct dat_mark *m);
void dat_mark_fini(struct dat_mark *m);
struct dat_mark *dat_resume_marks(struct utrace_dat_resume *rs, size_t n, uint64_t since_ns);

#endif
