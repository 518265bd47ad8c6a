/* SPDX-License-Identifier: MIT */
/*
 * callgraph_print.c - the call graph as uftrace graph prints it.
 *
 * Design: uftrace graph FUNC merges every call of FUNC, whatever the path
 * to it, into one tree: the printer collects the outermost nodes of FUNC
 * (depth first), lists their paths (the BACKTRACE section) and merges
 * their subtrees into a second tree (lib/report/callgraph_internal.h).  The
 * layout is uftrace's cmds/graph.c (print_graph_node, pr_indent):
 *
 *      32.568 us : (1) main
 *       0.621 us :  +-(1) setup
 *                :  |
 *      18.107 us :  +-(1) report
 *       9.965 us :     (1) qsort
 *
 * "+-" only where a node has several callees, "|" down to the last one.
 * Everything is iterative (explicit stacks) and printing stops at
 * max_levels, so a recursion a million calls deep neither overflows the
 * C stack nor prints lines a million levels wide.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/report/callgraph_internal.h"
#include "lib/report/profile.h"
#include "lib/report/report_text.h"

#define NONE CALLGRAPH_NONE
#define DEFAULT_LEVELS 1000

static int oom(const struct utrace_callgraph *g, struct utrace_error *err)
{
	return utrace_error_set(err, -ENOMEM, "%s: out of memory printing the call graph",
				utrace_dat_path(g->d));
}

static const struct {
	const char *header;
	uint32_t field;
} columns[] = {
    {"TOTAL TIME", UTRACE_PROFILE_TOTAL},     /* -f total */
    {" SELF TIME", UTRACE_PROFILE_SELF},      /* self */
    {" TOTAL AVG", UTRACE_PROFILE_TOTAL_AVG}, /* total-avg */
    {" TOTAL MAX", UTRACE_PROFILE_TOTAL_MAX}, /* total-max */
    {" TOTAL MIN", UTRACE_PROFILE_TOTAL_MIN}, /* total-min */
    {"  SELF AVG", UTRACE_PROFILE_SELF_AVG},  /* self-avg */
    {"  SELF MAX", UTRACE_PROFILE_SELF_MAX},  /* self-max */
    {"  SELF MIN", UTRACE_PROFILE_SELF_MIN},  /* self-min */
};

#define NR_COLUMNS (sizeof(columns) / sizeof(columns[0]))

int utrace_callgraph_parse_fields(const char *s, uint32_t *fields, struct utrace_error *err)
{
	*fields = 0;
	if (!strcmp(s, "none"))
		return 0;
	return utrace_parse_fields(s, UTRACE_PROFILE_ALL_FIELDS & ~UTRACE_PROFILE_CALLS,
				   "total self total-avg total-max total-min self-avg self-max "
				   "self-min none",
				   fields, err);
}

static void print_fields(FILE *out, const struct gnode *n, uint32_t fields, bool color)
{
	if (!fields)
		return;
	for (size_t i = 0; i < NR_COLUMNS; i++) {
		uint64_t v = 0;

		switch (fields & columns[i].field) {
		case 0:
			continue;
		case UTRACE_PROFILE_TOTAL:
			v = n->time;
			break;
		case UTRACE_PROFILE_SELF:
			v = callgraph_self_time(n);
			break;
		case UTRACE_PROFILE_TOTAL_AVG:
			v = n->timed ? n->time / n->timed : 0;
			break;
		case UTRACE_PROFILE_TOTAL_MAX:
			v = n->tmax;
			break;
		case UTRACE_PROFILE_TOTAL_MIN:
			v = n->timed ? n->tmin : 0;
			break;
		case UTRACE_PROFILE_SELF_AVG:
			v = n->timed ? callgraph_self_time(n) / n->timed : 0;
			break;
		case UTRACE_PROFILE_SELF_MAX:
			v = n->smax;
			break;
		case UTRACE_PROFILE_SELF_MIN:
			v = n->timed ? n->smin : 0;
			break;
		}
		fputs("  ", out);
		if (color && *utrace_report_duration_color(v)) {
			fputs(utrace_report_duration_color(v), out);
			utrace_print_time_unit(out, v);
			fputs("\033[0m", out);
		} else {
			utrace_print_time_unit(out, v);
		}
	}
	fputs(" : ", out);
}

