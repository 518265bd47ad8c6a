/* SPDX-License-Identifier: MIT */
/*
 * dwarf_line.c - probe points by source line: SYMBOL:LINE (LINE counted
 * from the function's first line, as `perf probe -L` numbers them) and
 * FILE:LINE (API in lib/probes/dwarf.h).
 *
 * Design: a line's address is the lowest address of the line table's
 * statement rows for that line (in the function's ranges for SYMBOL:LINE;
 * in every compilation unit whose row names a file ending in FILE for
 * FILE:LINE), as perf probe's line walker finds them.  A line without
 * such a row (a comment, a declaration, code the optimiser merged away)
 * is refused: `-L` shows which lines have one.  The other way, an
 * address's line (utrace_dwarf_addr_src: pprof's locations) is the row
 * at or below it in its function's unit.
 */
#include <ctype.h>
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/dwarf_internal.h"

bool utrace_dwarf_is_line_point(const char *target)
{
	const char *colon = strrchr(target, ':');

	if (!colon || colon == target || !colon[1])
		return false;
	for (const char *s = colon + 1; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* Whether path ends with tail at a '/' boundary. */
static bool tail_match(const char *path, const char *tail)
{
	size_t pl = strlen(path), tl = strlen(tail);

	return pl >= tl && !strcmp(path + pl - tl, tail) &&
	       (pl == tl || path[pl - tl - 1] == '/' || tail[0] == '/');
}

/* Adds a to the sorted set. */
static void add_addr(struct dw_addrs *set, Dwarf_Addr a)
{
	unsigned i = 0;

	while (i < set->n && set->a[i] < a)
		i++;
	if ((i < set->n && set->a[i] == a) || set->n == DW_ADDRS_MAX)
		return;
	memmove(&set->a[i + 1], &set->a[i], (set->n - i) * sizeof(set->a[0]));
	set->a[i] = a;
	set->n++;
}

/* The statement addresses of line lno (of a file ending in file) in cu,
 * restricted to func's ranges if func, added to set. */
static void line_in_cu(Dwarf_Die *cu, Dwarf_Die *func, const char *file, int lno,
		       struct dw_addrs *set)
{
	Dwarf_Lines *lines;
	char abs[4096];
	size_t n;

	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool stmt, end;
		int ln;
		const char *src;

		if (dwarf_lineno(l, &ln) || ln != lno || dwarf_lineaddr(l, &a) ||
		    dwarf_linebeginstatement(l, &stmt) || !stmt || dwarf_lineendsequence(l, &end) ||
		    end)
			continue;
		src = dwarf_linesrc(l, NULL, NULL);
		if (src && tail_match(dw_abs_path(cu, src, abs, sizeof(abs)), file) &&
		    (!func || dwarf_haspc(func, a) == 1))
			add_addr(set, a);
	}
}

/* FUNC:RLN */
static int func_line(struct utrace_dwarf *d, const char *spec, size_t flen, long rln, int col,
		     struct dw_addrs *set, struct utrace_error *err)
{
	char name[256], file[4096];
	Dwarf_Die func, cu;
	int decl;

	snprintf(name, sizeof(name), "%.*s", (int)flen, spec);
	if (dw_find_func(d, name, &func) < 0)
		return dw_fail(err, UTRACE_DWARF_ERR_NO_FUNC, col, "'%s'", name);
	if (dwarf_decl_line(&func, &decl) == 0 && dw_func_file(&func, file, sizeof(file)) &&
	    dwarf_diecu(&func, &cu, NULL, NULL))
		line_in_cu(&cu, &func, file, decl + (int)rln, set);
	if (!set->n)
		return dw_fail(err, UTRACE_DWARF_ERR_NO_LINE, col + (int)flen + 1,
			       "%s:%ld (see -L %s)", name, rln, name);
	return 0;
}

/* FILE:LINE */
static int file_line(struct utrace_dwarf *d, const char *spec, size_t flen, long lno, int col,
		     struct dw_addrs *set, struct utrace_error *err)
{
	char file[4096];
	Dwarf_Off off = 0, next;
	size_t hsize;
	bool seen = false;

	snprintf(file, sizeof(file), "%.*s", (int)flen, spec);
	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Files *files;
		size_t nf;

		if (dwarf_offdie(d->dw, off + hsize, &cu) &&
		    dwarf_getsrcfiles(&cu, &files, &nf) == 0)
			for (size_t i = 0; i < nf && !seen; i++) {
				const char *src = dwarf_filesrc(files, i, NULL, NULL);
				char abs[4096];

				seen = src &&
				       tail_match(dw_abs_path(&cu, src, abs, sizeof(abs)), file);
			}
		if (dwarf_offdie(d->dw, off + hsize, &cu))
			line_in_cu(&cu, NULL, file, (int)lno, set);
		off = next;
	}
	if (!seen)
		return dw_fail(err, UTRACE_DWARF_ERR_NO_SOURCE, col, "'%s'", file);
	if (!set->n)
		return dw_fail(err, UTRACE_DWARF_ERR_NO_LINE, col + (int)flen + 1, "%s:%ld", file,
			       lno);
	return 0;
}

