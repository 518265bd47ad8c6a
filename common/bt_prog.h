/* SPDX-License-Identifier: MIT */
/*
 * bt_prog.h - a bpftrace action compiled to bytecode, and its interpreter.
 *
 * `utrace bt` parses and checks a program once, in the tool (lib/bt/),
 * and compiles each probe's predicate and action into one program for a
 * small stack machine of 64-bit values; whoever sees the probe fire runs
 * it with utrace_bt_exec() on what the hit gives (its arguments, return
 * value, thread).  Like fetch_prog.h and hist_prog.h it runs between the
 * traced program's instructions: no libc, no allocation, no floating
 * point, bounded time (jumps go forward but LOOP, a while loop's way
 * back, and a run stops after UTRACE_BT_STEPS_MAX instructions, as the
 * BPF verifier bounds bpftrace's loops; unroll is unrolled), and a program that is checked once
 * (utrace_bt_check) and never trusted beyond that.
 *
 *   uprobe:./prog:parse /arg0 > 10/ { @[comm] = count(); }
 *
 *   0: ARG 0            push arg0
 *   1: PUSH 10
 *   2: GT               pop b, a; push a > b
 *   3: JZ 6             the predicate failed: to the end
 *   4: COMM             push a string slot holding the thread's name
 *   5: KEY map 0        pop the key's elements into the key bytes
 *   6: AGG map 0        count: the map's element of that key + 1
 *
 * Strings live in slots of UTRACE_BT_STRLEN bytes (bpftrace's default
 * strlen); a string value on the stack is its slot's index.  Scratch
 * variables are 64-bit cells; a string variable owns a slot of its own.
 * Everything that leaves the hit goes through the context's callbacks:
 * memory reads (load: safe from faults), the maps (map_get, map_update:
 * where the maps are, per thread, is the caller's business) and records
 * (emit: printf's arguments, print's value, exit, map commands), which
 * the tool formats later as bpftrace prints them.
 */
#ifndef UTRACE_COMMON_BT_PROG_H
#define UTRACE_COMMON_BT_PROG_H

#include <stdint.h>

#define UTRACE_BT_MAGIC 0x50544255u /* "UBTP" */
#define UTRACE_BT_STRLEN 64u	     /* bytes of a string, its NUL included */
#define UTRACE_BT_STACK_MAX 32u     /* the value stack */
#define UTRACE_BT_TMP_STRS 16u	     /* string slots for temporaries */
#define UTRACE_BT_VARS 64u
#define UTRACE_BT_KEYS_MAX 8u
#define UTRACE_BT_KEY_MAX (UTRACE_BT_KEYS_MAX * UTRACE_BT_STRLEN)
#define UTRACE_BT_MAX_INSNS 4096u
#define UTRACE_BT_STEPS_MAX 1000000u /* instructions of one run: a loop's bound, as
				      * the BPF verifier's 1M bounds bpftrace's */
#define UTRACE_BT_EMIT_MAX 16u /* values of one record: printf's arguments */
#define UTRACE_BT_JOIN_MAX 16u /* join()'s elements (bpftrace's join_argnum) */
#define UTRACE_BT_REC_MAX 2048u /* 16 values of 64 bytes, and the header */

