/* SPDX-License-Identifier: MIT */
/*
 * uprobe.c - probe definitions: `p:GRP/EVENT PATH:SYMBOL+OFFS FETCHARGS`
 * parsed, resolved to the kernel's `PATH:0xFILEOFFSET`, and written as the
 * line uprobe_events takes (syntax in lib/probes/uprobe.h).
 *
 * Design: the definition is split into words as the kernel splits a
 * command (argv_split: blanks), each word keeping its column, and read
 * left to right: the probe type and [GRP/]EVENT (the kernel's
 * traceprobe_parse_event_name() rules: '/' or else '.' separates the
 * group), the probe point, then every fetcharg (lib/probes/uprobe_args.c).  The
 * first error stops the parse with the kernel's message and the column of
 * the kernel's caret, counted in the definition as the user wrote it.
 *
 * The probe point is PATH:TARGET.  PATH may itself contain ':', so the
 * split is the first ':' whose left side is an existing file, else the
 * last one (the kernel's choice).  TARGET is the kernel's
 * OFFSET[(REFCTR)][%return] or utrace's SYMBOL[+OFFS] with the same
 * suffixes; a SYMBOL is looked up among the file's functions (mangled or
 * demangled name) and mapped to its file offset through its PT_LOAD
 * segment (lib/probes/uprobe_elf.c).  The file is opened only for that and for
 * @SYMBOL and $argN; the kernel reopens it by its absolute path.
 *
 * Without an event name, the probe is named after its symbol (SYMBOL,
 * SYMBOL_OFFS, SYMBOL__return, like perf probe), or for a file offset
 * as the kernel names it (p_BASENAME_0xOFFSET).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/probes/dwarf.h"
#include "lib/probes/uprobe_internal.h"

#define UPROBE_ERR_TEXT(name, text) text,
static const char *const err_text[] = {"No error", UTRACE_UPROBE_ERRORS(UPROBE_ERR_TEXT)};
#undef UPROBE_ERR_TEXT

#define NR_ERRORS (int)(sizeof(err_text) / sizeof(err_text[0]))

const char *utrace_uprobe_error_text(int code)
{
	return code >= 0 && code < NR_ERRORS ? err_text[code] : "Unknown error";
}

/* The state of one parse. */
struct parse {
	const char *def;
	char **tok; /* the words, copied */
	int *col;   /* each one's 1-based column */
	unsigned n;
	struct utrace_uprobe *p;
	struct upr_file file;
	bool have_file;
	int code, column;
	char detail[PATH_MAX + 64]; /* said after the message, if any */
	bool dw_failed;		    /* a source name or line was wrong: dwerr says */
	struct utrace_error dwerr;
	char no_dwarf[sizeof(((struct utrace_error *)0)->msg)]; /* why no source name can be read */
};

static int perr(struct parse *ps, int code, int column)
{
	ps->code = code;
	ps->column = column;
	return -1;
}

/* traceprobe_parse_event_name(): [GROUP/]EVENT or GROUP.EVENT at col. */
static int parse_event_name(struct parse *ps, const char *name, int col)
{
	int errcol, code = upr_event_name(name, col, ps->p->group, ps->p->event, &errcol);

	return code ? perr(ps, code, errcol) : 0;
}

/* name's absolute path: as given if it has a '/', else in the current
 * directory, else in $PATH.  0, -ENOENT, or -EISDIR (not a regular file). */
