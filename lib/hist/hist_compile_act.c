/* SPDX-License-Identifier: MIT */
/*
 * hist_compile_act.c - the parts of a hist program that reach outside its
 * own element: the resolve part (RESOLVE of another trigger's variable,
 * found through the caller's env) and the action part (onmatch()'s
 * EMIT of a synthetic event, onmax()/onchange()'s TRACK with save(),
 * snapshot() or trace()), as hist_compile.c's comment shows them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist/hist_compile_internal.h"

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
	/* the other table is looked up with the first bytes of this
	 * trigger's key, its own key's size of them (the kernel's
	 * tracing_map_lookup() of var_data->map): its keys must be this
	 * trigger's first keys ("pid" for "pid,lat"), or the lookup could
	 * never find anything */
	if (v.key_size > c->key_size || v.nr_keys > c->spec->nr_keys || v.nr_keys > 3 ||
	    (v.nr_keys < c->spec->nr_keys && c->slots[v.nr_keys].off < v.key_size))
		return hc_fail(c, UTRACE_HIST_ERR_HIST_NOT_FOUND, pos, "its keys differ");
	for (unsigned k = 0; k < v.nr_keys; k++)
		if (v.slots[k].kind != c->slots[k].kind || v.slots[k].len != c->slots[k].len ||
		    v.slots[k].off != c->slots[k].off)
			return hc_fail(c, UTRACE_HIST_ERR_HIST_NOT_FOUND, pos, "its keys differ");
	if (c->nr_refs >= UTRACE_HIST_REFS_MAX)
		return hc_fail(c, UTRACE_HIST_ERR_TOO_MANY_VARS, pos, name);
	if (hc_emit(c, UTRACE_HOP_RESOLVE, v.str || v.stack ? 1 : 0, v.table, v.bit) < 0)
		return -1;
	if (v.str)
		c->ref_str |= 1u << c->nr_refs;
	if (v.stack)
		c->ref_stack |= 1u << c->nr_refs;
	c->insns[c->n - 1].key_off = v.sum;
	c->insns[c->n - 1].reserved = v.bitmap;
	c->insns[c->n - 1].len = (uint16_t)c->nr_refs;
	c->ref_name[c->nr_refs++] = name;
	return 0;
}

/* The $names of an expression; msys.mev: the onmatch() event of the
 * trigger, where the kernel's find_match_var() looks first. */
static int hc_resolve_expr(struct hcomp *c, const struct utrace_hist_expr *e, const char *msys,
			   const char *mev)
{
	if (!e)
		return 0;
	if (e->op == UTRACE_HE_VAR_REF)
		return hc_resolve_one(c, e->name, e->pos + 1, msys, mev);
	if (hc_resolve_expr(c, e->l, msys, mev) < 0)
		return -1;
	return hc_resolve_expr(c, e->r, msys, mev);
}

/* The variable an action's param names, as the kernel's
 * trace_action_create() splits it: "$v" gives "v", "SYS.EVENT.$v" (the
 * variable of a trigger of that event) "SYS.EVENT.v", kept in c for the
 * refs; NULL for a param that is no variable. */
static const char *hc_param_var(struct hcomp *c, const char *p)
{
	const char *d = strstr(p, ".$"), *d1 = strchr(p, '.');

	if (p[0] == '$')
		return p + 1;
	if (!d || d1 == d || strchr(d1 + 1, '.') != d || !d[2])
		return NULL;
	for (uint32_t i = 0; i < c->nr_qual; i++)
		if (!strncmp(c->qual[i], p, (size_t)(d - p)) && c->qual[i][d - p] == '.' &&
		    !strcmp(c->qual[i] + (d - p) + 1, d + 2))
			return c->qual[i];
	if (c->nr_qual == UTRACE_HIST_REFS_MAX ||
	    (size_t)snprintf(c->qual[c->nr_qual], sizeof(c->qual[0]), "%.*s.%s", (int)(d - p), p,
			     d + 2) >= sizeof(c->qual[0]))
		return NULL;
	return c->qual[c->nr_qual++];
}