enum utrace_bt_op {
	UTRACE_BOP_PUSH = 1, /* imm */
	UTRACE_BOP_ARG,	     /* a: argN */
	UTRACE_BOP_BUILTIN,  /* a: enum utrace_bt_builtin */
	UTRACE_BOP_COMM,     /* the thread's name into a string slot */
	UTRACE_BOP_SCONST,   /* the program's bytes at imm, b long, into a slot */
	UTRACE_BOP_STR,	     /* pop an address: the string there into a slot, at most
			      * b characters of it if b (str(x, b)); "" if a byte before
			      * its end cannot be read, and then imm > 0 emits
			      * HELPER_ERR imm - 1 (-kk) */
	UTRACE_BOP_VLD,	     /* a: variable */
	UTRACE_BOP_VST,	     /* a: variable, pop; b 1: a string (copied into its slot) */
	UTRACE_BOP_POP,
	UTRACE_BOP_DUP,
	UTRACE_BOP_JMP, /* to insn imm (> this one) */
	UTRACE_BOP_JZ,	/* pop; to insn imm if 0 */
	UTRACE_BOP_ADD, UTRACE_BOP_SUB, UTRACE_BOP_MUL, UTRACE_BOP_DIV, UTRACE_BOP_MOD,
	UTRACE_BOP_AND, UTRACE_BOP_OR, UTRACE_BOP_XOR, UTRACE_BOP_SHL, UTRACE_BOP_SHR,
	UTRACE_BOP_EQ, UTRACE_BOP_NE, UTRACE_BOP_LT, UTRACE_BOP_LE, UTRACE_BOP_GT, UTRACE_BOP_GE,
	UTRACE_BOP_STREQ, UTRACE_BOP_STRNE,
	UTRACE_BOP_LNOT, UTRACE_BOP_BNOT, UTRACE_BOP_NEG,
	UTRACE_BOP_KEY,	  /* a: map; pop its keys (b of them, kinds in key_str) */
	UTRACE_BOP_MGET,  /* a: map; push the value at the key (0 or "" if none); b 1:
			   * no element emits HELPER_ERR imm (bpftrace's -kk) */
	UTRACE_BOP_MSET,  /* a: map; pop the value, store it at the key */
	UTRACE_BOP_AGG,	  /* a: map, b: enum utrace_bt_agg; pop the value (not count) */
	UTRACE_BOP_MDEL,  /* a: map; delete the key; b 1: no element emits HELPER_ERR imm (-k) */
	UTRACE_BOP_EMIT,  /* a: enum utrace_bt_rec, b: values popped, c: the record's id;
			   * key_str: which of them are strings */
	UTRACE_BOP_USTACK, /* a: 0 bpftrace, 1 perf; imm: frames; push the stack's id
			    * (ctx->ustack: the tool's, 0 without it) */
	UTRACE_BOP_USYM,   /* pop an address: its symbol's name into a slot (ctx->usym) */
	UTRACE_BOP_FIELD,  /* a: the probe's extra fetch-arg a (ctx->field); b bit 0: a string
			    * (b >> 2: its length at most, a char array's), bit 1: a struct or
			    * an array (its tuple, lib/bt/bt_record.c) */
	UTRACE_BOP_EXT,	    /* a: bytes (1, 2, 4), b 1: signed; pop x, push x cast to that */
	UTRACE_BOP_BSWAP,   /* a: bytes (2, 4, 8); pop x, push its low bytes reversed */
	UTRACE_BOP_STRNCMP, /* pop a, b (strings); push 0 if their first imm bytes are equal */
	UTRACE_BOP_TUPLE,   /* pop b elements (key_str: strings, its bit 16 + i: element i
			     * an unsigned integer, or a string json prints bare (a
			     * timestamp); imm: tuples); push the tuple
			     * (common/bt_tuple.h) */
	UTRACE_BOP_TGET,    /* a: index, b 1: a text; pop a tuple, push its element a */
	UTRACE_BOP_STRFTIME, /* pop ns; push the context's strftime of format imm */
	UTRACE_BOP_BUF,	     /* pop a string; push buf() of its first imm bytes (bt_buf.h) */
	UTRACE_BOP_NTOP,     /* pop an IPv4 address (its bytes in memory order); push its text */
	UTRACE_BOP_LOAD,     /* a: bytes (1, 2, 4, 8), b 1: signed; pop an address, push what
			      * is there (ctx->load; 0 if it cannot be read, and then
			      * imm > 0 emits HELPER_ERR imm - 1: bpftrace's -kk) */
	UTRACE_BOP_LOADREC,  /* imm: a C type; pop an address, push the struct or array
			      * there as a value (ctx->record, the tool's: "" without it) */
	UTRACE_BOP_STRSTR,   /* pop a, b (strings); push 1 if b occurs in a (strcontains) */
	UTRACE_BOP_NAME,     /* a: enum utrace_bt_name; pop a number, push its name
			      * (ctx->name, the tool's: "" without it) */
	UTRACE_BOP_LOOP,     /* to insn imm (<= this one): a while loop's way back; a run
			      * stops after UTRACE_BT_STEPS_MAX instructions */
	UTRACE_BOP_MAX
};

/* What NAME names: a uid (username), an errno (strerror()). */
enum utrace_bt_name { UTRACE_BN_USER, UTRACE_BN_ERRNO, UTRACE_BN_MAX };

enum utrace_bt_builtin {
	UTRACE_BB_PID, UTRACE_BB_TID, UTRACE_BB_UID, UTRACE_BB_GID, UTRACE_BB_NSECS,
	UTRACE_BB_ELAPSED, UTRACE_BB_CPU, UTRACE_BB_RETVAL, UTRACE_BB_FUNC, UTRACE_BB_PROBE,
	UTRACE_BB_RAND, UTRACE_BB_CGROUP, UTRACE_BB_NUMAID, UTRACE_BB_CPID, UTRACE_BB_MAX
};

