/* SPDX-License-Identifier: MIT */
/*
 * dwarf_list.c - `utrace probe -V` and `-L`: what a probe can see, in
 * perf probe's layouts (API in lib/probes/dwarf.h).
 *
 * Design: -V walks the scopes holding the address (innermost lexical
 * block out to the function) and keeps each parameter and variable
 * that has a location there (dw_var_location(): one that a fetch-arg
 * could read), printed "TYPE\tNAME" with perf's type names and sorted as
 * perf's string list sorts them (the whole line).  -L prints the
 * function's source from its first line, numbering the lines that have a
 * statement row inside the function (inlined callees' own lines left out,
 * their call lines in), as perf's die_walk_lines() picks them, then two
 * more lines of context after the last one.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/probes/dwarf_internal.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct strs {
	char **v;
	size_t n, cap;
};

static int add_str(struct strs *s, const char *text)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], text))
			return 0;
	if (UTRACE_GROW(s->v, s->cap, s->n + 1) < 0)
		return -ENOMEM;
	s->v[s->n] = strdup(text);
	return s->v[s->n++] ? 0 : -ENOMEM;
}

static void free_strs(struct strs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/* The variables of one scope (not nested blocks: they are scopes too). */
static int scope_vars(struct utrace_dwarf *d, Dwarf_Die *scope, Dwarf_Die *func, uint64_t addr,
		      struct strs *out)
{
	Dwarf_Die child;
	char line[512], type[256];
	struct dw_loc loc;

	if (dwarf_child(scope, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		const char *name = dwarf_diename(&child);

		if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) || !name)
			continue;
		if (dw_var_location(d, &child, func, addr, &loc) != 0)
			continue;
		if (dw_type_name(&child, type, sizeof(type)) < 0)
			snprintf(type, sizeof(type), "(unknown_type)");
		snprintf(line, sizeof(line), "%s\t%s", type, name);
		if (add_str(out, line) < 0)
			return -ENOMEM;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* One "@<FUNC+OFF>" block of -V. */
static int list_at(struct utrace_dwarf *d, uint64_t addr, FILE *out)
{
	Dwarf_Die func, *scopes = NULL;
	struct strs vars = {0};
	Dwarf_Addr entry = 0;
	int n, ret = 0;

	if (dw_addr_func(d, addr, &func) < 0)
		return 0;
	dwarf_entrypc(&func, &entry);
	n = dw_scopes(d, addr, &scopes);
	for (int i = 0; i < n && ret == 0; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_compile_unit)
			break;
		ret = scope_vars(d, &scopes[i], &func, addr, &vars);
		if (tag == DW_TAG_subprogram)
			break;
	}
	free(scopes);
	if (ret == 0) {
		qsort(vars.v, vars.n, sizeof(*vars.v), cmp_str);
		fprintf(out, "\t@<%s+%" PRIu64 ">\n", dwarf_diename(&func), addr - entry);
		if (!vars.n)
			fprintf(out, "\t\t(No matched variables)\n");
		for (size_t i = 0; i < vars.n; i++)
			fprintf(out, "\t\t%s\n", vars.v[i]);
	}
	free_strs(&vars);
	return ret;
}

int utrace_dwarf_list_vars(struct utrace_dwarf *d, const char *point, FILE *out,
			   struct utrace_error *err)
{
	struct dw_addrs set;
	bool is_file;

	if (dw_point_addrs(d, point, 1, &set, &is_file, err) < 0)
		return -EINVAL;
	/* perf names a FILE:LINE point "@FILE:LINE" (FUNC@FILE without FUNC) */
	fprintf(out, "Available variables at %s%s\n", is_file ? "@" : "", point);
	for (unsigned i = 0; i < set.n; i++)
		if (list_at(d, set.a[i], out) < 0)
			return utrace_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

/* Whether an inlined callee of func (at any depth) holds addr; its DIE. */
static bool inline_at(Dwarf_Die *scope, Dwarf_Addr addr, Dwarf_Die *out)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_inlined_subroutine && dwarf_haspc(&child, addr) == 1) {
			*out = child;
			return true;
		}
		if (tag == DW_TAG_lexical_block && dwarf_haspc(&child, addr) == 1 &&
		    inline_at(&child, addr, out))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* perf's cu_getsrc_die(): the first statement row at addr's address. */
static Dwarf_Line *row_at(Dwarf_Lines *lines, size_t n, Dwarf_Addr addr)
{
	size_t lo = 0, hi = n ? n - 1 : 0, mid;
	Dwarf_Addr la = 0;
	bool stmt = false;

	while (lo < hi) { /* the last row at or below addr */
		mid = hi - (hi - lo) / 2;
		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &la) != 0)
			return NULL;
		if (addr < la)
			hi = mid - 1;
		else
			lo = mid;
	}
	while (lo > 0 && dwarf_lineaddr(dwarf_onesrcline(lines, lo - 1), &la) == 0 && la == addr)
		lo--;
	for (; lo < n; lo++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, lo);

		if (dwarf_lineaddr(l, &la) != 0 || la > addr ||
		    dwarf_linebeginstatement(l, &stmt) != 0)
			return NULL;
		if (stmt)
			return l;
	}
	return NULL;
}

