/* SPDX-License-Identifier: MIT */
/*
 * hist_prog.h - a hist trigger compiled to a program, the table it fills,
 * and the interpreter that runs it where the event fires.
 *
 * A hist trigger ("hist:keys=common_pid,bytes.log2:vals=len", the
 * kernel's syntax, lib/hist/hist.h) is parsed and checked once by the tool
 * (lib/hist/hist_compile.c) and handed to whoever sees the event: the
 * runtime inside the traced program for user tracepoints, the recorder
 * for kernel events it decodes.  On every hit of the event that passed
 * its filter, utrace_hist_run() computes the key, finds or inserts its
 * element in the table, and adds the values to the element's sums.  No
 * record is written for it.  Like filter_prog.h it runs between the
 * traced program's instructions: no libc, no allocation, no floating
 * point, bounded time, and input that is never trusted.
 *
 * The program is a list of instructions for a small stack machine, in two
 * parts: the key part builds the key bytes, then the element is found,
 * then the value part adds to its sums (sum 0 is always the hit count):
 *
 *   hist:keys=common_pid,len.log2:vals=bytes
 *
 *   key part:   0: LOAD  off 4 size 4 signed    push common_pid
 *               1: KEY   0                      pop -> key bytes 0..7
 *               2: LOAD  off 8 size 8           push len
 *               3: LOG2                         ilog2(roundup_pow_of_two(x))
 *               4: KEY   8                      pop -> key bytes 8..15
 *   value part: 5: LOAD  off 16 size 8          push bytes
 *               6: SUM   1                      pop -> elt->sums[1] += x
 *
 * Variables (ts0=common_timestamp.usecs) live in the element after the
 * sums, one u64 each, with one u64 bitmap after them saying which are
 * set (utrace_hist_var_sum() in lib/hist/hist.h lays them out): VAR
 * stores one and sets its bit.  A trigger that refers to another's
 * variable ($ts0) has a resolve part between its key part and the
 * insert: RESOLVE looks the same key up in the other trigger's table
 * (found through the context's table callback, never inserted), takes
 * the variable if its bit is set and clears the bit, the kernel's
 * read-once; if any RESOLVE fails the hit is skipped whole, as the
 * kernel's event_hist_trigger() when resolve_var_refs() fails.  The
 * action part, after the values, computes the params of a synthetic
 * event (PARAM) from fields, variables (VGET) and references (REF) and
 * hands them to the context's emit callback (EMIT):
 *
 *   hist:keys=id:lat=common_timestamp.usecs-$ts0:onmatch(a.b).req_lat($lat,id)
 *
 *   key part:     LOAD id; KEY 0
 *   resolve part: RESOLVE table 3 var 1 bit 0x1 (bitmap sum 2) -> refs[0]
 *   value part:   TS; USECS; REF 0; SUB; VAR 1 (bitmap sum 2, bit 0x1)
 *   action part:  VGET 1; PARAM 0; LOAD id; PARAM 1; EMIT synth 7, 2 params
 *
 * The onmax($v) / onchange($v) handlers (common/hist_track.h) are in the
 * action part too: TRACK keeps the element's maximum or last value of
 * $v and skips the handler's action unless the value is new; the action
 * saves fields into the element (SAVE, SAVESTR), emits (PARAM, EMIT) or
 * takes a snapshot through the context's callback (SNAPSHOT).
 *
 * A number takes 8 bytes of the key; a string (STR, DYNSTR, COMM) is
 * copied into the key at its place, NUL-padded to its width, so equal
 * strings make equal keys.  The key's size is a multiple of 8.
 *
 * The table it fills is common/hist_map.h.
 */
#ifndef UTRACE_COMMON_HIST_PROG_H
#define UTRACE_COMMON_HIST_PROG_H

#include "common/hist_insn.h"
#include "common/hist_track.h" /* TRACK, SAVE, SAVESTR, SNAPSHOT, PSTR */

/* The variable and action instructions; the new depth, or -1. */
static __attribute__((noinline, unused)) int
utrace_hist_exec_var(const struct utrace_hist_hdr *h, const struct utrace_hist_insn *x,
		     const struct utrace_hist_ctx *c, const uint8_t *key, uint8_t *elt,
		     struct utrace_hist_frame *fr, uint64_t *st, int sp)
{
	uint64_t *sums = elt ? (uint64_t *)(elt + h->key_size) : 0;

