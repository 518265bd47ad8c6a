/* SPDX-License-Identifier: MIT */
/*
 * hist_compile.c - a parsed hist trigger (hist.h) and the format of the
 * event it is attached to, compiled into the program of
 * common/hist_prog.h that the event's writer runs on every hit.
 *
 * This is where names meet the event: each key and value names fields of
 * the format, and the kernel's errors for a field that is not there, a
 * string in arithmetic or a sort key that is neither a key nor a value
 * are found here, with their columns.  Keys come first in the program,
 * then the values:
 *
 *   key i:   <expression>  KEY off_i          (a number: 8 bytes)
 *            STR/DYNSTR/COMM off_i width      (a string: its width)
 *            STACK off_i 128                  (common_stacktrace: 16 frames)
 *   value j: <expression>  SUM sum_j          (hitcount is sum 0, implicit)
 *
 * An expression is a field, a special field (common_timestamp, common_cpu),
 * a constant, or + - * / of expressions, with the field's modifiers that
 * change its value (.usecs, .log2, .buckets=N) applied right after it;
 * the others (.hex, .sym, .execname, ...) only change how it is printed.
 *
 * Variables (ts0=expr) are computed after the values and stored in the
 * element (VAR).  A $name that is not one of the trigger's own variables
 * (VGET) is another trigger's, found through the caller's env: each one
 * gets a RESOLVE right after the key part and is read with REF.  An
 * onmatch(sys.event).synth(params) or .trace(synth,params) action
 * computes its params (a $variable, a field of the event or a number)
 * and EMITs the synthetic event.  onmax($v) and onchange($v) read the
 * variable (VGET) and TRACK it in a sum of the element; their action
 * follows, skipped by TRACK when the value is not new:
 *
 *   onmax($lat).save(comm,prio):  VGET lat; TRACK max sum 4 skip 2;
 *                                 SAVESTR comm -> sums 5..6; LOAD prio; SAVE 7
 *   onchange($v).snapshot():      VGET v; TRACK change sum 4 skip 1; SNAPSHOT 5
 *   onmax($lat).trace(s,$lat):    VGET lat; TRACK ...; VGET lat; PARAM 0; EMIT
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist_prog.h"
#include "lib/events/event_filter.h"
#include "lib/hist/hist_compile.h"

struct hcomp {
	struct utrace_hist_insn insns[UTRACE_HIST_MAX_INSNS];
	uint32_t n;
	uint32_t key_size;
	uint32_t nr_sums;
	const struct utrace_event_format *fmt;
	const struct utrace_hist_spec *spec;
	const struct utrace_hist_env *env;
	const char *ref_name[UTRACE_HIST_REFS_MAX]; /* refs[i] holds $ref_name[i] */
	uint32_t nr_refs;
	struct utrace_hist_slot slots[3];
	uint32_t key_insns, resolve_insns, action_insns;
	int *code;
	struct utrace_error *err;
};

static int hc_fail(struct hcomp *c, int code, unsigned pos, const char *what)
{
	int ret;

	*c->code = code;
	ret = utrace_error_set(c->err, -EINVAL, "%s%s%s", utrace_hist_err_text(code),
			       what ? ": " : "", what ? what : "");
	c->err->column = (int)pos + 1;
	return ret;
}

static int hc_emit(struct hcomp *c, uint8_t op, uint8_t size, uint32_t off, uint64_t imm)
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
static int hc_field(struct hcomp *c, const struct utrace_hist_expr *e)
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
static int hc_own_var(const struct hcomp *c, const char *name)
{
	for (unsigned i = 0; i < c->spec->nr_vars; i++)
		if (!strcmp(c->spec->vars[i].name, name))
			return (int)i;
	return -1;
}