static void print_empty_fields(FILE *out, uint32_t fields)
{
	if (!fields)
		return;
	for (size_t i = 0; i < NR_COLUMNS; i++)
		if (fields & columns[i].field)
			fprintf(out, "%12s", "");
	fputs(" : ", out);
}

/* uftrace's pr_indent() */
static void print_indent(FILE *out, const bool *mask, int indent, bool line)
{
	int last = -1;

	for (int i = 0; i < indent; i++)
		if (line && mask[i])
			last = i;
	for (int i = 0; i < indent; i++) {
		if (!line || i < last)
			fputs(mask[i] ? " | " : "   ", out);
		else
			fputs(i == last ? " +-" : "---", out);
	}
}

struct pframe {
	uint32_t node, next, level;
	int cindent, oindent;
};

struct printer {
	FILE *out;
	const struct tree *t;
	const struct utrace_func_table *ft;
	uint32_t fields;
	unsigned max_levels;
	const char *root_name;
	bool *mask;
	struct pframe *st;
	unsigned n;
	bool color; /* UTRACE_CALLGRAPH_COLOR, out of fields */
};

static void visit(struct printer *p, uint32_t node, int indent, bool needs_line, uint32_t level)
{
	const struct gnode *n = &p->t->n[node];
	int cut = level + 1 >= p->max_levels && n->first != NONE;
	int orig = indent;

	print_fields(p->out, n, p->fields, p->color);
	print_indent(p->out, p->mask, indent, needs_line);
	fprintf(p->out, "(%" PRIu64 ") %s%s%s%s\n", n->calls,
		p->color ? "\033[1m" : "",
		node ? utrace_func_table_name(p->ft, n->fn) : p->root_name,
		p->color ? "\033[0m" : "", cut ? " ..." : "");
	if (n->nr_children > 1)
		p->mask[indent++] = true;
	if (n->parent != NONE && p->t->n[n->parent].nr_children > 1 && orig > 0 &&
	    p->t->n[n->parent].last == node)
		p->mask[orig - 1] = false;
	p->st[p->n++] = (struct pframe){node, cut ? NONE : n->first, level, indent, orig};
}

static int print_tree(struct printer *p, struct utrace_error *err)
{
	size_t cap = (size_t)p->max_levels + 2;

	p->mask = calloc(cap, sizeof(*p->mask));
	p->st = calloc(cap, sizeof(*p->st));
	if (!p->mask || !p->st) {
		free(p->mask);
		free(p->st);
		return utrace_error_set(err, -ENOMEM, "out of memory printing the call graph");
	}
	p->n = 0;
	visit(p, 0, 0, p->t->n[0].nr_children > 1, 0);
	while (p->n) {
		struct pframe *f = &p->st[p->n - 1];
		const struct gnode *parent = &p->t->n[f->node];
		uint32_t c = f->next;

		if (c == NONE) {
			p->mask[f->oindent] = false;
			p->n--;
			continue;
		}
		f->next = p->t->n[c].next;
		if (c != parent->first) {
			print_empty_fields(p->out, p->fields);
			print_indent(p->out, p->mask, f->cindent, false);
			fputc('\n', p->out);
		}
		visit(p, c, f->cindent, parent->nr_children > 1, f->level + 1);
	}
	free(p->mask);
	free(p->st);
	return 0;
}

