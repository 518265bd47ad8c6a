/* SPDX-License-Identifier: MIT */
/*
 * filter_prog.h - the compiled form of an event filter and its interpreter.
 *
 * An event filter ("count > 5 && word ~ \"foo*\"", the kernel's syntax, see
 * lib/events/event_filter.h) is compiled once by the tool into a small program
 * that libutrace.so runs on every record of the event before writing it:
 * utrace_filter_run() says keep (1) or drop (0).  It runs inside the
 * traced program, between its instructions, built with
 * -mgeneral-regs-only: so it calls nothing (no libc), allocates nothing,
 * uses no floating point, and never trusts its input.
 *
 * Design: one instruction per predicate, and every instruction is a
 * two-way branch, as in classic BPF: it tests one field against one
 * constant and goes on to jt if the test holds, else to jf.  A target is
 * a later instruction or one of the two exits KEEP and DROP.  "&&", "||",
 * "!" and parentheses leave no instructions of their own: the compiler
 * folds them into the targets (short-circuit evaluation), and "!" just
 * swaps jt and jf.  "a || b && !c" becomes
 *
 *        +-----+  jt (a holds)
 *     0: |  a  |-----------------------> KEEP
 *        +-----+
 *           | jf
 *           v
 *        +-----+  jf
 *     1: |  b  |-----------------------> DROP
 *        +-----+
 *           | jt
 *           v
 *        +-----+  jt (c holds: "!c" is false)
 *     2: |  c  |-----------------------> DROP
 *        +-----+
 *           | jf
 *           +--------------------------> KEEP
 *
 * that is, as utrace_filter_disasm() lists it:
 *
 *     0: a ? keep : 1
 *     1: b ? 2 : drop
 *     2: c ? drop : keep
 *
 * Targets only go forward, so a run executes at most nr_insns
 * instructions, and each one costs at most the size of its field (a
 * string compare) times the length of its constant (a glob, at most
 * UTRACE_FILTER_STR_MAX): time is bounded by the program and the record,
 * never by a loop count read from either.
 *
 * Layout (host endian, the program 8-byte aligned, as malloc returns it):
 *
 *   +-----------------------+  0
 *   | utrace_filter_hdr     |     size, version, nr_insns, magic
 *   +-----------------------+  16
 *   | utrace_filter_insn[0] |     24 bytes each
 *   | ...                   |
 *   +-----------------------+  16 + 24 * nr_insns
 *   | string constants      |     each followed by a NUL the
 *   | ...                   |     interpreter does not need
 *   +-----------------------+  size (a multiple of 8)
 *
 * Integer tests load the field (1, 2, 4 or 8 bytes at off, unaligned is
 * fine), sign- or zero-extend it to 64 bits (UTRACE_FF_SIGNED) and compare
 * it with imm, which the compiler extended the same way from the field's
 * width: the result is the kernel's comparison in the field's own type.
 * String tests compare the field's string, its bytes up to the first NUL
 * or its end, with the constant at str_off (str_len bytes) in the
 * program: a char[size] array at off (UTRACE_FF_LOC clear) or a
 * __data_loc char[] (UTRACE_FF_LOC set: a u32 at off holding
 * len << 16 | offset of the bytes in the record).
 *
 * Robustness: a malformed program (bad header, unknown op, a jump that
 * does not go forward, a constant outside the program) and a record too
 * short for a field (off + size, or a __data_loc's offset + len, beyond
 * rec_len) never cause a read out of bounds: the run stops and returns 1,
 * KEEP.  A filter fault must not lose events silently, and the compiler
 * never produces such a program for records of the event it compiled it
 * for.  A NULL program means no filter: keep; so does a NULL record.
 * utrace_filter_check() validates a whole program once (the run checks
 * only what it executes).
 */
#ifndef UTRACE_COMMON_FILTER_PROG_H
#define UTRACE_COMMON_FILTER_PROG_H

#include <stdint.h>

#define UTRACE_FILTER_MAGIC 0x544c4655u /* "UFLT" */
#define UTRACE_FILTER_VERSION 1u
#define UTRACE_FILTER_MAX_INSNS 16384u /* the kernel's MAX_FILTER_PRED */
#define UTRACE_FILTER_STR_MAX 255u     /* longest string constant */

/* Jump targets that leave the program. */
#define UTRACE_FILTER_KEEP 0xffffu
#define UTRACE_FILTER_DROP 0xfffeu

struct utrace_filter_hdr {
	uint32_t size;	   /* bytes in the whole program, header included */
	uint32_t version;  /* UTRACE_FILTER_VERSION */
	uint32_t nr_insns; /* 0 < nr_insns <= UTRACE_FILTER_MAX_INSNS */
	uint32_t magic;	   /* UTRACE_FILTER_MAGIC */
};

