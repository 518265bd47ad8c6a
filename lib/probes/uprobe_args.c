/* SPDX-License-Identifier: MIT */
/*
 * uprobe_args.c - the fetchargs of a probe definition, checked with the
 * kernel's rules and translated to what the kernel takes on a uprobe.
 *
 * Design: a mirror of traceprobe_parse_probe_arg() (kernel/trace/
 * trace_probe.c) for a uprobe on x86-64: the same order of checks, the
 * same messages, the caret at the same place, so that a definition
 * refused here would be refused by the kernel with the same words.  Each
 * argument is checked as the kernel does it:
 *
 *   1. NAME= (or the kernel's generated "argN"): length, C identifier,
 *      not reserved (common_*, __probe_*), not used by an earlier one;
 *   2. the body's length, then its :TYPE (and [N]): $comm and \"...\"
 *      only as string, then the type by name (symbol and symstr are
 *      refused on uprobes);
 *   3. the fetcharg itself, recursively through +|-[u]OFFS(...): its
 *      "fetch instructions" are counted as the kernel counts them (16
 *      slots, one kept for the end), so nesting fails where the kernel's
 *      would with "Dereference is too much nested";
 *   4. what the type needs of the fetcharg: a string only from memory,
 *      an immediate or $comm; a bitfield b<bits>@<offs>/<size> that fits
 *      its container; an array only from memory.
 *
 * In-process probes also take x86's base + index * scale, "%BASE,%INDEX,
 * SCALE" (the base may be left out, SCALE 1 2 4 8, default 1), alone or
 * inside +|-OFFS(...): a USDT argument such as -8(%rbp,%rcx,4)
 * (lib/probes/usdt.c).  The kernel's syntax has no such form: a kernel
 * probe refuses it as the kernel does (BAD_REG_NAME at the '%').
 *
 * The kernel refuses $argN on uprobes and @SYMBOL on uprobes.  utrace
 * translates them: $argN, at a function's first instruction, is the
 * System V argument register (%di %si %dx %cx %r8 %r9), then the stack
 * slot above the return address ($stack1 for $arg7...); @SYMBOL[+|-OFFS]
 * is the kernel's @+OFFSET, a "file offset" that the kernel turns into an
 * address as probe address - probe offset + OFFSET, so OFFSET is taken
 * relative to the probe's own segment, not the symbol's file offset.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/uprobe_internal.h"

#define FETCH_INSN_MAX 16    /* the kernel's fetch_insn slots, the last one is END */
#define PARAM_MAX_STACK 2048 /* THREAD_SIZE / sizeof(long) */

enum op {
	OP_NOP,
	OP_REG,
	OP_STACK,
	OP_STACKP,
	OP_RETVAL,
	OP_COMM,
	OP_IMM,
	OP_DATA,
	OP_DEREF,
	OP_UDEREF,
	OP_TP_ARG /* an event probe's $FIELD */
};

/* One fetcharg being checked; positions are offsets in its token. */
struct fa {
	const struct upr_point *pt;
	int code, pos; /* the error and where */
	char out[256]; /* the translated fetcharg */
	size_t len;
	unsigned idx; /* the kernel's current fetch_insn slot */
	enum op op;
};

/* x86-64 pt_regs names (arch/x86/kernel/ptrace.c regoffset_table). */
static const char *const regs[] = {"r15", "r14",     "r13", "r12", "r11",   "r10", "r9",
				   "r8",  "bx",	     "cx",  "dx",  "si",    "di",  "bp",
				   "ax",  "orig_ax", "ip",  "cs",  "flags", "sp",  "ss"};

/* System V x86-64: the first six integer arguments. */
static const char *const arg_regs[] = {"%di", "%si", "%dx", "%cx", "%r8", "%r9"};

static const char *const reserved[] = {"common_type",	 "common_flags", "common_preempt_count",
				       "common_pid",	 "common_tgid",	 "__probe_ip",
				       "__probe_ret_ip", "__probe_func"};

/* Types the kernel knows on a uprobe, bitfields apart. */
static const struct {
	const char *name;
	unsigned size;
	bool string;
} types[] = {{"string", 4, true}, {"ustring", 4, true}, {"u8", 1, false},  {"u16", 2, false},
	     {"u32", 4, false},	  {"u64", 8, false},	{"s8", 1, false},  {"s16", 2, false},
	     {"s32", 4, false},	  {"s64", 8, false},	{"x8", 1, false},  {"x16", 2, false},
	     {"x32", 4, false},	  {"x64", 8, false},	{"char", 1, false}};

