/* SPDX-License-Identifier: MIT */
/*
 * hist_insn.h - the format of a compiled hist program (its header, its
 * instructions, the context of a hit) and the steps of single
 * instructions (load, string, stack, arithmetic, resolve), which the
 * interpreter (common/hist_prog.h) and the handlers' instructions
 * (common/hist_track.h) both run.  Kept apart so that those two include
 * this one way, with no circle between them.
 */
#ifndef UTRACE_COMMON_HIST_INSN_H
#define UTRACE_COMMON_HIST_INSN_H

#include <stdint.h>

#include "common/filter_prog.h"
#include "common/hist_map.h"

#define UTRACE_HIST_MAGIC 0x54534855u /* "UHST" */
#define UTRACE_HIST_VERSION 1u
#define UTRACE_HIST_MAX_INSNS 64u
#define UTRACE_HIST_STACK 8u	     /* the stack machine's depth */
#define UTRACE_HIST_KEY_MAX 1024u    /* bytes of a key */
/* hitcount + 3 values + 16 variables + their bitmap, 8 tracked values, a
 * snapshot marker, and what save() keeps (a saved string takes its width) */
#define UTRACE_HIST_SUMS_MAX 128u
#define UTRACE_HIST_REFS_MAX 16u     /* RESOLVEd variables of one hit */
#define UTRACE_HIST_PARAMS 32u	     /* params of one EMIT (the kernel's SYNTH_FIELDS_MAX) */
/* The words of one EMIT's record after its common fields: a number takes
 * one, a char[N] string the kernel's STR_VAR_LEN_MAX (256 bytes), a
 * char[] one word and its bytes after the fixed words. */
#define UTRACE_HIST_PARAM_WORDS 160u /* <= 192: the bits of the frame's set[] */
#define UTRACE_HIST_STR_MAX 256u     /* a string key's width at most (MAX_FILTER_STR_VAL) */

enum utrace_hist_op {
	UTRACE_HOP_LOAD = 1, /* push the integer field at off, size 1/2/4/8, imm 1 = signed */
	UTRACE_HOP_CONST,    /* push imm */
	UTRACE_HOP_TS,	     /* push common_timestamp (ns) */
	UTRACE_HOP_CPU,	     /* push common_cpu */
	UTRACE_HOP_ADD,	     /* pop b, pop a, push a + b */
	UTRACE_HOP_SUB,
	UTRACE_HOP_MUL,
	UTRACE_HOP_DIV, /* b == 0: -1, as the kernel */
	UTRACE_HOP_NEG,
	UTRACE_HOP_LOG2,   /* x = ilog2(roundup_pow_of_two(x)) */
	UTRACE_HOP_BUCKET, /* x = x / imm * imm */
	UTRACE_HOP_USECS,  /* x = x / 1000 */
	UTRACE_HOP_KEY,	   /* pop -> 8 bytes at key + key_off */
	UTRACE_HOP_STR,	   /* char[imm] field at off -> key + key_off, width len */
	UTRACE_HOP_DYNSTR, /* __data_loc char[] (u32 at off) -> key + key_off, width len */
	UTRACE_HOP_COMM,   /* the thread's name -> key + key_off, width len (16) */
	UTRACE_HOP_SUM,	   /* pop -> sums[key_off] += x (value part only) */
	UTRACE_HOP_VAR,	   /* pop -> sums[key_off] = x; sums[reserved] |= imm (value part) */
	UTRACE_HOP_VGET,   /* push sums[key_off] (value and action parts) */
	UTRACE_HOP_RESOLVE, /* table off's element of this key: if sums[reserved] & imm,
			     * clear it and refs[len] = sums[key_off]; else skip the hit.
			     * size 1: a string variable, refs[len] = the address of its
			     * UTRACE_HIST_STR_MAX bytes at the sum it holds (VARSTR) */
	UTRACE_HOP_REF,	   /* push refs[len] */
	UTRACE_HOP_PARAM,  /* pop -> params[len] (action part) */
	UTRACE_HOP_EMIT,   /* emit(synthetic event off, params[0..len) and the char[]
			    * strings after them) (action part) */
	/* onmax($v) (imm 0) / onchange($v) (imm 1): pop v; if it is a new
	 * maximum / a change of sums[key_off], that becomes v; else the next
	 * len instructions (the handler's action) are skipped */
	UTRACE_HOP_TRACK,
	UTRACE_HOP_SAVE,     /* pop -> sums[key_off] (save()) */
	UTRACE_HOP_SAVESTR,  /* string (size: UTRACE_HSTR_*, as STR/DYNSTR/COMM's off, imm)
			      * -> bytes at sums[key_off], width len (save()) */
	UTRACE_HOP_SNAPSHOT, /* TRACK's value is a new max / change (imm 0 / 1) of the
			      * map's snap_val: mark sums[key_off], ctx->snapshot() */
	UTRACE_HOP_PSTR,     /* string (size, off, imm as SAVESTR's) -> param word len:
			      * reserved 0: a char[key_off] in 256 bytes there; 1: a
			      * char[], its bytes after the key_off fixed words; 2: an
			      * unsigned long[] of a stack variable's frames, so */
	UTRACE_HOP_STACK,  /* the user stack -> key + key_off: len / 8 u64 addresses,
			    * innermost first, 0 after the last (common_stacktrace) */
	UTRACE_HOP_VARSTR, /* a string (or stack) variable's bytes: as SAVESTR (value
			    * part), or the stack (UTRACE_HSTR_STACK), or a copy of
			    * another's (REF); the VAR after it (size 1: a string, 2:
			    * a stack) holds key_off, where they are */
	UTRACE_HOP_MAX,
};

