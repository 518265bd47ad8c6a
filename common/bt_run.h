/* SPDX-License-Identifier: MIT */
/*
 * bt_run.h - the interpreter of common/bt_prog.h: one run of a checked
 * program on one hit.  Included by bt_prog.h.  Every push and pop is
 * bounds-checked (a jump makes the depth depend on the path); a run that
 * would leave its bounds stops there, as an action that faulted.
 * Division by zero gives 0, as in bpftrace's BPF.
 */
#ifndef UTRACE_COMMON_BT_RUN_H
#define UTRACE_COMMON_BT_RUN_H

#include "common/bt_buf.h"
#include "common/bt_tuple.h"

/* A new temporary string slot: its index. */
static inline unsigned utrace_bt_tmp(struct utrace_bt_state *st)
{
	unsigned i = st->ntmp++ % UTRACE_BT_TMP_STRS;

	st->strs[i][0] = 0;
	return i;
}

static inline char *utrace_bt_slot(struct utrace_bt_state *st, int64_t v)
{
	return st->strs[(uint64_t)v % (UTRACE_BT_TMP_STRS + UTRACE_BT_VARS)];
}

/* String value v's text: a long name's whole (its first bytes are what
 * the string functions look at) where the tool keeps it (ctx->long_text). */
static inline const char *utrace_bt_text(struct utrace_bt_state *st,
					 const struct utrace_bt_ctx *ctx, int64_t v)
{
	const char *s = utrace_bt_slot(st, v);

	return ctx->long_text ? ctx->long_text(ctx->arg, s) : s;
}

static inline void utrace_bt_strcpy(char *dst, const char *src)
{
	unsigned n = 0;

	while (n + 1 < UTRACE_BT_STRLEN && src[n]) {
		dst[n] = src[n];
		n++;
	}
	dst[n] = 0;
}

/* The string at addr into dst, at most max (< UTRACE_BT_STRLEN)
 * characters of it, word by word through load: 0, or -1 with dst "" if
 * a word it needs cannot be read.  As bpftrace's probe_read_str of max +
 * 1 bytes, which fails when it meets a fault before the NUL, the byte
 * after the max characters must be readable too. */
static inline int utrace_bt_load_str(char *dst, uint64_t addr, unsigned max,
				     int (*load)(uint64_t, unsigned, uint64_t *))
{
	unsigned n = 0;

	for (;;) {
		uint64_t w;

		if (load((addr + n) & ~7ull, 8, &w) < 0) {
			dst[0] = 0;
			return -1;
		}
		for (unsigned k = (unsigned)((addr + n) & 7); k < 8; k++) {
			char ch = (char)(w >> (8 * k));

			if (!ch || n == max) {
				dst[n] = 0;
				return 0;
			}
			dst[n++] = ch;
		}
	}
}

static inline int utrace_bt_streq(const char *a, const char *b)
{
	for (unsigned i = 0; i < UTRACE_BT_STRLEN; i++) {
		if (a[i] != b[i])
			return 0;
		if (!a[i])
			return 1;
	}
	return 1;
}

static inline int64_t utrace_bt_binop(unsigned op, int64_t a, int64_t b)
{
	switch (op) {
	case UTRACE_BOP_ADD: return (int64_t)((uint64_t)a + (uint64_t)b);
	case UTRACE_BOP_SUB: return (int64_t)((uint64_t)a - (uint64_t)b);
	case UTRACE_BOP_MUL: return (int64_t)((uint64_t)a * (uint64_t)b);
	case UTRACE_BOP_DIV: return b ? (int64_t)((uint64_t)a / (uint64_t)b) : 0;
	case UTRACE_BOP_MOD: return b ? (int64_t)((uint64_t)a % (uint64_t)b) : 0;
	case UTRACE_BOP_AND: return a & b;
	case UTRACE_BOP_OR: return a | b;
	case UTRACE_BOP_XOR: return a ^ b;
	case UTRACE_BOP_SHL: return (int64_t)((uint64_t)a << (b & 63));
	case UTRACE_BOP_SHR: return (int64_t)((uint64_t)a >> (b & 63));
	case UTRACE_BOP_EQ: return a == b;
	case UTRACE_BOP_NE: return a != b;
	case UTRACE_BOP_LT: return a < b;
	case UTRACE_BOP_LE: return a <= b;
	case UTRACE_BOP_GT: return a > b;
	default: return a >= b;
	}
}