/* $name: pushes the own variable, or the other trigger's resolved one. */
static int hc_ref(struct hcomp *c, const char *name, unsigned pos)
{
	int own = hc_own_var(c, name);

	if (own >= 0) {
		int ret = hc_emit(c, UTRACE_HOP_VGET, 0, 0, 0);

		if (ret >= 0)
			c->insns[c->n - 1].key_off = utrace_hist_var_sum(c->spec, (unsigned)own);
		return ret;
	}
	for (uint32_t i = 0; i < c->nr_refs; i++) {
		if (strcmp(c->ref_name[i], name))
			continue;
		if (hc_emit(c, UTRACE_HOP_REF, 0, 0, 0) < 0)
			return -1;
		c->insns[c->n - 1].len = (uint16_t)i;
		return 0;
	}
	return hc_fail(c, UTRACE_HIST_ERR_VAR_NOT_FOUND, pos, name);
}

static int hc_expr(struct hcomp *c, const struct utrace_hist_expr *e, unsigned depth)
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
		op = UTRACE_HOP_STR;
		w = f->size < UTRACE_HIST_STR_MAX ? f->size : UTRACE_HIST_STR_MAX;
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

static int hc_key(struct hcomp *c, const struct utrace_hist_expr *e, struct utrace_hist_slot *slot)
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

/* The name a key or value is sorted by: its field's name, or for an
 * expression its text is not known here, so only fields can be sorted. */
static bool hc_sort_known(const struct utrace_hist_spec *s, const char *name)
{
	if (!strcmp(name, "hitcount"))
		return true;
	for (unsigned i = 0; i < s->nr_keys; i++)
		if (s->keys[i]->op == UTRACE_HE_FIELD && !strcmp(s->keys[i]->name, name))
			return true;
	for (unsigned i = 0; i < s->nr_vals; i++)
		if (s->vals[i]->op == UTRACE_HE_FIELD && !strcmp(s->vals[i]->name, name))
			return true;
	return false;
}

static int hc_check(struct hcomp *c, const struct utrace_hist_spec *s)
{
	unsigned snaps = 0;

	for (unsigned i = 0; i < s->nr_actions; i++) {
		const struct utrace_hist_action *a = &s->actions[i];

		/* the kernel's tracing_snapshot_cond_enable(): one conditional
		 * snapshot per instance, -EBUSY for another, no error_log text */
		if (a->kind == UTRACE_HIST_ACT_SNAPSHOT && snaps++) {
			*c->code = -1;
			utrace_error_set(c->err, -EBUSY, "Device or resource busy: only one "
							 "snapshot() action");
			c->err->column = (int)a->pos + 1;
			return -EBUSY;
		}
	}
	for (unsigned i = 0; i < s->nr_sort; i++)
		if (!hc_sort_known(s, s->sort[i].name))
			return hc_fail(c, UTRACE_HIST_ERR_INVALID_SORT_FIELD, s->sort[i].pos,
				       s->sort[i].name);
	if (!s->nr_keys)
		return hc_fail(c, UTRACE_HIST_ERR_HIST_CREATE_FAIL, 0, "no keys");
	return 0;
}

static int hc_values(struct hcomp *c, const struct utrace_hist_spec *s)
{
	c->nr_sums = 1;
	for (unsigned j = 0; j < s->nr_vals; j++) {
		unsigned sum = utrace_hist_val_sum(s, j);
		int ret;

		if (!sum)
			continue;
		ret = hc_expr(c, s->vals[j], 0);
		if (ret < 0)
			return ret;
		ret = hc_emit(c, UTRACE_HOP_SUM, 0, 0, 0);
		if (ret < 0)
			return ret;
		c->insns[c->n - 1].key_off = sum;
		if (sum + 1 > c->nr_sums)
			c->nr_sums = sum + 1;
	}
	return 0;
}

/* The variables, after the values: each one's expression, then VAR. */
static int hc_vars(struct hcomp *c, const struct utrace_hist_spec *s)
{
	for (unsigned i = 0; i < s->nr_vars; i++) {
		if (hc_expr(c, s->vars[i].expr, 0) < 0 || hc_emit(c, UTRACE_HOP_VAR, 0, 0, 0) < 0)
			return -1;
		c->insns[c->n - 1].key_off = utrace_hist_var_sum(s, i);
		c->insns[c->n - 1].reserved = utrace_hist_var_bitmap(s);
		c->insns[c->n - 1].imm = 1ull << i;
	}
	return 0;
}