struct utrace_hist_insn {
	uint8_t op; /* enum utrace_hist_op */
	uint8_t size;
	uint16_t len;	  /* STR, DYNSTR, COMM: width in the key */
	uint32_t off;	  /* LOAD, STR, DYNSTR: offset in the record */
	uint32_t key_off; /* KEY, STR, DYNSTR, COMM: offset in the key; SUM, VAR,
			   * VGET, RESOLVE: index of the sum */
	uint32_t reserved; /* VAR, RESOLVE: index of the variables' bitmap sum */
	uint64_t imm;
};

/* What the context of a hit must hold for the program (the others may be
 * left 0: reading the clock costs as much as the rest of a hit). */
enum utrace_hist_needs {
	UTRACE_HIST_NEEDS_TS = 1u << 0,	  /* TS */
	UTRACE_HIST_NEEDS_CPU = 1u << 1,  /* CPU */
	UTRACE_HIST_NEEDS_COMM = 1u << 2, /* COMM */
};

/* Where SAVESTR and PSTR take their string from. */
enum utrace_hist_str_src {
	UTRACE_HSTR_CHARS = 0, /* char[imm] at off */
	UTRACE_HSTR_DYN,       /* __data_loc char[] (u32 at off) */
	UTRACE_HSTR_COMM,      /* the thread's name */
	UTRACE_HSTR_REF,       /* PSTR, VARSTR: the string or stack variable RESOLVE
				* found, refs[off] (VARSTR copies it whole) */
	UTRACE_HSTR_STACK,     /* VARSTR: the user stack of the hit (common_stacktrace) */
	UTRACE_HSTR_OWN,       /* PSTR: the string or stack variable of this trigger whose
				* sum is off (it holds where the bytes are) */
};

/* The frames a stack variable keeps (the kernel's HIST_STACKTRACE_DEPTH);
 * its 256 bytes hold them, 0 after the last. */
#define UTRACE_HIST_STACK_FRAMES 16u

/* What a key is made of, for whoever prints the table. */
enum utrace_hist_slot_kind {
	UTRACE_HSLOT_NUM = 1, /* 8 bytes, host endian */
	UTRACE_HSLOT_STR,     /* len bytes, NUL-padded */
};

