/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe.c - in-process probe definitions (syntax in lib/probes/inproc_probe.h)
 * parsed and turned into their event's format.
 *
 * Design: the words and columns are the kernel's (argv_split, one caret),
 * and the errors come from the one table of lib/probes/uprobe.h: the
 * probe type and [GRP/]EVENT first, then SYMBOL[+OFFS][%return], then
 * the fetchargs through upr_parse_args() with the point marked in-process
 * (@SYMBOL resolved later, the kprobe type "symbol" allowed).  Default
 * event names are the kernel's: p_SYMBOL_OFFS and r_SYMBOL_0 for kprobes,
 * SYMBOL__entry and SYMBOL__exit for fprobes, TRACEPOINT for tracepoint
 * probes.  A tracepoint probe (t:, the kernel's fprobe on a tracepoint) is
 * an fprobe on the program's __utrace_do_TRACEPOINT, whose arguments are
 * the tracepoint's ($argN); a live recording keeps every tracepoint's
 * jump on (its own record gated by its enable), so that function runs on
 * every hit of the tracepoint.
 *
 * The format is the kernel's for a kprobe event: the common fields, then
 * __probe_ip (or __probe_func, __probe_ret_ip), then one field per
 * argument (strings as __data_loc char[], arrays as TYPE name[N]).  Its
 * print fmt starts with the probed location, "(SYMBOL+0xOFF/0xSIZE)" as
 * the kernel prints a kprobe hit (the size when the program or one of its
 * libraries defines the symbol), then name=value in the kernel's
 * per-type formats.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/libdeps.h"
#include "lib/probes/inproc_probe.h"
#include "lib/probes/dwarf.h"
#include "lib/probes/inproc_probe_internal.h"

bool utrace_inproc_probe_is_in_process(const char *def)
{
	const char *s = def, *w, *c;
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	if (s[0] == '-' && s[1] == ':')
		return true;
	w = s + strcspn(s, " \t");
	while (*w == ' ' || *w == '\t')
		w++;
	n = strcspn(w, " \t");
	/* MODULE:SYMBOL is in-process: a PATH has a '/', an OFFSET a digit */
	c = memchr(w, ':', n);
	if (c && (memchr(w, '/', n) || isdigit((unsigned char)c[1]) || c == w))
		return false;
	return (*s == 'p' || *s == 'r' || *s == 'f' || *s == 't') && n &&
	       !isdigit((unsigned char)w[0]);
}

static bool ipp_base_is(const char *path, const char *module)
{
	const char *base = strrchr(path, '/');

	return !strcmp(base ? base + 1 : path, module);
}

/* MODULE is the object's file name, as the process names it (libc.so.6)
 * or as the file it links to is named (utrace bt names its target's real
 * file: libz.so.1.2.13 for a process that loaded libz.so.1). */
bool utrace_inproc_probe_module_is(const struct utrace_inproc_probe *p, const char *path)
{
	char *real;
	bool is;

	if (!p->module)
		return true;
	if (!path)
		return false;
	if (ipp_base_is(path, p->module))
		return true;
	real = realpath(path, NULL);
	is = real && ipp_base_is(real, p->module);
	free(real);
	return is;
}

static int kerr(struct ipp_parse *ps, int code, int column)
{
	ps->code = code;
	ps->column = column;
	return -1;
}

/* [GRP/]EVENT at col (the kernel's traceprobe_parse_event_name rules). */
static int ipp_event_name(struct ipp_parse *ps, const char *name, int col)
{
	int errcol, code = upr_event_name(name, col, ps->p->group, ps->p->event, &errcol);

	return code ? kerr(ps, code, errcol) : 0;
}

/* [MODULE:]SYMBOL[+OFFS][%return] at col (MODULE: an object's file
 * name, as the kernel's module). */
static int ipp_point(struct ipp_parse *ps, char *tok, int col)
{
	struct utrace_inproc_probe *p = ps->p;
	char *pct = strchr(tok, '%'), *plus, *colon = strchr(tok, ':');

	if (colon && !p->fprobe) {
		*colon = 0;
		if (!(p->module = strdup(tok)))
			return -ENOMEM;
		col += (int)(colon + 1 - tok);
		tok = colon + 1;
	}
	if (pct) {
		if (strcmp(pct, "%return"))
			return kerr(ps, UTRACE_UPROBE_ERR_BAD_ADDR_SUFFIX, col + (int)(pct - tok));
		*pct = 0;
		p->kind = UTRACE_IPP_RETURN;
	}
	plus = strchr(tok, '+');
	if (plus) {
		*plus = 0;
		/* the kernel's errors of the point are at its start */
		if (!upr_strtoul(plus + 1, 0, &p->offset))
			return kerr(ps, UTRACE_UPROBE_ERR_BAD_PROBE_ADDR, col);
		if (p->offset && (p->kind == UTRACE_IPP_RETURN || p->fprobe))
			return kerr(ps,
				    p->fprobe ? UTRACE_UPROBE_ERR_BAD_PROBE_ADDR
					      : UTRACE_UPROBE_ERR_BAD_RETPROBE,
				    col);
	}
	if (!*tok || !(isalpha((unsigned char)*tok) || *tok == '_' || *tok == '.'))
		return kerr(ps, UTRACE_UPROBE_ERR_BAD_PROBE_ADDR, col);
	p->symbol = strdup(tok);
	return p->symbol ? 0 : -ENOMEM;
}

/* TRACEPOINT at col (the kernel's parse_symbol_and_return for a
 * tracepoint: a C identifier, no %return), probed at
 * __utrace_do_TRACEPOINT. */
static int ipp_tracepoint(struct ipp_parse *ps, const char *tok, int col)
{
	struct utrace_inproc_probe *p = ps->p;
	size_t n = 0;

	if (strchr(tok, '%')) /* no %return on a tracepoint */
		return kerr(ps, UTRACE_UPROBE_ERR_BAD_ADDR_SUFFIX, col + (int)(strchr(tok, '%') - tok));
	while (isalnum((unsigned char)tok[n]) || tok[n] == '_')
		n++;
	if (tok[n])
		return kerr(ps, UTRACE_UPROBE_ERR_BAD_TP_NAME, col + (int)n);
	if (!(p->tpoint = strdup(tok)) || !(p->symbol = malloc(n + sizeof("__utrace_do_"))))
		return -ENOMEM;
	snprintf(p->symbol, n + sizeof("__utrace_do_"), "__utrace_do_%s", tok);
	return 0;
}

/* The function's size, its object and address, from the program or the
 * libraries it needs. */
static void ipp_symbol_size(struct ipp_parse *ps, struct utrace_inproc_probe *p, const char *exe)
{
	struct utrace_libdeps deps = {0};
	struct utrace_error err;

	if (!exe || utrace_libdeps_get(exe, &deps, &err) < 0)
		return;
	for (size_t i = 0; i <= deps.n && !p->sym_size; i++) {
		struct upr_file f;
		uint64_t vaddr, size;

		if (!utrace_inproc_probe_module_is(p, i ? deps.paths[i - 1] : exe) ||
		    upr_file_open(i ? deps.paths[i - 1] : exe, &f, NULL) < 0)
			continue;
		if (upr_find_symbol(&f, p->symbol, true, &vaddr, &size) >= 1) {
			p->sym_size = size ? size : 1;
			ps->sym_vaddr = vaddr;
			snprintf(ps->sym_path, sizeof(ps->sym_path), "%s",
				 i ? deps.paths[i - 1] : exe);
		}
		upr_file_close(&f);
	}
	utrace_libdeps_free(&deps);
}

static void ipp_default_event(struct utrace_inproc_probe *p)
{
	char name[256];

	if (p->tpoint)
		snprintf(name, sizeof(name), "%s", p->tpoint);
	else if (p->fprobe)
		snprintf(name, sizeof(name), "%s__%s", p->symbol,
			 p->kind == UTRACE_IPP_RETURN ? "exit" : "entry");
	else /* the kernel's, of "MODULE:SYMBOL" */
		snprintf(name, sizeof(name), "%c_%s%s%s_%" PRIu64,
			 p->kind == UTRACE_IPP_RETURN ? 'r' : 'p', p->module ? p->module : "",
			 p->module ? ":" : "", p->symbol, p->offset);
	for (char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c))
			*c = '_';
	name[UTRACE_UPROBE_NAME_MAX] = 0;
	memcpy(p->event, name, strlen(name) + 1);
}