/* (intN)x, (uintN)x: x's low bytes, sign- or zero-extended. */
static inline int64_t utrace_bt_ext(int64_t x, unsigned bytes, unsigned is_signed)
{
	unsigned sh = bytes && bytes < 8 ? 64 - 8 * bytes : 0;

	if (!sh)
		return x;
	return is_signed ? (int64_t)((uint64_t)x << sh) >> sh
			 : (int64_t)(((uint64_t)x << sh) >> sh);
}

static inline int64_t utrace_bt_bswap(int64_t x, unsigned bytes)
{
	uint64_t v = (uint64_t)x, r = 0;

	for (unsigned i = 0; i < bytes && i < 8; i++)
		r = r << 8 | ((v >> (8 * i)) & 0xff);
	return (int64_t)r;
}

/* bpftrace's strncmp: 0 if the first n bytes are equal (a NUL in both
 * ends them early), else 1. */
static inline int64_t utrace_bt_strncmp(const char *a, const char *b, int64_t n)
{
	for (int64_t i = 0; i < n && i < UTRACE_BT_STRLEN; i++) {
		if (a[i] != b[i])
			return 1;
		if (!a[i])
			return 0;
	}
	return 0;
}

/* 1 if needle occurs in hay (bpftrace's strcontains: "" is in every string). */
static inline int64_t utrace_bt_strstr(const char *hay, const char *needle)
{
	for (unsigned i = 0; i < UTRACE_BT_STRLEN; i++) {
		unsigned k = 0;

		while (i + k < UTRACE_BT_STRLEN && needle[k] && hay[i + k] == needle[k])
			k++;
		if (!needle[k] || k == UTRACE_BT_STRLEN)
			return 1;
		if (!hay[i])
			return 0;
	}
	return 0;
}

/* Pops n values (strings where bit i of str is set) into the key bytes:
 * 8 bytes an integer, UTRACE_BT_STRLEN a string, first value first. */
static inline void utrace_bt_key(struct utrace_bt_state *st, const int64_t *vals, unsigned n,
				 uint32_t str)
{
	unsigned off = 0;

	st->key[0] = 0; /* a map without keys: one element, key byte 0 */
	for (unsigned i = 0; i < n; i++) {
		if (str >> i & 1) {
			const char *s = utrace_bt_slot(st, vals[i]);
			unsigned k = 0;

			for (; k < UTRACE_BT_STRLEN && s[k]; k++)
				st->key[off + k] = (uint8_t)s[k];
			for (; k < UTRACE_BT_STRLEN; k++)
				st->key[off + k] = 0;
			off += UTRACE_BT_STRLEN;
		} else {
			__builtin_memcpy(st->key + off, &vals[i], 8);
			off += 8;
		}
	}
}

/* A record of n values (str: which are strings) to the context. */
static inline void utrace_bt_emit(struct utrace_bt_state *st, const struct utrace_bt_ctx *ctx,
				  const struct utrace_bt_insn *in, const int64_t *vals)
{
	struct utrace_bt_rec_hdr h = {in->a, (uint32_t)in->imm, 0, in->b};
	uint32_t off = sizeof(h);

	for (unsigned i = 0; i < in->b; i++) {
		if (in->key_str >> i & 1) {
			utrace_bt_strcpy((char *)st->rec + off, utrace_bt_slot(st, vals[i]));
			off += UTRACE_BT_STRLEN;
		} else {
			__builtin_memcpy(st->rec + off, &vals[i], 8);
			off += 8;
		}
	}
	h.len = off;
	__builtin_memcpy(st->rec, &h, sizeof(h));
	ctx->emit(ctx->arg, st->rec, off);
}

/* -k: a map helper that found no element, as a record of no values. */
static inline void utrace_bt_helper_err(struct utrace_bt_state *st,
					const struct utrace_bt_ctx *ctx, int64_t id)
{
	struct utrace_bt_rec_hdr h = {UTRACE_BREC_HELPER_ERR, (uint32_t)id, sizeof(h), 0};

	__builtin_memcpy(st->rec, &h, sizeof(h));
	ctx->emit(ctx->arg, st->rec, sizeof(h));
}