/* FILE has a '.' or '/', a function name has neither. */
static bool names_file(const char *s, size_t len)
{
	return memchr(s, '.', len) || memchr(s, '/', len);
}

int dw_point_addrs(struct utrace_dwarf *d, const char *point, int col, struct dw_addrs *set,
		   bool *is_file, struct utrace_error *err)
{
	const char *colon = strrchr(point, ':'), *plus = strchr(point, '+');
	Dwarf_Die func;
	Dwarf_Addr a = 0;
	char name[256];

	set->n = 0;
	*is_file = false;
	if (colon && utrace_dwarf_is_line_point(point)) {
		long line = strtol(colon + 1, NULL, 10);
		size_t len = (size_t)(colon - point);

		*is_file = names_file(point, len);
		return *is_file ? file_line(d, point, len, line, col, set, err)
				: func_line(d, point, len, line, col, set, err);
	} else {
		size_t len = plus ? (size_t)(plus - point) : strlen(point);
		char *end = NULL;
		unsigned long off = plus ? strtoul(plus + 1, &end, 0) : 0;

		if (plus && (!*(plus + 1) || *end))
			return dw_fail(err, UTRACE_DWARF_ERR_NO_FUNC, col + (int)len + 1, "'%s'",
				       point);
		snprintf(name, sizeof(name), "%.*s", (int)len, point);
		if (dw_find_func(d, name, &func) < 0 || dwarf_entrypc(&func, &a) != 0)
			return dw_fail(err, UTRACE_DWARF_ERR_NO_FUNC, col, "'%s'", name);
		add_addr(set, a + off);
	}
	return 0;
}

int dw_addr_func(struct utrace_dwarf *d, uint64_t addr, Dwarf_Die *func)
{
	Dwarf_Die *scopes = NULL, *f;
	int n = dw_scopes(d, addr, &scopes);

	f = dw_scope_func(scopes, n);
	if (f)
		*func = *f;
	free(scopes);
	return f ? 0 : -ENOENT;
}

int dw_point_addr(struct utrace_dwarf *d, const char *point, int col, uint64_t *addr,
		  Dwarf_Die *func, struct utrace_error *err)
{
	struct dw_addrs set;
	bool is_file;

	if (dw_point_addrs(d, point, col, &set, &is_file, err) < 0)
		return -EINVAL;
	*addr = set.a[0]; /* the line's first instruction */
	if (dw_addr_func(d, *addr, func) < 0)
		return dw_fail(err, UTRACE_DWARF_ERR_NO_SCOPE, col, "0x%" PRIx64, *addr);
	return 0;
}

int utrace_dwarf_line_addr(struct utrace_dwarf *d, const char *spec, int col, uint64_t *vaddr,
			   char **func, uint64_t *func_off, struct utrace_error *err)
{
	Dwarf_Die f;
	Dwarf_Addr entry;
	const char *name;

	*func = NULL;
	if (dw_point_addr(d, spec, col, vaddr, &f, err) < 0)
		return -EINVAL;
	name = dwarf_diename(&f);
	if (!name || dwarf_entrypc(&f, &entry) != 0 || entry > *vaddr)
		return dw_fail(err, UTRACE_DWARF_ERR_NO_SCOPE, col, "0x%" PRIx64, *vaddr);
	*func = strdup(name);
	*func_off = *vaddr - entry;
	return *func ? 0 : utrace_error_set(err, -ENOMEM, "out of memory");
}

int utrace_dwarf_decl_line(struct utrace_dwarf *d, uint64_t vaddr)
{
	Dwarf_Die f;
	int line;

	if (dw_addr_func(d, vaddr, &f) < 0 || dwarf_decl_line(&f, &line) != 0)
		return -ENOENT;
	return line;
}

/* The line table's row at or below vaddr in the unit of func. */
static int addr_row(Dwarf_Die *func, uint64_t vaddr, struct utrace_dwarf_src *src)
{
	Dwarf_Die cu;
	Dwarf_Line *l;
	const char *file;
	int line;

	if (!dwarf_diecu(func, &cu, NULL, NULL) || !(l = dwarf_getsrc_die(&cu, vaddr)) ||
	    dwarf_lineno(l, &line) != 0 || !(file = dwarf_linesrc(l, NULL, NULL)))
		return -ENOENT;
	src->line = line;
	dw_abs_path(&cu, file, src->file, sizeof(src->file));
	return 0;
}

int utrace_dwarf_addr_src(struct utrace_dwarf *d, uint64_t vaddr, struct utrace_dwarf_src *src)
{
	Dwarf_Die f;

	memset(src, 0, sizeof(*src));
	if (dw_addr_func(d, vaddr, &f) < 0 || addr_row(&f, vaddr, src) < 0)
		return -ENOENT;
	if (dwarf_decl_line(&f, &src->func_line) != 0)
		src->func_line = 0;
	if (!dw_func_file(&f, src->func_file, sizeof(src->func_file)))
		snprintf(src->func_file, sizeof(src->func_file), "%s", src->file);
	return 0;
}
