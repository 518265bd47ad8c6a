/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe_path.c - in-process probes at a file location: the probe point
 * of the kernel's uprobe_events (trace_uprobe.c), PATH:OFFSET with a file
 * offset, or utrace's PATH:SYMBOL[+OFF], either with %return.
 *
 * Design: the kernel's uprobe sits on an inode at a file offset and fires
 * in every process that maps it; here the probe goes into every traced
 * process's object that is the same file (device and inode, so that
 * /lib/... and /usr/lib/... are one), at the vaddr the program headers
 * give the offset.  The function holding it, when the symbols say (size
 * known), is decoded as for a SYMBOL probe (inproc_probe_insn.c); without one
 * the probe can only be an int3 on the instruction at the address, as the
 * kernel's uprobe is.  Errors are the kernel's table's, at its columns:
 * the path (FILE_NOT_FOUND, NO_REGULAR_FILE), the offset (BAD_UPROBE_OFFS),
 * the suffix (BAD_ADDR_SUFFIX).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/probes/inproc_probe_internal.h"

static int perr(struct ipp_parse *ps, int code, int column)
{
	ps->code = code;
	ps->column = column;
	return -1;
}

/* PATH (tok up to colon) as the kernel's kern_path: an existing regular
 * file. */
static int ipp_path_file(struct ipp_parse *ps, const char *tok, size_t len, int col)
{
	struct utrace_inproc_probe *p = ps->p;
	struct stat st;

	if (!(p->path = strndup(tok, len)))
		return -ENOMEM;
	if (!len || stat(p->path, &st) < 0) {
		snprintf(ps->detail, sizeof(ps->detail), "%s", p->path);
		return perr(ps, UTRACE_UPROBE_ERR_FILE_NOT_FOUND, col);
	}
	if (!S_ISREG(st.st_mode))
		return perr(ps, UTRACE_UPROBE_ERR_NO_REGULAR_FILE, col);
	p->dev = st.st_dev;
	p->ino = st.st_ino;
	/* /proc/PID/root/...: another mount namespace's file, which realpath
	 * resolves in ours (the link reads "/"): opened as it is */
	p->real = realpath(p->path, NULL);
	if (!p->real && !strncmp(p->path, "/proc/", 6))
		p->real = strdup(p->path);
	return p->real ? 0 : -ENOMEM;
}

/* SYMBOL[+OFF] at tcol in f: p->vaddr. */
static int ipp_path_symbol(struct ipp_parse *ps, const struct upr_file *f, char *target, int tcol)
{
	struct utrace_inproc_probe *p = ps->p;
	char *plus = strchr(target, '+');
	uint64_t off = 0, vaddr, size;
	int n;

	if (plus) {
		*plus = 0;
		if (!upr_strtoul(plus + 1, 0, &off))
			return perr(ps, UTRACE_UPROBE_ERR_BAD_PROBE_ADDR,
				    tcol + (int)(plus + 1 - target));
		if (off && p->kind == UTRACE_IPP_RETURN)
			return perr(ps, UTRACE_UPROBE_ERR_BAD_RETPROBE, tcol + (int)(plus - target));
	}
	n = *target ? upr_find_symbol(f, target, true, &vaddr, &size) : 0;
	if (n != 1) {
		snprintf(ps->detail, sizeof(ps->detail), "'%s' in %s", target, p->path);
		return perr(ps, n ? UTRACE_UPROBE_ERR_AMBIGUOUS_SYMBOL : UTRACE_UPROBE_ERR_NO_SYMBOL,
			    tcol);
	}
	if (size && off >= size) {
		snprintf(ps->detail, sizeof(ps->detail), "%s has %" PRIu64 " bytes", target, size);
		return perr(ps, UTRACE_UPROBE_ERR_OFFS_BEYOND_SYMBOL, tcol + (int)(plus + 1 - target));
	}
	p->vaddr = vaddr + off;
	if (upr_vaddr_to_offset(f, p->vaddr, &p->foff) < 0)
		return perr(ps, UTRACE_UPROBE_ERR_NOT_LOADED, tcol);
	return 0;
}

