/* SPDX-License-Identifier: MIT */
/*
 * hist_print.c - the kernel's hist file, byte for byte: hist_trigger_show(),
 * event_hist_trigger_print(), print_entries(), hist_trigger_entry_print()
 * and hist_trigger_print_key() of kernel/trace/trace_events_hist.c, with
 * the sort of kernel/trace/tracing_map.c and lib/sort.c.
 *
 * After an entry's values come its onmax()/onchange() handlers'
 * "max:"/"changed:" and saved fields (track_data_print(), the saved
 * fields found through the program's SAVE and SAVESTR instructions), and
 * after the entries the "Snapshot taken" details of a snapshot() action
 * (track_data_snapshot_print(): the entry marked with the map header's
 * last snapshot number).
 *
 * The entries come in the order of hist_sort.c, the trigger's first line
 * from hist_spec_text.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist_prog.h"
#include "lib/hist/hist_internal.h"

/* ---- one entry: hist_trigger_entry_print() -------------------------- */

static const char *symbol(const struct utrace_hist_names *nm, uint64_t addr, char *buf,
			  size_t n, bool offset)
{
	const char *s = nm && nm->sym ? nm->sym(nm->arg, addr, buf, n, offset) : NULL;

	if (s)
		return s;
	snprintf(buf, n, "0x%llx", (unsigned long long)addr);
	return buf;
}

/* hist_trigger_stacktrace_print(): one frame a line, 9 blanks before it.
 * The first frames of a user stack taken with frame pointers are the
 * tracepoint's generated code (__utrace_do_*, include/utrace/
 * define_trace.h): left out, as the kernel skips its own.  A kernel
 * event's stack (its stacktrace trigger's) starts in the kernel's
 * tracepoint code (trace_event_raw_event_*, __traceiter_*), which the
 * kernel's hist skips (HIST_STACKTRACE_SKIP): left out too. */
static void print_stack(FILE *out, const uint8_t *p, uint32_t len,
			const struct utrace_hist_names *nm)
{
	bool lead = true;
	char buf[256];

	for (uint32_t i = 0; i + 8 <= len; i += 8) {
		const char *s;
		uint64_t a;

		memcpy(&a, p + i, 8);
		if (!a)
			return;
		s = symbol(nm, a, buf, sizeof(buf), true);
		if (lead &&
		    ((!strncmp(s, "__utrace_", 9) && strstr(s, "do_")) ||
		     !strncmp(s, "trace_event_raw_event_", 22) || !strncmp(s, "__traceiter_", 12)))
			continue;
		lead = false;
		fprintf(out, "%*c%s\n", 9, ' ', s);
	}
}

/* Returns whether the key took several lines (a stack). */
static int print_key(FILE *out, const struct utrace_hist_expr *e,
		     const struct utrace_hist_slot *sl, const uint8_t *key,
		     const struct utrace_hist_names *nm)
{
	char name[512], buf[512];
	struct hist_sb sb = {name, sizeof(name), 0};
	unsigned long long u = 0;
	const char *str;

	hist_name(&sb, e);
	if (sl->kind == UTRACE_HSLOT_NUM)
		memcpy(&u, key + sl->off, 8);
	if (e->mods & UTRACE_HIST_MOD_HEX) {
		fprintf(out, "%s: %llx", name, u);
	} else if (e->mods & (UTRACE_HIST_MOD_SYM | UTRACE_HIST_MOD_SYM_OFFSET)) {
		bool off = !(e->mods & UTRACE_HIST_MOD_SYM);

		fprintf(out, off ? "%s: [%llx] %-55s" : "%s: [%llx] %-45s", name, u,
			symbol(nm, u, buf, sizeof(buf), off));
	} else if (e->mods & UTRACE_HIST_MOD_EXECNAME) {
		str = nm && nm->comm ? nm->comm(nm->arg, (int)u) : NULL;
		fprintf(out, "%s: %-16s[%10llu]", name, str ? str : "<...>", u);
	} else if (e->mods & UTRACE_HIST_MOD_SYSCALL) {
		str = nm && nm->syscall ? nm->syscall(nm->arg, (int)u) : NULL;
		fprintf(out, "%s: %-30s[%3llu]", name, str ? str : "unknown_syscall", u);
	} else if (e->mods & UTRACE_HIST_MOD_STACKTRACE) {
		if (hist_is_special_stack(e))
			fputs("common_stacktrace:\n", out);
		else
			fprintf(out, "%s.stacktrace", name);
		print_stack(out, key + sl->off, sl->len, nm);
		return 1;
	} else if (e->mods & UTRACE_HIST_MOD_LOG2) {
		fprintf(out, "%s: ~ 2^%-2llu", name, u);
	} else if (e->mods & UTRACE_HIST_MOD_BUCKETS) {
		fprintf(out, "%s: ~ %llu-%llu", name, u, u + e->buckets - 1);
	} else if (sl->kind == UTRACE_HSLOT_STR) {
		uint32_t n = sl->len < sizeof(buf) ? sl->len : sizeof(buf) - 1;

		memcpy(buf, key + sl->off, n);
		buf[n] = '\0';
		fprintf(out, "%s: %-50s", name, buf);
	} else {
		fprintf(out, "%s: %10llu", name, u);
	}
	return 0;
}