	switch (x->op) {
	case UTRACE_HOP_VAR:
		if (sp < 1 || !sums || x->key_off >= h->nr_sums || x->reserved >= h->nr_sums)
			return -1;
		__atomic_store_n(&sums[x->key_off], st[--sp], __ATOMIC_RELAXED);
		/* release: the value is in before its bit (RESOLVE's acquire) */
		__atomic_fetch_or(&sums[x->reserved], x->imm, __ATOMIC_RELEASE);
		return sp;
	case UTRACE_HOP_VGET:
	case UTRACE_HOP_REF:
		if (sp >= (int)UTRACE_HIST_STACK)
			return -1;
		if (x->op == UTRACE_HOP_REF) {
			if (!fr || x->len >= UTRACE_HIST_REFS_MAX)
				return -1;
			st[sp++] = fr->refs[x->len];
		} else {
			if (!sums || x->key_off >= h->nr_sums)
				return -1;
			st[sp++] = __atomic_load_n(&sums[x->key_off], __ATOMIC_RELAXED);
		}
		return sp;
	case UTRACE_HOP_RESOLVE:
		if (elt || !fr || utrace_hist_resolve(h, x, c, key, fr->refs) < 0)
			return -1;
		return sp;
	case UTRACE_HOP_PARAM:
		if (sp < 1 || !sums || !fr || x->len >= UTRACE_HIST_PARAM_WORDS)
			return -1;
		fr->params[x->len] = st[--sp];
		fr->set[x->len / 64] |= 1ull << (x->len % 64);
		return sp;
	case UTRACE_HOP_EMIT:
		if (!sums || !fr || x->len > UTRACE_HIST_PARAM_WORDS ||
		    x->len + (fr->dyn + 7) / 8 > UTRACE_HIST_PARAM_WORDS)
			return -1;
		for (uint32_t w = 0; w < x->len; w++)
			if (!(fr->set[w / 64] & 1ull << (w % 64)))
				fr->params[w] = 0;
		if (c->emit)
			c->emit(c->arg, x->off, fr->params, x->len + (fr->dyn + 7) / 8);
		fr->dyn = 0;
		for (uint32_t w = 0; w < sizeof(fr->set) / 8; w++)
			fr->set[w] = 0;
		return sp;
	}
	return -1;
}

/*
 * Runs instructions [from, to): the key part (elt NULL) writes key, the
 * resolve part (elt NULL) fills fr->refs, the value part adds to elt's
 * sums and sets its variables, the action part emits.  Returns 0, or -1
 * for a malformed program or a variable that did not resolve (the hit is
 * then dropped).  Inlined into its calls: the call and the spilled
 * registers cost a fifth of a hit (27 -> 22 ns).
 */
static inline __attribute__((always_inline)) int
utrace_hist_exec(const struct utrace_hist_hdr *h, uint32_t from, uint32_t to,
		 const struct utrace_hist_ctx *c, uint8_t *key, uint8_t *elt,
		 struct utrace_hist_frame *fr)
{
	const struct utrace_hist_insn *in = utrace_hist_insns(h);
	uint64_t st[UTRACE_HIST_STACK];
	int sp = 0, r;