static int resolve_path(const char *name, char **abs)
{
	const char *path = getenv("PATH");
	struct stat st;
	char *full = NULL;

	*abs = NULL;
	if (!*name)
		return -ENOENT;
	if (!strchr(name, '/') && stat(name, &st) < 0) {
		if (!path || !*path)
			path = "/usr/local/bin:/usr/bin:/bin";
		while (*path && !full) {
			size_t len = strcspn(path, ":");

			if (asprintf(&full, "%.*s/%s", (int)len, path, name) < 0)
				return -ENOMEM;
			if (!len || stat(full, &st) < 0 || !S_ISREG(st.st_mode) ||
			    access(full, X_OK) < 0) {
				free(full);
				full = NULL;
			}
			path += len + (path[len] == ':');
		}
		if (!full)
			return -ENOENT;
		name = full;
	}
	if (stat(name, &st) < 0) {
		free(full);
		return -ENOENT;
	}
	*abs = S_ISREG(st.st_mode) ? realpath(name, NULL) : NULL;
	free(full);
	return S_ISREG(st.st_mode) ? (*abs ? 0 : -ENOMEM) : -EISDIR;
}

/* The event name perf probe would give: SYMBOL[_OFFS][__return]. */
static void default_event(struct parse *ps, const char *path)
{
	struct utrace_uprobe *p = ps->p;
	char name[256];
	size_t i;

	if (p->symbol) {
		snprintf(name, sizeof(name), "%s", p->symbol);
		if (p->sym_off)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), "_%" PRIu64,
				 p->sym_off);
		if (p->is_return)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), "__return");
	} else {
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

		snprintf(name, sizeof(name), "%c_%.*s_0x%" PRIx64, p->is_return ? 'r' : 'p',
			 (int)strcspn(base, ".-_"), base, p->offset);
	}
	for (i = 0; name[i]; i++)
		if (!(name[i] == '_' || (name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= '0' && name[i] <= '9')))
			name[i] = '_';
	snprintf(p->event, sizeof(p->event), "%s%s", name[0] >= '0' && name[0] <= '9' ? "_" : "",
		 name);
}

/* SYMBOL[+OFFS] at tcol: its file offset; sets p->symbol and sym_off. */
static int resolve_symbol(struct parse *ps, char *target, int tcol, int pcol, bool *entry)
{
	struct utrace_uprobe *p = ps->p;
	char *plus = strchr(target, '+');
	uint64_t off = 0, vaddr, size;
	const char *why = NULL;
	int n, ret;

	if (plus) {
		*plus = 0;
		if (!upr_strtoul(plus + 1, 0, &off))
			return perr(ps, UTRACE_UPROBE_ERR_BAD_PROBE_ADDR,
				    tcol + (int)(plus + 1 - target));
		if (p->is_return && off)
			return perr(ps, UTRACE_UPROBE_ERR_BAD_RETPROBE,
				    tcol + (int)(plus - target));
	}
	if (!*target)
		return perr(ps, UTRACE_UPROBE_ERR_BAD_PROBE_ADDR, tcol);
	ret = upr_file_open(p->path, &ps->file, &why);
	if (ret < 0) {
		snprintf(ps->detail, sizeof(ps->detail), "%s: %s", p->path,
			 why ? why : strerror(-ret));
		return perr(ps, UTRACE_UPROBE_ERR_NOT_ELF, pcol);
	}
	ps->have_file = true;
	n = upr_find_symbol(&ps->file, target, true, &vaddr, &size);
	if (n != 1) {
		snprintf(ps->detail, sizeof(ps->detail), "'%s' in %s", target, p->path);
		return perr(
		    ps, n ? UTRACE_UPROBE_ERR_AMBIGUOUS_SYMBOL : UTRACE_UPROBE_ERR_NO_SYMBOL, tcol);
	}
	if (size && off >= size) {
		snprintf(ps->detail, sizeof(ps->detail), "%s has %" PRIu64 " bytes", target, size);
		return perr(ps, UTRACE_UPROBE_ERR_OFFS_BEYOND_SYMBOL,
			    tcol + (int)(plus + 1 - target));
	}
	if (upr_vaddr_to_offset(&ps->file, vaddr + off, &p->offset) < 0)
		return perr(ps, UTRACE_UPROBE_ERR_NOT_LOADED, tcol);
	p->symbol = strdup(target);
	p->sym_off = off;
	*entry = !p->is_return && !off;
	return p->symbol ? 0 : -ENOMEM;
}