static void print_header(FILE *out, uint32_t fields)
{
	fputs("========== FUNCTION CALL GRAPH ==========\n", out);
	if (!fields)
		return;
	fputs("# ", out);
	for (size_t i = 0, first = 1; i < NR_COLUMNS; i++) {
		if (!(fields & columns[i].field))
			continue;
		fprintf(out, "%s%s", first ? "" : "  ", columns[i].header);
		first = 0;
	}
	fputs("   FUNCTION\n", out);
}

static int write_error(const struct utrace_callgraph *g, FILE *out, struct utrace_error *err)
{
	if (ferror(out))
		return utrace_error_set(err, -EIO, "%s: writing the call graph failed",
					utrace_dat_path(g->d));
	return 0;
}

static const char *program_name(struct utrace_callgraph *g)
{
	const char *exe = utrace_dat_image_count(g->d) ? utrace_dat_image_get(g->d, 0)->exe : "";
	const char *cmd = utrace_dat_meta(g->d, "command");
	static char buf[256];
	const char *slash;

	if (!exe[0] && cmd) {
		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(cmd, " "), cmd);
		exe = buf;
	}
	if (!exe[0])
		return "(all)";
	slash = strrchr(exe, '/');
	return slash && slash[1] ? slash + 1 : exe;
}

int utrace_callgraph_print_all(struct utrace_callgraph *g, FILE *out, uint32_t fields,
			       unsigned max_levels, struct utrace_error *err)
{
	struct printer p = {
	    out,  &g->t, g->ft, fields, max_levels ? max_levels : DEFAULT_LEVELS, program_name(g),
	    NULL, NULL,	 0,	false};
	struct gnode *root = &g->t.n[0];
	int ret;

	p.color = fields & UTRACE_CALLGRAPH_COLOR;
	p.fields = fields &= ~UTRACE_CALLGRAPH_COLOR;
	root->calls = root->timed = 1;
	root->time = root->tmin = root->tmax = root->child_time;
	fprintf(out, "# Function Call Graph for '%s' (%s)\n", p.root_name, utrace_dat_path(g->d));
	print_header(out, fields);
	ret = print_tree(&p, err);
	if (ret < 0)
		return ret;
	fputc('\n', out);
	return write_error(g, out, err);
}

static void merge_stats(struct gnode *to, const struct gnode *from)
{
	if (from->timed) {
		if (!to->timed || from->tmin < to->tmin)
			to->tmin = from->tmin;
		if (!to->timed || from->smin < to->smin)
			to->smin = from->smin;
		if (from->tmax > to->tmax)
			to->tmax = from->tmax;
		if (from->smax > to->smax)
			to->smax = from->smax;
	}
	to->calls += from->calls;
	to->timed += from->timed;
	to->time += from->time;
	to->child_time += from->child_time;
}

/* Adds the subtree of src (in g) to the node dst of m. */
static int merge(const struct tree *g, uint32_t src, struct tree *m, uint32_t dst)
{
	struct pair {
		uint32_t src, dst;
	} *st = NULL;
	size_t n = 0, cap = 0;

	for (;;) {
		merge_stats(&m->n[dst], &g->n[src]);
		for (uint32_t c = g->n[src].first; c != NONE; c = g->n[c].next) {
			uint32_t mc;

			if (callgraph_tree_child(m, dst, g->n[c].fn, &mc) < 0)
				goto fail;
			if (UTRACE_GROW(st, cap, n + 1) < 0)
				goto fail;
			st[n++] = (struct pair){c, mc};
		}
		if (!n)
			break;
		n--;
		src = st[n].src;
		dst = st[n].dst;
	}
	free(st);
	return 0;
fail:
	free(st);
	return -1;
}

