/* SPDX-License-Identifier: MIT */
/*
 * ftrace_filter.c - function selection with tracefs filter semantics.
 *
 * Design: each of the four lists is an array of parsed expressions (glob,
 * optional module glob, negation).  Selecting a function computes its
 * candidate names once (demangled, without parameters, without return
 * type, raw) as lengths into the strings it was given, so matching
 * allocates nothing, then asks each list whether a positive expression
 * and whether a '!' expression matches.  See ftrace_filter.h for the rules.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "lib/events/ftrace_filter.h"
#include "lib/base/glob.h"
#include "lib/base/grow.h"

struct expr {
	char *text; /* as the user wrote it */
	char *glob;
	char *mod; /* NULL: any object */
	bool neg;
};

struct expr_list {
	struct expr *v;
	size_t n, cap;
	size_t npos; /* expressions without '!' */
};

struct utrace_func_filter {
	struct expr_list lists[UTRACE_FILTER_LISTS];
};

/* A name to match: the first len bytes of s. */
struct cand {
	const char *s;
	size_t len;
};

#define MAX_CANDS 4

struct utrace_func_filter *utrace_func_filter_new(void)
{
	return calloc(1, sizeof(struct utrace_func_filter));
}

void utrace_func_filter_free(struct utrace_func_filter *f)
{
	if (!f)
		return;
	for (int l = 0; l < UTRACE_FILTER_LISTS; l++) {
		for (size_t i = 0; i < f->lists[l].n; i++) {
			free(f->lists[l].v[i].text);
			free(f->lists[l].v[i].glob);
			free(f->lists[l].v[i].mod);
		}
		free(f->lists[l].v);
	}
	free(f);
}

size_t utrace_func_filter_count(const struct utrace_func_filter *f, enum utrace_filter_list which)
{
	if ((unsigned)which >= UTRACE_FILTER_LISTS)
		return 0;
	return f->lists[which].n;
}

/* Finds ":mod:" in expr, skipping C++ "::mod::" (a ':' on either side). */
static const char *find_mod(const char *expr)
{
	for (const char *p = strstr(expr, ":mod:"); p; p = strstr(p + 1, ":mod:")) {
		if ((p == expr || p[-1] != ':') && p[5] != ':')
			return p;
	}
	return NULL;
}

/* Checks glob and reports a fault at its column within the expression. */
static int check_part(const char *glob, int col0, const char *what, const char *expr,
		      struct utrace_error *err)
{
	struct utrace_error e = {0};
	int ret = utrace_glob_check(glob, &e);

	if (ret == 0)
		return 0;
	if (!*glob)
		ret = utrace_error_set(err, -EINVAL, "'%s': empty %s at column %d", expr, what,
				       col0 + 1);
	else
		ret = utrace_error_set(err, -EINVAL, "'%s': %s: %s", expr, what, e.msg);
	if (err)
		err->column = col0 + (*glob ? e.column : 1);
	return ret;
}

int utrace_func_filter_add(struct utrace_func_filter *f, enum utrace_filter_list which,
			   const char *expr, struct utrace_error *err)
{
	struct expr_list *l;
	struct expr e = {0};
	const char *start = expr, *mod;
	size_t glen;
	int ret;

	if ((unsigned)which >= UTRACE_FILTER_LISTS)
		return utrace_error_set(err, -EINVAL, "bad filter list %d", (int)which);
	if (!expr || !*expr) {
		ret = utrace_error_set(err, -EINVAL, "empty filter expression");
		if (err)
			err->column = 1;
		return ret;
	}
	l = &f->lists[which];
	if (*start == '!') {
		e.neg = true;
		start++;
	}
	mod = find_mod(start);
	glen = mod ? (size_t)(mod - start) : strlen(start);
	if (mod && glen == 0)
		e.glob = strdup("*");
	else
		e.glob = strndup(start, glen);
	if (mod)
		e.mod = strdup(mod + 5);
	e.text = strdup(expr);
	if (!e.glob || (mod && !e.mod) || !e.text) {
		ret = utrace_error_set(err, -ENOMEM, "out of memory for filter '%s'", expr);
		goto fail;
	}
	ret = check_part(e.glob, (int)(start - expr), "function pattern", expr, err);
	if (ret < 0)
		goto fail;
	if (mod) {
		ret = check_part(e.mod, (int)(mod + 5 - expr), "module pattern", expr, err);
		if (ret < 0)
			goto fail;
	}
	if (UTRACE_GROW(l->v, l->cap, l->n + 1) < 0) {
		ret = utrace_error_set(err, -ENOMEM, "out of memory for filter '%s'", expr);
		goto fail;
	}
	l->v[l->n++] = e;
	if (!e.neg)
		l->npos++;
	return 0;
fail:
	free(e.text);
	free(e.glob);
	free(e.mod);
	return ret;
}