/* One RESOLVE for another trigger's variable, once per name. */
static int hc_resolve_one(struct hcomp *c, const char *name, unsigned pos, const char *msys,
			  const char *mev)
{
	struct utrace_hist_var_info v = {0};
	int code;

	if (hc_own_var(c, name) >= 0)
		return 0;
	for (uint32_t i = 0; i < c->nr_refs; i++)
		if (!strcmp(c->ref_name[i], name))
			return 0;
	if (!c->env || !c->env->var)
		return hc_fail(c, UTRACE_HIST_ERR_VAR_NOT_FOUND, pos, name);
	code = c->env->var(c->env->arg, name, msys, mev, &v);
	if (code)
		return hc_fail(c, code, pos, name);
	/* the other table is looked up with this trigger's key: the same
	 * layout, or the lookup could never find anything */
	if (v.key_size != c->key_size || v.nr_keys != c->spec->nr_keys)
		return hc_fail(c, UTRACE_HIST_ERR_HIST_NOT_FOUND, pos, "its keys differ");
	for (unsigned k = 0; k < v.nr_keys && k < 3; k++)
		if (v.slots[k].kind != c->slots[k].kind || v.slots[k].len != c->slots[k].len ||
		    v.slots[k].off != c->slots[k].off)
			return hc_fail(c, UTRACE_HIST_ERR_HIST_NOT_FOUND, pos, "its keys differ");
	if (c->nr_refs >= UTRACE_HIST_REFS_MAX)
		return hc_fail(c, UTRACE_HIST_ERR_TOO_MANY_VARS, pos, name);
	if (hc_emit(c, UTRACE_HOP_RESOLVE, 0, v.table, v.bit) < 0)
		return -1;
	c->insns[c->n - 1].key_off = v.sum;
	c->insns[c->n - 1].reserved = v.bitmap;
	c->insns[c->n - 1].len = (uint16_t)c->nr_refs;
	c->ref_name[c->nr_refs++] = name;
	return 0;
}

static int hc_resolve_expr(struct hcomp *c, const struct utrace_hist_expr *e)
{
	if (!e)
		return 0;
	if (e->op == UTRACE_HE_VAR_REF)
		return hc_resolve_one(c, e->name, e->pos + 1, NULL, NULL);
	if (hc_resolve_expr(c, e->l) < 0)
		return -1;
	return hc_resolve_expr(c, e->r);
}

/* The resolve part: every $name of the values, variables and actions
 * that is another trigger's, looked up before the element is. */
static int hc_resolve(struct hcomp *c, const struct utrace_hist_spec *s)
{
	for (unsigned j = 0; j < s->nr_vals; j++)
		if (hc_resolve_expr(c, s->vals[j]) < 0)
			return -1;
	for (unsigned i = 0; i < s->nr_vars; i++)
		if (hc_resolve_expr(c, s->vars[i].expr) < 0)
			return -1;
	for (unsigned i = 0; i < s->nr_actions; i++) {
		const struct utrace_hist_action *a = &s->actions[i];

		for (unsigned k = 0; k < a->nr_params; k++)
			if (a->params[k][0] == '$' &&
			    hc_resolve_one(c, a->params[k] + 1, a->pos, a->match_system,
					   a->match_event) < 0)
				return -1;
	}
	return 0;
}

/* One param of an action: $variable, a number, or a field of the event. */
static int hc_param(struct hcomp *c, const struct utrace_hist_action *a, const char *p)
{
	struct utrace_hist_expr e = {.op = UTRACE_HE_FIELD, .name = (char *)p, .pos = a->pos};
	char *end;
	unsigned long long v;

	if (p[0] == '$')
		return hc_ref(c, p + 1, a->pos);
	v = strtoull(p, &end, 0);
	if (end != p && !*end)
		return hc_emit(c, UTRACE_HOP_CONST, 0, 0, v);
	if (!utrace_event_field_find(c->fmt, p) && strcmp(p, "common_timestamp") &&
	    strcmp(p, "common_cpu") && strcmp(p, "cpu"))
		return hc_fail(c, UTRACE_HIST_ERR_PARAM_NOT_FOUND, a->pos, p);
	return hc_field(c, &e);
}