enum utrace_filter_op {
	/* field OP imm, integers */
	UTRACE_FOP_EQ = 1,
	UTRACE_FOP_NE,
	UTRACE_FOP_LT,
	UTRACE_FOP_LE,
	UTRACE_FOP_GT,
	UTRACE_FOP_GE,
	UTRACE_FOP_BAND, /* (field & imm) != 0 */
	/* string tests against the constant */
	UTRACE_FOP_STR_EQ,     /* equal */
	UTRACE_FOP_STR_PREFIX, /* starts with it: "foo*" */
	UTRACE_FOP_STR_SUFFIX, /* ends with it: "*foo" */
	UTRACE_FOP_STR_SUBSTR, /* contains it: "*foo*" */
	UTRACE_FOP_STR_GLOB,   /* matches it as a glob: "f?o", "[a-c]*x" */
	UTRACE_FOP_MAX,
};

enum utrace_filter_flags {
	UTRACE_FF_SIGNED = 1u << 0, /* integer ops: the field is signed */
	UTRACE_FF_LOC = 1u << 1,    /* string ops: a __data_loc char[] */
};

struct utrace_filter_insn {
	uint8_t op;	   /* enum utrace_filter_op */
	uint8_t flags;	   /* enum utrace_filter_flags */
	uint16_t reserved; /* 0 */
	uint16_t jt;	   /* next instruction when the test holds */
	uint16_t jf;	   /* next instruction when it does not */
	uint32_t off;	   /* the field's offset in the record */
	uint32_t size;	   /* its size: 1, 2, 4, 8; N of char[N]; 4 for LOC */
	union {
		uint64_t imm; /* integer ops */
		struct {
			uint32_t str_off; /* from the start of the program */
			uint32_t str_len; /* <= UTRACE_FILTER_STR_MAX, no NUL */
		};
	};
};

/* Unaligned loads that neither the compiler nor UBSan mind. */
typedef uint16_t __attribute__((aligned(1), may_alias)) utrace_fp_u16;
typedef uint32_t __attribute__((aligned(1), may_alias)) utrace_fp_u32;
typedef uint64_t __attribute__((aligned(1), may_alias)) utrace_fp_u64;

/* The header if prog looks like a program of prog_len bytes, else NULL. */
static inline const struct utrace_filter_hdr *utrace_filter_hdr_ok(const void *prog,
								   uint32_t prog_len)
{
	const struct utrace_filter_hdr *h = (const struct utrace_filter_hdr *)prog;

	if (!prog || ((uintptr_t)prog & 7) || prog_len < sizeof(*h))
		return 0;
	if (h->size != prog_len || h->version != UTRACE_FILTER_VERSION ||
	    h->magic != UTRACE_FILTER_MAGIC)
		return 0;
	if (h->nr_insns > (prog_len - sizeof(*h)) / sizeof(struct utrace_filter_insn))
		return 0;
	return h;
}

/* The field of an integer test, extended to 64 bits; -1 if it is not
 * inside the record. */
static inline int utrace_filter_load_int(const struct utrace_filter_insn *in, const uint8_t *rec,
					 uint32_t rec_len, uint64_t *val)
{
	const uint8_t *p;
	int sign = in->flags & UTRACE_FF_SIGNED;

	if (!in->size || (uint64_t)in->off + in->size > rec_len)
		return -1;
	p = rec + in->off;
	switch (in->size) {
	case 1:
		*val = sign ? (uint64_t)(int64_t)(int8_t)*p : *p;
		return 0;
	case 2:
		*val = sign ? (uint64_t)(int64_t)(int16_t) * (const utrace_fp_u16 *)p
			    : *(const utrace_fp_u16 *)p;
		return 0;
	case 4:
		*val = sign ? (uint64_t)(int64_t)(int32_t) * (const utrace_fp_u32 *)p
			    : *(const utrace_fp_u32 *)p;
		return 0;
	case 8:
		*val = *(const utrace_fp_u64 *)p;
		return 0;
	}
	return -1;
}

/*
 * Where the string of a string test lies: *s, at most *max bytes (it ends
 * at its first NUL before that); -1 if it is not inside the record.
 */
