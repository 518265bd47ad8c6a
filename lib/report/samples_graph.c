/* SPDX-License-Identifier: MIT */
/*
 * samples_graph.c - the call chain tree under an entry of `utrace report
 * --samples -g`, character for character as perf report --stdio prints it
 * with its default -g graph,0.5 (tools/perf/ui/stdio/hist.c):
 *
 *   100.00%  fp  fp  [.] spin
 *            |
 *            ---spin
 *               |
 *               |--70.36%--leaf_b
 *               |          mid
 *               |
 *                --29.64%--other
 *
 * Design: the chains go into a trie of one frame per node (struct cnode);
 * perf keeps a radix tree whose nodes hold runs of frames, split where
 * chains part or end.  Printing rebuilds those runs: a node, then its only
 * child for as long as no chain ends there.  A run's first frame carries
 * its percentage, of all the samples' periods ("graph" is absolute), the
 * others follow it below.  Branches under 0.5% of the total are left out.
 * Siblings go largest first; equal ones by perf's tree order, the symbol
 * with the higher address first.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/samples_internal.h"

/* perf's min_percent of -g graph,0.5 */
#define MIN_PERCENT 0.5

int samples_chain_add(struct entry *e, const uint32_t *chain, uint32_t n, uint64_t period)
{
	struct cnode *c = &e->root;

	if (!n)
		return 0;
	c->cumul += period;
	for (uint32_t i = 0; i < n; i++) {
		struct cnode *k = NULL;

		for (uint32_t j = 0; j < c->nr_kids && !k; j++)
			if (c->kids[j]->frame == chain[i])
				k = c->kids[j];
		if (!k) {
			if (c->nr_kids == c->cap_kids) {
				uint32_t cap = c->cap_kids ? c->cap_kids * 2 : 2;
				struct cnode **v = realloc(c->kids, cap * sizeof(*v));

				if (!v)
					return -ENOMEM;
				c->kids = v;
				c->cap_kids = cap;
			}
			k = calloc(1, sizeof(*k));
			if (!k)
				return -ENOMEM;
			k->frame = chain[i];
			c->kids[c->nr_kids++] = k;
		}
		k->cumul += period;
		c = k;
	}
	c->hit += period;
	return 0;
}

void samples_chain_free(struct cnode *root)
{
	for (uint32_t i = 0; i < root->nr_kids; i++) {
		samples_chain_free(root->kids[i]);
		free(root->kids[i]);
	}
	free(root->kids);
	root->kids = NULL;
	root->nr_kids = root->cap_kids = 0;
}

struct gprint {
	const struct report *r;
	FILE *out;
	uint64_t total, min_hit;
	bool printed;
};

/* Largest first; then perf's: the higher (object, address) first. */
static int by_cumul(const void *a, const void *b, void *arg)
{
	const struct cnode *x = *(struct cnode *const *)a, *y = *(struct cnode *const *)b;
	const struct frame *fx = &((const struct report *)arg)->frames[x->frame];
	const struct frame *fy = &((const struct report *)arg)->frames[y->frame];
	int c;

	if (x->cumul != y->cumul)
		return x->cumul > y->cumul ? -1 : 1;
	c = strcmp(fy->dso_path ? fy->dso_path : "", fx->dso_path ? fx->dso_path : "");
	if (c)
		return c;
	return fx->addr > fy->addr ? -1 : fx->addr < fy->addr;
}

/* The kids of c at or above the threshold, sorted; their number. */
static uint32_t sorted_kids(struct gprint *g, const struct cnode *c, struct cnode ***out)
{
	struct cnode **v = malloc((c->nr_kids ? c->nr_kids : 1) * sizeof(*v));
	uint32_t n = 0;

	*out = v;
	if (!v)
		return 0; /* out of memory: the branch is left out */
	for (uint32_t i = 0; i < c->nr_kids; i++)
		if (c->kids[i]->cumul >= g->min_hit)
			v[n++] = c->kids[i];
	qsort_r(v, n, sizeof(*v), by_cumul, (void *)g->r);
	return n;
}

