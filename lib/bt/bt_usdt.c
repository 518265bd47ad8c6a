/* SPDX-License-Identifier: MIT */
/*
 * bt_usdt.c - `usdt:BIN:PROVIDER:NAME` in utrace bt.  A probe's sites are
 * read from the notes of BIN (lib/probes/usdt.c; a glob names several
 * files, and with -p an empty or globbed BIN names the files the process
 * has mapped, its libraries too), one site per location, as bpftrace
 * attaches one probe per location.  Each site is a kernel uprobe of the
 * recording (the definition `utrace record --probe` takes, made by
 * utrace_usdt_to_uprobe), not an in-process probe: the kernel sets and
 * clears the probe's semaphore (ref_ctr_offset) in every process that
 * maps the file, at once, where an in-process probe could set it only
 * once the runtime runs, after the program's first checks of it.  The
 * recording's kernel instance keeps the events of the traced processes
 * only.  The arguments come as the note sizes them (1, 2, 4, 8 bytes,
 * signed or not) and are widened as bpftrace widens them.  An argument a
 * kernel uprobe cannot fetch (an index register: "8@-88(%rsp,%rax,8)")
 * makes the site an in-process probe of the process utrace bt started
 * (-c) or attached to (-p), at FUNC+OFF of its file, whose fetch program
 * computes base + index * scale + displacement at the hit
 * (common/fetch_prog.h); for every process's hits (no -c, no -p) such a
 * site is an error naming the probe and the argument.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/glob.h"
#include "lib/bt/bt_run_internal.h"
#include "lib/bt/bt_usdt.h"
#include "lib/elf/libdeps.h"
#include "lib/elf/symtab.h"
#include "lib/events/event_format.h"
#include "lib/probes/usdt.h"
#include "lib/tracefile/dat_reader.h"

struct usdt_files {
	char **shown, **path; /* as the probe names it, absolute */
	size_t n;
};

/* shown, read at open (a path of ours, or of another mount namespace
 * through /proc/PID/root). */
static int files_add_as(struct usdt_files *f, const char *shown, const char *open)
{
	char real[PATH_MAX];
	char **s, **p;

	if (!realpath(open, real)) {
		/* another mount namespace's file, through /proc/PID/root */
		if (access(open, R_OK) != 0 || strlen(open) >= sizeof(real))
			return 0; /* gone, or not a file: nothing to probe there */
		strcpy(real, open);
	}
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->path[i], real))
			return 0;
	s = realloc(f->shown, (f->n + 1) * sizeof(*s));
	if (s)
		f->shown = s;
	p = realloc(f->path, (f->n + 1) * sizeof(*p));
	if (p)
		f->path = p;
	if (!s || !p || !(f->shown[f->n] = strdup(shown)))
		return -ENOMEM;
	if (!(f->path[f->n] = strdup(real))) {
		free(f->shown[f->n]);
		return -ENOMEM;
	}
	f->n++;
	return 0;
}

static int files_add(struct usdt_files *f, const char *shown)
{
	return files_add_as(f, shown, shown);
}

static void files_free(struct usdt_files *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->shown[i]);
		free(f->path[i]);
	}
	free(f->shown);
	free(f->path);
}

/* The files process pid has mapped that match glob ("": all). */
static int files_mapped(struct usdt_files *f, int pid, const char *glob)
{
	char path[64], line[PATH_MAX + 256], at[PATH_MAX + 64];
	FILE *maps;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(maps = fopen(path, "r")))
		return -errno;
	while (!ret && fgets(line, sizeof(line), maps)) {
		char *file = strchr(line, '/');

		if (!file)
			continue;
		file[strcspn(file, "\n")] = 0;
		if (strstr(file, " (deleted)"))
			continue;
		if (*glob && !utrace_glob_match(glob, file))
			continue;
		/* as the process sees it: its mount namespace may differ */
		snprintf(at, sizeof(at), "/proc/%d/root%s", pid, file);
		ret = files_add_as(f, file, at);
	}
	fclose(maps);
	return ret;
}