/* Length of a demangled name without trailing " const", " &", " [clone
 * .cold]" and the like, then without its parameter list; len if it has
 * none. */
static size_t strip_params(const char *s, size_t len)
{
	static const char *const suffixes[] = {" const", " volatile", " &&", " &", " noexcept"};
	size_t end = len;
	bool again = true;
	int depth = 0;

	while (again) {
		again = false;
		/* gcc clones: "foo(int) [clone .constprop.0]" */
		if (end > 9 && s[end - 1] == ']') {
			for (size_t i = end; i-- > 0;) {
				if (s[i] == '[') {
					if (i > 0 && end - i > 7 &&
					    !memcmp(s + i - 1, " [clone ", 8)) {
						end = i - 1;
						again = true;
					}
					break;
				}
			}
		}
		for (size_t k = 0; k < sizeof(suffixes) / sizeof(suffixes[0]); k++) {
			size_t sl = strlen(suffixes[k]);

			if (end > sl && !memcmp(s + end - sl, suffixes[k], sl)) {
				end -= sl;
				again = true;
			}
		}
	}
	if (end == 0 || s[end - 1] != ')')
		return len;
	for (size_t i = end; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i > 0 ? i : len;
	}
	return len;
}

/* Start of a function template's name after its return type ("void
 * ns::f<int>" -> "ns::f<int>"), or 0.  Only template names carry one. */
static size_t strip_return_type(const char *s, size_t len)
{
	size_t last_space = 0, i;
	int depth = 0;

	if (len == 0 || s[len - 1] != '>')
		return 0;
	/* Find the '<' that opens the trailing template argument list. */
	for (i = len; i-- > 0;) {
		if (s[i] == '>')
			depth++;
		else if (s[i] == '<' && --depth == 0)
			break;
	}
	if (i == (size_t)-1 || i == 0)
		return 0;
	depth = 0;
	for (size_t j = 0; j < i; j++) {
		if (s[j] == '<' || s[j] == '(')
			depth++;
		else if ((s[j] == '>' || s[j] == ')') && depth > 0)
			depth--;
		else if (s[j] == ' ' && depth == 0)
			last_space = j + 1;
	}
	if (last_space >= 9 && !memcmp(s + last_space - 9, "operator ", 9))
		return 0;
	return last_space;
}

static void add_cand(struct cand *c, int *n, const char *s, size_t len)
{
	for (int i = 0; i < *n; i++)
		if (c[i].len == len && !memcmp(c[i].s, s, len))
			return;
	c[*n].s = s;
	c[*n].len = len;
	(*n)++;
}

static int make_cands(struct cand *c, const char *name, const char *raw)
{
	int n = 0;

	if (name && *name) {
		size_t len = strlen(name), plen = strip_params(name, len);
		size_t rt = strip_return_type(name, plen);

		add_cand(c, &n, name, len);
		add_cand(c, &n, name, plen);
		if (rt)
			add_cand(c, &n, name + rt, plen - rt);
	}
	if (raw && *raw)
		add_cand(c, &n, raw, strlen(raw));
	return n;
}

