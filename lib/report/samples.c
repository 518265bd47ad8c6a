/* SPDX-License-Identifier: MIT */
/*
 * samples.c - perf report's view of a recording's samples (samples.h).
 *
 * Design: one pass over the samples (lib/tracefile/dat_samples.h).  Each
 * sample's ip is named: the file the process had mapped there and the
 * offset in it (the kernel's MMAP records), that offset turned into the
 * file's virtual address through its sections, then the symbol table's
 * function at that address.  Files are loaded once (a small cache by
 * path; all of this is samples_frames.c).  Samples with the same values of the sort keys add their periods
 * into one entry of a hash table keyed by those values joined into one
 * string; at the end the entries are sorted by period, largest first, and
 * printed with perf's column widths (each the widest of its header and
 * values).
 *
 * Call chains (-g, --children): each address of a chain is named once
 * into an interned frame (struct frame), so that a chain is an array of
 * small ids the trees of samples_graph.c compare as integers.  With
 * --children, as perf's hist_entry_iter does, every frame of a sample's
 * chain adds the sample's period to the Children of its own entry (once
 * per sample, however often recursion repeats it), along with the part of
 * the chain from that frame on.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/samples.h"
#include "lib/report/samples_internal.h"
#include "lib/report/samples_unwind.h"
#include "lib/tracefile/dat_samples.h"

int utrace_samples_parse_graph(const char *order, enum utrace_sample_graph *graph,
			       struct utrace_error *err)
{
	if (!order)
		*graph = UTRACE_GRAPH_DEFAULT;
	else if (!strcmp(order, "caller"))
		*graph = UTRACE_GRAPH_CALLER;
	else if (!strcmp(order, "callee"))
		*graph = UTRACE_GRAPH_CALLEE;
	else
		return utrace_error_set(err, -EINVAL, "-g %s: caller or callee", order);
	return 0;
}

bool utrace_samples_graph_word(const char *word)
{
	return word && (!strcmp(word, "caller") || !strcmp(word, "callee"));
}

int utrace_samples_parse_sort(const char *s, enum utrace_sample_key order[4], unsigned *n,
			      struct utrace_error *err)
{
	static const struct {
		const char *name;
		enum utrace_sample_key key;
	} keys[] = {{"comm", UTRACE_SAMPLE_COMM},
		    {"dso", UTRACE_SAMPLE_DSO},
		    {"sym", UTRACE_SAMPLE_SYM},
		    {"pid", UTRACE_SAMPLE_PID}};
	const char *p = s;

	*n = 0;
	while (*p) {
		size_t len = strcspn(p, ","), k;

		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (strlen(keys[k].name) == len && !strncmp(p, keys[k].name, len))
				break;
		if (k == sizeof(keys) / sizeof(keys[0]))
			return utrace_error_set(err, -EINVAL,
						"--sort %s: unknown key '%.*s' at column %zu "
						"(comm, dso, sym, pid)",
						s, (int)len, p, (size_t)(p - s) + 1);
		for (unsigned i = 0; i < *n; i++)
			if (order[i] == keys[k].key)
				return utrace_error_set(err, -EINVAL, "--sort %s: '%s' twice", s,
							keys[k].name);
		order[(*n)++] = keys[k].key;
		p += len + (p[len] == ',');
	}
	if (!*n)
		return utrace_error_set(err, -EINVAL, "--sort: no key (comm, dso, sym, pid)");
	return 0;
}

/* The columns of a sample's entry for frame f, formatted into bufs. */
static void columns(struct report *r, const struct utrace_dat_sample *s, const struct frame *f,
		    char bufs[4][512])
{
	const char *comm = r->names ? r->names->comm(r->names_arg, s->pid, s->tid)
				    : utrace_dat_sample_comm(r->d, s->tid);

	for (unsigned i = 0; i < r->o->n; i++) {
		switch (r->o->order[i]) {
		case UTRACE_SAMPLE_COMM:
			if (comm)
				snprintf(bufs[i], 512, "%s", comm);
			else
				snprintf(bufs[i], 512, ":%d", s->tid);
			break;
		case UTRACE_SAMPLE_PID:
			snprintf(bufs[i], 512, "%d:%s", s->pid, comm ? comm : "");
			break;
		case UTRACE_SAMPLE_DSO:
			snprintf(bufs[i], 512, "%s", f->o ? f->o->base : "[unknown]");
			break;
		case UTRACE_SAMPLE_SYM:
			if (f->name)
				snprintf(bufs[i], 512, "[%c] %s", f->kernel ? 'k' : '.', f->name);
			else
				snprintf(bufs[i], 512, "[%c] %#018" PRIx64, f->kernel ? 'k' : '.',
					 f->addr);
			break;
		}
	}
}