/* The last node of the run starting at c (see the top). */
static const struct cnode *run_end(const struct cnode *c)
{
	while (c->nr_kids == 1 && !c->hit)
		c = c->kids[0];
	return c;
}

static void name(struct gprint *g, const struct cnode *c)
{
	const struct frame *f = &g->r->frames[c->frame];

	if (f->name)
		fprintf(g->out, "%s\n", f->name);
	else
		fprintf(g->out, "%#" PRIx64 "\n", f->addr);
}

static void margin(struct gprint *g, int left)
{
	fprintf(g->out, "            %*s", left, "");
	g->printed = true;
}

static bool bit(uint64_t mask, int i)
{
	return i < 64 && (mask >> i) & 1;
}

/* perf's ipchain__fprintf_graph_line: the pipes between two siblings */
static void graph_line(struct gprint *g, int depth, uint64_t mask, int left)
{
	margin(g, left);
	for (int i = 0; i < depth; i++)
		fputs(bit(mask, i) ? "|          " : "           ", g->out);
	fputc('\n', g->out);
}

/* perf's ipchain__fprintf_graph: frame nth of a run */
static void graph_frame(struct gprint *g, const struct cnode *c, const struct cnode *first,
			int depth, uint64_t mask, int nth, int left)
{
	margin(g, left);
	for (int i = 0; i < depth; i++) {
		fputc(bit(mask, i) ? '|' : ' ', g->out);
		if (!nth && i == depth - 1)
			fprintf(g->out, "--%.2f%%--",
				100.0 * (double)first->cumul / (double)g->total);
		else
			fputs("          ", g->out);
	}
	name(g, c);
}

/* perf's __callchain__fprintf_graph: the kids of c at depth */
static void graph(struct gprint *g, const struct cnode *c, int depth, uint64_t mask, int left)
{
	struct cnode **kids;
	uint32_t n = sorted_kids(g, c, &kids);

	for (uint32_t i = 0; i < n; i++) {
		const struct cnode *end = run_end(kids[i]), *k = kids[i];
		uint64_t kid_mask = mask;
		int nth = 0;

		/* the last sibling ends its level's pipe, below the line */
		if (i + 1 == n && depth >= 1 && depth <= 64)
			kid_mask &= ~(1ull << (depth - 1));
		graph_line(g, depth, mask, left);
		for (;; k = k->kids[0]) {
			graph_frame(g, k, kids[i], depth, kid_mask, nth++, left);
			if (k == end)
				break;
		}
		graph(g, end, depth + 1, depth < 64 ? kid_mask | (1ull << depth) : kid_mask, left);
	}
	free(kids);
}

void samples_graph_print(const struct report *r, const struct entry *e, uint64_t parent, FILE *out)
{
	struct gprint g = {r, out, r->total, 0, false};
	const struct cnode *c = &e->root;
	struct cnode **kids;
	uint32_t n;
	int left = 0;

	g.min_hit = (uint64_t)((double)r->total * MIN_PERCENT / 100.0);
	n = sorted_kids(&g, c, &kids);
	/* one root with all of the entry's samples: printed without a
	 * percentage, after "---", a level less deep */
	if (n == 1 && kids[0]->cumul == parent) {
		const struct cnode *end = run_end(kids[0]), *k = kids[0];
		/* sorted by sym first, the root is the entry's own symbol */
		bool skip = r->o->order[0] == UTRACE_SAMPLE_SYM;

		for (;; k = k->kids[0]) {
			if (skip) {
				skip = false;
			} else if (!left) {
				margin(&g, 0);
				fputs("|\n", out);
				margin(&g, 0);
				fputs("---", out);
				left = 3;
				name(&g, k);
			} else {
				margin(&g, left);
				name(&g, k);
			}
			if (k == end)
				break;
		}
		c = end;
	}
	free(kids);
	graph(&g, c, 1, 1, left);
	if (g.printed)
		fputc('\n', out);
}