static bool expr_match(const struct expr *e, const struct cand *c, int nc, const char *module)
{
	if (e->mod && (!module || !utrace_glob_match(e->mod, module)))
		return false;
	for (int i = 0; i < nc; i++)
		if (utrace_glob_match_n(e->glob, c[i].s, c[i].len))
			return true;
	return false;
}

/* Does some positive (neg = false) or some '!' (neg = true) expression of
 * the list match? */
/* Whether an expression of l with that sign matches; with hits (one
 * counter per expression of l), every matching one is counted. */
static bool list_any(const struct expr_list *l, bool neg, const struct cand *c, int nc,
		     const char *module, uint32_t *hits)
{
	bool any = false;

	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].neg != neg || !expr_match(&l->v[i], c, nc, module))
			continue;
		if (!hits)
			return true;
		hits[i]++;
		any = true;
	}
	return any;
}

static bool list_match(const struct expr_list *l, const struct cand *c, int nc, const char *module,
		       uint32_t *hits)
{
	return l->npos && list_any(l, false, c, nc, module, hits) &&
	       !list_any(l, true, c, nc, module, NULL);
}

/* Where list which's counters start in a hits array (lists in order). */
static size_t hits_base(const struct utrace_func_filter *f, enum utrace_filter_list which)
{
	size_t base = 0;

	for (int l = 0; l < (int)which; l++)
		base += f->lists[l].n;
	return base;
}

size_t utrace_func_filter_total(const struct utrace_func_filter *f)
{
	return hits_base(f, UTRACE_FILTER_LISTS);
}

const char *utrace_func_filter_expr(const struct utrace_func_filter *f, size_t i,
				    enum utrace_filter_list *which, bool *neg)
{
	for (int l = 0; l < UTRACE_FILTER_LISTS; l++) {
		if (i < f->lists[l].n) {
			*which = (enum utrace_filter_list)l;
			*neg = f->lists[l].v[i].neg;
			return f->lists[l].v[i].text;
		}
		i -= f->lists[l].n;
	}
	return NULL;
}

unsigned utrace_func_filter_select(const struct utrace_func_filter *f, const char *name,
				   const char *raw, const char *module)
{
	return utrace_func_filter_select_hits(f, name, raw, module, NULL);
}

unsigned utrace_func_filter_select_hits(const struct utrace_func_filter *f, const char *name,
					const char *raw, const char *module, uint32_t *hits)
{
	const struct expr_list *filter = &f->lists[UTRACE_FILTER];
	struct cand c[MAX_CANDS];
	unsigned flags = 0;
	const char *slash;
	bool trace;
	int nc;

	if (module && (slash = strrchr(module, '/')))
		module = slash + 1;
	nc = make_cands(c, name, raw);
	trace = !filter->npos || list_any(filter, false, c, nc, module,
					  hits ? hits + hits_base(f, UTRACE_FILTER) : NULL);
	if (trace && filter->n > filter->npos && list_any(filter, true, c, nc, module, NULL))
		trace = false;
	if (list_match(&f->lists[UTRACE_NOTRACE], c, nc, module,
		       hits ? hits + hits_base(f, UTRACE_NOTRACE) : NULL))
		trace = false;
	if (trace)
		flags |= UTRACE_SITE_TRACE;
	if (list_match(&f->lists[UTRACE_GRAPH], c, nc, module,
		       hits ? hits + hits_base(f, UTRACE_GRAPH) : NULL))
		flags |= UTRACE_SITE_GRAPH_ROOT;
	if (list_match(&f->lists[UTRACE_GRAPH_NOTRACE], c, nc, module,
		       hits ? hits + hits_base(f, UTRACE_GRAPH_NOTRACE) : NULL))
		flags |= UTRACE_SITE_GRAPH_NOTRACE;
	return flags;
}
