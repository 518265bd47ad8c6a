/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe_btf.c - the kernel's BTF arguments on in-process probes:
 * an fprobe's, a tracepoint probe's and a kprobe's arguments by the
 * function's parameter names, typed from the program's DWARF
 * (lib/probes/dwarf_btfarg.c stands for the kernel's BTF).
 *
 *   f:ev kfree object                  object=object, the first parameter
 *   f:ev kfree $arg1                   the same ($argN is named when known)
 *   f:ev kfree $arg*                   every parameter, name=name
 *   t:ev kmem_cache_alloc obj_size=s->object_size
 *   f:ev getname_flags%return path=$retval->name:string
 *   t:ev sched_wakeup p->se.group_node.next->prev
 *
 * Design: the kernel's order (traceprobe_expand_meta_args, then each
 * argument by traceprobe_parse_probe_arg): first the words that start
 * with "$arg" are checked (only at a function's entry or return, one
 * $arg* at most), and when the function has a prototype in DWARF, $arg*
 * becomes every parameter's name and $argN[:TYPE] the Nth's NAME[:TYPE].
 * Each argument's text after NAME= is then kept as the kernel keeps it
 * (its "comm": what dynamic_events lists, NAME=TEXT), and an argument
 * without NAME= is named by its text when that is a C identifier, else
 * argN, as the kernel's generate_probe_arg_name().  Last, each argument
 * that is a parameter name or $retval, with its fields, becomes the
 * kernel's fetch-arg in text (NAME=+OFF($argN):TYPE), which the ordinary
 * checker then takes as any other.  A tracepoint probe's function is the
 * tracepoint's __utrace_do_TRACEPOINT, whose parameters are the
 * tracepoint's prototype (the kernel's probestub less its __data).
 *
 * A kprobe (p:, r:) also takes perf probe's source names (locals,
 * globals, *ptr, arr[N]: lib/probes/dwarf_var.c, the probe then moved
 * past the prologue): those are left to it when a name is not one of the
 * function's parameters, or uses '*' or '['.  Without DWARF a name stays
 * as written, and the checker refuses it with the kernel's NOSUP_BTFARG.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/dwarf.h"
#include "lib/probes/inproc_probe_internal.h"

#define BTF_ARGS_LEN 128 /* the kernel's MAX_BTF_ARGS_LEN: the names $arg* and $argN give */

static int berr(struct ipp_parse *ps, int code, int column)
{
	ps->code = code;
	ps->column = column;
	return -1;
}

/* An argument's text after NAME=. */
static const char *arg_body(const char *tok)
{
	const char *eq = strchr(tok, '=');

	return eq ? eq + 1 : tok;
}

/* Whether body is one of the kernel's BTF variables: a name, or $retval
 * (with fields) on a return. */
static bool btf_body(const char *body, bool is_return)
{
	return isalpha((unsigned char)body[0]) || body[0] == '_' ||
	       (is_return && !strncmp(body, "$retval", 7) && strchr(":-.", body[7]));
}

/* The kernel's argv_has_var_arg(): 1 if a word starts with $arg, with
 * *star the $arg* one (-1: none) and *last the last such word. */
static int has_var_arg(struct ipp_parse *ps, const struct upr_point *pt, int *star, int *last)
{
	int found = 0;

	for (unsigned i = 2; i < ps->n; i++) {
		const char *t = ps->tok[i];

		if (strncmp(t, "$arg", 4))
			continue;
		*last = (int)i;
		if (!pt->entry && !pt->is_return)
			return berr(ps, UTRACE_UPROBE_ERR_NOFENTRY_ARGS, ps->col[i]);
		found = 1;
		if (isdigit((unsigned char)t[4]))
			continue;
		if (t[4] != '*')
			return berr(ps, UTRACE_UPROBE_ERR_BAD_VAR, ps->col[i]);
		if (*star >= 0)
			return berr(ps, UTRACE_UPROBE_ERR_DOUBLE_ARGS, ps->col[i]);
		*star = (int)i;
	}
	return found;
}

/* The kernel's sprint_nth_btf_arg(): parameter idx's name and type into
 * *out, counted in *used. */
static int nth_arg(struct ipp_parse *ps, const struct utrace_dwarf_proto *pr, unsigned idx,
		   const char *type, int col, size_t *used, char **out)
{
	const char *name;
	size_t len;

	if (idx >= utrace_dwarf_proto_nparams(pr))
		return berr(ps, UTRACE_UPROBE_ERR_NO_BTFARG, col);
	name = utrace_dwarf_proto_param(pr, idx);
	if (!name)
		return berr(ps, UTRACE_UPROBE_ERR_NO_BTF_ENTRY, col);
	len = strlen(name) + strlen(type);
	if (*used + len + 1 > BTF_ARGS_LEN)
		return berr(ps, UTRACE_UPROBE_ERR_ARGS_2LONG, col);
	*used += len + 1;
	return asprintf(out, "%s%s", name, type) < 0 ? -ENOMEM : 0;
}

/* traceprobe_expand_meta_args(): ps->tok and ps->col with $arg* and
 * $argN replaced by the parameters' names. */
static int expand(struct ipp_parse *ps, const struct utrace_dwarf_proto *pr, int star)
{
	unsigned np = utrace_dwarf_proto_nparams(pr), n = ps->n, j = 0;
	char **tok = calloc(n + np + 1, sizeof(*tok));
	int *col = calloc(n + np + 1, sizeof(*col)), ret = 0;
	size_t used = 0;

	if (!tok || !col)
		ret = -ENOMEM;
	for (unsigned i = 0; i < n && ret == 0; i++) {
		char *end;
		unsigned long k;

		if (i >= 2 && (int)i == star) {
			for (unsigned a = 0; a < np && ret == 0; a++) {
				col[j] = ps->col[i];
				ret = nth_arg(ps, pr, a, "", ps->col[i], &used, &tok[j++]);
			}
			continue;
		}
		if (i < 2 || strncmp(ps->tok[i], "$arg", 4)) {
			col[j] = ps->col[i];
			tok[j++] = ps->tok[i];
			ps->tok[i] = NULL;
			continue;
		}
		k = strtoul(ps->tok[i] + 4, &end, 10);
		if (*end && *end != ':')
			ret = berr(ps, UTRACE_UPROBE_ERR_BAD_VAR, ps->col[i]);
		else if (!k)
			ret = berr(ps, UTRACE_UPROBE_ERR_BAD_ARG_NUM, ps->col[i]);
		else {
			col[j] = ps->col[i];
			ret = nth_arg(ps, pr, k > np ? np : (unsigned)k - 1, end, ps->col[i], &used,
				      &tok[j++]);
		}
	}
	for (unsigned i = 0; i < n; i++)
		free(ps->tok[i]);
	free(ps->tok);
	free(ps->col);
	ps->tok = tok;
	ps->col = col;
	ps->n = tok ? j : 0;
	return ret;
}

/* The kernel's comm of each argument: its text after NAME=. */
static int keep_comm(struct ipp_parse *ps)
{
	struct utrace_inproc_probe *p = ps->p;

	p->ncomm = ps->n > 2 ? ps->n - 2 : 0;
	p->comm = calloc(p->ncomm + 1, sizeof(*p->comm));
	if (!p->comm)
		return -ENOMEM;
	for (unsigned i = 0; i < p->ncomm; i++)
		if (!(p->comm[i] = strdup(arg_body(ps->tok[i + 2]))))
			return -ENOMEM;
	return 0;
}

/* Whether a kprobe's names are perf probe's rather than the kernel's: a
 * name that is no parameter, or a form the kernel has not. */
static bool perf_names(struct ipp_parse *ps, const struct utrace_dwarf_proto *pr)
{
	if (ps->p->fprobe)
		return false;
	for (unsigned i = 2; i < ps->n; i++) {
		const char *b = arg_body(ps->tok[i]);

		if (b[0] == '*')
			return true;
		if (!isalpha((unsigned char)b[0]) && b[0] != '_')
			continue; /* $retval, $argN, a register...: the kernel's */
		if (strchr(b, '[') || utrace_dwarf_proto_find(pr, b, strcspn(b, "-.:")) < 0)
			return true;
	}
	return false;
}

/* Argument i (word i + 2) as the kernel's fetch-arg, named. */
static int rewrite(struct ipp_parse *ps, const struct upr_point *pt,
		   const struct utrace_dwarf_proto *pr, unsigned i)
{
	char *tok = ps->tok[i + 2], fetch[UTRACE_UPROBE_ARG_MAX + 1], name[UTRACE_UPROBE_ARG_MAX + 1];
	const char *body = arg_body(tok);
	int bcol = ps->col[i + 2] + (int)(body - tok), pos, code;
	size_t nlen = strcspn(body, ":");

	if (!btf_body(body, pt->is_return) || strlen(body) > UTRACE_UPROBE_ARG_MAX || !*body)
		return 0; /* the checker's: not a name, or its length */
	code = utrace_dwarf_proto_fetcharg(pr, body, pt->is_return, fetch, sizeof(fetch), &pos);
	if (code)
		return berr(ps, code, bcol + pos);
	if (body != tok)
		snprintf(name, sizeof(name), "%.*s", (int)(body - tok - 1), tok);
	else if (snprintf(name, sizeof(name), "%.*s", (int)nlen, body) > 0 && !upr_good_name(name))
		snprintf(name, sizeof(name), "arg%u", i + 1);
	if (asprintf(&ps->tok[i + 2], "%s=%s", name, fetch) < 0) {
		ps->tok[i + 2] = tok;
		return -ENOMEM;
	}
	free(tok);
	return 0;
}

/* The file has DWARF, not the function: the first name is NO_BTF_ENTRY
 * (a kprobe leaves its names to perf probe's rules). */
static int no_entry(struct ipp_parse *ps)
{
	for (unsigned i = 2; i < ps->n; i++) {
		const char *b = arg_body(ps->tok[i]);

		if (btf_body(b, false))
			return berr(ps, UTRACE_UPROBE_ERR_NO_BTF_ENTRY,
				    ps->col[i] + (int)(b - ps->tok[i]));
	}
	return 0;
}

int ipp_btf_args(struct ipp_parse *ps, const struct upr_point *pt)
{
	struct utrace_dwarf_proto *pr = NULL;
	int star = -1, last = -1, found, ret = 0, open = -ENODATA;
	bool names = false;

	if (ps->with_path)
		return keep_comm(ps);
	found = has_var_arg(ps, pt, &star, &last);
	if (found < 0)
		return -1;
	for (unsigned i = 2; i < ps->n; i++)
		names |= btf_body(arg_body(ps->tok[i]), pt->is_return);
	if ((found || names) && ps->sym_path[0])
		open = utrace_dwarf_proto_open(ps->sym_path, ps->sym_vaddr, &pr);
	if (open == -ENOMEM)
		return -ENOMEM;
	if (found && (!pr || !utrace_dwarf_proto_nparams(pr))) {
		if (star >= 0) /* $arg* needs the prototype */
			ret = berr(ps, UTRACE_UPROBE_ERR_NOSUP_BTFARG, ps->col[last]);
	} else if (found) {
		ret = expand(ps, pr, star);
	}
	if (ret == 0)
		ret = keep_comm(ps);
	if (ret == 0 && names && !pr && open == -ENOENT && ps->p->fprobe)
		ret = no_entry(ps);
	if (ret == 0 && pr && (pt->entry || pt->is_return) && !perf_names(ps, pr))
		for (unsigned i = 0; i + 2 < ps->n && ret == 0; i++)
			ret = rewrite(ps, pt, pr, i);
	utrace_dwarf_proto_free(pr);
	return ret;
}