/* The records a program emits: u32 kind, u32 id (printf: its format;
 * print/clear/zero: the map; time: its format), u32 length of the whole
 * record, u32 count of values, then each value, 8 bytes for an integer,
 * UTRACE_BT_STRLEN bytes for a string. */
enum utrace_bt_rec {
	UTRACE_BREC_PRINTF = 1,
	UTRACE_BREC_PRINT,     /* print(value): one value */
	UTRACE_BREC_PRINT_MAP, /* print(@m, top, div): two values */
	UTRACE_BREC_CLEAR,
	UTRACE_BREC_ZERO,
	UTRACE_BREC_EXIT,      /* exit(): the program ends there, as bpftrace's returns */
	UTRACE_BREC_TIME,
	UTRACE_BREC_CAT,    /* cat(fmt, ...): printf's values; the tool reads the file */
	UTRACE_BREC_SYSTEM, /* system(fmt, ...): printf's values; the tool runs it */
	UTRACE_BREC_HELPER_ERR, /* -k: a map helper failed; id: which (its text) */
	UTRACE_BREC_JOIN,	/* join(): UTRACE_BT_JOIN_MAX strings; id: the delimiter's format */
	UTRACE_BREC_MAX
};

struct utrace_bt_rec_hdr {
	uint32_t kind, id, len, nvals;
};

struct utrace_bt_insn {
	uint8_t op, a;
	uint16_t b;
	uint32_t key_str; /* KEY, EMIT: bit i set when value i is a string */
	int64_t imm;
};

/* A map as the program uses it: its keys' kinds (bit i: a string; bit
 * 16 + i as well: a buf(), carried as a string). */
struct utrace_bt_mapdesc {
	uint32_t nkeys, key_str;
	uint32_t agg;	     /* enum utrace_bt_agg (lib/bt/bt_print.h) */
	uint32_t value_str;  /* a scalar map of strings (2: tuples, 3: buf()s, 4: strftime()'s) */
	int64_t lmin, lmax, lstep;
};

struct utrace_bt_hdr {
	uint32_t size; /* the whole program, data included */
	uint32_t magic;
	uint32_t nr_insns;
	uint32_t nr_maps; /* the program's maps (all probes'), indexes of a */
};

/* What a hit gives the program. */
struct utrace_bt_hit {
	int64_t args[6];
	int64_t builtin[UTRACE_BB_MAX]; /* retval among them */
	char comm[16];
};

/* A map element's value as map_get returns it. */
struct utrace_bt_mval {
	int64_t i;
	char s[UTRACE_BT_STRLEN];
};

struct utrace_bt_ctx {
	void *arg;
	/* size bytes (1, 2, 4, 8) at addr; 0, or -1 if it cannot be read */
	int (*load)(uint64_t addr, unsigned size, uint64_t *out);
	/* 0 with *v filled, -1 if the key has no element (v zeroed) */
	int (*map_get)(void *arg, unsigned map, const uint8_t *key, struct utrace_bt_mval *v);
	/* agg: UTRACE_BT_AGG_* of the map, or -1 to delete; v the value
	 * (s for a scalar of strings) */
	void (*map_update)(void *arg, unsigned map, const uint8_t *key, int agg,
			   const struct utrace_bt_mval *v);
	void (*emit)(void *arg, const void *rec, uint32_t len);
	/* ustack, usym: where the hit's stack and symbols are known (the
	 * tool's replay); NULL elsewhere (a program using them never runs
	 * there): ustack gives an id for the stack's first limit frames,
	 * usym the name of addr into out (UTRACE_BT_STRLEN bytes) */
	int64_t (*ustack)(void *arg, unsigned limit, unsigned mode);
	void (*usym)(void *arg, uint64_t addr, char *out);
	/* the hit's extra fetch-arg k (args->p->member through DWARF): its
	 * value, or its string into out (UTRACE_BT_STRLEN bytes) if out */
	int64_t (*field)(void *arg, unsigned k, char *out);
	/* strftime(): format fmt's text of ns into dst (UTRACE_BT_STRLEN
	 * bytes); NULL where no libc may run (the text is then "") */
	int (*strftime)(void *arg, uint32_t fmt, int64_t ns, char *dst);
	/* LOADREC: the struct or array of C type type at addr as a value
	 * (lib/bt/bt_record.c) into out (UTRACE_BT_STRLEN bytes); NULL
	 * where no libc may run */
	void (*record)(void *arg, uint64_t addr, uint32_t type, char *out);
	/* NAME: the name of v (what: enum utrace_bt_name) into out
	 * (UTRACE_BT_STRLEN bytes); NULL where no libc may run */
	void (*name)(void *arg, unsigned what, int64_t v, char *out);
	/* STR's read where it is cheaper whole (the runtime's: one system
	 * call): the string at addr, max characters at most, into dst as
	 * utrace_bt_load_str reads it through load, the same value
	 * returned; NULL: through load */
	int (*load_str)(uint64_t addr, unsigned max, char *dst);
	/* a struct or an array value longer than a slot, which the tool
	 * alone makes (lib/bt/bt_longval.c): long_text gives the whole text
	 * of a slot that holds handles (the slot itself if none), long_put
	 * makes text (len bytes) a slot value; NULL where no such value
	 * exists (bt_inproc.c sends no program that makes one) */
	const char *(*long_text)(void *arg, const char *slot);
	void (*long_put)(void *arg, const char *text, unsigned len, char *slot);
};