struct val_stat {
	uint64_t max, total;
};

/* __get_percentage(): 100 times the percentage, UINT32_MAX if undefined. */
static unsigned percentage(uint64_t val, uint64_t total)
{
	if (!total)
		return val ? UINT32_MAX : 0;
	if (val < UINT64_MAX / 10000)
		return (unsigned)(val * 10000 / total);
	total /= 10000;
	if (!total)
		return val ? UINT32_MAX : 0;
	return (unsigned)(val / total);
}

/* hist_trigger_print_val(): " name: value" in the value's format. */
static void print_val(FILE *out, const char *name, unsigned mods, uint64_t v,
		      const struct val_stat *st)
{
	unsigned pc;

	if (mods & UTRACE_HIST_MOD_PERCENT) {
		pc = percentage(v, st->total);
		if (pc == UINT32_MAX)
			fprintf(out, " %s (%%):[ERROR]", name);
		else
			fprintf(out, " %s (%%): %3u.%02u", name, pc / 100, pc % 100);
	} else if (mods & UTRACE_HIST_MOD_GRAPH) {
		char bar[21];
		unsigned len = percentage(v, st->max), i = 0;

		if (len == UINT32_MAX) {
			snprintf(bar, 20, "[ERROR]");
		} else {
			for (len = len * 20 / 10000; i < len && i < 20; i++)
				bar[i] = '#';
			for (; i < 20; i++)
				bar[i] = ' ';
			bar[20] = '\0';
		}
		fprintf(out, " %s: %20s", name, bar);
	} else if (mods & UTRACE_HIST_MOD_HEX) {
		fprintf(out, " %s: %10llx", name, (unsigned long long)v);
	} else {
		fprintf(out, " %s: %10llu", name, (unsigned long long)v);
	}
}

/* hist_trigger_print_key(): "{ key, key }" */
static void print_keys(FILE *out, const struct utrace_hist_spec *s,
		       const struct utrace_hist_table *t, const uint8_t *elt,
		       const struct utrace_hist_names *nm)
{
	int multiline = 0;

	fputs("{ ", out);
	for (unsigned i = 0; i < s->nr_keys; i++) {
		if (i)
			fputs(", ", out);
		multiline |= print_key(out, s->keys[i], &t->prog->slots[i], elt, nm);
	}
	fputs(multiline ? "}" : " }", out);
}

/* The saved fields of track_data_print(): the program's SAVE and SAVESTR
 * in their order are the save() action's params in theirs. */
static void print_saved(FILE *out, const struct utrace_hist_spec *s,
			const struct utrace_hist_table *t, const uint8_t *elt)
{
	const struct utrace_hist_action *save = NULL;
	const struct utrace_hist_insn *in = utrace_hist_insns(t->prog);
	unsigned k = 0;

	for (unsigned i = 0; i < s->nr_actions; i++)
		if (s->actions[i].kind == UTRACE_HIST_ACT_SAVE)
			save = &s->actions[i];
	for (uint32_t i = 0; save && i < t->prog->nr_insns && k < save->nr_params; i++) {
		char str[UTRACE_HIST_STR_MAX + 1];
		uint32_t n = in[i].len < UTRACE_HIST_STR_MAX ? in[i].len : UTRACE_HIST_STR_MAX;

		if (in[i].op == UTRACE_HOP_SAVE) {
			fprintf(out, "  %s: %10llu", save->params[k++],
				(unsigned long long)hist_sum_of(t, elt, in[i].key_off));
		} else if (in[i].op == UTRACE_HOP_SAVESTR) {
			memcpy(str, elt + t->prog->key_size + 8ull * in[i].key_off, n);
			str[n] = '\0';
			fprintf(out, "  %s: %-32s", save->params[k++], str);
		}
	}
}

/* print_actions(): each onmax()/onchange() but a snapshot()'s. */
static void print_actions(FILE *out, const struct utrace_hist_spec *s,
			  const struct utrace_hist_table *t, const uint8_t *elt)
{
	for (unsigned i = 0; i < s->nr_actions; i++) {
		const struct utrace_hist_action *a = &s->actions[i];

		if (a->handler == UTRACE_HIST_ONMATCH || a->kind == UTRACE_HIST_ACT_SNAPSHOT)
			continue;
		fprintf(out, a->handler == UTRACE_HIST_ONMAX ? "\n\tmax: %10llu" : "\n\tchanged: %10llu",
			(unsigned long long)hist_sum_of(t, elt, utrace_hist_track_sum(s, i)));
		print_saved(out, s, t, elt);
	}
}

/* track_data_snapshot_print(): the entry whose marker is the last
 * snapshot's number took it. */