static int fail(struct fa *fa, int code, int pos)
{
	fa->code = code;
	fa->pos = pos;
	return -1;
}

static void emit(struct fa *fa, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(struct fa *fa, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(fa->out + fa->len, sizeof(fa->out) - fa->len, fmt, ap);
	va_end(ap);
	fa->len += n > 0 ? (size_t)n : 0;
	if (fa->len >= sizeof(fa->out))
		fa->len = sizeof(fa->out) - 1;
}

/* An event probe's $FIELD or $comm (the kernel's parse_trace_event_arg);
 * anything else is BAD_VAR at the '$'. */
static int parse_event_var(struct fa *fa, const char *v, int pos)
{
	const struct utrace_event_field *f = utrace_event_field_find(fa->pt->event, v);
	char kind;

	if (f && !strcmp(f->base, v)) {
		if (f->kind == UTRACE_EF_STRING)
			kind = 'd';
		else if (f->kind == UTRACE_EF_CHARS || f->kind == UTRACE_EF_OTHER)
			kind = 'a';
		else
			kind = f->is_signed ? 's' : 'u';
		if (kind != 'a' && f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
			kind = 'a'; /* an odd size: its address, as a struct's */
		fa->op = OP_TP_ARG;
		emit(fa, "$$%u/%u/%c", f->offset, kind == 'd' ? 4 : f->size, kind);
		return 0;
	}
	if (!strcmp(v, "comm") || !strcmp(v, "COMM")) {
		fa->op = OP_COMM;
		emit(fa, "$%s", v);
		return 0;
	}
	return fail(fa, UTRACE_UPROBE_ERR_BAD_VAR, pos);
}

/* $retval $stack $stackN $comm $argN; pos is the '$'. */
static int parse_var(struct fa *fa, const char *arg, int pos)
{
	const char *v = arg + 1;
	uint64_t n;

	if (fa->pt->event)
		return parse_event_var(fa, v, pos);
	if (!strncmp(v, "retval", 6)) {
		if (!fa->pt->is_return)
			return fail(fa, UTRACE_UPROBE_ERR_RETVAL_ON_PROBE, pos);
		if (v[6])
			return fail(fa, UTRACE_UPROBE_ERR_BAD_VAR, pos);
		fa->op = OP_RETVAL;
	} else if (!strncmp(v, "stack", 5)) {
		if (!v[5])
			fa->op = OP_STACKP;
		else if (isdigit((unsigned char)v[5]) && upr_strtoul(v + 5, 10, &n)) {
			if (fa->pt->kernel && n > PARAM_MAX_STACK)
				return fail(fa, UTRACE_UPROBE_ERR_BAD_STACK_NUM, pos);
			fa->op = OP_STACK;
		} else
			return fail(fa, UTRACE_UPROBE_ERR_BAD_VAR, pos);
	} else if (!strcmp(v, "comm") || !strcmp(v, "COMM")) {
		fa->op = OP_COMM;
	} else if (!strncmp(v, "arg", 3)) {
		if (!upr_strtoul(v + 3, 10, &n))
			return fail(fa, UTRACE_UPROBE_ERR_BAD_VAR, pos);
		if (!n || n > PARAM_MAX_STACK)
			return fail(fa, UTRACE_UPROBE_ERR_BAD_ARG_NUM, pos);
		if (fa->pt->is_return) {
			/* in-process: the entry's registers, kept when the
			 * return was hooked (the kernel's kretprobe entry
			 * args); not the stack's, which the call reuses */
			if (!fa->pt->in_process || n > 6)
				return fail(fa, UTRACE_UPROBE_ERR_ARG_ON_RETPROBE, pos);
			fa->op = OP_REG;
			emit(fa, "%%entry_arg%" PRIu64, n);
			return 0;
		}
		if (!fa->pt->entry)
			return fail(fa, UTRACE_UPROBE_ERR_NOFENTRY_ARGS, pos);
		if (n <= 6) {
			fa->op = OP_REG;
			emit(fa, "%s", arg_regs[n - 1]);
		} else {
			/* (%sp) is the return address, arg7 is above it */
			fa->op = OP_STACK;
			emit(fa, "$stack%" PRIu64, n - 6);
		}
		return 0;
	} else {
		return fail(fa, UTRACE_UPROBE_ERR_BAD_VAR, pos);
	}
	emit(fa, "%s", arg);
	return 0;
}

/* @SYMBOL[+|-OFFS] -> @+OFFSET relative to the probe's segment. */
static int parse_symbol_addr(struct fa *fa, const char *arg, int pos)
{
	char sym[UTRACE_UPROBE_ARG_MAX + 1];
	const char *op = strpbrk(arg + 1, "+-");
	size_t len = op ? (size_t)(op - arg - 1) : strlen(arg + 1);
	uint64_t vaddr, size;
	int64_t off = 0, rel;
	int n;

	if (!len || len >= sizeof(sym) || (op && !upr_strtol(op[0] == '+' ? op + 1 : op, 0, &off)))
		return fail(fa, UTRACE_UPROBE_ERR_BAD_MEM_ADDR, pos);
	memcpy(sym, arg + 1, len);
	sym[len] = 0;
	if (fa->pt->in_process) {
		/* resolved where the probe lands: a PATH: probe's file, known
		 * now (its error at the '@', the kernel's column for a symbol
		 * on a uprobe) */
		if (fa->pt->file && upr_find_symbol(fa->pt->file, sym, false, &vaddr, &size) < 1)
			return fail(fa, UTRACE_UPROBE_ERR_NO_SYMBOL, pos);
		emit(fa, "%s", arg);
		return 0;
	}
	if (!fa->pt->file)
		return fail(fa, UTRACE_UPROBE_ERR_NO_SYMBOL, pos + 1);
	n = upr_find_symbol(fa->pt->file, sym, false, &vaddr, &size);
	if (n != 1)
		return fail(fa,
			    n ? UTRACE_UPROBE_ERR_AMBIGUOUS_SYMBOL : UTRACE_UPROBE_ERR_NO_SYMBOL,
			    pos + 1);
	rel = (int64_t)(vaddr + (uint64_t)off - (fa->pt->vaddr - fa->pt->offset));
	if (rel < 0)
		emit(fa, "@+%" PRId64, rel);
	else
		emit(fa, "@+0x%" PRIx64, (uint64_t)rel);
	return 0;
}

static int parse_arg(struct fa *fa, char *arg, int pos);

static bool is_reg(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (strlen(regs[i]) == len && !strncmp(s, regs[i], len))
			return true;
	return false;
}

/* An in-process probe's [%BASE],%INDEX[,SCALE]; pos is its first byte. */
static int parse_index(struct fa *fa, const char *arg, int pos)
{
	const char *comma = strchr(arg, ','), *idx = comma + 1, *sc = strchr(idx, ',');
	size_t ilen = sc ? (size_t)(sc - idx) : strlen(idx);
	uint64_t scale = 1;

	if (comma > arg && (arg[0] != '%' || !is_reg(arg + 1, (size_t)(comma - arg - 1))))
		return fail(fa, UTRACE_UPROBE_ERR_BAD_REG_NAME, pos);
	if (idx[0] != '%' || !is_reg(idx + 1, ilen - 1) || (ilen == 3 && !strncmp(idx, "%ip", 3)))
		return fail(fa, UTRACE_UPROBE_ERR_BAD_REG_NAME, pos + (int)(idx - arg));
	if (sc && (!upr_strtoul(sc + 1, 0, &scale) ||
		   (scale != 1 && scale != 2 && scale != 4 && scale != 8)))
		return fail(fa, UTRACE_UPROBE_ERR_BAD_FETCH_ARG, pos + (int)(sc + 1 - arg));
	fa->op = OP_REG; /* a value, as a register's */
	fa->idx++;	 /* the base, then the index */
	emit(fa, "%s", arg);
	return 0;
}

/* +|-[u]OFFS(FETCHARG); pos is the sign. */
static int parse_deref(struct fa *fa, char *arg, int pos)
{
	char num[UTRACE_UPROBE_ARG_MAX + 2], *q = arg + 1, *lp, *rp;
	bool user = *q == 'u';
	int64_t off;
	int in;

	q += user;
	lp = strchr(q, '(');
	if (!lp)
		return fail(fa, UTRACE_UPROBE_ERR_DEREF_NEED_BRACE, pos);
	snprintf(num, sizeof(num), "%s%.*s", arg[0] == '-' ? "-" : "", (int)(lp - q), q);
	if (!upr_strtol(num, 0, &off))
		return fail(fa, UTRACE_UPROBE_ERR_BAD_DEREF_OFFS, pos);
	in = pos + (int)(lp + 1 - arg);
	rp = strrchr(lp + 1, ')');
	if (!rp)
		return fail(fa, UTRACE_UPROBE_ERR_DEREF_OPEN_BRACE, in + (int)strlen(lp + 1));
	/* The kernel ignores what follows the last ')': utrace does not. */
	if (rp[1])
		return fail(fa, UTRACE_UPROBE_ERR_DEREF_SUFFIX, pos + (int)(rp + 1 - arg));
	*rp = 0;
	emit(fa, "%.*s", (int)(lp + 1 - arg), arg);
	if (parse_arg(fa, lp + 1, in) < 0)
		return -1;
	if (fa->op == OP_COMM || fa->op == OP_DATA)
		return fail(fa, UTRACE_UPROBE_ERR_COMM_CANT_DEREF, in);
	if (++fa->idx == FETCH_INSN_MAX - 1)
		return fail(fa, UTRACE_UPROBE_ERR_TOO_MANY_OPS, in);
	emit(fa, ")");
	fa->op = user ? OP_UDEREF : OP_DEREF;
	return 0;
}

/* The kernel's parse_probe_arg(): one fetcharg, arg at offset pos. */
static int parse_arg(struct fa *fa, char *arg, int pos)
{
	uint64_t u;
	int64_t s;
	size_t len;

	fa->op = OP_NOP;
	if (fa->pt->in_process && !fa->pt->event && !fa->pt->fprobe &&
	    (arg[0] == '%' || arg[0] == ',') && strchr(arg, ','))
		return parse_index(fa, arg, pos);
	switch (arg[0]) {
	case '$':
		return parse_var(fa, arg, pos);
	case '%':
		if (fa->pt->fprobe) /* the kernel's fprobes have no registers */
			return fail(fa, UTRACE_UPROBE_ERR_BAD_VAR, pos);
		for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
			if (!strcmp(arg + 1, regs[i])) {
				fa->op = OP_REG;
				emit(fa, "%s", arg);
				return 0;
			}
		}
		return fail(fa, UTRACE_UPROBE_ERR_BAD_REG_NAME, pos);
	case '@':
		if (isdigit((unsigned char)arg[1])) {
			if (!upr_strtoul(arg + 1, 0, &u))
				return fail(fa, UTRACE_UPROBE_ERR_BAD_MEM_ADDR, pos);
			emit(fa, "%s", arg);
		} else if (arg[1] == '+') {
			if (fa->pt->kernel)
				return fail(fa, UTRACE_UPROBE_ERR_FILE_ON_KPROBE, pos);
			if (!upr_strtol(arg + 2, 0, &s))
				return fail(fa, UTRACE_UPROBE_ERR_BAD_FILE_OFFS, pos);
			emit(fa, "%s", arg);
		} else if (parse_symbol_addr(fa, arg, pos) < 0) {
			return -1;
		}
		fa->idx++; /* the address, then the load */
		fa->op = OP_DEREF;
		return 0;
	case '+':
	case '-':
		return parse_deref(fa, arg, pos);
	case '\\':
		if (arg[1] == '"') {
			len = strlen(arg + 2);
			if (!len || arg[2 + len - 1] != '"')
				return fail(fa, UTRACE_UPROBE_ERR_IMMSTR_NO_CLOSE,
					    pos + 2 + (int)len);
			fa->op = OP_DATA;
		} else {
			if (!(isdigit((unsigned char)arg[1])	 ? upr_strtoul(arg + 1, 0, &u)
			      : (arg[1] == '-' || arg[1] == '+') ? upr_strtol(arg + 1, 0, &s)
								 : false))
				return fail(fa, UTRACE_UPROBE_ERR_BAD_IMM, pos + 1);
			fa->op = OP_IMM;
		}
		emit(fa, "%s", arg);
		return 0;
	default:
		if (isalpha((unsigned char)arg[0]) || arg[0] == '_')
			return fail(fa, UTRACE_UPROBE_ERR_NOSUP_BTFARG, pos);
		return fail(fa, UTRACE_UPROBE_ERR_BAD_FETCH_ARG, pos);
	}
}

/* The type's size in bytes and whether it is a string; 0 if unknown.  A
 * bitfield b<bits>@<offs>/<size> counts as its container. */
static unsigned type_size(const char *t, bool *string)
{
	uint64_t bs;

	*string = false;
	if (!t)
		return 8;
	if (t[0] == 'b') {
		const char *slash = strchr(t, '/');

		if (!slash || !upr_strtoul(slash + 1, 0, &bs))
			return 0;
		return bs == 8 || bs == 16 || bs == 32 || bs == 64 ? (unsigned)bs / 8 : 0;
	}
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (!strcmp(t, types[i].name)) {
			*string = types[i].string;
			return types[i].size;
		}
	}
	return 0;
}