/* Source names among the fetch-args (count, p->next->len) become plain
 * fetch-args from the DWARF of the symbol's object, as for the kernel's
 * uprobes (lib/probes/dwarf_var.c); a probe on a function's first
 * instruction moves past its prologue for them, as perf probe's does, and
 * so leaves the call site for a mid-function probe.  Without DWARF the
 * names stay and the checker refuses them with the kernel's message. */
static int ipp_dwarf_names(struct ipp_parse *ps, struct upr_point *pt)
{
	struct utrace_inproc_probe *p = ps->p;
	uint64_t vaddr = ps->sym_vaddr + p->offset, moved = vaddr;
	int ret;

	if (!ps->sym_path[0] || ps->n < 3 || p->fprobe)
		return 0;
	ret = utrace_dwarf_rewrite_args(ps->sym_path, &moved, pt->entry, pt->is_return, ps->tok + 2,
					ps->col + 2, ps->n - 2, &ps->dwerr);
	if (ret == -ENODATA)
		return 0;
	if (ret < 0) {
		ps->dw_failed = ret != -ENOMEM;
		return ret;
	}
	if (moved != vaddr) {
		p->offset += moved - vaddr;
		p->vaddr += moved - vaddr; /* a PATH: probe's, in the same segment */
		p->foff += moved - vaddr;
		pt->entry = false;
	}
	return 0;
}