struct utrace_hist_slot {
	uint32_t kind; /* enum utrace_hist_slot_kind */
	uint32_t off;  /* in the key */
	uint32_t len;
	uint32_t is_signed;
};

struct utrace_hist_hdr {
	uint32_t size;	   /* bytes of the whole program */
	uint32_t magic;	   /* UTRACE_HIST_MAGIC */
	uint32_t version;  /* UTRACE_HIST_VERSION */
	uint32_t nr_insns; /* <= UTRACE_HIST_MAX_INSNS */
	uint32_t nr_key_insns; /* the first ones: the key part */
	uint32_t key_size;     /* multiple of 8, <= UTRACE_HIST_KEY_MAX */
	uint32_t nr_sums;      /* 1 (hitcount) + values */
	uint32_t nr_keys;      /* slots[] */
	uint32_t map_bits;     /* the table holds 1 << map_bits elements */
	uint32_t filter_len;   /* a filter program (filter_prog.h) after the
				* instructions, 0 if none */
	uint32_t needs;	       /* enum utrace_hist_needs: what a hit must supply */
	/* The parts after the key part: resolve [nr_key_insns, + nr_resolve),
	 * value [.., nr_insns - nr_action), action [.., nr_insns).  Were one
	 * reserved 0 word: a program of before has neither part. */
	uint16_t nr_resolve_insns;
	uint16_t nr_action_insns;
	struct utrace_hist_slot slots[3];
	/* struct utrace_hist_insn insns[nr_insns]; then the filter */
};

/* ---- the interpreter ------------------------------------------------ */

/* What a hit knows besides its record. */
struct utrace_hist_ctx {
	const uint8_t *rec;
	uint32_t rec_len;
	uint32_t cpu;
	uint64_t ts_ns;
	const char *comm; /* 16 bytes, or NULL */
	/* RESOLVE: the table of another trigger by its id, NULL if unknown
	 * (its key_size is checked against the program's before use) */
	struct utrace_hist_map *(*table)(void *arg, uint32_t id);
	/* EMIT: a synthetic event with its record after the common fields,
	 * n words (one per number param, the kernel's synth_event layout);
	 * may run hists itself */
	void (*emit)(void *arg, uint32_t synth, const uint64_t *params, uint32_t n);
	/* SNAPSHOT: save the buffers as they are now (the kernel's
	 * tracing_snapshot_cond()); NULL: snapshot() does nothing */
	void (*snapshot)(void *arg);
	void *arg;
	/* STACK: the user stack of the hit, at most max addresses into pcs
	 * (innermost first); how many; NULL: none */
	uint32_t (*stack)(void *arg, uint64_t *pcs, uint32_t max);
};

/* What one hit keeps between the parts of its program. */
struct utrace_hist_frame {
	uint64_t refs[UTRACE_HIST_REFS_MAX];
	uint64_t params[UTRACE_HIST_PARAM_WORDS];
	uint64_t set[3]; /* params written: EMIT zeroes the others, never stack garbage */
	uint32_t dyn;		     /* PSTR: bytes of char[] strings after the fixed words */
	uint64_t track;		     /* TRACK: the value that was new, for SNAPSHOT */
	struct utrace_hist_map *map; /* SNAPSHOT: the table of the hit */
};

static inline const struct utrace_hist_hdr *utrace_hist_hdr_ok(const void *prog, uint32_t len)
{
	const struct utrace_hist_hdr *h = (const struct utrace_hist_hdr *)prog;

	if (!prog || ((uintptr_t)prog & 7) || len < sizeof(*h) || h->size != len ||
	    h->magic != UTRACE_HIST_MAGIC || h->version != UTRACE_HIST_VERSION)
		return 0;
	if (h->nr_insns > UTRACE_HIST_MAX_INSNS || h->nr_key_insns > h->nr_insns ||
	    h->key_size > UTRACE_HIST_KEY_MAX || (h->key_size & 7) || !h->nr_sums ||
	    h->nr_sums > UTRACE_HIST_SUMS_MAX || h->nr_keys > 3 || h->map_bits > 20)
		return 0;
	if ((uint64_t)h->nr_key_insns + h->nr_resolve_insns + h->nr_action_insns > h->nr_insns)
		return 0;
	if (sizeof(*h) + (uint64_t)h->nr_insns * sizeof(struct utrace_hist_insn) + h->filter_len >
	    len)
		return 0;
	return h;
}