/* The files bin names (see the head of the file). */
static int files_of(struct usdt_files *f, const char *bin, int pid, char *const *argv)
{
	bool globbed = strpbrk(bin, "*?[") != NULL;
	glob_t g;
	int ret = 0;

	if (pid > 0 && (!*bin || globbed))
		return files_mapped(f, pid, bin);
	if (!*bin) {
		char *prog = argv ? utrace_program_path(argv[0]) : NULL;

		if (prog)
			ret = files_add(f, prog);
		free(prog);
		return ret;
	}
	if (!globbed)
		return files_add(f, bin);
	if (glob(bin, 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc && !ret; i++)
		ret = files_add(f, g.gl_pathv[i]);
	globfree(&g);
	return ret;
}

/* Calls fn for each note of the files matching "PROVIDER:NAME". */
static int each_note(const struct usdt_files *f, const char *probe,
		     int (*fn)(void *arg, const char *shown, const char *path, size_t i,
			       const struct utrace_usdt_probe *u),
		     void *arg)
{
	const char *colon = strchr(probe, ':');
	char prov[256];
	int ret = 0;

	snprintf(prov, sizeof(prov), "%.*s", colon ? (int)(colon - probe) : 1,
		 colon ? probe : "*");
	for (size_t k = 0; k < f->n && !ret; k++) {
		struct utrace_usdt_list *l = NULL;
		struct utrace_error e = {0};

		if (utrace_usdt_load(f->path[k], &l, &e) < 0)
			continue; /* not ELF: no probes */
		for (size_t i = 0; i < utrace_usdt_count(l) && !ret; i++) {
			const struct utrace_usdt_probe *u = utrace_usdt_get(l, i);

			if (utrace_glob_match(prov, u->provider) &&
			    utrace_glob_match(colon ? colon + 1 : probe, u->name))
				ret = fn(arg, f->shown[k], f->path[k], i, u);
		}
		utrace_usdt_free(l);
	}
	return ret;
}

int bt_usdt_each_file(const char *bin, int pid,
		      int (*fn)(void *arg, const char *shown, const char *path), void *arg)
{
	struct usdt_files f = {0};
	int ret = files_of(&f, bin, pid, NULL);

	for (size_t i = 0; i < f.n && !ret; i++)
		ret = fn(arg, f.shown[i], f.path[i]);
	files_free(&f);
	return ret;
}

struct find_arg {
	struct bt_usdt_site *v;
	size_t n;
};

static int add_note(void *arg, const char *shown, const char *path, size_t i,
		    const struct utrace_usdt_probe *u)
{
	struct find_arg *a = arg;
	struct bt_usdt_site *v = realloc(a->v, (a->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	a->v = v;
	v = &v[a->n];
	*v = (struct bt_usdt_site){.note = (unsigned)i};
	if (asprintf(&v->probe, "%s:%s:%s", shown, u->provider, u->name) < 0) {
		v->probe = NULL;
		return -ENOMEM;
	}
	a->n++;
	v->shown = strdup(shown);
	v->file = strdup(path);
	return v->shown && v->file ? 0 : -ENOMEM;
}

int bt_usdt_find(const char *bin, const char *probe, int pid, char *const *argv,
		 struct bt_usdt_site **out, size_t *n)
{
	struct usdt_files f = {0};
	struct find_arg a = {0};
	int ret = files_of(&f, bin, pid, argv);

	if (!ret)
		ret = each_note(&f, probe, add_note, &a);
	files_free(&f);
	*out = a.v;
	*n = a.n;
	return ret;
}

void bt_usdt_sites_free(struct bt_usdt_site *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].probe);
		free(v[i].shown);
		free(v[i].file);
	}
	free(v);
}

/* Whether site s's program reads an argument. */
static bool reads_args(const struct bt_site *s)
{
	const struct utrace_bt_hdr *h = s->code.prog;
	const struct utrace_bt_insn *in = utrace_bt_insns(h);

	for (uint32_t i = 0; i < h->nr_insns; i++)
		if (in[i].op == UTRACE_BOP_ARG)
			return true;
	return false;
}