/* OFFSET (or SYMBOL[+OFF]) after the colon, in the ELF file. */
static int ipp_path_target(struct ipp_parse *ps, const struct upr_file *f, char *target, int tcol,
			  bool *entry)
{
	struct utrace_inproc_probe *p = ps->p;
	uint64_t func, size;
	int ret;

	if (*target >= '0' && *target <= '9') {
		if (!upr_strtoul(target, 0, &p->foff))
			return perr(ps, UTRACE_UPROBE_ERR_BAD_UPROBE_OFFS, tcol);
		if (upr_offset_to_vaddr(f, p->foff, &p->vaddr) < 0)
			return perr(ps, UTRACE_UPROBE_ERR_NOT_LOADED, tcol);
	} else if ((ret = ipp_path_symbol(ps, f, target, tcol)) != 0) {
		return ret;
	}
	ret = upr_function_at(f, p->vaddr, &p->symbol, &func, &size);
	if (ret < 0)
		return ret;
	p->offset = ret ? p->vaddr - func : 0;
	*entry = ret && p->vaddr == func && p->kind != UTRACE_IPP_RETURN;
	/* a return probe hooks the return address: at an entry only */
	if (p->kind == UTRACE_IPP_RETURN && (ret ? p->vaddr != func
						: upr_is_function_start(f, p->vaddr) == 0))
		return perr(ps, UTRACE_UPROBE_ERR_BAD_RETPROBE, tcol);
	if (ret) { /* source names are read from its DWARF (inproc_probe.c) */
		snprintf(ps->sym_path, sizeof(ps->sym_path), "%s", p->real);
		ps->sym_vaddr = func;
		p->sym_size = size;
	}
	return 0;
}

/* OFFSET(REFCTR), the kernel's uprobe reference counter: its syntax
 * checked at the kernel's columns; a well-formed one is refused (the
 * runtime does not count a USDT semaphore up and down). */
static int ipp_path_refctr(struct ipp_parse *ps, char *target, int tcol)
{
	char *open = strchr(target, '('), *close;
	uint64_t v;

	if (!open)
		return 0;
	if (!(close = strchr(open, ')')))
		return perr(ps, UTRACE_UPROBE_ERR_REFCNT_OPEN_BRACE,
			    tcol + (int)(open - target + strlen(open)));
	if (close[1])
		return perr(ps, UTRACE_UPROBE_ERR_BAD_REFCNT_SUFFIX, tcol + (int)(close + 1 - target));
	*close = 0;
	if (!upr_strtoul(open + 1, 0, &v))
		return perr(ps, UTRACE_UPROBE_ERR_BAD_REFCNT, tcol + (int)(open + 1 - target));
	return perr(ps, UTRACE_UPROBE_ERR_REFCNT_IN_PROCESS, tcol + (int)(open + 1 - target));
}

int ipp_path_point(struct ipp_parse *ps, char *tok, int col, bool *entry)
{
	struct utrace_inproc_probe *p = ps->p;
	char *colon = strrchr(tok, ':'), *target, *pct;
	const char *why = NULL;
	struct upr_file f;
	int tcol, ret;

	*entry = false;
	if (!colon)
		return perr(ps, UTRACE_UPROBE_ERR_NO_PROBE_POINT, col);
	if (colon == tok)
		return perr(ps, UTRACE_UPROBE_ERR_NO_PATH, col);
	if ((ret = ipp_path_file(ps, tok, (size_t)(colon - tok), col)) != 0)
		return ret;
	target = colon + 1;
	tcol = col + (int)(target - tok);
	if ((ret = ipp_path_refctr(ps, target, tcol)) != 0)
		return ret;
	if ((pct = strchr(target, '%'))) {
		if (strcmp(pct, "%return"))
			return perr(ps, UTRACE_UPROBE_ERR_BAD_ADDR_SUFFIX, tcol + (int)(pct - target));
		*pct = 0;
		p->kind = UTRACE_IPP_RETURN;
	}
	if (!*target)
		return perr(ps, UTRACE_UPROBE_ERR_BAD_UPROBE_OFFS, tcol);
	/* the kernel takes any file; one run in-process must be ELF */
	if ((ret = upr_file_open(p->real, &f, &why)) < 0) {
		snprintf(ps->detail, sizeof(ps->detail), "%s: %s", p->path,
			 why ? why : strerror(-ret));
		return perr(ps, UTRACE_UPROBE_ERR_NOT_ELF, col);
	}
	ret = ipp_path_target(ps, &f, target, tcol, entry);
	upr_file_close(&f);
	return ret;
}

void ipp_path_event(struct utrace_inproc_probe *p)
{
	const char *base = strrchr(p->path, '/') ? strrchr(p->path, '/') + 1 : p->path;
	char name[256];

	/* trace_uprobe.c: 'p' for returns too, the name cut at . - _ */
	snprintf(name, sizeof(name), "p_%.*s_0x%" PRIx64, (int)strcspn(base, ".-_"), base, p->foff);
	for (char *c = name; *c; c++)
		if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9')))
			*c = '_';
	name[UTRACE_UPROBE_NAME_MAX] = 0;
	memcpy(p->event, name, strlen(name) + 1);
}

int ipp_path_where(const struct utrace_inproc_probe *p, const char *path, const struct upr_file *f,
		  uint64_t *func, uint64_t *size)
{
	struct stat st;

	if (stat(path, &st) < 0 || st.st_dev != p->dev || st.st_ino != p->ino)
		return 0;
	if (upr_function_at(f, p->vaddr, NULL, func, size) != 1) {
		*func = p->vaddr;
		*size = 0;
	}
	return 1;
}
