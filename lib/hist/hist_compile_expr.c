/* SPDX-License-Identifier: MIT */
/*
 * hist_compile_expr.c - the compiler's instructions: emitting one, the
 * fields of the event and the expressions over them, and the keys
 * (numbers, strings, the stack), with the kernel's errors for a field
 * that is not there or a string in arithmetic (hist_compile.c says how
 * the parts of a program fit).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist/hist_compile_internal.h"

int hc_fail(struct hcomp *c, int code, unsigned pos, const char *what)
{
	int ret;

	*c->code = code;
	ret = utrace_error_set(c->err, -EINVAL, "%s%s%s", utrace_hist_err_text(code),
			       what ? ": " : "", what ? what : "");
	c->err->column = (int)pos + 1;
	return ret;
}

int hc_emit(struct hcomp *c, uint8_t op, uint8_t size, uint32_t off, uint64_t imm)
{
	struct utrace_hist_insn *in;

	if (c->n >= UTRACE_HIST_MAX_INSNS) {
		*c->code = -1;
		return utrace_error_set(c->err, -E2BIG, "hist trigger too large (%u instructions)",
					UTRACE_HIST_MAX_INSNS);
	}
	in = &c->insns[c->n++];
	memset(in, 0, sizeof(*in));
	in->op = op;
	in->size = size;
	in->off = off;
	in->imm = imm;
	return 0;
}

static bool hc_is(const struct utrace_hist_expr *e, const char *name)
{
	return e->op == UTRACE_HE_FIELD && !strcmp(e->name, name);
}

/* The value modifiers of a field, after its load. */
static int hc_mods(struct hcomp *c, const struct utrace_hist_expr *e)
{
	int ret = 0;

	if (e->mods & UTRACE_HIST_MOD_USECS)
		ret = hc_emit(c, UTRACE_HOP_USECS, 0, 0, 0);
	if (!ret && (e->mods & UTRACE_HIST_MOD_LOG2))
		ret = hc_emit(c, UTRACE_HOP_LOG2, 0, 0, 0);
	if (!ret && (e->mods & UTRACE_HIST_MOD_BUCKETS))
		ret = hc_emit(c, UTRACE_HOP_BUCKET, 0, 0, e->buckets);
	return ret;
}

/* A numeric field: pushes its value. */
int hc_field(struct hcomp *c, const struct utrace_hist_expr *e)
{
	const struct utrace_event_field *f;
	int ret;

	if (hc_is(e, "common_timestamp"))
		ret = hc_emit(c, UTRACE_HOP_TS, 0, 0, 0);
	else if (hc_is(e, "common_cpu") || hc_is(e, "cpu"))
		ret = hc_emit(c, UTRACE_HOP_CPU, 0, 0, 0);
	else if (hc_is(e, "common_comm") || hc_is(e, "hitcount"))
		return hc_fail(c, UTRACE_HIST_ERR_INVALID_STR_OPERAND, e->pos, e->name);
	else if (hc_is(e, "common_stacktrace") || hc_is(e, "stacktrace") ||
		 (e->mods & UTRACE_HIST_MOD_STACKTRACE))
		return hc_fail(c, UTRACE_HIST_ERR_HIST_CREATE_FAIL, e->pos,
			       "a stack trace can only be a key");
	else {
		f = utrace_event_field_find(c->fmt, e->name);
		if (!f)
			return hc_fail(c, UTRACE_HIST_ERR_FIELD_NOT_FOUND, e->pos, e->name);
		if (f->kind != UTRACE_EF_INT)
			return hc_fail(c, UTRACE_HIST_ERR_INVALID_STR_OPERAND, e->pos, e->name);
		ret = hc_emit(c, UTRACE_HOP_LOAD, (uint8_t)f->size, f->offset, f->is_signed);
	}
	return ret < 0 ? ret : hc_mods(c, e);
}

/* The trigger's own variable called name, -1 if none. */
int hc_own_var(const struct hcomp *c, const char *name)
{
	for (unsigned i = 0; i < c->spec->nr_vars; i++)
		if (!strcmp(c->spec->vars[i].name, name))
			return (int)i;
	return -1;
}

/* $name: pushes the own variable, or the other trigger's resolved one. */
int hc_ref(struct hcomp *c, const char *name, unsigned pos)
{
	int own = hc_own_var(c, name);

	if (own >= 0 && ((c->own_str | c->own_stack) >> own & 1))
		return hc_fail(c, UTRACE_HIST_ERR_INVALID_STR_OPERAND, pos, name);
	if (own >= 0) {
		int ret = hc_emit(c, UTRACE_HOP_VGET, 0, 0, 0);

		if (ret >= 0)
			c->insns[c->n - 1].key_off = utrace_hist_var_sum(c->spec, (unsigned)own);
		return ret;
	}
	for (uint32_t i = 0; i < c->nr_refs; i++) {
		if (strcmp(c->ref_name[i], name))
			continue;
		if ((c->ref_str | c->ref_stack) >> i & 1) /* only hc_pstr takes it */
			return hc_fail(c, UTRACE_HIST_ERR_INVALID_STR_OPERAND, pos, name);
		if (hc_emit(c, UTRACE_HOP_REF, 0, 0, 0) < 0)
			return -1;
		c->insns[c->n - 1].len = (uint16_t)i;
		return 0;
	}
	return hc_fail(c, UTRACE_HIST_ERR_VAR_NOT_FOUND, pos, name);
}

