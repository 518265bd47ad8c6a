/* SPDX-License-Identifier: MIT */
/*
 * live_kallsyms.c - the traced programs' symbols as the kernel's
 * /proc/kallsyms shows its own, and the kernel's address probe points:
 *
 *   utrace.kallsyms  (utrace's) every function symbol of the traced
 *                    processes' objects, each object once, at the
 *                    run-time address of the first process that has it:
 *                    "ADDRESS TYPE NAME", a library's with "\t[LIB]" as
 *                    the kernel's module symbols (kallsyms_show)
 *   kprobe_events, dynamic_events: a point "0xADDRESS" (the kernel's
 *                    `p:NAME 0xADDR`), or a "SYMBOL+OFFSET" past the end
 *                    of SYMBOL's function, is the address it names, in
 *                    the function symbol that holds it in that listing,
 *                    as the kernel's; the probe lists the point as
 *                    written, its default name the kernel's
 *                    (p_0xADDRESS, p_SYMBOL_OFFSET); a SYMBOL that names
 *                    several functions, one of them local (static), is
 *                    the kernel's "The symbol is not unique"
 *   events/.../filter: FIELD.function's functions are those listed there
 *
 * The caller holds l->lock.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefs/live_internal.h"

static const char *obj_base(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path;
}

static void sym_print(void *arg, uint64_t addr, uint64_t size, char type, const char *raw,
		      const char *module, bool main_object)
{
	FILE *out = arg;

	(void)size;
	if (main_object || !module)
		fprintf(out, "%016" PRIx64 " %c %s\n", addr, type, raw);
	else
		fprintf(out, "%016" PRIx64 " %c %s\t[%s]\n", addr, type, raw, obj_base(module));
}

int live_show_kallsyms(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	(void)h;
	if (l->ops.symbols)
		l->ops.symbols(l->ops.arg, sym_print, out);
	return 0;
}

/* The symbol holding an address (the nearest at or below it, within its
 * size; a size 0 symbol holds up to the next), and the symbols named
 * name (n of them, the last one's address and size). */
struct addr_find {
	uint64_t addr, best, best_size;
	char *holder; /* "OBJECT:SYMBOL" */
	const char *name;
	size_t n;
	bool local; /* one of them is */
	uint64_t sym, size;
};

static void sym_find(void *arg, uint64_t addr, uint64_t size, char type, const char *raw,
		     const char *module, bool main_object)
{
	struct addr_find *f = arg;
	char *holder;

	(void)type;
	(void)main_object;
	if (f->name) {
		if (!strcmp(raw, f->name)) {
			f->local |= type == 't';
			if (++f->n == 1) { /* the first, as kallsyms_lookup_name */
				f->sym = addr;
				f->size = size;
			}
		}
		return;
	}
	if (addr > f->addr || (size && f->addr >= addr + size) || (f->holder && addr < f->best))
		return;
	if (asprintf(&holder, "%s:%s", obj_base(module), raw) < 0)
		return;
	free(f->holder);
	f->holder = holder;
	f->best = addr;
	f->best_size = size;
}

/* The address a point names, with the kernel's default event name for
 * it: "0xADDRESS", or "SYMBOL+OFFSET" past the end of its one function
 * (the kernel probes the address, in whatever function holds it): 1 and
 * *addr; 0 if it is neither; -EADDRNOTAVAIL if SYMBOL names several
 * functions, one of them local (the kernel's static functions of one
 * name; a library's versions of one global symbol are one symbol). */