static inline int utrace_filter_locate_str(const struct utrace_filter_insn *in, const uint8_t *rec,
					   uint32_t rec_len, const uint8_t **s, uint32_t *max)
{
	uint32_t off = in->off, len = in->size;

	if (in->flags & UTRACE_FF_LOC) {
		uint32_t loc;

		if ((uint64_t)off + 4 > rec_len)
			return -1;
		loc = *(const utrace_fp_u32 *)(rec + off);
		off = loc & 0xffff;
		len = loc >> 16;
	} else if (!len && off <= rec_len) {
		len = rec_len - off; /* char name[] (size 0): the rest of the record */
	}
	if (!len) {
		*s = rec;
		*max = 0;
		return 0;
	}
	if ((uint64_t)off + len > rec_len)
		return -1;
	*s = rec + off;
	*max = len;
	return 0;
}

/* The length of the string at s of at most max bytes. */
static inline uint32_t utrace_filter_strnlen(const uint8_t *s, uint32_t max)
{
	uint32_t i;

	for (i = 0; i < max && s[i]; i++)
		;
	return i;
}

/* Whether the string at s (at most max bytes) starts with p[0..plen). */
static inline int utrace_filter_starts(const uint8_t *s, uint32_t max, const uint8_t *p,
				       uint32_t plen)
{
	uint32_t i;

	if (plen > max)
		return 0;
	for (i = 0; i < plen; i++)
		if (s[i] != p[i] || !s[i])
			return 0;
	return 1;
}