/* ---- entries ---- */

static size_t key_slot(const char *key, size_t cap)
{
	uint64_t h = 14695981039346656037ull;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 1099511628211ull;
	return (size_t)h & (cap - 1);
}

static int grow(struct report *r)
{
	size_t cap = r->cap ? r->cap * 2 : 256;
	struct entry **v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->cap; i++) {
		size_t s;

		if (!r->v[i])
			continue;
		for (s = key_slot(r->v[i]->key, cap); v[s]; s = (s + 1) & (cap - 1))
			;
		v[s] = r->v[i];
	}
	free(r->v);
	r->v = v;
	r->cap = cap;
	return 0;
}

/* The entry of sample s at frame f, made if new; NULL: out of memory. */
static struct entry *entry_of(struct report *r, const struct utrace_dat_sample *s,
			      const struct frame *f)
{
	char bufs[4][512], key[2100];
	size_t len = 0, slot;
	struct entry *e;

	if ((r->nr + 1) * 2 > r->cap && grow(r) < 0)
		return NULL;
	columns(r, s, f, bufs);
	for (unsigned i = 0; i < r->o->n; i++)
		len += (size_t)snprintf(key + len, sizeof(key) - len, "%s\x1f", bufs[i]);
	for (slot = key_slot(key, r->cap); r->v[slot]; slot = (slot + 1) & (r->cap - 1))
		if (!strcmp(r->v[slot]->key, key))
			return r->v[slot];
	e = calloc(1, sizeof(*e));
	if (!e || !(e->key = strdup(key))) {
		free(e);
		return NULL;
	}
	r->v[slot] = e; /* from here on free_report frees it */
	r->nr++;
	e->tid = s->tid;
	for (unsigned i = 0; i < r->o->n; i++)
		if (!(e->cols[i] = strdup(bufs[i])))
			return NULL;
	return e;
}

/* r->chain: the frames of s's chain in the graph's order; their number. */
static int64_t sample_chain(struct report *r, const struct utrace_dat_sample *s)
{
	bool caller = r->caller;

	if (s->nr > r->cap_chain) {
		uint32_t *c = realloc(r->chain, s->nr * sizeof(*c));
		struct entry **seen = realloc(r->seen, s->nr * sizeof(*seen));

		if (c)
			r->chain = c;
		if (seen)
			r->seen = seen;
		if (!c || !seen)
			return -ENOMEM;
		r->cap_chain = s->nr;
	}
	for (uint32_t i = 0; i < s->nr; i++) {
		int64_t f = samples_frame_of(r, s->pid, s->chain[i]);

		if (f < 0)
			return -ENOMEM;
		r->chain[caller ? s->nr - 1 - i : i] = (uint32_t)f;
	}
	return s->nr;
}

/* --children: each other entry of the chain gets the period, and its part
 * of the chain (from its frame on), once per sample. */
static int add_children(struct report *r, const struct utrace_dat_sample *s, struct entry *self,
			uint32_t n, uint64_t period)
{
	uint32_t nr_seen = 1;

	if (!n) /* no chain (the kernel could not walk it): only the self entry */
		return 0;
	r->seen[0] = self;
	for (uint32_t k = 0; k < n; k++) {
		struct entry *e = entry_of(r, s, &r->frames[r->chain[k]]);
		uint32_t i;

		if (!e)
			return -ENOMEM;
		for (i = 0; i < nr_seen && r->seen[i] != e; i++)
			;
		if (i < nr_seen)
			continue;
		if (nr_seen < n)
			r->seen[nr_seen++] = e;
		e->acc += period;
		if (n - k > e->max_depth)
			e->max_depth = n - k;
		if (r->graph && samples_chain_add(e, r->chain + k, n - k, period) < 0)
			return -ENOMEM;
	}
	return 0;
}