/* TUPLE: the n values (strings and tuples where in says) as a tuple in a
 * new slot; its index. */
static inline unsigned utrace_bt_tuple_make(struct utrace_bt_state *st,
					    const struct utrace_bt_insn *in, const int64_t *vals)
{
	unsigned s = utrace_bt_tmp(st), n = 0;
	char *d = st->strs[s];

	n = utrace_bt_tuple_put(d, n, UTRACE_BT_T_OPEN);
	for (unsigned i = 0; i < in->b; i++) {
		const char *e = (in->key_str >> i & 1) ? utrace_bt_slot(st, vals[i]) : 0;

		if (i)
			n = utrace_bt_tuple_put(d, n, UTRACE_BT_T_SEP);
		if (!e) {
			n = utrace_bt_tuple_int(d, n, vals[i], in->key_str >> (16 + i) & 1);
			continue;
		}
		if (!((uint64_t)in->imm >> i & 1))
			n = utrace_bt_tuple_put(d, n, in->key_str >> (16 + i) & 1 ? UTRACE_BT_T_BARE
										  : UTRACE_BT_T_STR);
		for (; *e; e++)
			n = utrace_bt_tuple_put(d, n, *e);
	}
	n = utrace_bt_tuple_put(d, n, UTRACE_BT_T_CLOSE);
	d[n] = 0;
	return s;
}

/* TGET: element idx of the tuple in slot v, a number or a new slot's
 * index.  An element longer than a slot (of a struct or an array value
 * the tool keeps whole: ctx->long_text) becomes a value of its own
 * there (ctx->long_put); elsewhere it is cut at the slot's end. */
static inline int64_t utrace_bt_tget(struct utrace_bt_state *st, const struct utrace_bt_ctx *ctx,
				     unsigned idx, int64_t v)
{
	const char *t = utrace_bt_slot(st, v), *b, *e;
	unsigned s, n = 0;

	if (st->strs[st->ntmp % UTRACE_BT_TMP_STRS] == t)
		st->ntmp++; /* the ring came round to it: not over it */
	s = utrace_bt_tmp(st);
	if (ctx->long_text)
		t = ctx->long_text(ctx->arg, t);
	if (!utrace_bt_tuple_elem(t, idx, &b, &e))
		return utrace_bt_tuple_num(b, e);
	if (ctx->long_put) {
		ctx->long_put(ctx->arg, b, (unsigned)(e - b), st->strs[s]);
		return s;
	}
	for (; b < e && n + 1 < UTRACE_BT_STRLEN; b++)
		st->strs[s][n++] = *b;
	st->strs[s][n] = 0;
	return s;
}