/* The probe without its arguments, for a program that reads none: an
 * argument a uprobe cannot fetch (an index register) stops nothing. */
static char *def_no_args(const struct utrace_usdt_list *l, unsigned note, const char *event)
{
	const struct utrace_usdt_probe *u = utrace_usdt_get(l, note);
	char *def, sem[32] = "";

	if (u->sem_offset)
		snprintf(sem, sizeof(sem), "(0x%llx)", (unsigned long long)u->sem_offset);
	if (asprintf(&def, "p:utrace/%s %s:0x%llx%s comm=$comm", event, utrace_usdt_path(l),
		     (unsigned long long)u->offset, sem) < 0)
		return NULL;
	return def;
}

/* "argN=FETCH:TYPE ..." of fetchargs, and sN=+0(FETCH):string for each
 * str(argN), at buf + n; the new length. */
static size_t inproc_args(const struct bt_site *s, const char *fetchargs, char *buf, size_t n,
			  size_t size)
{
	const char *a = fetchargs;

	n += (size_t)snprintf(buf + n, n < size ? size - n : 0, " %s", fetchargs);
	for (unsigned i = 0; *a && n < size; i++) {
		const char *eq = strchr(a, '='), *end = a + strcspn(a, " "), *colon = end;

		while (colon > a && *colon != ':')
			colon--;
		if (i < 6 && (s->strargs >> i & 1) && eq && eq < colon && eq[1] != '\\')
			n += (size_t)snprintf(buf + n, size - n, " s%u=+0(%.*s):string", i,
					      (int)(colon - eq - 1), eq + 1);
		a = end + strspn(end, " ");
	}
	return n;
}

/* Site s as an in-process probe of the traced process ("p:bt/pK
 * MODULE:FUNC+OFF ARGS comm=$comm"), whose fetch program computes what a
 * kernel uprobe cannot (an index register); NULL with r->err. */
static char *inproc_def(struct bt_run *r, const struct bt_site *s, const struct utrace_usdt_list *l,
			unsigned k)
{
	const struct utrace_usdt_probe *u = utrace_usdt_get(l, s->note);
	const char *base = strrchr(utrace_usdt_path(l), '/');
	struct utrace_symtab *tab = NULL;
	const struct utrace_sym *fn = NULL;
	struct utrace_error e = {0};
	char args[1536], buf[2048];
	uint64_t off = 0;
	size_t n = 0;

	if (utrace_usdt_fetchargs_in_process(l, s->note, args, sizeof(args), r->err) < 0)
		return NULL;
	if (u->semaphore) { /* the runtime does not count one (inproc_probe_path.c) */
		utrace_error_set(
		    r->err, -EINVAL,
		    "usdt:%s: the probe has a semaphore, which an in-process probe "
		    "does not count, and an argument a kernel uprobe cannot fetch (%s)",
		    s->func, args);
		return NULL;
	}
	if (utrace_symtab_load(utrace_usdt_path(l), &tab, &e) == 0)
		fn = utrace_symtab_lookup(tab, u->pc, &off);
	if (fn)
		n = (size_t)snprintf(buf, sizeof(buf), "p:bt/p%u %s:%s+%llu", k,
				     base ? base + 1 : utrace_usdt_path(l), fn->raw,
				     (unsigned long long)off);
	utrace_symtab_free(tab);
	if (!fn) {
		utrace_error_set(r->err, -EINVAL,
				 "usdt:%s: no function symbol holds the probe at 0x%llx, where an "
				 "in-process probe would go",
				 s->func, (unsigned long long)u->pc);
		return NULL;
	}
	n = inproc_args(s, args, buf, n, sizeof(buf));
	if (n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " comm=$comm");
	if (n >= sizeof(buf)) {
		utrace_error_set(r->err, -E2BIG, "%s: the probe's definition is too long", s->func);
		return NULL;
	}
	return strdup(buf);
}