/* SYMBOL:LINE or FILE:LINE at tcol (lib/probes/dwarf_line.c). */
static int resolve_line(struct parse *ps, const char *target, int tcol)
{
	struct utrace_uprobe *p = ps->p;
	struct utrace_dwarf *dw;
	uint64_t vaddr;
	int ret;

	if (p->is_return)
		return perr(ps, UTRACE_UPROBE_ERR_BAD_RETPROBE, tcol);
	ret = utrace_dwarf_open(p->path, &dw, &ps->dwerr);
	if (ret == 0)
		ret = utrace_dwarf_line_addr(dw, target, tcol, &vaddr, &p->symbol, &p->sym_off,
					     &ps->dwerr);
	/* perf probe's name, SYMBOL_L<LINE> (LINE counted from the function's
	 * first line, for FILE:LINE too) */
	if (ret == 0 && !p->event[0] && upr_good_name(p->symbol)) {
		long line = strtol(strrchr(target, ':') + 1, NULL, 10);
		int decl = utrace_dwarf_decl_line(dw, vaddr);

		if (strpbrk(target, "./") && decl >= 0)
			line -= decl; /* FILE:LINE */
		snprintf(p->event, sizeof(p->event), "%.*s_L%ld", UTRACE_UPROBE_NAME_MAX - 12,
			 p->symbol, line);
	}
	utrace_dwarf_close(dw);
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		ps->dw_failed = true;
		return -1;
	}
	if (upr_file_open(p->path, &ps->file, NULL) < 0)
		return perr(ps, UTRACE_UPROBE_ERR_NOT_ELF, tcol);
	ps->have_file = true;
	if (upr_vaddr_to_offset(&ps->file, vaddr, &p->offset) < 0)
		return perr(ps, UTRACE_UPROBE_ERR_NOT_LOADED, tcol);
	return 0;
}

/* PATH:TARGET, the word at col. */
static int parse_point(struct parse *ps, char *tok, int col, bool *entry)
{
	struct utrace_uprobe *p = ps->p;
	const char *colon = NULL;
	char *target, *rctr, *pct, *end;
	int tcol, ret;
	uint64_t v;

	for (const char *c = strchr(tok, ':'); c && !colon; c = strchr(c + 1, ':')) {
		char *prefix = strndup(tok, (size_t)(c - tok));

		if (!prefix)
			return -ENOMEM;
		if (resolve_path(prefix, &p->path) == 0)
			colon = c;
		free(prefix);
	}
	if (!colon && !(colon = strrchr(tok, ':')))
		return perr(ps, UTRACE_UPROBE_ERR_NO_PROBE_POINT, col);
	if (colon == tok)
		return perr(ps, UTRACE_UPROBE_ERR_NO_PATH, col);
	if (!p->path) {
		char *prefix = strndup(tok, (size_t)(colon - tok));

		if (!prefix)
			return -ENOMEM;
		ret = resolve_path(prefix, &p->path);
		snprintf(ps->detail, sizeof(ps->detail), "%s", prefix);
		free(prefix);
		if (ret == -ENOMEM)
			return ret;
		return perr(ps,
			    ret == -EISDIR ? UTRACE_UPROBE_ERR_NO_REGULAR_FILE
					   : UTRACE_UPROBE_ERR_FILE_NOT_FOUND,
			    col);
	}
	target = tok + (colon - tok) + 1;
	tcol = col + (int)(target - tok);

	rctr = strchr(target, '(');
	if (rctr) {
		end = strchr(rctr, ')');
		if (!end)
			return perr(ps, UTRACE_UPROBE_ERR_REFCNT_OPEN_BRACE,
				    tcol + (int)(rctr - target + strlen(rctr)));
		if (end[1])
			return perr(ps, UTRACE_UPROBE_ERR_BAD_REFCNT_SUFFIX,
				    tcol + (int)(end + 1 - target));
		*rctr = *end = 0;
		if (!upr_strtoul(rctr + 1, 0, &p->ref_ctr))
			return perr(ps, UTRACE_UPROBE_ERR_BAD_REFCNT,
				    tcol + (int)(rctr + 1 - target));
	}
	pct = strchr(target, '%');
	if (pct) {
		if (strcmp(pct, "%return"))
			return perr(ps, UTRACE_UPROBE_ERR_BAD_ADDR_SUFFIX,
				    tcol + (int)(pct - target));
		*pct = 0;
		p->is_return = true;
	}
	if (utrace_dwarf_is_line_point(target))
		return resolve_line(ps, target, tcol);
	if (!(*target >= '0' && *target <= '9'))
		return resolve_symbol(ps, target, tcol, col, entry);

	if (!upr_strtoul(target, 0, &p->offset))
		return perr(ps, UTRACE_UPROBE_ERR_BAD_UPROBE_OFFS, tcol);
	/* Not an ELF file is the kernel's business; ELF: is it an entry? */
	if (upr_file_open(p->path, &ps->file, NULL) == 0) {
		ps->have_file = true;
		*entry = !p->is_return && upr_offset_to_vaddr(&ps->file, p->offset, &v) == 0 &&
			 upr_is_function_start(&ps->file, v) == 1;
	}
	return 0;
}