/* The type word: p, r[MAXACTIVE], f, t or -, then [:[GRP/]EVENT] (the
 * kernel's __trace_kprobe_create checks, at its columns). */
static int ipp_type(struct ipp_parse *ps, const char *t0)
{
	struct utrace_inproc_probe *p = ps->p;
	/* after a digit, up to ':' is the maxactive number (the kernel's
	 * kstrtouint of it) */
	size_t digits = isdigit((unsigned char)t0[1]) ? strcspn(t0 + 1, ":") : 0;
	uint64_t max;
	char num[UTRACE_UPROBE_NAME_MAX + 1];

	if (!strchr("prft-", t0[0]) || !t0[0] || (ps->with_path && strchr("ft", t0[0])))
		return kerr(ps, UTRACE_UPROBE_ERR_BAD_PROBE_TYPE, ps->col[0]); /* a uprobe: p or r */
	/* the kernel's tracepoint probe: t or t:, no maxactive */
	if (t0[0] == 't' && t0[1] && t0[1] != ':')
		return kerr(ps, UTRACE_UPROBE_ERR_BAD_MAXACT_TYPE, ps->col[0] + 1);
	/* the kernel's fprobe: anything but ':' after 'f' is a bad maxactive */
	if (t0[0] == 'f' && t0[1] && t0[1] != ':')
		return kerr(ps, UTRACE_UPROBE_ERR_BAD_MAXACT, ps->col[0] + 1);
	if ((t0[1 + digits] && t0[1 + digits] != ':') || (digits && (t0[0] == '-' || ps->with_path)))
		return kerr(ps, UTRACE_UPROBE_ERR_BAD_PROBE_TYPE, ps->col[0]);
	snprintf(p->group, sizeof(p->group), "%s", ps->group);
	p->kind = t0[0] == 'r' ? UTRACE_IPP_RETURN : t0[0] == '-' ? UTRACE_IPP_REMOVE : UTRACE_IPP_PROBE;
	p->fprobe = t0[0] == 'f' || t0[0] == 't';
	p->tprobe = t0[0] == 't';
	if (digits) {
		if (p->kind != UTRACE_IPP_RETURN)
			return kerr(ps, UTRACE_UPROBE_ERR_BAD_MAXACT_TYPE, ps->col[0] + 1);
		snprintf(num, sizeof(num), "%.*s", (int)digits, t0 + 1);
		if (digits >= sizeof(num) || !upr_strtoul(num, 0, &max) || !max)
			return kerr(ps, UTRACE_UPROBE_ERR_BAD_MAXACT, ps->col[0] + 1);
		if (max > UTRACE_INPROC_PROBE_MAXACTIVE_MAX)
			return kerr(ps, UTRACE_UPROBE_ERR_MAXACT_TOO_BIG, ps->col[0] + 1);
		p->maxactive = (unsigned)max;
	}
	if (t0[1 + digits] == ':' &&
	    ipp_event_name(ps, t0 + 2 + digits, ps->col[0] + 2 + (int)digits) < 0)
		return -1;
	return 0;
}