int hc_expr(struct hcomp *c, const struct utrace_hist_expr *e, unsigned depth)
{
	static const uint8_t ops[] = {
	    [UTRACE_HE_PLUS] = UTRACE_HOP_ADD,
	    [UTRACE_HE_MINUS] = UTRACE_HOP_SUB,
	    [UTRACE_HE_MULT] = UTRACE_HOP_MUL,
	    [UTRACE_HE_DIV] = UTRACE_HOP_DIV,
	    [UTRACE_HE_UMINUS] = UTRACE_HOP_NEG,
	};
	int ret;

	if (depth > UTRACE_HIST_STACK - 2)
		return hc_fail(c, UTRACE_HIST_ERR_TOO_MANY_SUBEXPR, e->pos, NULL);
	switch (e->op) {
	case UTRACE_HE_FIELD:
		return hc_field(c, e);
	case UTRACE_HE_CONST:
		return hc_emit(c, UTRACE_HOP_CONST, 0, 0, e->constant);
	case UTRACE_HE_VAR_REF:
		return hc_ref(c, e->name, e->pos + 1); /* the kernel's errpos(var_name) */
	default:
		break;
	}
	ret = hc_expr(c, e->l, depth + 1);
	if (ret >= 0 && e->op != UTRACE_HE_UMINUS)
		ret = hc_expr(c, e->r, depth + 1);
	return ret < 0 ? ret : hc_emit(c, ops[e->op], 0, 0, 0);
}

/* A string key: its bytes go into the key at width len. */
static int hc_string_key(struct hcomp *c, const struct utrace_hist_expr *e,
			 const struct utrace_event_field *f, struct utrace_hist_slot *slot)
{
	uint8_t op;
	uint32_t w;
	int ret;

	if (!f) {
		op = UTRACE_HOP_COMM;
		w = 16;
	} else if (f->kind == UTRACE_EF_CHARS) {
		op = UTRACE_HOP_STR; /* size 0 (char name[]): the rest of the record */
		w = f->size && f->size < UTRACE_HIST_STR_MAX ? f->size : UTRACE_HIST_STR_MAX;
	} else {
		op = UTRACE_HOP_DYNSTR;
		w = UTRACE_HIST_STR_MAX;
	}
	if (e->mods)
		return hc_fail(c, UTRACE_HIST_ERR_BAD_FIELD_MODIFIER, e->pos, e->name);
	w = (w + 7) & ~7u;
	if (c->key_size + w > UTRACE_HIST_KEY_MAX)
		return hc_fail(c, UTRACE_HIST_ERR_HIST_CREATE_FAIL, e->pos, "key too large");
	/* STR: imm is the array's size; DYNSTR: off is the __data_loc word's */
	ret = hc_emit(c, op, 0, f ? f->offset : 0, f ? f->size : 0);
	if (ret < 0)
		return ret;
	c->insns[c->n - 1].len = (uint16_t)w;
	c->insns[c->n - 1].key_off = c->key_size;
	slot->kind = UTRACE_HSLOT_STR;
	slot->off = c->key_size;
	slot->len = w;
	c->key_size += w;
	return 0;
}

/* common_stacktrace (stacktrace): the user stack of the hit, up to the
 * kernel's HIST_STACKTRACE_DEPTH (16) frames, from the runtime (STACK). */
static int hc_stack_key(struct hcomp *c, const struct utrace_hist_expr *e,
			struct utrace_hist_slot *slot)
{
	uint32_t w = 16 * 8;
	int ret;

	if (c->key_size + w > UTRACE_HIST_KEY_MAX)
		return hc_fail(c, UTRACE_HIST_ERR_HIST_CREATE_FAIL, e->pos, "key too large");
	ret = hc_emit(c, UTRACE_HOP_STACK, 0, 0, 0);
	if (ret < 0)
		return ret;
	c->insns[c->n - 1].len = (uint16_t)w;
	c->insns[c->n - 1].key_off = c->key_size;
	slot->kind = UTRACE_HSLOT_NUM; /* len / 8 addresses (hist.h) */
	slot->off = c->key_size;
	slot->len = w;
	c->key_size += w;
	return 0;
}

int hc_key(struct hcomp *c, const struct utrace_hist_expr *e, struct utrace_hist_slot *slot)
{
	const struct utrace_event_field *f = NULL;
	int ret;

	if (e->op == UTRACE_HE_FIELD && hc_is(e, "hitcount"))
		return hc_fail(c, UTRACE_HIST_ERR_INVALID_SORT_FIELD, e->pos, "hitcount as a key");
	if (e->op == UTRACE_HE_VAR_REF)
		return hc_fail(c, UTRACE_HIST_ERR_INVALID_REF_KEY, e->pos, NULL);
	if (e->op == UTRACE_HE_FIELD && hc_is(e, "common_comm"))
		return hc_string_key(c, e, NULL, slot);
	if (e->op == UTRACE_HE_FIELD && (hc_is(e, "common_stacktrace") || hc_is(e, "stacktrace")))
		return hc_stack_key(c, e, slot);
	if (e->op == UTRACE_HE_FIELD)
		f = utrace_event_field_find(c->fmt, e->name);
	if (f && (f->kind == UTRACE_EF_CHARS || f->kind == UTRACE_EF_STRING))
		return hc_string_key(c, e, f, slot);
	ret = hc_expr(c, e, 0);
	if (ret < 0)
		return ret;
	if (c->key_size + 8 > UTRACE_HIST_KEY_MAX)
		return hc_fail(c, UTRACE_HIST_ERR_HIST_CREATE_FAIL, e->pos, "key too large");
	ret = hc_emit(c, UTRACE_HOP_KEY, 0, 0, 0);
	if (ret < 0)
		return ret;
	c->insns[c->n - 1].key_off = c->key_size;
	slot->kind = UTRACE_HSLOT_NUM;
	slot->off = c->key_size;
	slot->len = 8;
	slot->is_signed = f && f->is_signed;
	c->key_size += 8;
	return 0;
}
