/* SPDX-License-Identifier: MIT */
/*
 * hist_track.h - the instructions of the onmax($v) / onchange($v)
 * handlers and of the actions that only they and string params have:
 * TRACK, SAVE, SAVESTR, SNAPSHOT and PSTR, which the interpreter
 * (common/hist_prog.h) runs; the program's types are common/hist_insn.h.
 *
 * A handler is kept in the element, as the kernel keeps it in the
 * tracing_map_elt's variables: the tracked value (the maximum, or the
 * last value) in one sum, what save() keeps in the sums after it, a
 * string in as many as its width takes.  Everything here is a few
 * atomic operations on the shared table, no lock: it runs where the
 * event fires, in signal handlers too.
 */
#ifndef UTRACE_COMMON_HIST_TRACK_H
#define UTRACE_COMMON_HIST_TRACK_H

#include "common/hist_insn.h"

/*
 * TRACK: whether v is a new maximum (imm 0) or a change (imm 1) of the
 * element's tracked value, which it then becomes: 1, 0, or -1.  The
 * kernel's check_track_val() and save_track_val(), made one atomic step
 * so that two hits that race never both see the same new maximum: a
 * compare-and-swap that only fails because another hit raised the value
 * (it retries against that, and stops once v is not above it), and an
 * exchange for a change.  The values start at 0, as the kernel's.
 */
static __attribute__((noinline, unused)) int
utrace_hist_track(const struct utrace_hist_hdr *h, const struct utrace_hist_insn *x,
		  uint8_t *elt, uint64_t v, struct utrace_hist_frame *fr)
{
	uint64_t *t, old;

	if (!elt || !fr || x->key_off >= h->nr_sums)
		return -1;
	t = (uint64_t *)(elt + h->key_size) + x->key_off;
	if (x->imm) {
		if (__atomic_exchange_n(t, v, __ATOMIC_RELAXED) == v)
			return 0;
	} else {
		old = __atomic_load_n(t, __ATOMIC_RELAXED);
		do
			if (v <= old)
				return 0;
		while (!__atomic_compare_exchange_n(t, &old, v, 1, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED));
	}
	fr->track = v;
	return 1;
}

/*
 * SNAPSHOT: the kernel's cond_snapshot_update(): a snapshot only for a
 * value that is also a new maximum (a change) of the last snapshot's,
 * table-wide; the element is marked with the snapshot's number, which
 * the map header keeps with the value, for the hist file's "Snapshot
 * taken" lines.  The kernel does this under a lock; here the value is
 * claimed with a compare-and-swap and the number taken after, so two hits
 * that race to a new maximum at the same moment may leave the value of
 * one and the key of the other (a lock could be left held by a killed
 * process, and then no snapshot would ever be taken again).
 */