/* SYMBOL[+OFFS][%return] of the program (or a library): *entry whether
 * at the function's first instruction. */
static int ipp_symbol_point(struct ipp_parse *ps, bool *entry)
{
	struct utrace_inproc_probe *p = ps->p;
	int ret;

	ret = p->tprobe ? ipp_tracepoint(ps, ps->tok[1], ps->col[1])
			: ipp_point(ps, ps->tok[1], ps->col[1]);
	if (ret)
		return ret;
	ipp_symbol_size(ps, p, ps->exe);
	if (p->sym_size > 1 && p->offset >= p->sym_size) {
		snprintf(ps->detail, sizeof(ps->detail), "%s has %" PRIu64 " bytes", p->symbol,
			 p->sym_size);
		return kerr(ps, UTRACE_UPROBE_ERR_OFFS_BEYOND_SYMBOL,
			    ps->col[1] + (int)strlen(p->symbol) + 1);
	}
	if (!p->event[0])
		ipp_default_event(p);
	*entry = p->kind != UTRACE_IPP_RETURN && !p->offset;
	return 0;
}

static int ipp_parse(struct ipp_parse *ps)
{
	struct utrace_inproc_probe *p = ps->p;
	struct upr_point pt = {.in_process = true};
	struct upr_file file;
	int ret = upr_split(ps->def, &ps->tok, &ps->col, &ps->n);

	if (ret < 0)
		return ret;
	if (!ps->n)
		return kerr(ps, UTRACE_UPROBE_ERR_NO_DEFINITION, 1);
	if (ipp_type(ps, ps->tok[0]) < 0)
		return -1;
	if (p->kind == UTRACE_IPP_REMOVE)
		return p->event[0] ? 0 : kerr(ps, UTRACE_UPROBE_ERR_NO_EVENT_NAME, ps->col[0] + 2);
	if (ps->n < 2)
		return kerr(ps,
			    ps->with_path ? UTRACE_UPROBE_ERR_NO_PROBE_POINT
					  : UTRACE_UPROBE_ERR_BAD_PROBE_ADDR,
			    ps->col[0] + (int)strlen(ps->tok[0]) + 1);
	if (!ps->with_path)
		ret = ipp_symbol_point(ps, &pt.entry);
	else if ((ret = ipp_path_point(ps, ps->tok[1], ps->col[1], &pt.entry)) == 0 && !p->event[0])
		ipp_path_event(p);
	if (ret)
		return ret;
	pt.is_return = p->kind == UTRACE_IPP_RETURN;
	pt.kernel = !ps->with_path;
	pt.fprobe = p->fprobe;
	if ((ret = ipp_btf_args(ps, &pt)) != 0 || (ret = ipp_dwarf_names(ps, &pt)) < 0)
		return ret;
	p->u.is_return = pt.is_return;
	/* a PATH: probe's @SYMBOLs are that file's */
	if (ps->with_path && upr_file_open(p->real, &file, NULL) == 0)
		pt.file = &file;
	ret = upr_parse_args(&p->u, &pt, ps->tok + 2, ps->col + 2, ps->n - 2, &ps->column);
	if (pt.file)
		upr_file_close(&file);
	if (ret > 0)
		return kerr(ps, ret, ps->column);
	if (ret < 0)
		return ret;
	/* every argument was checked: a format that cannot be made is a bug */
	return ipp_make_format(p, ps->id) < 0 ? -ENOMEM : 0;
}

int utrace_inproc_probe_parse(const char *def, const char *exe, struct utrace_inproc_probe **out, int *code,
			struct utrace_error *err)
{
	return utrace_inproc_probe_parse_as(def, exe, NULL, false, out, code, err);
}

