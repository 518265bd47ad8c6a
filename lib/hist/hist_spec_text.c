/* SPDX-License-Identifier: MIT */
/*
 * hist_spec_text.c - a hist trigger as the kernel shows it back: the
 * first line of its hist file and its line in the event's trigger file
 * (event_hist_trigger_print() of kernel/trace/trace_events_hist.c: keys,
 * vals, variables, sort, size, clock, the actions and the filter, with
 * the defaults the kernel fills in), and the field a sort key names.
 */
#include <stdbool.h>
#include <string.h>

#include "lib/hist/hist_internal.h"

/* ---- the trigger info ----------------------------------------------- */

static int uses_timestamp(const struct utrace_hist_expr *e)
{
	return e && ((e->op == UTRACE_HE_FIELD && !strcmp(e->name, "common_timestamp")) ||
		     uses_timestamp(e->l) || uses_timestamp(e->r));
}

static int spec_uses_timestamp(const struct utrace_hist_spec *s)
{
	for (unsigned i = 0; i < s->nr_keys; i++)
		if (uses_timestamp(s->keys[i]))
			return 1;
	for (unsigned i = 0; i < s->nr_vals; i++)
		if (uses_timestamp(s->vals[i]))
			return 1;
	for (unsigned i = 0; i < s->nr_vars; i++)
		if (uses_timestamp(s->vars[i].expr))
			return 1;
	return 0;
}

/* The kernel's stack of the event ("stacktrace", "common_stacktrace"), as
 * opposed to a field of addresses with .stacktrace. */
int hist_is_special_stack(const struct utrace_hist_expr *e)
{
	return e->op == UTRACE_HE_FIELD && (e->mods & UTRACE_HIST_MOD_STACKTRACE) &&
	       (!strcmp(e->name, "stacktrace") || !strcmp(e->name, "common_stacktrace"));
}

/* The value or key a sort key names: hist_field_name(), values first. */
const struct utrace_hist_expr *hist_sort_field(const struct utrace_hist_spec *s, const char *name,
					      int *is_key, unsigned *idx)
{
	char buf[512];

	for (unsigned k = 0; k < s->nr_vals + s->nr_keys; k++) {
		const struct utrace_hist_expr *e = k < s->nr_vals ? s->vals[k]
								  : s->keys[k - s->nr_vals];
		struct hist_sb sb = {buf, sizeof(buf), 0};

		hist_name(&sb, e);
		if (sb.len < sizeof(buf) && !strcmp(buf, name)) {
			*is_key = k >= s->nr_vals;
			*idx = *is_key ? k - s->nr_vals : k;
			return e;
		}
	}
	return NULL;
}

/* print_onmatch_spec(), print_track_data_spec(), print_action_spec() */
static void print_action(struct hist_sb *sb, const struct utrace_hist_action *a)
{
	static const char *const handler[] = {"onmatch", "onmax", "onchange"};
	unsigned i = 0;

	if (a->handler == UTRACE_HIST_ONMATCH)
		hist_sb_printf(sb, ":onmatch(%s.%s).", a->match_system, a->match_event);
	else
		hist_sb_printf(sb, ":%s($%s).", handler[a->handler], a->var);
	if (a->kind == UTRACE_HIST_ACT_SAVE)
		hist_sb_printf(sb, "save(");
	else if (a->kind == UTRACE_HIST_ACT_SNAPSHOT)
		hist_sb_printf(sb, "snapshot(");
	else if (a->trace_keyword)
		hist_sb_printf(sb, "trace(%s%s", a->synth, a->nr_params ? "," : "");
	else
		hist_sb_printf(sb, "%s(", a->synth);
	for (; i < a->nr_params; i++)
		hist_sb_printf(sb, "%s%s", i ? "," : "", a->params[i]);
	hist_sb_printf(sb, ")");
}

int utrace_hist_spec_text(const struct utrace_hist_spec *s, char *buf, size_t n)
{
	struct hist_sb sb = {buf, n, 0};
	bool shown = false;

	if (n)
		buf[0] = '\0';
	hist_sb_printf(&sb, "hist:");
	if (s->name)
		hist_sb_printf(&sb, "name=%s:", s->name);
	hist_sb_printf(&sb, "keys=");
	for (unsigned i = 0; i < s->nr_keys; i++) {
		hist_sb_printf(&sb, "%s", i ? "," : "");
		if (hist_is_special_stack(s->keys[i]))
			hist_sb_printf(&sb, "common_stacktrace");
		else if (s->keys[i]->mods & UTRACE_HIST_MOD_STACKTRACE)
			hist_sb_printf(&sb, "%s.stacktrace", s->keys[i]->name);
		else
			hist_field_print(&sb, s->keys[i]);
	}
	hist_sb_printf(&sb, ":vals=");
	if (!s->nohitcount) {
		hist_sb_printf(&sb, "hitcount");
		shown = true;
	}
	for (unsigned i = 0; i < s->nr_vals; i++, shown = true) {
		hist_sb_printf(&sb, "%s", shown ? "," : "");
		hist_field_print(&sb, s->vals[i]);
	}
	for (unsigned i = 0; i < s->nr_vars; i++) {
		hist_sb_printf(&sb, "%s%s=", i ? "," : ":", s->vars[i].name);
		hist_field_print(&sb, s->vars[i].expr);
	}
	hist_sb_printf(&sb, ":sort=");
	for (unsigned i = 0; i < s->nr_sort || (!i && !s->nr_sort); i++) {
		const struct utrace_hist_expr *e = NULL;
		unsigned idx;
		int is_key;

		if (s->nr_sort && strcmp(s->sort[i].name, "hitcount"))
			e = hist_sort_field(s, s->sort[i].name, &is_key, &idx);
		hist_sb_printf(&sb, "%s", i ? "," : "");
		if (e)
			hist_field_print(&sb, e);
		else
			hist_sb_printf(&sb, "hitcount");
		if (s->nr_sort && s->sort[i].descending)
			hist_sb_printf(&sb, ".descending");
	}
	hist_sb_printf(&sb, ":size=%u", 1u << s->map_bits);
	if (spec_uses_timestamp(s))
		hist_sb_printf(&sb, ":clock=%s", s->clock ? s->clock : "global");
	if (s->nohitcount)
		hist_sb_printf(&sb, ":nohitcount");
	for (unsigned i = 0; i < s->nr_actions; i++)
		print_action(&sb, &s->actions[i]);
	if (s->filter)
		hist_sb_printf(&sb, " if %s", s->filter);
	return (int)sb.len;
}
