/* SPDX-License-Identifier: MIT */
/*
 * fetch_compile.c - an in-process probe's record layout, its format, and
 * its fetchargs compiled into a fetch program (common/fetch_prog.h).
 *
 * Design: the layout is the kernel's for a kprobe event (trace_probe.c
 * traceprobe_update_arg / set_print_fmt): after the common fields and
 * __probe_ip (or __probe_func, __probe_ret_ip), the arguments packed in
 * order, each of its type's size (times N for an array), a string a
 * 4-byte __data_loc.  Each fetcharg, already checked and translated by
 * uprobe_args.c ($argN is a register or $stackN), compiles into value
 * instructions that leave either a value (a register, an immediate, $stack)
 * or an address whose contents are the value (@ADDR, @SYMBOL, $stackN,
 * +OFF(...)), and one store that reads what the type needs:
 *
 *   +8(+0(%di)):u32      REG di; DEREF 0; ADD 8; ST_MEM 4 -> dst
 *   %si:b4@2/32          REG si; ST_INT 4 (bitfield: << 58 >> 60)
 *   +0(%dx):string       REG dx; ST_STR (the bytes at dx) -> __data_loc
 *   -8(%bp,%cx,4):s32    REG bp; INDEX cx 4; ADD -8; ST_MEM 4 (in-process
 *                        only: x86's base + index * scale, a USDT note's)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fetch_prog.h"
#include "lib/probes/inproc_probe_internal.h"

/* A type of the kernel's fetch_type table, on x86-64. */
struct ipp_type {
	const char *name, *field, *fmt;
	uint8_t size;
	bool is_signed, string;
};

static const struct ipp_type ipp_types[] = {
    {"u8", "u8", "%u", 1, false, false},	{"u16", "u16", "%u", 2, false, false},
    {"u32", "u32", "%u", 4, false, false},	{"u64", "u64", "%Lu", 8, false, false},
    {"s8", "s8", "%d", 1, true, false},		{"s16", "s16", "%d", 2, true, false},
    {"s32", "s32", "%d", 4, true, false},	{"s64", "s64", "%Ld", 8, true, false},
    {"x8", "u8", "0x%x", 1, false, false},	{"x16", "u16", "0x%x", 2, false, false},
    {"x32", "u32", "0x%x", 4, false, false},	{"x64", "u64", "0x%Lx", 8, false, false},
    {"char", "u8", "'%c'", 1, false, false},	{"symbol", "u64", "%pS", 8, false, false},
    {"string", "__data_loc char[]", "\"%s\"", 4, true, true},
    {"ustring", "__data_loc char[]", "\"%s\"", 4, true, true},
};

/* One argument's type: base, bitfield, array count. */
struct ipp_argtype {
	const struct ipp_type *t;
	unsigned count; /* 0: not an array */
	unsigned bits, boff;
	char bf_field[8];
};

static int ipp_argtype(const char *text, struct ipp_argtype *at)
{
	char base[64];
	const char *br = strchr(text, '[');
	size_t len = br ? (size_t)(br - text) : strlen(text);

	memset(at, 0, sizeof(*at));
	if (len >= sizeof(base))
		return -EINVAL;
	memcpy(base, text, len);
	base[len] = 0;
	if (br)
		at->count = (unsigned)strtoul(br + 1, NULL, 0);
	if (base[0] == 'b') { /* b<bits>@<off>/<size>, checked by uprobe_args.c */
		unsigned csize = 0;

		if (sscanf(base, "b%u@%u/%u", &at->bits, &at->boff, &csize) != 3)
			return -EINVAL;
		snprintf(at->bf_field, sizeof(at->bf_field), "u%u", csize);
		for (size_t i = 0; i < sizeof(ipp_types) / sizeof(ipp_types[0]); i++)
			if (!strcmp(ipp_types[i].name, at->bf_field))
				at->t = &ipp_types[i];
		return at->t ? 0 : -EINVAL;
	}
	for (size_t i = 0; i < sizeof(ipp_types) / sizeof(ipp_types[0]); i++)
		if (!strcmp(ipp_types[i].name, base))
			at->t = &ipp_types[i];
	return at->t ? 0 : -EINVAL;
}