int utrace_inproc_probe_parse_as(const char *def, const char *exe, const char *group, bool with_path,
			   struct utrace_inproc_probe **out, int *code, struct utrace_error *err)
{
	struct ipp_parse ps = {.def = def ? def : "", .exe = exe, .with_path = with_path,
			      .group = group ? group : UTRACE_INPROC_PROBE_DEFAULT_GROUP};
	int ret;

	*out = NULL;
	if (code)
		*code = UTRACE_UPROBE_ERR_NONE;
	ps.p = calloc(1, sizeof(*ps.p));
	ret = ps.p ? ipp_parse(&ps) : -ENOMEM;
	if (ret < 0) {
		struct upr_failure f = {ps.code, ps.column, ps.detail, ps.dw_failed, &ps.dwerr};

		ret = upr_parse_failed(ret, &f, code, err);
	}
	for (unsigned i = 0; i < ps.n; i++)
		free(ps.tok[i]);
	free(ps.tok);
	free(ps.col);
	if (ret < 0)
		utrace_inproc_probe_free(ps.p);
	else
		*out = ps.p;
	return ret < 0 ? ret : 0;
}

void utrace_inproc_probe_free(struct utrace_inproc_probe *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->u.nargs; i++) {
		free(p->u.args[i].fetch);
		free(p->u.args[i].type);
	}
	free(p->u.args);
	for (unsigned i = 0; i < p->ncomm && p->comm; i++)
		free(p->comm[i]);
	free(p->comm);
	free(p->symbol);
	free(p->tpoint);
	free(p->module);
	free(p->path);
	free(p->real);
	free(p->format);
	free(p->ep_sys);
	free(p->ep_name);
	free(p->ep_filter);
	free(p->ep_def);
	utrace_event_format_free(p->fmt);
	free(p);
}

const char *utrace_inproc_probe_eprobe(const struct utrace_inproc_probe *p, const char **name,
				       const char **filter, const char **def)
{
	if (!p->eprobe)
		return NULL;
	*name = p->ep_name;
	*filter = p->ep_filter;
	*def = p->ep_def;
	return p->ep_sys;
}

enum utrace_inproc_probe_kind utrace_inproc_probe_kind(const struct utrace_inproc_probe *p)
{
	return p->kind;
}

bool utrace_inproc_probe_fprobe(const struct utrace_inproc_probe *p)
{
	return p->fprobe;
}

const char *utrace_inproc_probe_tracepoint(const struct utrace_inproc_probe *p)
{
	return p->tpoint;
}

unsigned utrace_inproc_probe_nargs(const struct utrace_inproc_probe *p)
{
	return p->u.nargs;
}

const char *utrace_inproc_probe_arg(const struct utrace_inproc_probe *p, unsigned i, const char **comm)
{
	if (i >= p->u.nargs)
		return NULL;
	if (comm)
		*comm = i < p->ncomm ? p->comm[i] : p->u.args[i].fetch;
	return p->u.args[i].name;
}

const char *utrace_inproc_probe_group(const struct utrace_inproc_probe *p)
{
	return p->group;
}

const char *utrace_inproc_probe_event(const struct utrace_inproc_probe *p)
{
	return p->event;
}

const char *utrace_inproc_probe_symbol(const struct utrace_inproc_probe *p, uint64_t *offset)
{
	if (offset)
		*offset = p->offset;
	return p->symbol;
}

const char *utrace_inproc_probe_module(const struct utrace_inproc_probe *p)
{
	return p->module;
}

bool utrace_inproc_probe_found(const struct utrace_inproc_probe *p)
{
	return p->sym_size != 0;
}

const char *utrace_inproc_probe_path(const struct utrace_inproc_probe *p, uint64_t *file_offset)
{
	if (file_offset)
		*file_offset = p->foff;
	return p->path;
}

unsigned utrace_inproc_probe_maxactive(const struct utrace_inproc_probe *p)
{
	return p->maxactive;
}

const struct utrace_event_format *utrace_inproc_probe_format(const struct utrace_inproc_probe *p)
{
	return p->fmt;
}

const char *utrace_inproc_probe_format_text(const struct utrace_inproc_probe *p)
{
	return p->format;
}