static inline const struct utrace_hist_insn *utrace_hist_insns(const struct utrace_hist_hdr *h)
{
	return (const struct utrace_hist_insn *)(h + 1);
}

static inline const void *utrace_hist_filter(const struct utrace_hist_hdr *h)
{
	return h->filter_len ? (const void *)(utrace_hist_insns(h) + h->nr_insns) : 0;
}

static inline uint64_t utrace_hist_log2(uint64_t v)
{
	/* ilog2(roundup_pow_of_two(v)); the kernel's roundup of 0 and 1 is 1 */
	if (v <= 1)
		return 0;
	return 64 - (uint64_t)__builtin_clzll(v - 1);
}

/* The integer field of LOAD, extended; 0 if it is not inside the record. */
static inline uint64_t utrace_hist_load(const struct utrace_hist_insn *in,
					const struct utrace_hist_ctx *c)
{
	const uint8_t *p = c->rec + in->off;

	if ((uint64_t)in->off + in->size > c->rec_len)
		return 0;
	switch (in->size) {
	case 1:
		return in->imm ? (uint64_t)(int64_t) * (const int8_t *)p : *p;
	case 2:
		return in->imm ? (uint64_t)(int64_t)(int16_t) * (const utrace_fp_u16 *)p
			       : *(const utrace_fp_u16 *)p;
	case 4:
		return in->imm ? (uint64_t)(int64_t)(int32_t) * (const utrace_fp_u32 *)p
			       : *(const utrace_fp_u32 *)p;
	case 8:
		return *(const utrace_fp_u64 *)p;
	}
	return 0;
}

/* Copies a string (at most n bytes, up to its NUL) into a key slot of
 * width w, NUL-padded. */
static inline void utrace_hist_put_str(uint8_t *dst, uint32_t w, const uint8_t *s, uint32_t n)
{
	uint32_t i = 0;

	for (; i < w && i < n && s[i]; i++)
		dst[i] = s[i];
	for (; i < w; i++)
		dst[i] = 0;
}

/* The string a STR, DYNSTR or COMM (src: enum utrace_hist_str_src) reads:
 * its bytes and at most how many there are (0 if outside the record). */
static inline const uint8_t *utrace_hist_str_src(uint32_t src, uint32_t off, uint64_t size,
						 const struct utrace_hist_ctx *c, uint32_t *n)
{
	uint32_t loc;

	*n = 0;
	switch (src) {
	case UTRACE_HSTR_CHARS:
		if (!size && off <= c->rec_len) /* char name[]: the rest of the record */
			size = c->rec_len - off;
		if ((uint64_t)off + size <= c->rec_len)
			*n = (uint32_t)size;
		return c->rec + off;
	case UTRACE_HSTR_DYN:
		if ((uint64_t)off + 4 > c->rec_len)
			return c->rec;
		loc = *(const utrace_fp_u32 *)(c->rec + off);
		if ((uint64_t)(loc & 0xffff) + (loc >> 16) <= c->rec_len)
			*n = loc >> 16;
		return c->rec + (loc & 0xffff);
	default: /* COMM */
		*n = c->comm ? 16 : 0;
		return (const uint8_t *)c->comm;
	}
}

static inline void utrace_hist_string(const struct utrace_hist_insn *in,
				      const struct utrace_hist_ctx *c, uint8_t *key)
{
	uint32_t src = in->op == UTRACE_HOP_STR	     ? UTRACE_HSTR_CHARS
		       : in->op == UTRACE_HOP_DYNSTR ? UTRACE_HSTR_DYN
						     : UTRACE_HSTR_COMM;
	uint32_t n;
	const uint8_t *s = utrace_hist_str_src(src, in->off, in->imm, c, &n);

	utrace_hist_put_str(key + in->key_off, in->len, s, n);
}