static inline int utrace_filter_memeq(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/*
 * One element of a glob at p[*pi] (not '*') against c, the kernel's
 * glob_match() rules: '?' any byte; '[...]' a class of bytes and ranges
 * a-b, negated by a leading '!', a ']' first in it or a '-' last in it is
 * literal, and a '[' without its ']' is a literal '['; '\x' the byte x.
 * Returns whether it matches and moves *pi past it.
 */
static inline int utrace_filter_glob_one(const uint8_t *p, uint32_t plen, uint32_t *pi, uint8_t c)
{
	uint32_t i = *pi, k;
	uint8_t d = p[i];

	if (d == '?') {
		*pi = i + 1;
		return 1;
	}
	if (d == '\\' && i + 1 < plen) {
		*pi = i + 2;
		return p[i + 1] == c;
	}
	if (d == '[') {
		int inv, hit = 0;

		k = i + 1;
		inv = k < plen && p[k] == '!';
		k += inv;
		for (;;) {
			uint8_t a, b;

			if (k >= plen)
				goto literal; /* no closing ']' */
			a = b = p[k++];
			if (k + 1 < plen && p[k] == '-' && p[k + 1] != ']') {
				b = p[k + 1];
				k += 2;
			}
			if (a <= c && c <= b)
				hit = 1;
			if (k < plen && p[k] == ']')
				break;
		}
		*pi = k + 1;
		return hit != inv;
	}
literal:
	*pi = i + 1;
	return d == c;
}

/*
 * Glob match of the whole string s[0..n) against p[0..plen): on a
 * mismatch, retry from the last '*' one byte further on (a later '*' can
 * absorb anything an earlier one could, so one backtrack point is
 * enough): O(n * plen) steps, no recursion.
 */
static inline int utrace_filter_glob(const uint8_t *p, uint32_t plen, const uint8_t *s, uint32_t n)
{
	uint32_t pi = 0, si = 0, back_p = 0, back_s = 0;
	int have_back = 0;

	for (;;) {
		if (pi < plen) {
			uint32_t next = pi;

			if (p[pi] == '*') {
				back_p = ++pi;
				back_s = si;
				have_back = 1;
				continue;
			}
			if (si < n && utrace_filter_glob_one(p, plen, &next, s[si])) {
				pi = next;
				si++;
				continue;
			}
		} else if (si == n) {
			return 1;
		}
		if (!have_back || back_s >= n)
			return 0;
		pi = back_p;
		si = ++back_s;
	}
}

/* 1 if the test of in holds on the record, 0 if not, -1 on a fault. */
static inline int utrace_filter_test(const struct utrace_filter_insn *in, const uint8_t *prog,
				     uint32_t prog_len, const uint8_t *rec, uint32_t rec_len)
{
	const uint8_t *s, *pat;
	uint32_t n, max, plen, i;
	uint64_t v, imm = in->imm;
	int sign = in->flags & UTRACE_FF_SIGNED;

	if (in->op <= UTRACE_FOP_BAND) {
		if (utrace_filter_load_int(in, rec, rec_len, &v) < 0)
			return -1;
		switch (in->op) {
		case UTRACE_FOP_EQ:
			return v == imm;
		case UTRACE_FOP_NE:
			return v != imm;
		case UTRACE_FOP_LT:
			return sign ? (int64_t)v < (int64_t)imm : v < imm;
		case UTRACE_FOP_LE:
			return sign ? (int64_t)v <= (int64_t)imm : v <= imm;
		case UTRACE_FOP_GT:
			return sign ? (int64_t)v > (int64_t)imm : v > imm;
		case UTRACE_FOP_GE:
			return sign ? (int64_t)v >= (int64_t)imm : v >= imm;
		case UTRACE_FOP_BAND:
			return (v & imm) != 0;
		}
		return -1; /* op 0 */
	}
	if (in->op >= UTRACE_FOP_MAX)
		return -1;
	plen = in->str_len;
	if (plen > UTRACE_FILTER_STR_MAX || (uint64_t)in->str_off + plen > prog_len)
		return -1;
	pat = prog + in->str_off;
	if (utrace_filter_locate_str(in, rec, rec_len, &s, &max) < 0)
		return -1;
	/* == and prefix need not know where the string ends. */
	if (in->op == UTRACE_FOP_STR_PREFIX)
		return utrace_filter_starts(s, max, pat, plen);
	if (in->op == UTRACE_FOP_STR_EQ)
		return utrace_filter_starts(s, max, pat, plen) && (plen == max || !s[plen]);
	n = utrace_filter_strnlen(s, max);
	switch (in->op) {
	case UTRACE_FOP_STR_SUFFIX:
		return n >= plen && utrace_filter_memeq(s + n - plen, pat, plen);
	case UTRACE_FOP_STR_SUBSTR:
		for (i = 0; i + plen <= n; i++)
			if (utrace_filter_memeq(s + i, pat, plen))
				return 1;
		return 0;
	default: /* UTRACE_FOP_STR_GLOB */
		return utrace_filter_glob(pat, plen, s, n);
	}
}

/*
 * Runs the filter prog (prog_len bytes) on the record rec (rec_len
 * bytes, common fields first).  1: keep the event, 0: drop it.  A NULL
 * prog keeps everything; so does a malformed one (see above).
 */
static inline int utrace_filter_run(const void *prog, uint32_t prog_len, const void *rec,
				    uint32_t rec_len)
{
	const struct utrace_filter_hdr *h = utrace_filter_hdr_ok(prog, prog_len);
	const struct utrace_filter_insn *insns;
	uint32_t pc = 0, next;
	int r;

	if (!h || !rec)
		return 1;
	insns = (const struct utrace_filter_insn *)(h + 1);
	while (pc < h->nr_insns) {
		r = utrace_filter_test(&insns[pc], (const uint8_t *)prog, prog_len,
				       (const uint8_t *)rec, rec_len);
		if (r < 0)
			return 1;
		next = r ? insns[pc].jt : insns[pc].jf;
		if (next == UTRACE_FILTER_KEEP)
			return 1;
		if (next == UTRACE_FILTER_DROP)
			return 0;
		if (next <= pc)
			return 1; /* backwards: malformed */
		pc = next;
	}
	return 1; /* empty, or a jump past the end */
}

/*
 * Validates a whole program: 0 if every instruction is well formed (a
 * known op, an integer size of 1, 2, 4 or 8, a constant inside the
 * program, forward jumps that stay inside it or exit), else -1.
 */
static inline int utrace_filter_check(const void *prog, uint32_t prog_len)
{
	const struct utrace_filter_hdr *h = utrace_filter_hdr_ok(prog, prog_len);
	const struct utrace_filter_insn *in;
	uint32_t pc, j;

	if (!h || !h->nr_insns || h->nr_insns > UTRACE_FILTER_MAX_INSNS)
		return -1;
	in = (const struct utrace_filter_insn *)(h + 1);
	for (pc = 0; pc < h->nr_insns; pc++, in++) {
		if (!in->op || in->op >= UTRACE_FOP_MAX || in->reserved)
			return -1;
		if (in->op <= UTRACE_FOP_BAND) {
			if (in->flags & ~UTRACE_FF_SIGNED)
				return -1;
			if (in->size != 1 && in->size != 2 && in->size != 4 && in->size != 8)
				return -1;
		} else {
			if (in->flags & ~UTRACE_FF_LOC)
				return -1;
			if ((in->flags & UTRACE_FF_LOC) && in->size != 4)
				return -1;
			if (in->str_len > UTRACE_FILTER_STR_MAX ||
			    (uint64_t)in->str_off + in->str_len > prog_len)
				return -1;
		}
		for (j = 0; j < 2; j++) {
			uint32_t t = j ? in->jf : in->jt;

			if (t != UTRACE_FILTER_KEEP && t != UTRACE_FILTER_DROP &&
			    (t <= pc || t >= h->nr_insns))
				return -1;
		}
	}
	return 0;
}

#endif