static unsigned ipp_first_arg(const struct utrace_inproc_probe *p)
{
	if (p->eprobe) /* struct eprobe_trace_entry_head: the common fields only */
		return 8;
	return p->kind == UTRACE_IPP_RETURN ? 24 : 16;
}

static void ipp_print_fmt(FILE *m, const struct utrace_inproc_probe *p, const struct ipp_argtype *at)
{
	fprintf(m, "\nprint fmt: \"%s", p->eprobe ? "" : "(");
	if (p->eprobe) /* the kernel's PROBE_PRINT_EVENT: no place */
		;
	else if (p->path) /* the kernel's uprobe: (0xIP), (0xFUNC <- 0xCALLER) */
		fprintf(m, p->kind == UTRACE_IPP_RETURN ? "0x%%lx <- 0x%%lx" : "0x%%lx");
	else if (p->kind == UTRACE_IPP_RETURN) { /* the kernel's kretprobe: (CALLER+off <- FUNC) */
		fprintf(m, "%%ps <- %s", p->symbol);
	} else { /* the kernel's kprobe: (%lx) of __probe_ip, printed as SYM+0xOFF/0xSIZE */
		fprintf(m, "%%lx");
	}
	if (!p->eprobe)
		fputc(')', m);
	for (unsigned i = 0; i < p->u.nargs; i++) {
		fprintf(m, " %s=", p->u.args[i].name);
		if (!at[i].count) {
			fprintf(m, "%s", at[i].t->string ? "\\\"%s\\\"" : at[i].t->fmt);
			continue;
		}
		fputc('{', m);
		for (unsigned k = 0; k < at[i].count; k++)
			fprintf(m, "%s%s", k ? "," : "", at[i].t->fmt);
		fputc('}', m);
	}
	fputc('"', m);
	if (p->eprobe)
		;
	else if (p->path)
		fprintf(m, p->kind == UTRACE_IPP_RETURN ? ", REC->__probe_func, REC->__probe_ret_ip"
						       : ", REC->__probe_ip");
	else if (p->kind == UTRACE_IPP_RETURN)
		fprintf(m, ", REC->__probe_ret_ip");
	else
		fprintf(m, ", REC->__probe_ip");
	for (unsigned i = 0; i < p->u.nargs; i++) {
		const char *n = p->u.args[i].name;

		if (at[i].t->string)
			fprintf(m, ", __get_str(%s)", n);
		else if (!at[i].count)
			fprintf(m, ", REC->%s", n);
		for (unsigned k = 0; k < at[i].count; k++)
			fprintf(m, ", REC->%s[%u]", n, k);
	}
	fputc('\n', m);
}

