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

#include "lib/events/event_filter.h"
#include "lib/hist/hist_compile_internal.h"

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

/* What a variable's VARSTR takes (in's size, off, imm): a string field
 * (1), the stack (2), another trigger's string or stack variable (1, 2);
 * 0: a number. */
static int hc_var_src(struct hcomp *c, const struct utrace_hist_expr *e,
		      struct utrace_hist_insn *in)
{
	uint32_t w;

	if (e->op == UTRACE_HE_FIELD && (!strcmp(e->name, "common_stacktrace") ||
					 !strcmp(e->name, "stacktrace"))) {
		in->size = UTRACE_HSTR_STACK;
		return 2;
	}
	if (e->op == UTRACE_HE_VAR_REF && hc_own_var(c, e->name) < 0) {
		for (uint32_t i = 0; i < c->nr_refs; i++)
			if (!strcmp(c->ref_name[i], e->name) &&
			    ((c->ref_str | c->ref_stack) >> i & 1)) {
				in->size = UTRACE_HSTR_REF;
				in->off = i;
				return c->ref_stack >> i & 1 ? 2 : 1;
			}
		return 0;
	}
	if (e->op != UTRACE_HE_FIELD || e->mods)
		return 0;
	hc_str_src(c, e->name, in, &w);
	return w ? 1 : 0;
}

/* A string or stack variable (name=a string field, common_stacktrace,
 * or $another's of those: the kernel's string and stacktrace vars):
 * VARSTR of its bytes, then the sum they will be in as its value, which
 * hc_str_place sets once the actions have taken theirs. */
static int hc_var_str(struct hcomp *c, const struct utrace_hist_var *v, unsigned i)
{
	struct utrace_hist_insn in = {.op = UTRACE_HOP_VARSTR};
	int kind = hc_var_src(c, v->expr, &in);

	if (!kind)
		return 0;
	if (hc_emit(c, UTRACE_HOP_VARSTR, 0, 0, 0) < 0)
		return -1;
	in.len = UTRACE_HIST_STR_MAX; /* RESOLVE reads that many */
	c->insns[c->n - 1] = in;
	c->str_at[i] = c->n - 1;
	if (kind == 2)
		c->own_stack |= 1u << i;
	else
		c->own_str |= 1u << i;
	return hc_emit(c, UTRACE_HOP_CONST, 0, 0, 0) < 0 ? -1 : kind;
}

/* The string variables' bytes, after everything else of the element. */
static int hc_str_place(struct hcomp *c, const struct utrace_hist_spec *s)
{
	for (unsigned i = 0; i < s->nr_vars; i++) {
		if (!((c->own_str | c->own_stack) >> i & 1))
			continue;
		if (c->nr_sums + UTRACE_HIST_STR_MAX / 8 > UTRACE_HIST_SUMS_MAX)
			return hc_fail(c, UTRACE_HIST_ERR_TOO_MANY_VARS, s->vars[i].pos, NULL);
		c->insns[c->str_at[i]].key_off = c->nr_sums;
		c->insns[c->str_at[i] + 1].imm = c->nr_sums;
		c->nr_sums += UTRACE_HIST_STR_MAX / 8;
	}
	return 0;
}

/* The variables, after the values: each one's expression (or a string
 * or stack variable's VARSTR), then VAR (size 1: a string's, 2: a
 * stack's). */
static int hc_vars(struct hcomp *c, const struct utrace_hist_spec *s)
{
	for (unsigned i = 0; i < s->nr_vars; i++) {
		int str = hc_var_str(c, &s->vars[i], i);

		if (str < 0 || (!str && hc_expr(c, s->vars[i].expr, 0) < 0) ||
		    hc_emit(c, UTRACE_HOP_VAR, (uint8_t)str, 0, 0) < 0)
			return -1;
		c->insns[c->n - 1].key_off = utrace_hist_var_sum(s, i);
		c->insns[c->n - 1].reserved = utrace_hist_var_bitmap(s);
		c->insns[c->n - 1].imm = 1ull << i;
	}
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
	return hc_str_place(c, s);
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

/* The size of the VAR of the variable at sum: 0 a number, 1 a string,
 * 2 a stack. */
static unsigned hc_var_kind(const void *prog, unsigned sum)
{
	const struct utrace_hist_hdr *h = prog;
	const struct utrace_hist_insn *in = utrace_hist_insns(h);

	for (uint32_t i = 0; i < h->nr_insns; i++)
		if (in[i].op == UTRACE_HOP_VAR && in[i].key_off == sum)
			return in[i].size;
	return 0;
}

bool utrace_hist_var_is_str(const void *prog, unsigned sum)
{
	return hc_var_kind(prog, sum) == 1;
}

bool utrace_hist_var_is_stack(const void *prog, unsigned sum)
{
	return hc_var_kind(prog, sum) == 2;
}

int utrace_hist_compile(const struct utrace_hist_spec *s, const struct utrace_event_format *fmt,
			void **prog, uint32_t *len, int *code, struct utrace_error *err)
{
	return utrace_hist_compile_env(s, fmt, NULL, prog, len, code, err);
}