/* A field p save()d or handed to a synthetic event: if it is a string,
 * where SAVESTR or PSTR takes it from (in's size, off, imm) and its width
 * in w; w 0 for a number. */
static void hc_str_src(struct hcomp *c, const char *p, struct utrace_hist_insn *in, uint32_t *w)
{
	const struct utrace_event_field *f = utrace_event_field_find(c->fmt, p);

	*w = 0;
	if (!strcmp(p, "common_comm")) {
		in->size = UTRACE_HSTR_COMM;
		*w = 16;
	} else if (f && f->kind == UTRACE_EF_CHARS) {
		in->size = UTRACE_HSTR_CHARS;
		in->off = f->offset;
		in->imm = f->size;
		*w = f->size < UTRACE_HIST_STR_MAX ? f->size : UTRACE_HIST_STR_MAX;
	} else if (f && f->kind == UTRACE_EF_STRING) {
		in->size = UTRACE_HSTR_DYN;
		in->off = f->offset;
		*w = UTRACE_HIST_STR_MAX;
	}
}

/* A string param of a synthetic event's string field k: a char[] takes
 * any string; a char[N] only a char[N] of the same N, as the kernel's
 * check_synth_field(). */
static int hc_pstr(struct hcomp *c, const struct utrace_hist_action *a, unsigned k,
		   const struct utrace_hist_synth_info *si)
{
	struct utrace_hist_insn in = {.op = UTRACE_HOP_PSTR};
	bool dyn = si->str[k] == UTRACE_HIST_SYNTH_DYNSTR;
	uint32_t w;

	hc_str_src(c, a->params[k], &in, &w);
	if (!w || (!dyn && (in.size != UTRACE_HSTR_CHARS || in.imm != si->str[k])))
		return hc_fail(c, UTRACE_HIST_ERR_SYNTH_TYPE_MISMATCH, a->param_pos[k],
			       a->params[k]);
	if (hc_emit(c, UTRACE_HOP_PSTR, 0, 0, 0) < 0)
		return -1;
	in.len = si->word[k];
	in.reserved = dyn;
	in.key_off = dyn ? si->words : si->str[k];
	c->insns[c->n - 1] = in;
	return 0;
}

/* trace(synth, params) / synth(params): each param, then EMIT. */
static int hc_trace(struct hcomp *c, const struct utrace_hist_action *a)
{
	struct utrace_hist_synth_info si = {0};
	int code;

	if (!c->env || !c->env->synth)
		return hc_fail(c, UTRACE_HIST_ERR_SYNTH_EVENT_NOT_FOUND, a->pos, a->synth);
	code = c->env->synth(c->env->arg, a->synth, &si);
	if (code)
		return hc_fail(c, code, a->pos, a->synth);
	if (si.nr_fields != a->nr_params || si.nr_fields > UTRACE_HIST_PARAMS)
		return hc_fail(c, UTRACE_HIST_ERR_SYNTH_COUNT_MISMATCH, a->pos, a->synth);
	if (!si.words) /* numbers only, one word each */
		for (si.words = 0; si.words < si.nr_fields; si.words++)
			si.word[si.words] = (uint16_t)si.words;
	if (si.words > UTRACE_HIST_PARAM_WORDS)
		return hc_fail(c, UTRACE_HIST_ERR_SYNTH_TYPE_MISMATCH, a->pos, a->synth);
	for (unsigned k = 0; k < a->nr_params; k++) {
		if (si.str[k]) {
			if (hc_pstr(c, a, k, &si) < 0)
				return -1;
			continue;
		}
		if (hc_param(c, a, a->params[k]) < 0 || hc_emit(c, UTRACE_HOP_PARAM, 0, 0, 0) < 0)
			return -1;
		c->insns[c->n - 1].len = si.word[k];
	}
	if (hc_emit(c, UTRACE_HOP_EMIT, 0, si.id, 0) < 0)
		return -1;
	c->insns[c->n - 1].len = (uint16_t)si.words;
	return 0;
}