/* perf's "make sure this line can be reversible": the line that addr
 * maps back to is ln of file (the function's entry maps to its first
 * line: has[0]). */
static bool reversible(Dwarf_Die *cu, Dwarf_Lines *lines, size_t n, Dwarf_Addr a, int ln,
		       const char *file, Dwarf_Addr entry)
{
	Dwarf_Line *back;
	const char *bsrc;
	char abs[4096];
	int bln;

	if (a == entry)
		return false;
	back = row_at(lines, n, a);
	if (!back || dwarf_lineno(back, &bln) != 0 || !(bsrc = dwarf_linesrc(back, NULL, NULL)))
		return true;
	return bln == ln && !strcmp(dw_abs_path(cu, bsrc, abs, sizeof(abs)), file);
}

/* What the line walk of one function needs. */
struct walk {
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n;
	const char *file;
	Dwarf_Addr entry;
	int decl, max;
	unsigned char *has;
};

/* Marks the call lines of func's inlined callees that map back to
 * themselves (perf's __die_walk_funclines through its line callback). */
static void call_lines(struct walk *w, Dwarf_Die *scope)
{
	Dwarf_Die child;
	Dwarf_Attribute attr;
	Dwarf_Word cl;
	Dwarf_Addr a;

	if (dwarf_child(scope, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_inlined_subroutine &&
		    dwarf_attr(&child, DW_AT_call_line, &attr) &&
		    dwarf_formudata(&attr, &cl) == 0 && (int)cl >= w->decl &&
		    (int)cl - w->decl < w->max && dwarf_entrypc(&child, &a) == 0 &&
		    reversible(&w->cu, w->lines, w->n, a, (int)cl, w->file, w->entry))
			w->has[cl - (Dwarf_Word)w->decl] = 1;
		if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine)
			call_lines(w, &child);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* Which lines from decl on have a statement in func: has[line - decl]. */
static int func_lines(Dwarf_Die *func, const char *file, int decl, unsigned char *has, int max)
{
	struct walk w = {.file = file, .decl = decl, .max = max, .has = has};
	Dwarf_Die inl;
	char abs[4096];
	int last = 0;

	if (!dwarf_diecu(func, &w.cu, NULL, NULL) || dwarf_getsrclines(&w.cu, &w.lines, &w.n) != 0)
		return -1;
	dwarf_entrypc(func, &w.entry);
	has[0] = 1; /* the function's own line: its entry */
	for (size_t i = 0; i < w.n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(w.lines, i);
		Dwarf_Addr a;
		bool stmt, end;
		int ln, il;
		const char *src;

		if (dwarf_lineno(l, &ln) || dwarf_lineaddr(l, &a) ||
		    dwarf_lineendsequence(l, &end) || end || dwarf_linebeginstatement(l, &stmt) ||
		    !stmt || dwarf_haspc(func, a) != 1)
			continue;
		src = dwarf_linesrc(l, NULL, NULL);
		if (!src || strcmp(dw_abs_path(&w.cu, src, abs, sizeof(abs)), file) || ln < decl ||
		    ln - decl >= max || !reversible(&w.cu, w.lines, w.n, a, ln, file, w.entry))
			continue;
		/* a line of an inlined callee's body is not one of ours */
		if (inline_at(func, a, &inl) && dwarf_decl_line(&inl, &il) == 0 && il != decl)
			continue;
		has[ln - decl] = 1;
	}
	call_lines(&w, func);
	for (int i = 0; i < max; i++)
		if (has[i])
			last = i;
	return last;
}

int utrace_dwarf_list_lines(struct utrace_dwarf *d, const char *name, FILE *out,
			    struct utrace_error *err)
{
	enum { MAX_LINES = 100000 };
	char file[4096], buf[4096];
	unsigned char *has;
	Dwarf_Die func;
	int decl, last, l = 1;
	FILE *src;

	if (dw_find_func(d, name, &func) < 0)
		return dw_fail(err, UTRACE_DWARF_ERR_NO_FUNC, 0, "'%s'", name);
	if (dwarf_decl_line(&func, &decl) != 0 || !dw_func_file(&func, file, sizeof(file)))
		return dw_fail(err, UTRACE_DWARF_ERR_NO_LINE, 0, "'%s' has no source line", name);
	src = fopen(file, "r");
	if (!src)
		return utrace_error_set(err, -ENOENT, "%s: %s (the source of %s)", file,
					strerror(errno), name);
	has = calloc(MAX_LINES, 1);
	last = has ? func_lines(&func, file, decl, has, MAX_LINES) : -1;
	fprintf(out, "<%s@%s:0>\n", name, file);
	/* perf: the numbered range, then NR_ADDITIONAL_LINES (2) more */
	while (last >= 0 && fgets(buf, sizeof(buf), src)) {
		int rel = l - decl;
		size_t len = strlen(buf);

		if (len && buf[len - 1] == '\n')
			buf[len - 1] = 0;
		if (rel > last + 3)
			break;
		if (rel >= 0 && has[rel] && rel <= last)
			fprintf(out, "%7d  %s\n", rel, buf);
		else if (rel >= 0)
			fprintf(out, "         %s\n", buf);
		l++;
	}
	fclose(src);
	free(has);
	return last < 0 ? utrace_error_set(err, -ENOMEM, "cannot read the lines of %s", name) : 0;
}

/* Whether an aggregate has a floating-point member (at any depth): System
 * V passes those in xmm registers, wholly or partly. */
static bool has_float(Dwarf_Die *agg, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die m, t, peeled;
	Dwarf_Word enc;

	if (depth > 8 || dwarf_child(agg, &m) != 0)
		return false;
	do {
		if (dwarf_tag(&m) != DW_TAG_member ||
		    !dwarf_attr_integrate(&m, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &t) ||
		    dwarf_peel_type(&t, &peeled) != 0)
			continue;
		while (dwarf_tag(&peeled) == DW_TAG_array_type &&
		       dwarf_attr_integrate(&peeled, DW_AT_type, &attr) &&
		       dwarf_formref_die(&attr, &t) && dwarf_peel_type(&t, &peeled) == 0)
			;
		if (dwarf_tag(&peeled) == DW_TAG_base_type &&
		    dwarf_attr(&peeled, DW_AT_encoding, &attr) &&
		    dwarf_formudata(&attr, &enc) == 0 &&
		    (enc == DW_ATE_float || enc == DW_ATE_complex_float))
			return true;
		if ((dwarf_tag(&peeled) == DW_TAG_structure_type ||
		     dwarf_tag(&peeled) == DW_TAG_union_type) &&
		    has_float(&peeled, depth + 1))
			return true;
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

/* A type's kind for utrace_dwarf_func_sig(); t is the typed DIE (variable,
 * parameter or function), size set in *size. */
static char type_kind(Dwarf_Die *die, unsigned *size)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc = 0;
	Dwarf_Die t, peeled;
	int tag, bytes;

	*size = 0;
	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &t))
		return 'v';
	if (dwarf_peel_type(&t, &peeled) != 0)
		return '?';
	tag = dwarf_tag(&peeled);
	bytes = dwarf_bytesize(&peeled);
	*size = bytes > 0 ? (unsigned)bytes : 0;
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		*size = 8;
		return 'p';
	case DW_TAG_enumeration_type:
		return 'e';
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		/* floating-point members: in xmm registers, not recorded */
		return has_float(&peeled, 0) && *size <= 16 ? 'f' : 'a';
	case DW_TAG_base_type:
		if (dwarf_attr(&peeled, DW_AT_encoding, &attr))
			dwarf_formudata(&attr, &enc);
		if (enc == DW_ATE_boolean)
			return 'b';
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float)
			return 'f';
		return enc == DW_ATE_signed || enc == DW_ATE_signed_char ? 's' : 'u';
	default:
		return '?';
	}
}