	for (uint32_t i = from; i < to; i++) {
		const struct utrace_hist_insn *x = &in[i];

		switch (x->op) {
		case UTRACE_HOP_LOAD:
		case UTRACE_HOP_CONST:
		case UTRACE_HOP_TS:
		case UTRACE_HOP_CPU:
			if (sp >= (int)UTRACE_HIST_STACK)
				return -1;
			st[sp++] = x->op == UTRACE_HOP_LOAD    ? utrace_hist_load(x, c)
				   : x->op == UTRACE_HOP_CONST ? x->imm
				   : x->op == UTRACE_HOP_TS    ? c->ts_ns
							       : c->cpu;
			break;
		case UTRACE_HOP_KEY:
			if (sp < 1 || elt || (uint64_t)x->key_off + 8 > h->key_size)
				return -1;
			*(utrace_fp_u64 *)(key + x->key_off) = st[--sp];
			break;
		case UTRACE_HOP_STR:
		case UTRACE_HOP_DYNSTR:
		case UTRACE_HOP_COMM:
			if (elt || (uint64_t)x->key_off + x->len > h->key_size)
				return -1;
			utrace_hist_string(x, c, key);
			break;
		case UTRACE_HOP_STACK:
			if (elt || (uint64_t)x->key_off + x->len > h->key_size || (x->key_off & 7))
				return -1;
			utrace_hist_stack(x, c, (uint64_t *)(void *)(key + x->key_off));
			break;
		case UTRACE_HOP_SUM:
			if (sp < 1 || !elt || x->key_off >= h->nr_sums)
				return -1;
			__atomic_fetch_add((uint64_t *)(elt + h->key_size) + x->key_off, st[--sp],
					   __ATOMIC_RELAXED);
			break;
		case UTRACE_HOP_VAR:
		case UTRACE_HOP_VGET:
		case UTRACE_HOP_RESOLVE:
		case UTRACE_HOP_REF:
		case UTRACE_HOP_PARAM:
		case UTRACE_HOP_EMIT:
			if ((sp = utrace_hist_exec_var(h, x, c, key, elt, fr, st, sp)) < 0)
				return -1;
			break;
		case UTRACE_HOP_TRACK:
			if (sp < 1 || (r = utrace_hist_track(h, x, elt, st[--sp], fr)) < 0)
				return -1;
			i += r ? 0 : x->len; /* not new: its action is skipped */
			break;
		case UTRACE_HOP_SAVE:
			if (sp < 1 || utrace_hist_exec_act(h, x, c, elt, fr, st[--sp]) < 0)
				return -1;
			break;
		case UTRACE_HOP_SAVESTR:
		case UTRACE_HOP_VARSTR:
		case UTRACE_HOP_SNAPSHOT:
		case UTRACE_HOP_PSTR:
			if (utrace_hist_exec_act(h, x, c, elt, fr, 0) < 0)
				return -1;
			break;
		default:
			if ((sp = utrace_hist_alu(x, st, sp)) < 0)
				return -1;
		}
	}
	return 0;
}

/*
 * One hit of the event: filter, key, element, sums.  m is the table of
 * this program (same key_size and nr_sums, checked when it was mapped).
 */
static inline void utrace_hist_run(const struct utrace_hist_hdr *h, struct utrace_hist_map *m,
				   const struct utrace_hist_ctx *c)
{
	uint64_t keybuf[UTRACE_HIST_KEY_MAX / 8];
	uint8_t *key = (uint8_t *)keybuf, *elt;
	uint32_t kend = h->nr_key_insns, rend = kend + h->nr_resolve_insns;
	uint32_t vend = h->nr_insns - h->nr_action_insns;
	struct utrace_hist_frame fr;

	if (__atomic_load_n(&m->paused, __ATOMIC_RELAXED))
		return;
	if (h->filter_len && !utrace_filter_run(utrace_hist_filter(h), h->filter_len, c->rec,
						c->rec_len))
		return;
	for (uint32_t i = 0; i < h->key_size; i += 8)
		keybuf[i / 8] = 0;
	if (utrace_hist_exec(h, 0, kend, c, key, 0, &fr) < 0)
		return;
	/* a few words, set on every hit: an action instruction that a bad
	 * program puts in its value part still never reads garbage; the
	 * params are zeroed by EMIT, those not set */
	fr.set[0] = fr.set[1] = fr.set[2] = 0;
	fr.dyn = 0;
	fr.track = 0;
	fr.map = m;
	if (rend > kend || vend < h->nr_insns) /* a REF never reads garbage */
		__builtin_memset(fr.refs, 0, sizeof(fr.refs));
	if (rend > kend && utrace_hist_exec(h, kend, rend, c, key, 0, &fr) < 0)
		return; /* a variable it refers to is not set for this key */
	elt = utrace_hist_map_insert(m, key);
	if (!elt) {
		__atomic_fetch_add(&m->drops, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add((uint64_t *)(elt + h->key_size), 1, __ATOMIC_RELAXED); /* hitcount */
	if (utrace_hist_exec(h, rend, vend, c, key, elt, &fr) < 0 || vend == h->nr_insns)
		return;
	utrace_hist_exec(h, vend, h->nr_insns, c, key, elt, &fr);
}

#endif