/* save(field, ...): each field into the element, after the tracked
 * values (utrace_hist_save_sum()), in the order written. */
static int hc_save(struct hcomp *c, const struct utrace_hist_action *a)
{
	for (unsigned k = 0; k < a->nr_params; k++) {
		const char *p = a->params[k];
		struct utrace_hist_insn in = {.op = UTRACE_HOP_SAVESTR};
		uint32_t w, words;

		hc_str_src(c, p, &in, &w);
		words = w ? (w + 7) / 8 : 1;
		if (c->nr_sums + words > UTRACE_HIST_SUMS_MAX)
			return hc_fail(c, UTRACE_HIST_ERR_FIELD_VAR_CREATE_FAIL, a->param_pos[k],
				       "the saved fields do not fit in an entry");
		if (w) {
			if (hc_emit(c, UTRACE_HOP_SAVESTR, 0, 0, 0) < 0)
				return -1;
			in.len = (uint16_t)(words * 8);
			in.key_off = c->nr_sums;
			c->insns[c->n - 1] = in;
		} else {
			struct utrace_hist_expr e = {
			    .op = UTRACE_HE_FIELD, .name = (char *)p, .pos = a->param_pos[k]};

			if (hc_field(c, &e) < 0 || hc_emit(c, UTRACE_HOP_SAVE, 0, 0, 0) < 0)
				return -1;
			c->insns[c->n - 1].key_off = c->nr_sums;
		}
		c->nr_sums += words;
	}
	return 0;
}

/* onmax($v) / onchange($v): the variable, TRACK, then its action, which
 * TRACK skips when the value is not new. */
static int hc_track(struct hcomp *c, const struct utrace_hist_spec *s, unsigned i)
{
	const struct utrace_hist_action *a = &s->actions[i];
	uint32_t track, start;
	int ret;

	if (hc_ref(c, a->var, a->pos) < 0 ||
	    hc_emit(c, UTRACE_HOP_TRACK, 0, 0, a->handler == UTRACE_HIST_ONCHANGE) < 0)
		return -1;
	track = c->n - 1;
	c->insns[track].key_off = utrace_hist_track_sum(s, i);
	start = c->n;
	if (a->kind == UTRACE_HIST_ACT_SAVE) {
		ret = hc_save(c, a);
	} else if (a->kind == UTRACE_HIST_ACT_SNAPSHOT) {
		ret = hc_emit(c, UTRACE_HOP_SNAPSHOT, 0, 0, a->handler == UTRACE_HIST_ONCHANGE);
		if (ret >= 0)
			c->insns[c->n - 1].key_off = utrace_hist_snap_sum(s);
	} else {
		ret = hc_trace(c, a);
	}
	c->insns[track].len = (uint16_t)(c->n - start);
	return ret;
}

/* The action part, each action in its order. */
static int hc_actions(struct hcomp *c, const struct utrace_hist_spec *s)
{
	c->nr_sums = utrace_hist_save_sum(s);
	for (unsigned i = 0; i < s->nr_actions; i++)
		if ((s->actions[i].handler == UTRACE_HIST_ONMATCH ? hc_trace(c, &s->actions[i])
								 : hc_track(c, s, i)) < 0)
			return -1;
	return 0;
}

/* The trigger's own filter (" if ..."), columns counted in the trigger. */
static int hc_filter(struct hcomp *c, const struct utrace_hist_spec *s, void **prog,
		     uint32_t *len)
{
	int code = 0, ret;

	*prog = NULL;
	*len = 0;
	if (!s->filter)
		return 0;
	ret = utrace_filter_compile_code(c->fmt, s->filter, prog, len, &code, c->err);
	if (ret < 0) {
		*c->code = -1;
		if (c->err->column > 0)
			c->err->column += (int)s->filter_pos;
	}
	return ret;
}