/* An argument that only an in-process probe fetches, without -c or -p. */
static void kernel_only(struct bt_run *r, const struct bt_site *s)
{
	char why[sizeof(r->err->msg)];

	snprintf(why, sizeof(why), "%s", r->err->msg);
	utrace_error_set(r->err, -EINVAL,
			 "usdt:%s: %s (only the processes utrace bt starts, "
			 "-c, or attaches to, -p, can have it)",
			 s->func, why);
}

char *bt_usdt_def(struct bt_run *r, const struct bt_site *s, unsigned k, bool *inproc)
{
	struct utrace_usdt_list *l = NULL;
	struct utrace_uprobe *p = NULL;
	char event[32], buf[2048];
	char *def = NULL;
	size_t n;

	*inproc = false;
	snprintf(event, sizeof(event), "btp%u", k);
	if (utrace_usdt_load(s->file, &l, r->err) < 0)
		goto out;
	if (utrace_usdt_to_uprobe(l, s->note, "utrace", event, &p, r->err) < 0) {
		if (!reads_args(s))
			def = def_no_args(l, s->note, event);
		else if (r->o->argv || r->o->pid) /* a process of ours: in it */
			*inproc = (def = inproc_def(r, s, l, k)) != NULL;
		else /* every process's: the kernel's uprobe_events only */
			kernel_only(r, s);
		goto out;
	}
	n = (size_t)utrace_uprobe_kernel_line(p, buf, sizeof(buf));
	/* str(argN): the string at the argument, read at the hit */
	for (unsigned i = 0; i < 6 && i < utrace_uprobe_nargs(p) && n < sizeof(buf); i++) {
		const char *fetch = utrace_uprobe_arg_fetch(p, i);

		if ((s->strargs >> i & 1) && fetch[0] != '\\')
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, " s%u=+0(%s):string", i,
					      fetch);
	}
	if (n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " comm=$comm");
	if (n < sizeof(buf))
		def = strdup(buf);
	else
		utrace_error_set(r->err, -E2BIG, "%s: the probe's definition is too long", s->func);
out:
	utrace_uprobe_free(p);
	utrace_usdt_free(l);
	return def;
}

void bt_usdt_args(const struct utrace_event_format *f, const struct utrace_event *ev,
		  struct utrace_bt_hit *hit)
{
	for (unsigned i = 0; i < 6; i++) {
		char name[8];
		const struct utrace_event_field *fl;
		uint64_t v = 0;

		snprintf(name, sizeof(name), "arg%u", i + 1);
		fl = utrace_event_field_find(f, name);
		if (!fl || fl->size > 8 || fl->offset < 8 || fl->offset - 8 + fl->size > ev->data_len)
			continue;
		memcpy(&v, (const uint8_t *)ev->data + fl->offset - 8, fl->size);
		if (fl->is_signed && fl->size < 8 && (v >> (8 * fl->size - 1) & 1))
			v |= ~0ull << (8 * fl->size);
		hit->args[i] = (int64_t)v;
	}
}

struct list_arg {
	FILE *out;
	char last[1024]; /* the line printed last: a probe's locations list once */
};

static int list_note(void *arg, const char *shown, const char *path, size_t i,
		     const struct utrace_usdt_probe *u)
{
	struct list_arg *a = arg;
	char line[sizeof(a->last)];

	(void)path;
	(void)i;
	snprintf(line, sizeof(line), "usdt:%s:%s:%s\n", shown, u->provider, u->name);
	if (strcmp(line, a->last))
		fputs(line, a->out);
	memcpy(a->last, line, sizeof(line));
	return 0;
}

int bt_usdt_list(const char *bin, const char *probe, int pid, FILE *out)
{
	struct usdt_files f = {0};
	struct list_arg a = {.out = out};
	int ret = files_of(&f, bin, pid, NULL);

	if (!ret)
		ret = each_note(&f, probe, list_note, &a);
	files_free(&f);
	return ret;
}