/* Source names among the fetchargs become kernel fetchargs; the probe
 * may move past the prologue for them (lib/probes/dwarf_var.c). */
static int dwarf_names(struct parse *ps, struct upr_point *pt)
{
	struct utrace_uprobe *p = ps->p;
	uint64_t vaddr = pt->vaddr;
	int ret;

	ret = utrace_dwarf_rewrite_args(p->path, &vaddr, pt->entry, p->is_return, ps->tok + 2,
					ps->col + 2, ps->n - 2, &ps->dwerr);
	if (ret == -ENODATA) { /* the kernel's "BTF is not available" will say */
		snprintf(ps->no_dwarf, sizeof(ps->no_dwarf), "%s", ps->dwerr.msg);
		return 0;
	}
	if (ret < 0) {
		ps->dw_failed = ret != -ENOMEM;
		return ret;
	}
	if (vaddr != pt->vaddr) {
		if (upr_vaddr_to_offset(&ps->file, vaddr, &p->offset) < 0)
			return perr(ps, UTRACE_UPROBE_ERR_NOT_LOADED, ps->col[1]);
		p->sym_off += vaddr - pt->vaddr;
		pt->vaddr = vaddr;
		pt->offset = p->offset;
		pt->entry = false;
	}
	return 0;
}

static int parse(struct parse *ps)
{
	struct utrace_uprobe *p = ps->p;
	struct upr_point pt = {0};
	const char *t0;
	int ret;

	ret = upr_split(ps->def, &ps->tok, &ps->col, &ps->n);
	if (ret < 0)
		return ret;
	if (!ps->n)
		return perr(ps, UTRACE_UPROBE_ERR_NO_DEFINITION, 1);
	t0 = ps->tok[0];
	if ((t0[0] != 'p' && t0[0] != 'r') || (t0[1] && t0[1] != ':'))
		return perr(ps, UTRACE_UPROBE_ERR_BAD_PROBE_TYPE, ps->col[0]);
	p->is_return = t0[0] == 'r';
	strcpy(p->group, UTRACE_UPROBE_DEFAULT_GROUP);
	if (t0[1] == ':' && parse_event_name(ps, t0 + 2, ps->col[0] + 2) < 0)
		return -1;
	if (ps->n < 2)
		return perr(ps, UTRACE_UPROBE_ERR_NO_PROBE_POINT, ps->col[0] + (int)strlen(t0) + 1);
	ret = parse_point(ps, ps->tok[1], ps->col[1], &pt.entry);
	if (ret)
		return ret;
	if (!p->event[0])
		default_event(ps, p->path);

	pt.is_return = p->is_return;
	pt.offset = p->offset;
	if (ps->have_file && upr_offset_to_vaddr(&ps->file, p->offset, &pt.vaddr) == 0)
		pt.file = &ps->file;
	if (pt.file && (ret = dwarf_names(ps, &pt)) < 0)
		return ret == -ENOMEM ? ret : -1;
	ret = upr_parse_args(p, &pt, ps->tok + 2, ps->col + 2, ps->n - 2, &ps->column);
	if (ret == UTRACE_UPROBE_ERR_NOSUP_BTFARG && ps->no_dwarf[0])
		snprintf(ps->detail, sizeof(ps->detail), "%s", ps->no_dwarf);
	if (ret > 0)
		return perr(ps, ret, ps->column);
	return ret;
}