static void *hc_link(struct hcomp *c, const struct utrace_hist_spec *s, const void *filter,
		     uint32_t filter_len, uint32_t *len)
{
	uint32_t ilen = c->n * (uint32_t)sizeof(struct utrace_hist_insn);
	uint32_t size = (uint32_t)sizeof(struct utrace_hist_hdr) + ilen + filter_len;
	struct utrace_hist_hdr *h = aligned_alloc(8, (size + 7) & ~7u);

	if (!h)
		return NULL;
	memset(h, 0, (size + 7) & ~7u); /* the padding too: the program is saved whole */
	h->size = size;
	h->magic = UTRACE_HIST_MAGIC;
	h->version = UTRACE_HIST_VERSION;
	h->nr_insns = c->n;
	h->key_size = c->key_size;
	h->nr_sums = c->nr_sums;
	h->nr_keys = s->nr_keys;
	h->map_bits = s->map_bits ? s->map_bits : UTRACE_HIST_BITS_DEFAULT;
	h->filter_len = filter_len;
	for (uint32_t i = 0; i < c->n; i++)
		h->needs |= c->insns[i].op == UTRACE_HOP_TS	? UTRACE_HIST_NEEDS_TS
			    : c->insns[i].op == UTRACE_HOP_CPU	? UTRACE_HIST_NEEDS_CPU
			    : c->insns[i].op == UTRACE_HOP_COMM ? UTRACE_HIST_NEEDS_COMM
								: 0;
	memcpy(h + 1, c->insns, ilen);
	if (filter_len)
		memcpy((uint8_t *)(h + 1) + ilen, filter, filter_len);
	*len = size;
	return h;
}

/* The parts in their order: key, resolve, value and variables, action. */
static int hc_parts(struct hcomp *c, const struct utrace_hist_spec *s)
{
	uint32_t start;

	for (unsigned i = 0; i < s->nr_keys; i++)
		if (hc_key(c, s->keys[i], &c->slots[i]) < 0)
			return -1;
	c->key_insns = c->n;
	if (hc_resolve(c, s) < 0)
		return -1;
	c->resolve_insns = c->n - c->key_insns;
	if (hc_values(c, s) < 0 || hc_vars(c, s) < 0)
		return -1;
	c->nr_sums = utrace_hist_nr_sums(s);
	start = c->n;
	if (hc_actions(c, s) < 0)
		return -1;
	c->action_insns = c->n - start;
	return 0;
}

int utrace_hist_compile_env(const struct utrace_hist_spec *s, const struct utrace_event_format *fmt,
			    const struct utrace_hist_env *env, void **prog, uint32_t *len,
			    int *code, struct utrace_error *err)
{
	struct hcomp *c = calloc(1, sizeof(*c));
	void *filter = NULL;
	uint32_t filter_len = 0;
	int ret;

	*prog = NULL;
	*len = 0;
	*code = UTRACE_HIST_ERR_NONE;
	if (!c)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	c->fmt = fmt;
	c->spec = s;
	c->env = env;
	c->code = code;
	c->err = err;
	ret = hc_check(c, s);
	if (ret >= 0)
		ret = hc_parts(c, s) < 0 ? err->code : 0;
	if (ret >= 0 && c->nr_sums > UTRACE_HIST_SUMS_MAX)
		ret = hc_fail(c, UTRACE_HIST_ERR_TOO_MANY_VARS, s->vars[0].pos, NULL);
	if (ret >= 0)
		ret = hc_filter(c, s, &filter, &filter_len);
	if (ret >= 0) {
		struct utrace_hist_hdr *h = hc_link(c, s, filter, filter_len, len);

		if (!h) {
			ret = utrace_error_set(err, -ENOMEM, "out of memory");
		} else {
			h->nr_key_insns = c->key_insns;
			h->nr_resolve_insns = (uint16_t)c->resolve_insns;
			h->nr_action_insns = (uint16_t)c->action_insns;
			memcpy(h->slots, c->slots, sizeof(c->slots));
			*prog = h;
		}
	}
	free(filter);
	free(c);
	return ret;
}

int utrace_hist_compile(const struct utrace_hist_spec *s, const struct utrace_event_format *fmt,
			void **prog, uint32_t *len, int *code, struct utrace_error *err)
{
	return utrace_hist_compile_env(s, fmt, NULL, prog, len, code, err);
}