int ipp_make_format(struct utrace_inproc_probe *p, int id)
{
	struct ipp_argtype *at = calloc(p->u.nargs + 1, sizeof(*at));
	unsigned off = ipp_first_arg(p);
	struct utrace_error err;
	size_t len = 0;
	FILE *m;

	if (!at || !(m = open_memstream(&p->format, &len))) {
		free(at);
		return -ENOMEM;
	}
	fprintf(m, "name: %s\nID: %d\nformat:\n", p->event, id);
	fprintf(m, "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		   "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		   "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		   "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n");
	if (p->eprobe)
		;
	else if (p->kind == UTRACE_IPP_RETURN)
		fprintf(m, "\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
			   "\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n");
	else
		fprintf(m, "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n");
	for (unsigned i = 0; i < p->u.nargs; i++) {
		unsigned size;

		if (ipp_argtype(p->u.args[i].type, &at[i]) < 0 || (at[i].count && at[i].t->string)) {
			fclose(m);
			free(at);
			return -EINVAL;
		}
		size = at[i].t->size * (at[i].count ? at[i].count : 1);
		if (at[i].count)
			fprintf(m, "\tfield:%s %s[%u];", at[i].t->field, p->u.args[i].name,
				at[i].count);
		else
			fprintf(m, "\tfield:%s %s;", at[i].t->field, p->u.args[i].name);
		fprintf(m, "\toffset:%u;\tsize:%u;\tsigned:%d;\n", off, size, at[i].t->is_signed);
		off += size;
	}
	ipp_print_fmt(m, p, at);
	free(at);
	if (fclose(m) != 0)
		return -ENOMEM;
	return utrace_event_format_parse(p->group, p->format, &p->fmt, &err) < 0 ? -EINVAL : 0;
}

/* ---- the fetch program -------------------------------------------------- */

struct ipp_cc {
	struct utrace_fetch_insn ins[UTRACE_FETCH_MAX_INSNS];
	uint32_t n;
	uint8_t data[4096];
	uint32_t ndata;
	utrace_inproc_probe_sym_fn sym;
	void *arg;
	struct utrace_error *err;
};

enum { IPP_VAL, IPP_MEM, IPP_COMM, IPP_DATA };

static int ipp_emit(struct ipp_cc *c, uint8_t op, uint8_t reg, int64_t imm)
{
	if (c->n >= UTRACE_FETCH_MAX_INSNS)
		return utrace_error_set(c->err, -E2BIG, "fetch program too long");
	c->ins[c->n++] = (struct utrace_fetch_insn){.op = op, .reg = reg, .imm = imm};
	return 0;
}

static const char *const ipp_regs[UTRACE_FR_MAX] = {
    "r15", "r14", "r13", "r12", "r11", "r10", "r9", "r8",    "bx", "cx", "dx",
    "si",  "di",  "bp",	 "ax",	"orig_ax", "ip", "cs", "flags", "sp", "ss"};

/* $$OFFSET/SIZE/KIND: the field of the attached event's record, whose
 * address is UTRACE_FR_EVENT's; its value (a number, a __data_loc
 * string's or a char[N]'s address), as the kernel's get_event_field. */
static int ipp_field(struct ipp_cc *c, const char *s)
{
	unsigned off, size;
	char kind;
	uint8_t flags;

	if (sscanf(s, "%u/%u/%c", &off, &size, &kind) != 3 || off >= UTRACE_FETCH_REC_MAX ||
	    !strchr("usda", kind))
		return utrace_error_set(c->err, -EINVAL, "bad event field %s", s);
	if (ipp_emit(c, UTRACE_XOP_REG, UTRACE_FR_EVENT, 0) < 0)
		return -E2BIG;
	if (kind == 'a')
		return ipp_emit(c, UTRACE_XOP_ADD, 0, off) ?: IPP_VAL;
	flags = kind == 'd' ? UTRACE_XF_DATALOC : kind == 's' ? UTRACE_XF_SIGNED : 0;
	if (ipp_emit(c, UTRACE_XOP_LDF, 0, off) < 0)
		return -E2BIG;
	c->ins[c->n - 1].size = (uint8_t)size;
	c->ins[c->n - 1].flags = flags;
	return IPP_VAL;
}

static int ipp_reg(const char *name, size_t len)
{
	for (int r = 0; r < (int)UTRACE_FR_MAX; r++)
		if (strlen(ipp_regs[r]) == len && !strncmp(name, ipp_regs[r], len))
			return r;
	return -1;
}

/* [%BASE],%INDEX[,SCALE] (uprobe_args.c checked it): base + index * scale. */
static int ipp_index(struct ipp_cc *c, const char *s)
{
	const char *comma = strchr(s, ','), *idx = comma + 1, *sc;
	int base = -1, index;
	uint64_t scale = 1;

	if (comma > s && (s[0] != '%' || (base = ipp_reg(s + 1, (size_t)(comma - s - 1))) < 0))
		return utrace_error_set(c->err, -EINVAL, "bad base register in %s", s);
	sc = strchr(idx, ',');
	index =
	    idx[0] == '%' ? ipp_reg(idx + 1, sc ? (size_t)(sc - idx - 1) : strlen(idx + 1)) : -1;
	if (index < 0 || (sc && (!upr_strtoul(sc + 1, 0, &scale) ||
				 (scale != 1 && scale != 2 && scale != 4 && scale != 8))))
		return utrace_error_set(c->err, -EINVAL, "bad index register or scale in %s", s);
	if ((base < 0 ? ipp_emit(c, UTRACE_XOP_IMM, 0, 0)
		      : ipp_emit(c, UTRACE_XOP_REG, (uint8_t)base, 0)) < 0)
		return -E2BIG;
	return ipp_emit(c, UTRACE_XOP_INDEX, (uint8_t)index, (int64_t)scale) ?: IPP_VAL;
}

/* One translated fetcharg: its kind (IPP_*), or <0 with c->err. */
static int ipp_fetch(struct ipp_cc *c, char *s)
{
	int64_t off;
	uint64_t u;
	char *lp;
	int k;

	if (s[0] == '$' && s[1] == '$') /* an event probe's field (uprobe_args.c) */
		return ipp_field(c, s + 2);
	if (!strcmp(s, "$retval"))
		return ipp_emit(c, UTRACE_XOP_REG, UTRACE_FR_AX, 0) ?: IPP_VAL;
	if (!strcmp(s, "$comm") || !strcmp(s, "$COMM"))
		return IPP_COMM;
	if (!strcmp(s, "$stack"))
		return ipp_emit(c, UTRACE_XOP_REG, UTRACE_FR_SP, 0) ?: IPP_VAL;
	if (!strncmp(s, "$stack", 6) && upr_strtoul(s + 6, 10, &u))
		return ipp_emit(c, UTRACE_XOP_REG, UTRACE_FR_SP, 0)
			   ?: ipp_emit(c, UTRACE_XOP_ADD, 0, (int64_t)(8 * u)) ?: IPP_MEM;
	if ((s[0] == '%' || s[0] == ',') && strchr(s, ',')) /* [%BASE],%INDEX[,SCALE] */
		return ipp_index(c, s);
	if (s[0] == '%') {
		for (uint8_t r = 0; r < UTRACE_FR_MAX; r++)
			if (!strcmp(s + 1, ipp_regs[r]))
				return ipp_emit(c, UTRACE_XOP_REG, r, 0) ?: IPP_VAL;
		/* a return probe's $argN (uprobe_args.c's translation) */
		if (!strncmp(s + 1, "entry_arg", 9) && s[10] >= '1' && s[10] <= '6' && !s[11])
			return ipp_emit(c, UTRACE_XOP_REG, (uint8_t)(UTRACE_FR_ENTRY_ARG1 + s[10] - '1'),
					0)
				   ?: IPP_VAL;
	} else if (s[0] == '@') {
		if (upr_strtoul(s + 1, 0, &u))
			return ipp_emit(c, UTRACE_XOP_IMM, 0, (int64_t)u) ?: IPP_MEM;
		lp = strpbrk(s + 1, "+-");
		off = 0;
		if (lp && !upr_strtol(lp[0] == '+' ? lp + 1 : lp, 0, &off))
			return utrace_error_set(c->err, -EINVAL, "bad offset in %s", s);
		if (lp)
			*lp = 0;
		if (!c->sym || c->sym(c->arg, s + 1, &u) < 0)
			return utrace_error_set(c->err, -ENOENT, "symbol %s not found", s + 1);
		return ipp_emit(c, UTRACE_XOP_IMM, 0, (int64_t)(u + (uint64_t)off)) ?: IPP_MEM;
	} else if (s[0] == '+' || s[0] == '-') {
		char num[72], *rp = strrchr(s, ')');

		lp = strchr(s, '(');
		if (!lp || !rp)
			return utrace_error_set(c->err, -EINVAL, "bad dereference %s", s);
		snprintf(num, sizeof(num), "%s%.*s", s[0] == '-' ? "-" : "",
			 (int)(lp - s - 1 - (s[1] == 'u')), s + 1 + (s[1] == 'u'));
		if (!upr_strtol(num, 0, &off))
			return utrace_error_set(c->err, -EINVAL, "bad offset in %s", s);
		*rp = 0;
		if ((k = ipp_fetch(c, lp + 1)) < 0)
			return k;
		if (k == IPP_MEM && ipp_emit(c, UTRACE_XOP_DEREF, 0, 0) < 0)
			return -E2BIG;
		return ipp_emit(c, UTRACE_XOP_ADD, 0, off) ?: IPP_MEM;
	} else if (s[0] == '\\' && s[1] == '"') {
		size_t len = strlen(s + 2) - 1; /* without the closing quote */

		if (len > 255 || c->ndata + len > sizeof(c->data))
			return utrace_error_set(c->err, -E2BIG, "string constant too long");
		memcpy(c->data + c->ndata, s + 2, len);
		c->ins[c->n].shl = (uint8_t)len;
		c->ins[c->n].imm = c->ndata; /* kept for the store */
		c->ndata += (uint32_t)len;
		return IPP_DATA;
	} else if (s[0] == '\\') {
		int64_t v;

		if (upr_strtol(s + 1, 0, &v) || upr_strtoul(s + 1, 0, (uint64_t *)&v))
			return ipp_emit(c, UTRACE_XOP_IMM, 0, v) ?: IPP_VAL;
	}
	return utrace_error_set(c->err, -EINVAL, "cannot compile fetcharg %s", s);
}

/* The store of one argument at dst. */
static int ipp_store(struct ipp_cc *c, int kind, const struct ipp_argtype *at, unsigned dst)
{
	struct utrace_fetch_insn st = {.dst = (uint16_t)dst, .size = at->t->size};

	if (kind == IPP_DATA) {
		st = c->ins[c->n]; /* its constant, noted by ipp_fetch */
		st.op = UTRACE_XOP_ST_DATA;
		st.dst = (uint16_t)dst;
		st.size = 4;
	} else if (kind == IPP_COMM) {
		st.op = UTRACE_XOP_ST_COMM;
	} else if (at->t->string) {
		st.op = UTRACE_XOP_ST_STR;
	} else if (at->count) {
		st.op = UTRACE_XOP_ST_ARRAY;
		st.imm = at->count;
	} else {
		st.op = kind == IPP_MEM ? UTRACE_XOP_ST_MEM : UTRACE_XOP_ST_INT;
		if (at->bits) {
			st.flags = UTRACE_XF_BITFIELD;
			st.shl = (uint8_t)(64 - at->bits - at->boff);
			st.shr = (uint8_t)(64 - at->bits);
		}
	}
	if (c->n >= UTRACE_FETCH_MAX_INSNS)
		return utrace_error_set(c->err, -E2BIG, "fetch program too long");
	c->ins[c->n++] = st;
	return 0;
}

static int ipp_compile_args(const struct utrace_inproc_probe *p, struct ipp_cc *c)
{
	unsigned off = ipp_first_arg(p);

	for (unsigned i = 0; i < p->u.nargs; i++) {
		struct ipp_argtype at;
		char buf[256];
		int kind;

		if (ipp_argtype(p->u.args[i].type, &at) < 0)
			return utrace_error_set(c->err, -EINVAL, "bad type %s", p->u.args[i].type);
		snprintf(buf, sizeof(buf), "%s", p->u.args[i].fetch);
		if ((kind = ipp_fetch(c, buf)) < 0 || ipp_store(c, kind, &at, off) < 0)
			return c->err->code;
		off += at.t->size * (at.count ? at.count : 1);
	}
	return (int)off;
}

int utrace_inproc_probe_compile(const struct utrace_inproc_probe *p, utrace_inproc_probe_sym_fn sym, void *arg,
			  void **prog, uint32_t *len, struct utrace_error *err)
{
	struct ipp_cc *c = calloc(1, sizeof(*c));
	struct utrace_fetch_hdr *h;
	uint32_t size;
	int fixed;

	*prog = NULL;
	if (!c)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	*c = (struct ipp_cc){.sym = sym, .arg = arg, .err = err};
	fixed = ipp_compile_args(p, c);
	if (fixed < 0 || fixed > (int)UTRACE_FETCH_REC_MAX) {
		free(c);
		return fixed < 0 ? fixed : utrace_error_set(err, -E2BIG, "record too large");
	}
	size = (uint32_t)(sizeof(*h) + c->n * sizeof(c->ins[0]) + ((c->ndata + 7) & ~7u));
	h = calloc(1, size);
	if (!h) {
		free(c);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	*h = (struct utrace_fetch_hdr){size, UTRACE_FETCH_MAGIC, c->n, (uint32_t)fixed};
	memcpy(h + 1, c->ins, c->n * sizeof(c->ins[0]));
	for (uint32_t i = 0; i < c->n; i++) /* constants follow the instructions */
		if (c->ins[i].op == UTRACE_XOP_ST_DATA)
			((struct utrace_fetch_insn *)(h + 1))[i].imm +=
			    (int64_t)(sizeof(*h) + c->n * sizeof(c->ins[0]));
	memcpy((uint8_t *)(h + 1) + c->n * sizeof(c->ins[0]), c->data, c->ndata);
	free(c);
	*prog = h;
	*len = size;
	return 0;
}