static void print_snapshot(FILE *out, const struct utrace_hist_spec *s,
			   const struct utrace_hist_table *t, const uint8_t *elts, size_t n,
			   uint64_t esize, const struct utrace_hist_names *nm)
{
	const struct utrace_hist_action *a = NULL;

	for (unsigned i = 0; i < s->nr_actions; i++)
		if (s->actions[i].kind == UTRACE_HIST_ACT_SNAPSHOT && !a)
			a = &s->actions[i];
	if (!a || !t->snap_seq)
		return;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *elt = elts + i * esize;

		if (hist_sum_of(t, elt, utrace_hist_snap_sum(s)) != t->snap_seq)
			continue;
		fputs("\nSnapshot taken (see tracing/snapshot).  Details:\n", out);
		fprintf(out, "\ttriggering value { %s($%s) }: %10llu",
			a->handler == UTRACE_HIST_ONMAX ? "onmax" : "onchange", a->var,
			(unsigned long long)t->snap_val);
		fputs("\ttriggered by event with key: ", out);
		print_keys(out, s, t, elt, nm);
		fputc('\n', out);
		return;
	}
}

/* The sums the handlers' printing reads are in the table's elements. */
static bool actions_fit(const struct utrace_hist_spec *s, const struct utrace_hist_hdr *p)
{
	const struct utrace_hist_insn *in = utrace_hist_insns(p);

	if (s->nr_actions && utrace_hist_save_sum(s) > p->nr_sums)
		return false;
	for (uint32_t i = 0; i < p->nr_insns; i++)
		if ((in[i].op == UTRACE_HOP_SAVE && in[i].key_off >= p->nr_sums) ||
		    (in[i].op == UTRACE_HOP_SAVESTR &&
		     8ull * in[i].key_off + in[i].len > 8ull * p->nr_sums))
			return false;
	return true;
}

static void print_entry(FILE *out, const struct utrace_hist_spec *s,
			const struct utrace_hist_table *t, const uint8_t *elt,
			const struct val_stat *st, const struct utrace_hist_names *nm)
{
	print_keys(out, s, t, elt, nm);
	if (!s->nohitcount)
		print_val(out, "hitcount", 0, hist_sum_of(t, elt, 0), &st[0]);
	for (unsigned j = 0; j < s->nr_vals; j++) {
		const struct utrace_hist_expr *e = s->vals[j];
		unsigned sum = utrace_hist_val_sum(s, j);
		char name[512];
		struct hist_sb sb = {name, sizeof(name), 0};

		/* the kernel does not show values that are expressions */
		if (e->l && !hist_expr_is_const(e))
			continue;
		hist_name(&sb, e);
		fputc(' ', out);
		print_val(out, name, e->mods, hist_sum_of(t, elt, sum), &st[sum]);
	}
	print_actions(out, s, t, elt);
	fputc('\n', out);
}

int utrace_hist_print(FILE *out, const struct utrace_hist_spec *s,
		      const struct utrace_hist_table *t, const struct utrace_hist_names *nm,
		      struct utrace_error *err)
{
	struct val_stat st[UTRACE_HIST_SUMS_MAX] = {{0}};
	uint64_t esize;
	uint32_t *order;
	size_t n = 0;
	char *info;
	int len;

	unsigned need = 1;

	for (unsigned j = 0; j < s->nr_vals; j++)
		if (utrace_hist_val_sum(s, j) + 1 > need)
			need = utrace_hist_val_sum(s, j) + 1;
	if (!t->prog || t->prog->nr_keys != s->nr_keys || t->prog->nr_sums < need ||
	    t->prog->nr_sums > UTRACE_HIST_SUMS_MAX || (t->nr_elts && !t->elts) ||
	    !actions_fit(s, t->prog))
		return utrace_error_set(err, -EINVAL, "hist table does not match its trigger");
	for (unsigned i = 0; i < s->nr_keys; i++)
		if ((uint64_t)t->prog->slots[i].off + t->prog->slots[i].len > t->prog->key_size)
			return utrace_error_set(err, -EINVAL, "hist key %u is outside the key", i);
	len = utrace_hist_spec_text(s, NULL, 0);
	info = malloc((size_t)len + 1);
	order = info ? hist_sorted_entries(s, t, &n) : NULL;
	if (!order) {
		free(info);
		return utrace_error_set(err, -ENOMEM, "Out of memory");
	}
	utrace_hist_spec_text(s, info, (size_t)len + 1);
	fprintf(out, "# event histogram\n#\n# trigger info: %s %s\n#\n\n", info,
		t->paused ? "[paused]" : "[active]");
	esize = utrace_hist_elt_size(t->prog->key_size, t->prog->nr_sums);
	/* print_entries(): totals and maxima of the values shown as % or bars */
	for (size_t i = 0; i < n; i++)
		for (unsigned j = 0; j < t->prog->nr_sums; j++) {
			uint64_t v = hist_sum_of(t, t->elts + order[i] * esize, j);

			st[j].total += v;
			if (st[j].max < v)
				st[j].max = v;
		}
	for (size_t i = 0; i < n; i++)
		print_entry(out, s, t, t->elts + order[i] * esize, st, nm);
	print_snapshot(out, s, t, t->elts, t->nr_elts, esize, nm);
	fprintf(out, "\nTotals:\n    Hits: %llu\n    Entries: %zu\n    Dropped: %llu\n",
		(unsigned long long)t->hits, n, (unsigned long long)t->drops);
	free(order);
	free(info);
	return 0;
}