/* Runs a checked program on a hit: 0, or -1 if it stopped short. */
static inline int utrace_bt_exec(const void *prog, const struct utrace_bt_hit *hit,
				const struct utrace_bt_ctx *ctx, struct utrace_bt_state *st)
{
	const struct utrace_bt_hdr *h = (const struct utrace_bt_hdr *)prog;
	const struct utrace_bt_insn *ins = utrace_bt_insns(h);
	const struct utrace_bt_mapdesc *maps = utrace_bt_maps(h);
	int64_t *sp = st->stack; /* the next free cell */
	uint32_t steps = 0;

	st->ntmp = 0;
	for (uint32_t i = 0; i < h->nr_insns; i++) {
		const struct utrace_bt_insn *in = &ins[i];
		int push, pop = utrace_bt_stack_effect(in, &push);
		int64_t *v;
		unsigned s;

		if (pop < 0 || sp - st->stack < pop || sp - pop + push > st->stack + UTRACE_BT_STACK_MAX ||
		    ++steps > UTRACE_BT_STEPS_MAX)
			return -1;
		sp -= pop;
		v = sp; /* the popped values, first pushed first */
		switch (in->op) {
		case UTRACE_BOP_PUSH: *sp++ = in->imm; break;
		case UTRACE_BOP_ARG: *sp++ = hit->args[in->a]; break;
		case UTRACE_BOP_BUILTIN: *sp++ = hit->builtin[in->a]; break;
		case UTRACE_BOP_COMM:
		case UTRACE_BOP_SCONST:
		case UTRACE_BOP_STR:
			s = utrace_bt_tmp(st);
			if (in->op == UTRACE_BOP_COMM) {
				for (unsigned k = 0; k < 16; k++)
					st->strs[s][k] = hit->comm[k];
				st->strs[s][15] = 0;
			} else if (in->op == UTRACE_BOP_SCONST) {
				for (unsigned k = 0; k < in->b; k++)
					st->strs[s][k] = ((const char *)prog)[in->imm + k];
				st->strs[s][in->b] = 0;
			} else {
				unsigned max = in->b && in->b < UTRACE_BT_STRLEN ? in->b
									       : UTRACE_BT_STRLEN - 1;

				if ((ctx->load_str ? ctx->load_str((uint64_t)v[0], max, st->strs[s])
						   : utrace_bt_load_str(st->strs[s], (uint64_t)v[0], max,
									ctx->load)) < 0 &&
				    in->imm > 0) /* -kk: as LOAD's */
					utrace_bt_helper_err(st, ctx, in->imm - 1);
			}
			*sp++ = s;
			break;
		case UTRACE_BOP_VLD: *sp++ = st->vars[in->a]; break;
		case UTRACE_BOP_VST:
			if (in->b) {
				s = UTRACE_BT_TMP_STRS + in->a;
				utrace_bt_strcpy(st->strs[s], utrace_bt_slot(st, v[0]));
				st->vars[in->a] = s;
			} else {
				st->vars[in->a] = v[0];
			}
			break;
		case UTRACE_BOP_POP: break;
		case UTRACE_BOP_DUP: sp[0] = sp[1] = v[0]; sp += 2; break;
		case UTRACE_BOP_JMP: i = (uint32_t)in->imm - 1; break;
		case UTRACE_BOP_LOOP: i = (uint32_t)in->imm - 1; break; /* imm 0: from the top */
		case UTRACE_BOP_JZ:
			if (!v[0])
				i = (uint32_t)in->imm - 1;
			break;
		case UTRACE_BOP_STREQ:
		case UTRACE_BOP_STRNE:
			s = (unsigned)utrace_bt_streq(utrace_bt_slot(st, v[0]), utrace_bt_slot(st, v[1]));
			*sp++ = in->op == UTRACE_BOP_STREQ ? s : !s;
			break;
		case UTRACE_BOP_EXT: *sp++ = utrace_bt_ext(v[0], in->a, in->b); break;
		case UTRACE_BOP_BSWAP: *sp++ = utrace_bt_bswap(v[0], in->a); break;
		case UTRACE_BOP_STRNCMP:
			*sp++ = utrace_bt_strncmp(utrace_bt_text(st, ctx, v[0]),
						  utrace_bt_text(st, ctx, v[1]), in->imm);
			break;
		case UTRACE_BOP_STRSTR:
			*sp++ = utrace_bt_strstr(utrace_bt_text(st, ctx, v[0]),
						 utrace_bt_text(st, ctx, v[1]));
			break;
		case UTRACE_BOP_TUPLE: *sp++ = utrace_bt_tuple_make(st, in, v); break;
		case UTRACE_BOP_TGET: *sp++ = utrace_bt_tget(st, ctx, in->a, v[0]); break;
		case UTRACE_BOP_BUF: {
			const char *src = utrace_bt_slot(st, v[0]);

			if (st->strs[st->ntmp % UTRACE_BT_TMP_STRS] == src)
				st->ntmp++; /* the ring came round to it: not over it */
			s = utrace_bt_tmp(st);
			utrace_bt_buf_make(st->strs[s], src, (unsigned)in->imm);
			*sp++ = s;
			break;
		}
		case UTRACE_BOP_NTOP: {
			unsigned n = 0;

			s = utrace_bt_tmp(st);
			for (unsigned k = 0; k < 4; k++) {
				if (k)
					n = utrace_bt_tuple_put(st->strs[s], n, '.');
				n = utrace_bt_tuple_int(st->strs[s], n, (v[0] >> (8 * k)) & 0xff, 1);
			}
			st->strs[s][n] = 0;
			*sp++ = s;
			break;
		}
		case UTRACE_BOP_STRFTIME:
			s = utrace_bt_tmp(st);
			if (ctx->strftime)
				ctx->strftime(ctx->arg, (uint32_t)in->imm, v[0], st->strs[s]);
			*sp++ = s;
			break;
		case UTRACE_BOP_LNOT: *sp++ = !v[0]; break;
		case UTRACE_BOP_BNOT: *sp++ = ~v[0]; break;
		case UTRACE_BOP_NEG: *sp++ = (int64_t)(0 - (uint64_t)v[0]); break;
		case UTRACE_BOP_KEY: utrace_bt_key(st, v, in->b, maps[in->a].key_str); break;
		case UTRACE_BOP_MGET:
			if (ctx->map_get(ctx->arg, in->a, st->key, &st->mv) < 0 && in->b)
				utrace_bt_helper_err(st, ctx, in->imm);
			if (maps[in->a].value_str) {
				s = utrace_bt_tmp(st);
				utrace_bt_strcpy(st->strs[s], st->mv.s);
				*sp++ = s;
			} else {
				*sp++ = st->mv.i;
			}
			break;
		case UTRACE_BOP_MSET:
		case UTRACE_BOP_AGG:
			st->mv.i = pop ? v[0] : 1;
			st->mv.s[0] = 0;
			if (maps[in->a].value_str)
				utrace_bt_strcpy(st->mv.s, utrace_bt_slot(st, v[0]));
			ctx->map_update(ctx->arg, in->a, st->key,
					in->op == UTRACE_BOP_MSET ? 0 : in->b, &st->mv);
			break;
		case UTRACE_BOP_MDEL:
			if (in->b && ctx->map_get(ctx->arg, in->a, st->key, &st->mv) < 0)
				utrace_bt_helper_err(st, ctx, in->imm);
			ctx->map_update(ctx->arg, in->a, st->key, -1, &st->mv);
			break;
		case UTRACE_BOP_EMIT:
			utrace_bt_emit(st, ctx, in, v);
			if (in->a == UTRACE_BREC_EXIT) /* bpftrace's exit() returns */
				return 0;
			break;
		case UTRACE_BOP_USTACK:
			*sp++ = ctx->ustack ? ctx->ustack(ctx->arg, (unsigned)in->imm, in->a) : 0;
			break;
		case UTRACE_BOP_FIELD:
			s = utrace_bt_tmp(st);
			st->strs[s][0] = 0;
			v[0] = ctx->field ? ctx->field(ctx->arg, in->a, in->b & 3 ? st->strs[s] : 0) : 0;
			st->strs[s][UTRACE_BT_STRLEN - 1] = 0;
			if (in->b >> 2 && in->b >> 2 < UTRACE_BT_STRLEN)
				st->strs[s][in->b >> 2] = 0;
			*sp++ = in->b & 3 ? (int64_t)s : v[0];
			break;
		case UTRACE_BOP_NAME:
			s = utrace_bt_tmp(st);
			if (ctx->name)
				ctx->name(ctx->arg, in->a, v[0], st->strs[s]);
			st->strs[s][UTRACE_BT_STRLEN - 1] = 0;
			*sp++ = s;
			break;
		case UTRACE_BOP_LOADREC:
			s = utrace_bt_tmp(st);
			if (ctx->record)
				ctx->record(ctx->arg, (uint64_t)v[0], (uint32_t)in->imm, st->strs[s]);
			st->strs[s][UTRACE_BT_STRLEN - 1] = 0;
			*sp++ = s;
			break;
		case UTRACE_BOP_LOAD: {
			uint64_t x = 0;

			if (ctx->load((uint64_t)v[0], in->a, &x) < 0) {
				x = 0;
				if (in->imm > 0)
					utrace_bt_helper_err(st, ctx, in->imm - 1);
			}
			*sp++ = utrace_bt_ext((int64_t)x, in->a, in->b);
			break;
		}
		case UTRACE_BOP_USYM:
			s = utrace_bt_tmp(st);
			st->strs[s][0] = 0;
			if (ctx->usym)
				ctx->usym(ctx->arg, (uint64_t)v[0], st->strs[s]);
			st->strs[s][UTRACE_BT_STRLEN - 1] = 0;
			*sp++ = s;
			break;
		default: *sp++ = utrace_bt_binop(in->op, v[0], v[1]); break;
		}
	}
	return 0;
}

#endif