/* The outermost nodes of fn (none of their callers is fn), in order. */
static int find_calls(const struct tree *t, uint32_t fn, uint32_t **out, size_t *nr)
{
	uint32_t *st = NULL, *found = NULL;
	size_t n = 0, cap = 0, nf = 0, capf = 0;

	/* depth first, callees pushed in reverse so they come out in order */
	for (uint32_t node = 0;;) {
		size_t base = n;

		if (node && t->n[node].fn == fn) {
			if (UTRACE_GROW(found, capf, nf + 1) < 0)
				goto fail;
			found[nf++] = node;
		} else {
			for (uint32_t c = t->n[node].first; c != NONE; c = t->n[c].next) {
				if (UTRACE_GROW(st, cap, n + 1) < 0)
					goto fail;
				st[n++] = c;
			}
			for (size_t i = base, j = n; i + 1 < j; i++, j--) {
				uint32_t x = st[i];

				st[i] = st[j - 1];
				st[j - 1] = x;
			}
		}
		if (!n)
			break;
		node = st[--n];
	}
	free(st);
	*out = found;
	*nr = nf;
	return 0;
fail:
	free(st);
	free(found);
	return -1;
}

static void print_backtrace(struct utrace_callgraph *g, FILE *out, uint32_t node, size_t nr)
{
	const struct gnode *n = &g->t.n[node];
	uint32_t *path = NULL;
	size_t len = 0;

	fprintf(out, " backtrace #%zu: hit %" PRIu64 ", time ", nr, n->calls);
	utrace_print_time_unit(out, n->time);
	fputc('\n', out);
	for (uint32_t x = node; x; x = g->t.n[x].parent)
		len++;
	path = malloc((len ? len : 1) * sizeof(*path));
	if (path) {
		size_t i = len;

		for (uint32_t x = node; x; x = g->t.n[x].parent)
			path[--i] = x;
		for (i = 0; i < len; i++) {
			uint32_t fn = g->t.n[path[i]].fn;
			uint64_t addr;

			fprintf(out, "   [%zu] %s", i, utrace_func_table_name(g->ft, fn));
			if (utrace_func_table_addr(g->ft, fn, &addr) == 0)
				fprintf(out, " (%#" PRIx64 ")", addr);
			fputc('\n', out);
		}
		free(path);
	}
	fputc('\n', out);
}

int utrace_callgraph_print(struct utrace_callgraph *g, FILE *out, const char *func, uint32_t fields,
			   unsigned max_levels, struct utrace_error *err)
{
	const char *name = func ? func : "main";
	uint32_t fn, *calls = NULL;
	struct printer p;
	struct tree m;
	size_t nr = 0;
	int ret;

	if (utrace_func_table_intern(g->ft, name, &fn, err) < 0 ||
	    find_calls(&g->t, fn, &calls, &nr) < 0)
		return oom(g, err);
	if (!nr) {
		free(calls);
		if (!func)
			return utrace_callgraph_print_all(g, out, fields, max_levels, err);
		return utrace_error_set(err, -ENOENT, "%s: no call of '%s' in the trace",
					utrace_dat_path(g->d), func);
	}
	fprintf(out, "# Function Call Graph for '%s' (%s)\n", name, utrace_dat_path(g->d));
	fputs("=============== BACKTRACE ===============\n", out);
	for (size_t i = 0; i < nr; i++)
		print_backtrace(g, out, calls[i], i);

	if (callgraph_tree_init(&m, fn) < 0) {
		free(calls);
		return oom(g, err);
	}
	for (size_t i = 0; i < nr; i++) {
		if (merge(&g->t, calls[i], &m, 0) < 0) {
			free(calls);
			callgraph_tree_free(&m);
			return oom(g, err);
		}
	}
	free(calls);
	p = (struct printer){out,  &m,	 g->ft, fields, max_levels ? max_levels : DEFAULT_LEVELS,
			     name, NULL, NULL,	0,	false};
	p.color = fields & UTRACE_CALLGRAPH_COLOR;
	p.fields = fields &= ~UTRACE_CALLGRAPH_COLOR;
	print_header(out, fields);
	ret = print_tree(&p, err);
	callgraph_tree_free(&m);
	if (ret < 0)
		return ret;
	fputc('\n', out);
	return write_error(g, out, err);
}