/* STACK: the frames, then zeros to the key's width (a stack shorter than
 * another is a different key, and the printer stops at the first 0). */
static inline void utrace_hist_stack(const struct utrace_hist_insn *in,
				     const struct utrace_hist_ctx *c, uint64_t *dst)
{
	uint32_t max = in->len / 8, n = c->stack ? c->stack(c->arg, dst, max) : 0;

	for (; n < max; n++)
		dst[n] = 0;
}

/* One arithmetic step; returns the new stack depth, or -1. */
static inline int utrace_hist_alu(const struct utrace_hist_insn *in, uint64_t *st, int sp)
{
	uint64_t b;

	switch (in->op) {
	case UTRACE_HOP_NEG:
	case UTRACE_HOP_LOG2:
	case UTRACE_HOP_BUCKET:
	case UTRACE_HOP_USECS:
		if (sp < 1)
			return -1;
		if (in->op == UTRACE_HOP_NEG)
			st[sp - 1] = -st[sp - 1];
		else if (in->op == UTRACE_HOP_LOG2)
			st[sp - 1] = utrace_hist_log2(st[sp - 1]);
		else if (in->op == UTRACE_HOP_BUCKET)
			st[sp - 1] = in->imm ? st[sp - 1] / in->imm * in->imm : st[sp - 1];
		else
			st[sp - 1] /= 1000;
		return sp;
	}
	if (sp < 2)
		return -1;
	b = st[--sp];
	switch (in->op) {
	case UTRACE_HOP_ADD:
		st[sp - 1] += b;
		break;
	case UTRACE_HOP_SUB:
		st[sp - 1] -= b;
		break;
	case UTRACE_HOP_MUL:
		st[sp - 1] *= b;
		break;
	default: /* DIV */
		st[sp - 1] = b ? st[sp - 1] / b : (uint64_t)-1;
	}
	return sp;
}

/*
 * RESOLVE: the variable of this key (its first bytes, as many as the
 * other table's keys take: "pid" of "pid,lat") in another trigger's
 * table, read once
 * (its bit cleared) as the kernel's tracing_map_read_var_once().  0, or
 * -1 if the table, the key or the variable is not there: the hit is
 * skipped.  Two hits that race may both see the bit (one sets it again
 * after the other took it): each then reads the newest value, as the
 * kernel's unlocked var_set[] would let them.
 */
static __attribute__((noinline, unused)) int
utrace_hist_resolve(const struct utrace_hist_hdr *h, const struct utrace_hist_insn *x,
		    const struct utrace_hist_ctx *c, const uint8_t *key, uint64_t *refs)
{
	struct utrace_hist_map *m;
	uint64_t *sums, old;
	uint8_t *elt;

	if (!c->table || x->len >= UTRACE_HIST_REFS_MAX)
		return -1;
	m = c->table(c->arg, x->off);
	if (!m || m->key_size > h->key_size || x->key_off >= m->nr_sums ||
	    x->reserved >= m->nr_sums || !(elt = utrace_hist_map_find(m, key)))
		return -1;
	sums = (uint64_t *)(elt + m->key_size);
	/* acquire: pairs with VAR's release, the value is stored before the
	 * bit that says so is seen here */
	old = __atomic_fetch_and(&sums[x->reserved], ~x->imm, __ATOMIC_ACQUIRE);
	if (!x->imm || (old & x->imm) != x->imm)
		return -1;
	refs[x->len] = __atomic_load_n(&sums[x->key_off], __ATOMIC_RELAXED);
	if (x->size == 1) { /* a string variable: where its bytes are */
		if (refs[x->len] + UTRACE_HIST_STR_MAX / 8 > m->nr_sums)
			return -1;
		refs[x->len] = (uint64_t)(uintptr_t)(sums + refs[x->len]);
	}
	return 0;
}

#endif