/*
 * A replayed action's reads of the traced program's memory at addresses
 * computed at run time (UTRACE_BT_MSG_CAPTURE): the runtime runs the
 * program at the hit for its LOAD and STR reads alone (maps read as
 * empty, nothing emitted) and appends what it read to the probe's
 * record, 8-byte aligned after the record's fields: two words an entry,
 * the address | bytes << 56 (| 1 << 63 if the read faulted) and the value
 * (0 if it faulted), then one word, UTRACE_BT_CAP_MAGIC << 32 | n entries
 * (| UTRACE_BT_CAP_FULL if more reads did not fit).  The tool serves its
 * run's reads from them (lib/bt/bt_session.c).  An address past
 * UTRACE_BT_CAP_ADDR_MAX is never mapped: it is not written, it faults.
 */
#define UTRACE_BT_CAP_MAGIC 0x50414355u /* "UCAP" */
#define UTRACE_BT_CAP_FULL (1u << 31)
#define UTRACE_BT_CAP_ADDR_MAX ((1ull << 56) - 1)
#define UTRACE_BT_CAP_FAULT (1ull << 63)

/* The entry of the read of size bytes at addr among e's n (from *next
 * on first, as a run reads in the order the capture did): 0 with *out
 * its value, -1 if that read faulted, -2 if it is not there. */
static inline int utrace_bt_cap_find(const uint64_t *e, uint32_t n, uint32_t *next,
				     uint64_t addr, unsigned size, uint64_t *out)
{
	uint64_t want = addr | (uint64_t)size << 56;

	*out = 0;
	if (addr > UTRACE_BT_CAP_ADDR_MAX)
		return -1;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = (*next + k) % n;

		if ((e[2 * i] & ~UTRACE_BT_CAP_FAULT) != want)
			continue;
		*next = (i + 1) % n;
		*out = e[2 * i + 1];
		return e[2 * i] & UTRACE_BT_CAP_FAULT ? -1 : 0;
	}
	return -2;
}

/* The run's state: the stack, the string slots, the variables. */
struct utrace_bt_state {
	int64_t stack[UTRACE_BT_STACK_MAX];
	int64_t vars[UTRACE_BT_VARS];
	char strs[UTRACE_BT_TMP_STRS + UTRACE_BT_VARS][UTRACE_BT_STRLEN];
	uint8_t key[UTRACE_BT_KEY_MAX];
	uint8_t rec[UTRACE_BT_REC_MAX];
	struct utrace_bt_mval mv;
	unsigned ntmp;
};

static inline const struct utrace_bt_mapdesc *utrace_bt_maps(const struct utrace_bt_hdr *h)
{
	return (const struct utrace_bt_mapdesc *)(h + 1);
}

static inline const struct utrace_bt_insn *utrace_bt_insns(const struct utrace_bt_hdr *h)
{
	return (const struct utrace_bt_insn *)(utrace_bt_maps(h) + h->nr_maps);
}