int samples_add(struct report *r, const struct utrace_dat_sample *s, struct utrace_error *err)
{
	uint64_t period = s->period ? s->period : 1;
	int64_t f = samples_frame_of(r, s->pid, s->ip), n = 0;
	struct entry *e = f < 0 ? NULL : entry_of(r, s, &r->frames[f]);

	if (e && (r->graph || r->o->children))
		n = sample_chain(r, s);
	if (!e || n < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	e->period += period;
	e->samples++;
	e->acc += r->o->children ? period : 0;
	r->total += period;
	r->samples++;
	if ((uint64_t)n > e->max_depth)
		e->max_depth = (uint32_t)n;
	if (r->graph && samples_chain_add(e, r->chain, (uint32_t)n, period) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	if (r->o->children && add_children(r, s, e, (uint32_t)n, period) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

static int by_period(const void *a, const void *b)
{
	const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(x->key, y->key);
}

static bool sort_caller; /* qsort has no argument */
static bool sort_by_sym;

/* perf's order with --children: Children, then within one thread the
 * caller above its callee (by the depth of their chains), then Self. */
static int by_children(const void *a, const void *b)
{
	const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;

	if (x->acc != y->acc)
		return x->acc > y->acc ? -1 : 1;
	if (x->tid == y->tid && sort_by_sym && x->max_depth != y->max_depth) {
		return (x->max_depth > y->max_depth) == sort_caller ? -1 : 1;
	}
	return by_period(a, b);
}

/* ---- printing ---- */

static const char *header_name(enum utrace_sample_key k)
{
	return k == UTRACE_SAMPLE_COMM	? "Command"
	       : k == UTRACE_SAMPLE_DSO ? "Shared Object"
	       : k == UTRACE_SAMPLE_SYM ? "Symbol"
					: "Pid:Command";
}

/* perf's "999 " or "3K": the count, and a unit of a thousand or more */
static void print_count(FILE *out, uint64_t n)
{
	const char *units = " KMG";

	while (n >= 1000 && units[1]) {
		n /= 1000;
		units++;
	}
	fprintf(out, "%" PRIu64 "%c", n, *units);
}

/* The header of one event's section; lost: the file's first only. */
static void print_header(struct report *r, const size_t *w, const uint64_t *lost, bool user_only,
			 FILE *out)
{
	const struct utrace_samples_opts *o = r->o;

	if (lost)
		fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", *lost);
	fputs("# Samples: ", out);
	print_count(out, r->samples);
	fprintf(out, " of event '%s'\n# Event count (approx.): %" PRIu64 "\n#\n",
		r->offcpu   ? "offcpu-time"
		: user_only ? "cpu-clock:u"
			    : "cpu-clock",
		r->total);
	fputs(o->children ? "# Children      Self" : "# Overhead", out);
	for (unsigned i = 0; i < o->n; i++)
		fprintf(out, "  %-*s", (int)w[i], header_name(o->order[i]));
	fputs(o->children ? "\n# ........  ........" : "\n# ........", out);
	for (unsigned i = 0; i < o->n; i++) {
		fputs("  ", out);
		for (size_t k = 0; k < w[i]; k++)
			fputc('.', out);
	}
	fputs("\n#\n", out);
}

void samples_widths(const struct report *r, struct entry **v, size_t nr, size_t w[4])
{
	for (unsigned i = 0; i < r->o->n; i++) {
		w[i] = strlen(header_name(r->o->order[i]));
		for (size_t e = 0; e < nr; e++)
			if (strlen(v[e]->cols[i]) > w[i])
				w[i] = strlen(v[e]->cols[i]);
	}
}

void samples_print_row(const struct report *r, const struct entry *e, const size_t *w, FILE *out)
{
	unsigned n = r->o->n;

	if (r->o->children)
		fprintf(out, "  %7.2f%%", 100.0 * (double)e->acc / (double)r->total);
	fprintf(out, "  %7.2f%%", 100.0 * (double)e->period / (double)r->total);
	for (unsigned i = 0; i < n; i++)
		if (i + 1 < n)
			fprintf(out, "  %-*s", (int)w[i], e->cols[i]);
		else
			fprintf(out, "  %s", e->cols[i]);
	fputc('\n', out);
}

static void print_report(struct report *r, struct entry **v, const uint64_t *lost, bool user_only,
			 FILE *out)
{
	size_t w[4];

	samples_widths(r, v, r->nr, w);
	print_header(r, w, lost, user_only, out);
	for (size_t e = 0; e < r->nr; e++) {
		samples_print_row(r, v[e], w, out);
		if (r->graph)
			samples_graph_print(r, v[e], r->o->children ? v[e]->acc : v[e]->period,
					    out);
	}
	fputs("\n\n", out);
}

void samples_report_free(struct report *r)
{
	for (size_t i = 0; i < r->cap; i++) {
		if (!r->v[i])
			continue;
		free(r->v[i]->key);
		for (unsigned k = 0; k < 4; k++)
			free(r->v[i]->cols[k]);
		samples_chain_free(&r->v[i]->root);
		free(r->v[i]);
	}
	free(r->v);
	free(r->frames);
	free(r->fslot);
	free(r->chain);
	free(r->seen);
}

static int start(struct report *r, struct utrace_dat *d, struct utrace_error *err)
{
	enum utrace_sample_graph g = r->o->graph;

	if (!utrace_dat_has_samples(d, NULL, NULL))
		return utrace_error_set(err, -ENOENT,
					"%s: no samples (record with -F HZ to sample)",
					utrace_dat_path(d));
	if (g && !utrace_dat_samples_have_chains(d))
		return utrace_error_set(err, -EINVAL,
					"%s: the samples have no call chains for -g (record "
					"with -F HZ --call-graph fp or dwarf)",
					utrace_dat_path(d));
	/* perf report -g's order: caller unless callee is asked; perf keeps
	 * it for --children without -g too (the depth rule of the sort) */
	r->caller = g != UTRACE_GRAPH_CALLEE;
	if (g == UTRACE_GRAPH_DEFAULT)
		g = UTRACE_GRAPH_CALLER;
	r->graph = g;
	return 0;
}

/* One pass, each sample to its event's report (its chain unwound first
 * when it carries a stack copy). */
static int add_event_sample(void *arg, const struct utrace_dat_sample *s, struct utrace_error *err)
{
	struct report *r = (struct report *)arg + s->offcpu;
	struct utrace_dat_sample full;

	if (r->unwind && (r->graph || r->o->children)) {
		if (utrace_unwind_sample(r->unwind, s, &full) < 0)
			return utrace_error_set(err, -ENOMEM, "out of memory");
		s = &full;
	}
	return samples_add(r, s, err);
}

/* r's entries sorted, NULL if none (-ENOMEM in *ret). */
struct entry **samples_sorted(struct report *r, int *ret, struct utrace_error *err)
{
	struct entry **v;
	size_t k = 0;

	if (!r->nr)
		return NULL;
	v = malloc(r->nr * sizeof(*v));
	if (!v) {
		*ret = utrace_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < r->cap; i++)
		if (r->v[i])
			v[k++] = r->v[i];
	sort_caller = r->caller;
	sort_by_sym = false;
	for (unsigned i = 0; i < r->o->n; i++)
		sort_by_sym |= r->o->order[i] == UTRACE_SAMPLE_SYM;
	qsort(v, r->nr, sizeof(*v), r->o->children ? by_children : by_period);
	return v;
}

int utrace_samples_report(struct utrace_dat *d, const struct utrace_samples_opts *o, FILE *out,
			  struct utrace_error *err)
{
	struct dso *dsos = NULL;
	/* cpu-clock, then offcpu-time: perf's sections, one per event */
	struct report r[2] = {{.d = d, .o = o, .dsos = &dsos},
			      {.d = d, .o = o, .dsos = &dsos, .offcpu = true}};
	uint64_t lost = 0;
	bool user_only = false, first = true;
	int ret = start(&r[0], d, err);

	if (ret == 0) {
		r[1].graph = r[0].graph;
		r[1].caller = r[0].caller;
		utrace_dat_has_samples(d, NULL, &user_only);
		if (utrace_dat_samples_have_stacks(d))
			ret = utrace_unwind_new(d, &r[0].unwind, err);
		r[1].unwind = r[0].unwind;
	}
	if (ret == 0) {
		ret = utrace_dat_samples_each(d, add_event_sample, r, &lost, err);
	}
	for (int k = 0; k < 2 && ret == 0; k++) {
		struct entry **v;

		/* no cpu-clock sample: its section only if nothing else */
		if (!r[k].samples && (k || r[1].samples))
			continue;
		v = samples_sorted(&r[k], &ret, err);
		if (ret == 0)
			print_report(&r[k], v, first ? &lost : NULL, user_only, out);
		first = false;
		free(v);
	}
	samples_report_free(&r[0]);
	samples_report_free(&r[1]);
	samples_dsos_free(dsos);
	utrace_unwind_free(r[0].unwind);
	return ret;
}