static int point_addr(struct utrace_live *l, const char *pt, size_t n, char kind, uint64_t *addr,
		      char *name, size_t size)
{
	struct addr_find f = {0};
	char sym[256], *end;
	size_t sn = strcspn(pt, "+");
	uint64_t offs = 0;

	if (!strncmp(pt, "0x", 2) && isxdigit((unsigned char)pt[2])) {
		*addr = strtoull(pt, &end, 16);
		snprintf(name, size, ":%c_0x%" PRIx64, kind, *addr);
		return end == pt + n && *addr;
	}
	if (sn > n)
		sn = n;
	if (sn >= sizeof(sym) || memchr(pt, ':', n) || memchr(pt, '%', sn))
		return 0;
	snprintf(sym, sizeof(sym), "%.*s", (int)sn, pt);
	f.name = sym;
	l->ops.symbols(l->ops.arg, sym_find, &f);
	if (f.n > 1 && f.local)
		return -EADDRNOTAVAIL;
	if (kind != 'p' || sn == n || !isdigit((unsigned char)pt[sn + 1]))
		return 0;
	offs = strtoull(pt + sn + 1, &end, 0);
	if (end != pt + n || offs > UINT32_MAX || f.n != 1 || !f.size || offs < f.size)
		return 0; /* the parser's: a symbol's own offset, or an error */
	snprintf(name, size, ":p_%s_%" PRIu64, sym, offs);
	for (char *c = name + 1; *c; c++)
		if (!isalnum((unsigned char)*c))
			*c = '_';
	*addr = f.sym + offs;
	return 1;
}

/*
 * A definition whose point (its second word) names an address (above):
 * *def_out the same with OBJECT:SYMBOL+OFFSET of the function holding it
 * there and, without an event name, the kernel's default one; *point
 * the point as written.  0 with *def_out NULL for another point or an
 * address no function holds (the parser then refuses it as the kernel);
 * -EINVAL with err (column: the point's) for a symbol that is not unique.
 */
int live_kaddr_point(struct utrace_live *l, const char *def, char **def_out, char **point,
		     struct utrace_error *err)
{
	size_t t = strcspn(def, " \t"), p = t + strspn(def + t, " \t"),
	       pn = strcspn(def + p, " \t");
	struct addr_find f = {0};
	char name[300] = "";
	int ret;

	*def_out = *point = NULL;
	if (!l->ops.symbols || !pn || !strchr("pr", def[0]))
		return 0;
	ret = point_addr(l, def + p, pn, def[0], &f.addr, name, sizeof(name));
	if (ret == -EADDRNOTAVAIL) {
		utrace_error_set(err, -EINVAL, "The symbol is not unique");
		err->column = (int)p + 1;
		return -EINVAL;
	}
	if (ret <= 0)
		return 0;
	l->ops.symbols(l->ops.arg, sym_find, &f);
	if (!f.holder)
		return 0;
	if (memchr(def, ':', t)) /* its own event name */
		name[0] = 0;
	ret = asprintf(def_out, "%.*s%s %s+0x%" PRIx64 "%s", (int)t, def, name, f.holder,
		       f.addr - f.best, def + p + pn);
	free(f.holder);
	if (ret < 0 || !(*point = strndup(def + p, pn))) {
		free(ret < 0 ? NULL : *def_out);
		*def_out = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The listed line of a probe added at an address: the address as written
 * in place of its point (the line's second word). */
int live_kaddr_line(char **line, const char *point)
{
	char *s = *line, *n;
	size_t t = strcspn(s, " "), pn;

	if (!s[t])
		return 0;
	pn = strcspn(s + t + 1, " ");
	if (asprintf(&n, "%.*s %s%s", (int)t, s, point, s + t + 1 + pn) < 0)
		return -ENOMEM;
	free(s);
	*line = n;
	return 0;
}

int utrace_live_func_range(void *arg, const char *name, uint64_t addr, uint64_t *start, uint64_t *end)
{
	struct utrace_live *l = arg;
	struct addr_find f = {.addr = addr, .name = name};

	if (!l->ops.symbols)
		return -ENOENT;
	l->ops.symbols(l->ops.arg, sym_find, &f);
	free(f.holder);
	if (name ? !f.n : !f.holder)
		return -ENOENT;
	*start = name ? f.sym : f.best;
	*end = *start + ((name ? f.size : f.best_size) ? (name ? f.size : f.best_size) : 1);
	return 0;
}