/* The number of values insn in pops, and pushes (-1: not an insn). */
static inline int utrace_bt_stack_effect(const struct utrace_bt_insn *in, int *push)
{
	*push = 0;
	switch (in->op) {
	case UTRACE_BOP_PUSH: case UTRACE_BOP_ARG: case UTRACE_BOP_BUILTIN:
	case UTRACE_BOP_COMM: case UTRACE_BOP_SCONST: case UTRACE_BOP_VLD:
	case UTRACE_BOP_MGET: case UTRACE_BOP_USTACK: case UTRACE_BOP_FIELD:
		*push = 1;
		return 0;
	case UTRACE_BOP_USYM:
	case UTRACE_BOP_STR: case UTRACE_BOP_LNOT: case UTRACE_BOP_BNOT: case UTRACE_BOP_NEG:
	case UTRACE_BOP_EXT: case UTRACE_BOP_BSWAP: case UTRACE_BOP_TGET: case UTRACE_BOP_STRFTIME:
	case UTRACE_BOP_BUF: case UTRACE_BOP_NTOP: case UTRACE_BOP_LOAD: case UTRACE_BOP_LOADREC:
	case UTRACE_BOP_NAME:
		*push = 1;
		return 1;
	case UTRACE_BOP_TUPLE:
		*push = 1;
		return in->b;
	case UTRACE_BOP_STRNCMP: case UTRACE_BOP_STRSTR:
		*push = 1;
		return 2;
	case UTRACE_BOP_DUP:
		*push = 2;
		return 1;
	case UTRACE_BOP_VST: case UTRACE_BOP_POP: case UTRACE_BOP_JZ: case UTRACE_BOP_MSET:
		return 1;
	case UTRACE_BOP_AGG:
		return in->b == 1 /* UTRACE_BT_AGG_COUNT */ ? 0 : 1;
	case UTRACE_BOP_JMP: case UTRACE_BOP_MDEL: case UTRACE_BOP_LOOP:
		return 0;
	case UTRACE_BOP_KEY: case UTRACE_BOP_EMIT:
		return in->b;
	default:
		if (in->op >= UTRACE_BOP_ADD && in->op <= UTRACE_BOP_STRNE) {
			*push = 1;
			return 2;
		}
		return -1;
	}
}

/* 0 if the program is whole: its operands in range, its jumps forward
 * and inside it.  The stack's bounds are checked as it runs (a jump
 * makes the depth at an instruction depend on the path). */
static inline int utrace_bt_check(const void *prog, uint32_t len)
{
	const struct utrace_bt_hdr *h = (const struct utrace_bt_hdr *)prog;
	const struct utrace_bt_insn *in;

	if (!prog || len < sizeof(*h) || h->magic != UTRACE_BT_MAGIC || h->size != len ||
	    h->nr_insns > UTRACE_BT_MAX_INSNS || h->nr_maps > 256 ||
	    sizeof(*h) + (uint64_t)h->nr_maps * sizeof(struct utrace_bt_mapdesc) +
		    (uint64_t)h->nr_insns * sizeof(*in) > len)
		return -1;
	in = utrace_bt_insns(h);
	for (uint32_t i = 0; i < h->nr_maps; i++)
		if (utrace_bt_maps(h)[i].nkeys > UTRACE_BT_KEYS_MAX)
			return -1;
	for (uint32_t i = 0; i < h->nr_insns; i++) {
		int push;

		if (utrace_bt_stack_effect(&in[i], &push) < 0)
			return -1;
		if ((in[i].op == UTRACE_BOP_JMP || in[i].op == UTRACE_BOP_JZ) &&
		    (in[i].imm <= (int64_t)i || in[i].imm > (int64_t)h->nr_insns))
			return -1;
		if (in[i].op == UTRACE_BOP_LOOP && (in[i].imm < 0 || in[i].imm > (int64_t)i))
			return -1;
		if (in[i].op == UTRACE_BOP_ARG && in[i].a >= 6)
			return -1;
		if (in[i].op == UTRACE_BOP_BUILTIN && in[i].a >= UTRACE_BB_MAX)
			return -1;
		if (in[i].op == UTRACE_BOP_NAME && in[i].a >= UTRACE_BN_MAX)
			return -1;
		if ((in[i].op == UTRACE_BOP_VLD || in[i].op == UTRACE_BOP_VST) &&
		    in[i].a >= UTRACE_BT_VARS)
			return -1;
		if (in[i].op == UTRACE_BOP_SCONST &&
		    (in[i].imm < 0 || (uint64_t)in[i].imm + in[i].b > len || in[i].b >= UTRACE_BT_STRLEN))
			return -1;
		if (in[i].op >= UTRACE_BOP_KEY && in[i].op <= UTRACE_BOP_MDEL &&
		    in[i].a >= h->nr_maps)
			return -1;
		if (in[i].op == UTRACE_BOP_KEY && in[i].b != utrace_bt_maps(h)[in[i].a].nkeys)
			return -1;
		if (in[i].op == UTRACE_BOP_TUPLE && in[i].b > UTRACE_BT_EMIT_MAX)
			return -1;
		if (in[i].op == UTRACE_BOP_LOAD && in[i].a != 1 && in[i].a != 2 && in[i].a != 4 &&
		    in[i].a != 8)
			return -1;
		if (in[i].op == UTRACE_BOP_EMIT &&
		    (in[i].b > UTRACE_BT_EMIT_MAX || in[i].a >= UTRACE_BREC_MAX || !in[i].a))
			return -1;
	}
	return 0;
}

#include "common/bt_run.h"

#endif