static __attribute__((noinline, unused)) void
utrace_hist_snap(const struct utrace_hist_insn *x, const struct utrace_hist_ctx *c,
		 uint64_t *sums, struct utrace_hist_frame *fr)
{
	struct utrace_hist_map *m = fr->map;
	uint64_t v = fr->track, old = __atomic_load_n(&m->snap_val, __ATOMIC_RELAXED);

	if (!c->snapshot)
		return; /* nothing takes snapshots: none is said to be taken */
	do
		if (x->imm ? v == old : v <= old)
			return;
	while (!__atomic_compare_exchange_n(&m->snap_val, &old, v, 1, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED));
	__atomic_store_n(&sums[x->key_off], __atomic_add_fetch(&m->snap_seq, 1, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	c->snapshot(c->arg);
}

/* PSTR of a stack: an unsigned long[] after the fixed words, as a char[]
 * is (its __data_loc's length the frames' bytes). */
static __attribute__((noinline, unused)) int
utrace_hist_pstack(const struct utrace_hist_insn *x, const uint64_t *frames,
		   struct utrace_hist_frame *fr)
{
	uint32_t n = 0, at;

	if (x->len >= x->key_off || x->key_off > UTRACE_HIST_PARAM_WORDS)
		return -1;
	while (n < UTRACE_HIST_STACK_FRAMES && frames[n])
		n++;
	at = 8 * x->key_off + fr->dyn;
	if (at + 8 * n > 8 * UTRACE_HIST_PARAM_WORDS)
		n = 0;
	if (at + 8 * n > 8 * UTRACE_HIST_PARAM_WORDS)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		fr->params[at / 8 + i] = frames[i];
	fr->params[x->len] = (uint64_t)(8 * n) << 16 | (at + 8);
	fr->set[x->len / 64] |= 1ull << (x->len % 64);
	fr->dyn += 8 * n;
	return 0;
}

/* PSTR: a string param, a char[N] in its words or a char[] after the
 * fixed words (its u64 word the __data_loc: length << 16 | offset in
 * the record, whose common fields are 8 bytes), NUL-terminated. */
static __attribute__((noinline, unused)) int
utrace_hist_pstr(const struct utrace_hist_hdr *h, const struct utrace_hist_insn *x,
		 const struct utrace_hist_ctx *c, const uint64_t *sums, struct utrace_hist_frame *fr)
{
	uint8_t *p = (uint8_t *)fr->params;
	uint32_t n = UTRACE_HIST_STR_MAX, len = 0, at;
	const uint8_t *s;
	uint64_t own;

	if (x->size == UTRACE_HSTR_REF) /* a string variable (RESOLVE made it an address) */
		s = x->off < UTRACE_HIST_REFS_MAX ? (const uint8_t *)(uintptr_t)fr->refs[x->off] : 0;
	else if (x->size == UTRACE_HSTR_OWN) /* one of this trigger's: its sum says where */
		s = x->off < h->nr_sums &&
			    (own = __atomic_load_n(&sums[x->off], __ATOMIC_RELAXED)) +
					UTRACE_HIST_STR_MAX / 8 <= h->nr_sums
			? (const uint8_t *)&sums[own]
			: 0;
	else
		s = utrace_hist_str_src(x->size, x->off, x->imm, c, &n);
	if (!s)
		return -1;
	if (x->reserved == 2) /* a stack: its frames up to the first 0 */
		return utrace_hist_pstack(x, (const uint64_t *)(const void *)s, fr);

	if (!x->reserved) { /* key_off: the char[N]'s N; it takes 256 bytes */
		uint32_t words = UTRACE_HIST_STR_MAX / 8;

		if (!x->key_off || x->key_off > UTRACE_HIST_STR_MAX ||
		    x->len + words > UTRACE_HIST_PARAM_WORDS)
			return -1;
		utrace_hist_put_str(p + 8ull * x->len, words * 8, s,
				    n < x->key_off ? n : x->key_off - 1);
		for (uint32_t w = x->len; w < x->len + words; w++)
			fr->set[w / 64] |= 1ull << (w % 64);
		return 0;
	}
	if (x->len >= x->key_off || x->key_off > UTRACE_HIST_PARAM_WORDS)
		return -1;
	at = 8 * x->key_off + fr->dyn;
	while (len < n && len + 1 < UTRACE_HIST_STR_MAX && s[len])
		len++;
	if (at + len + 1 > 8 * UTRACE_HIST_PARAM_WORDS)
		len = 0; /* no room left: an empty string */
	if (at + len + 1 > 8 * UTRACE_HIST_PARAM_WORDS)
		return -1;
	utrace_hist_put_str(p + at, (len + 1 + 7) & ~7u, s, len);
	fr->params[x->len] = (uint64_t)(len + 1) << 16 | (8 + at);
	fr->set[x->len / 64] |= 1ull << (x->len % 64);
	fr->dyn += (len + 1 + 7) & ~7u;
	return 0;
}

/* VARSTR of a stack (its frames, 0 after) or of another trigger's
 * variable (RESOLVE's address: its bytes as they are). */
static __attribute__((noinline, unused)) int
utrace_hist_varcopy(const struct utrace_hist_hdr *h, const struct utrace_hist_insn *x,
		    const struct utrace_hist_ctx *c, uint64_t *sums, struct utrace_hist_frame *fr)
{
	uint64_t *dst = &sums[x->key_off];
	const uint64_t *src;
	uint32_t n = 0, words = x->len / 8;

	if ((uint64_t)x->key_off * 8 + x->len > 8ull * h->nr_sums || words < UTRACE_HIST_STACK_FRAMES)
		return -1;
	if (x->size == UTRACE_HSTR_STACK) {
		n = c->stack ? c->stack(c->arg, dst, UTRACE_HIST_STACK_FRAMES) : 0;
	} else {
		if (x->off >= UTRACE_HIST_REFS_MAX || !(src = (const uint64_t *)(uintptr_t)fr->refs[x->off]))
			return -1;
		for (; n < words; n++)
			dst[n] = __atomic_load_n(&src[n], __ATOMIC_RELAXED);
	}
	for (; n < words; n++)
		dst[n] = 0;
	return 0;
}

/* save(), snapshot() and string params; 0, or -1. */
static __attribute__((noinline, unused)) int
utrace_hist_exec_act(const struct utrace_hist_hdr *h, const struct utrace_hist_insn *x,
		     const struct utrace_hist_ctx *c, uint8_t *elt, struct utrace_hist_frame *fr,
		     uint64_t v)
{
	uint64_t *sums = elt ? (uint64_t *)(elt + h->key_size) : 0;
	uint32_t n;
	const uint8_t *s;

	if (!sums || !fr)
		return -1;
	switch (x->op) {
	case UTRACE_HOP_SAVE:
		if (x->key_off >= h->nr_sums)
			return -1;
		__atomic_store_n(&sums[x->key_off], v, __ATOMIC_RELAXED);
		return 0;
	case UTRACE_HOP_VARSTR:
		if (x->size == UTRACE_HSTR_STACK || x->size == UTRACE_HSTR_REF)
			return utrace_hist_varcopy(h, x, c, sums, fr);
		__attribute__((fallthrough)); /* a string field */
	case UTRACE_HOP_SAVESTR:
		/* byte stores: two hits that save at once may mix their
		 * strings, as two CPUs in the kernel's save_track_data_vars() */
		if ((uint64_t)x->key_off * 8 + x->len > 8ull * h->nr_sums)
			return -1;
		s = utrace_hist_str_src(x->size, x->off, x->imm, c, &n);
		utrace_hist_put_str((uint8_t *)&sums[x->key_off], x->len, s,
				    n < x->len ? n : x->len - 1u);
		return 0;
	case UTRACE_HOP_SNAPSHOT:
		if (x->key_off >= h->nr_sums || !fr->map)
			return -1;
		utrace_hist_snap(x, c, sums, fr);
		return 0;
	case UTRACE_HOP_PSTR:
		return utrace_hist_pstr(h, x, c, sums, fr);
	}
	return -1;
}

#endif