/* __parse_bitfield_probe_arg(): b<bits>@<offs>/<size> fits its container. */
static bool bitfield_ok(struct fa *fa, const char *t, unsigned size)
{
	unsigned long bw, bo;
	char *tail, *tail2;

	bw = strtoul(t + 1, &tail, 0);
	if (!bw || *tail != '@')
		return false;
	bo = strtoul(tail + 1, &tail2, 0);
	if (tail2 == tail + 1 || *tail2 != '/')
		return false;
	if (++fa->idx == FETCH_INSN_MAX - 1)
		return false;
	return bw <= 64 && bo <= 64 && bw + bo <= size * 8; /* no sum that wraps */
}

/* One NAME=FETCHARG:TYPE; positions are offsets in tok. */
static int parse_one(struct utrace_uprobe *p, const struct upr_point *pt, const char *tok,
		     unsigned i, struct fa *fa)
{
	char buf[UTRACE_UPROBE_ARG_MAX + 1], *t = NULL, *t2, *t3, *type;
	const char *eq = strchr(tok, '='), *body = eq ? eq + 1 : tok;
	struct upr_arg *a = &p->args[i];
	int bpos = (int)(body - tok), toffs;
	uint64_t count = 0;
	unsigned size;
	bool string = false;

	if (eq && eq - tok > UTRACE_UPROBE_ARG_NAME_MAX)
		return fail(fa, UTRACE_UPROBE_ERR_ARG_NAME_TOO_LONG, 0);
	if (eq == tok)
		return fail(fa, UTRACE_UPROBE_ERR_NO_ARG_NAME, 0);
	if (eq)
		snprintf(a->name, sizeof(a->name), "%.*s", (int)(eq - tok), tok);
	else
		snprintf(a->name, sizeof(a->name), "arg%u", i + 1);
	if (!upr_good_name(a->name))
		return fail(fa, UTRACE_UPROBE_ERR_BAD_ARG_NAME, 0);
	for (size_t r = 0; r < sizeof(reserved) / sizeof(reserved[0]); r++)
		if (!strcmp(a->name, reserved[r]))
			return fail(fa, UTRACE_UPROBE_ERR_USED_ARG_NAME, 0);
	for (unsigned j = 0; j < i; j++)
		if (!strcmp(a->name, p->args[j].name))
			return fail(fa, UTRACE_UPROBE_ERR_USED_ARG_NAME, 0);
	if (strlen(body) > UTRACE_UPROBE_ARG_MAX)
		return fail(fa, UTRACE_UPROBE_ERR_ARG_TOO_LONG, bpos);
	if (!*body)
		return fail(fa, UTRACE_UPROBE_ERR_NO_ARG_BODY, bpos);
	strcpy(buf, body);

	/* :TYPE and :TYPE[N] */
	t = strchr(buf, ':');
	if (t) {
		*t++ = 0;
		t2 = strchr(t, '[');
		if (t2) {
			*t2++ = 0;
			t3 = strchr(t2, ']');
			if (!t3)
				return fail(fa, UTRACE_UPROBE_ERR_ARRAY_NO_CLOSE,
					    bpos + (int)(t2 - buf + strlen(t2)));
			if (t3[1])
				return fail(fa, UTRACE_UPROBE_ERR_BAD_ARRAY_SUFFIX,
					    bpos + (int)(t3 + 1 - buf));
			*t3 = 0;
			if (!upr_strtoul(t2, 0, &count) || !count || count > UINT_MAX)
				return fail(fa, UTRACE_UPROBE_ERR_BAD_ARRAY_NUM,
					    bpos + (int)(t2 - buf));
			if (count > UTRACE_UPROBE_ARRAY_MAX)
				return fail(fa, UTRACE_UPROBE_ERR_ARRAY_TOO_BIG,
					    bpos + (int)(t2 - buf));
		}
	}
	toffs = bpos + (t ? (int)(t - buf) : 0);
	type = t;
	/* (an event probe's $comm may be a field of that name: checked as
	 * any other, as the kernel does) */
	if (!pt->event &&
	    (!strcmp(buf, "$comm") || !strcmp(buf, "$COMM") || !strncmp(buf, "\\\"", 2))) {
		if (count || (t && strcmp(t, "string")))
			return fail(fa, UTRACE_UPROBE_ERR_NEED_STRING_TYPE, toffs);
		type = "string";
	} else if (pt->event && !t && !strncmp(buf, "\\\"", 2)) {
		type = "string"; /* an event probe's string constant: a string by default */
	}
	size = pt->in_process && type && !strcmp(type, "symbol") ? 8 : type_size(type, &string);
	if (!size)
		return fail(fa, UTRACE_UPROBE_ERR_BAD_TYPE, toffs);

	if (parse_arg(fa, buf, bpos) < 0)
		return -1;
	/* an event probe's $comm, or string constant, is a string or nothing
	 * (its store is one: a 4-byte __data_loc, which a u8 or a b4@2/16
	 * slot does not hold) */
	if (pt->event &&
	    ((fa->op == OP_COMM && !string) || (fa->op == OP_DATA && (!string || count))))
		return fail(fa, UTRACE_UPROBE_ERR_NEED_STRING_TYPE, toffs);

	/* finalize_fetch_insn(): what the type needs of the fetcharg */
	if (string) {
		if (fa->op != OP_DEREF && fa->op != OP_UDEREF && fa->op != OP_IMM &&
		    fa->op != OP_COMM && fa->op != OP_DATA && fa->op != OP_TP_ARG)
			return fail(fa, UTRACE_UPROBE_ERR_BAD_STRING, toffs);
		if ((fa->op == OP_IMM || fa->op == OP_COMM || fa->op == OP_DATA ||
		     fa->op == OP_TP_ARG || count) &&
		    ++fa->idx == FETCH_INSN_MAX - 1)
			return fail(fa, UTRACE_UPROBE_ERR_TOO_MANY_OPS, bpos);
	} else if (fa->op != OP_DEREF && fa->op != OP_UDEREF && ++fa->idx == FETCH_INSN_MAX - 1) {
		return fail(fa, UTRACE_UPROBE_ERR_TOO_MANY_OPS, bpos);
	}
	if (type && type[0] == 'b' && !bitfield_ok(fa, type, size))
		return fail(fa, UTRACE_UPROBE_ERR_BAD_BITFIELD, toffs);
	if (count && string && pt->in_process)
		return fail(fa, UTRACE_UPROBE_ERR_STRING_ARRAY_IN_PROCESS, toffs);
	if (count) {
		if (!string && fa->op != OP_DEREF)
			return fail(fa, UTRACE_UPROBE_ERR_BAD_STRING, toffs);
		if (++fa->idx == FETCH_INSN_MAX - 1)
			return fail(fa, UTRACE_UPROBE_ERR_TOO_MANY_OPS, bpos);
	}

	/* The translated body has the kernel's length limit too. */
	if (fa->len + (t ? 1 + strlen(body + (t - buf)) : 0) > UTRACE_UPROBE_ARG_MAX)
		return fail(fa, UTRACE_UPROBE_ERR_ARG_TRANSLATED_TOO_LONG, bpos);
	a->fetch = strdup(fa->out);
	/* the kernel's DEFAULT_FETCH_TYPE: unsigned long, printed in hex */
	a->type = strdup(t ? body + (t - buf) : type ? type : "x64");
	return a->fetch && a->type ? 0 : -ENOMEM;
}

int upr_parse_args(struct utrace_uprobe *p, const struct upr_point *pt, char **tok, const int *col,
		   unsigned n, int *column)
{
	if (n > UTRACE_UPROBE_MAX_ARGS) {
		*column = col[0]; /* the kernel's caret: the first argument */
		return UTRACE_UPROBE_ERR_TOO_MANY_ARGS;
	}
	p->args = calloc(n ? n : 1, sizeof(*p->args));
	if (!p->args)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		struct fa fa = {.pt = pt};
		int ret;

		p->nargs = i + 1;
		ret = parse_one(p, pt, tok[i], i, &fa);
		if (ret == -ENOMEM)
			return ret;
		if (ret < 0) {
			*column = col[i] + fa.pos;
			return fa.code;
		}
	}
	return 0;
}