int utrace_dwarf_func_sig(struct utrace_dwarf *d, uint64_t vaddr, struct utrace_dwarf_sig *sig)
{
	Dwarf_Die func, child;

	memset(sig, 0, sizeof(*sig));
	if (dw_addr_func(d, vaddr, &func) < 0)
		return -ENOENT;
	sig->ret_kind = type_kind(&func, &sig->ret_size);
	if (dwarf_child(&func, &child) != 0)
		return 0;
	do {
		const char *name = dwarf_diename(&child);

		if (dwarf_tag(&child) == DW_TAG_unspecified_parameters)
			sig->variadic = true;
		if (dwarf_tag(&child) != DW_TAG_formal_parameter ||
		    sig->nparams == UTRACE_DWARF_SIG_MAX)
			continue;
		snprintf(sig->param[sig->nparams].name, sizeof(sig->param[0].name), "%s",
			 name ? name : "");
		sig->param[sig->nparams].kind = type_kind(&child, &sig->param[sig->nparams].size);
		if (dw_type_name(&child, sig->param[sig->nparams].type,
				 sizeof(sig->param[0].type)) < 0)
			sig->param[sig->nparams].type[0] = 0;
		sig->nparams++;
	} while (dwarf_siblingof(&child, &child) == 0);
	sig->int_regs = sig->ret_kind == 'a' && sig->ret_size > 16;
	for (unsigned i = 0; i < sig->nparams; i++) {
		char k = sig->param[i].kind;
		unsigned sz = sig->param[i].size;

		if (k != 'f' && !(k == 'a' && (sz > 16 || !sz)))
			sig->int_regs += k == 'a' ? (sz + 7) / 8 : 1;
	}
	if (sig->int_regs > 6)
		sig->int_regs = 6;
	return 0;
}