/* A field variable (the kernel's trace_action_create_field_var): a param
 * of onmatch() that is no variable, number or field of this event but a
 * field of another ("sched.sched_waking.prio", or "prio" of the onmatch()
 * event) is read from the variable "synthetic_FIELD" of a trigger of that
 * event (the tracefs adds it, keyed as that event's first hist trigger,
 * as the kernel's create_field_var_hist): "SYS.EVENT.synthetic_FIELD",
 * kept in c, or NULL. */
static const char *hc_field_var(struct hcomp *c, const struct utrace_hist_action *a, const char *p)
{
	const char *d1 = strchr(p, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
	char *end;

	if (a->handler != UTRACE_HIST_ONMATCH || strchr(p, '$') || !a->match_event ||
	    (strtoull(p, &end, 0), end != p && !*end) || utrace_event_field_find(c->fmt, p) ||
	    !strncmp(p, "common_", 7) || !strcmp(p, "cpu") || (d1 && !d2) ||
	    c->nr_qual == UTRACE_HIST_REFS_MAX)
		return NULL;
	if ((d2 ? (size_t)snprintf(c->qual[c->nr_qual], sizeof(c->qual[0]), "%.*s.synthetic_%s",
				   (int)(d2 - p), p, d2 + 1)
		: (size_t)snprintf(c->qual[c->nr_qual], sizeof(c->qual[0]), "%s.%s.synthetic_%s",
				   a->match_system, a->match_event, p)) >= sizeof(c->qual[0]))
		return NULL;
	for (uint32_t i = 0; i < c->nr_qual; i++)
		if (!strcmp(c->qual[i], c->qual[c->nr_qual]))
			return c->qual[i];
	return c->qual[c->nr_qual++];
}

/* The resolve part: every $name of the values, variables and actions
 * that is another trigger's, looked up before the element is. */
int hc_resolve(struct hcomp *c, const struct utrace_hist_spec *s)
{
	const char *msys = NULL, *mev = NULL;

	for (unsigned i = 0; i < s->nr_actions && !mev; i++)
		if (s->actions[i].handler == UTRACE_HIST_ONMATCH) {
			msys = s->actions[i].match_system;
			mev = s->actions[i].match_event;
		}
	for (unsigned j = 0; j < s->nr_vals; j++)
		if (hc_resolve_expr(c, s->vals[j], msys, mev) < 0)
			return -1;
	for (unsigned i = 0; i < s->nr_vars; i++)
		if (hc_resolve_expr(c, s->vars[i].expr, msys, mev) < 0)
			return -1;
	for (unsigned i = 0; i < s->nr_actions; i++) {
		const struct utrace_hist_action *a = &s->actions[i];

		for (unsigned k = 0; k < a->nr_params; k++) {
			const char *v = hc_param_var(c, a->params[k]);
			bool field = !v && (v = hc_field_var(c, a, a->params[k]));

			if (v && hc_resolve_one(c, v, a->pos, a->match_system, a->match_event) < 0)
				/* no such field there either: the param is not found */
				return field ? hc_fail(c, UTRACE_HIST_ERR_PARAM_NOT_FOUND, a->pos,
						       a->params[k])
					     : -1;
		}
	}
	return 0;
}

/* One param of an action: $variable (or SYS.EVENT.$variable), a number,
 * or a field of the event. */
static int hc_param(struct hcomp *c, const struct utrace_hist_action *a, const char *p)
{
	struct utrace_hist_expr e = {.op = UTRACE_HE_FIELD, .name = (char *)p, .pos = a->pos};
	const char *var = hc_param_var(c, p);
	char *end;
	unsigned long long v;

	if (var || (var = hc_field_var(c, a, p)))
		return hc_ref(c, var, a->pos);
	v = strtoull(p, &end, 0);
	if (end != p && !*end)
		return hc_emit(c, UTRACE_HOP_CONST, 0, 0, v);
	if (!utrace_event_field_find(c->fmt, p) && strcmp(p, "common_timestamp") &&
	    strcmp(p, "common_cpu") && strcmp(p, "cpu"))
		return hc_fail(c, UTRACE_HIST_ERR_PARAM_NOT_FOUND, a->pos, p);
	return hc_field(c, &e);
}

void hc_str_src(struct hcomp *c, const char *p, struct utrace_hist_insn *in, uint32_t *w)
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
		*w = f->size && f->size < UTRACE_HIST_STR_MAX ? f->size : UTRACE_HIST_STR_MAX;
	} else if (f && f->kind == UTRACE_EF_STRING) {
		in->size = UTRACE_HSTR_DYN;
		in->off = f->offset;
		*w = UTRACE_HIST_STR_MAX;
	}
}