int upr_parse_failed(int ret, const struct upr_failure *f, int *code, struct utrace_error *err)
{
	if (ret == -ENOMEM)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	if (f->dw_failed) {
		if (err)
			*err = *f->dwerr;
		return -EINVAL;
	}
	ret = utrace_error_set(err, -EINVAL, "%s at column %d%s%s",
			       utrace_uprobe_error_text(f->code), f->column,
			       f->detail[0] ? ": " : "", f->detail);
	if (err)
		err->column = f->column;
	if (code)
		*code = f->code;
	return ret;
}

int utrace_uprobe_parse_code(const char *def, struct utrace_uprobe **out, int *code,
			     struct utrace_error *err)
{
	struct parse ps = {.def = def ? def : ""};
	int ret;

	*out = NULL;
	if (code)
		*code = UTRACE_UPROBE_ERR_NONE;
	ps.p = calloc(1, sizeof(*ps.p));
	ret = ps.p ? parse(&ps) : -ENOMEM;
	if (ret < 0) {
		struct upr_failure f = {ps.code, ps.column, ps.detail, ps.dw_failed, &ps.dwerr};

		ret = upr_parse_failed(ret, &f, code, err);
	}
	if (ps.have_file)
		upr_file_close(&ps.file);
	for (unsigned i = 0; i < ps.n; i++)
		free(ps.tok[i]);
	free(ps.tok);
	free(ps.col);
	if (ret < 0)
		utrace_uprobe_free(ps.p);
	else
		*out = ps.p;
	return ret < 0 ? ret : 0;
}

int utrace_uprobe_parse(const char *def, struct utrace_uprobe **out, struct utrace_error *err)
{
	return utrace_uprobe_parse_code(def, out, NULL, err);
}

void utrace_uprobe_free(struct utrace_uprobe *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->nargs; i++) {
		free(p->args[i].fetch);
		free(p->args[i].type);
	}
	free(p->args);
	free(p->path);
	free(p->symbol);
	free(p);
}
int utrace_uprobe_set_name(struct utrace_uprobe *p, const char *group, const char *event,
			   struct utrace_error *err)
{
	if (group && strlen(group) > UTRACE_UPROBE_NAME_MAX)
		return utrace_error_set(err, -EINVAL, "%s: '%s'",
					err_text[UTRACE_UPROBE_ERR_GROUP_TOO_LONG], group);
	if (group && !upr_good_name(group))
		return utrace_error_set(err, -EINVAL, "%s: '%s'",
					err_text[UTRACE_UPROBE_ERR_BAD_GROUP_NAME], group);
	if (event && strlen(event) > UTRACE_UPROBE_NAME_MAX)
		return utrace_error_set(err, -EINVAL, "%s: '%s'",
					err_text[UTRACE_UPROBE_ERR_EVENT_TOO_LONG], event);
	if (event && !upr_good_name(event))
		return utrace_error_set(err, -EINVAL, "%s: '%s'",
					err_text[UTRACE_UPROBE_ERR_BAD_EVENT_NAME], event);
	if (group)
		strcpy(p->group, group);
	if (event)
		strcpy(p->event, event);
	return 0;
}