/* A param that is a string or stack variable (another trigger's, which
 * RESOLVE made an address, or this one's, whose sum says where): in's
 * size and off; 1 a string, 2 a stack, 0 none. */
static int hc_pvar(struct hcomp *c, const char *var, struct utrace_hist_insn *in)
{
	int own = var ? hc_own_var(c, var) : -1;

	if (own >= 0 && ((c->own_str | c->own_stack) >> own & 1)) {
		in->size = UTRACE_HSTR_OWN;
		in->off = utrace_hist_var_sum(c->spec, (unsigned)own);
		return c->own_stack >> own & 1 ? 2 : 1;
	}
	for (uint32_t i = 0; var && own < 0 && i < c->nr_refs; i++)
		if (!strcmp(c->ref_name[i], var) && ((c->ref_str | c->ref_stack) >> i & 1)) {
			in->size = UTRACE_HSTR_REF;
			in->off = i;
			return c->ref_stack >> i & 1 ? 2 : 1;
		}
	return 0;
}

/* A string param of a synthetic event's string field k: a char[] takes
 * any string; a char[N] only a char[N] of the same N, as the kernel's
 * check_synth_field(); an unsigned long[] only a stack variable. */
static int hc_pstr(struct hcomp *c, const struct utrace_hist_action *a, unsigned k,
		   const struct utrace_hist_synth_info *si)
{
	struct utrace_hist_insn in = {.op = UTRACE_HOP_PSTR};
	bool dyn = si->str[k] == UTRACE_HIST_SYNTH_DYNSTR, stack = si->str[k] == UTRACE_HIST_SYNTH_STACK;
	const char *var = hc_param_var(c, a->params[k]);
	uint32_t w = 0;
	int kind;

	if (!var)
		var = hc_field_var(c, a, a->params[k]);
	kind = hc_pvar(c, var, &in);
	if (kind)
		w = (kind == 2) == stack && (dyn || stack) ? UTRACE_HIST_STR_MAX : 0;
	else if (!var && !stack)
		hc_str_src(c, a->params[k], &in, &w);
	if (!w || (!dyn && !stack && (in.size != UTRACE_HSTR_CHARS || in.imm != si->str[k])))
		return hc_fail(c, UTRACE_HIST_ERR_SYNTH_TYPE_MISMATCH, a->param_pos[k],
			       a->params[k]);
	if (hc_emit(c, UTRACE_HOP_PSTR, 0, 0, 0) < 0)
		return -1;
	in.len = si->word[k];
	in.reserved = stack ? 2 : dyn;
	in.key_off = dyn || stack ? si->words : si->str[k];
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
int hc_actions(struct hcomp *c, const struct utrace_hist_spec *s)
{
	c->nr_sums = utrace_hist_save_sum(s);
	for (unsigned i = 0; i < s->nr_actions; i++)
		if ((s->actions[i].handler == UTRACE_HIST_ONMATCH ? hc_trace(c, &s->actions[i])
								 : hc_track(c, s, i)) < 0)
			return -1;
	return 0;
}
