/* SPDX-License-Identifier: MIT */
/*
 * bt_target.c - whether each uprobe's binary is one the recording's
 * in-process probes can serve.  They name their object by its file name
 * (MODULE:FUNC, bt_session.c inproc_where), so a library's function is
 * that library's only, whatever else defines the name, and another
 * program's fires in the processes that run it among those the command
 * (-c) starts, as bpftrace's in every process (`-c 'sh script'`).  With
 * -p, a probe on another program than the process's would never fire:
 * refused before anything runs, in words that say why.  A command that
 * utrace's runtime cannot be preloaded into (statically linked, set-ID)
 * has its uprobes served by the kernel's (r->kuprobes), minus what those
 * cannot do (kuprobe_check).  A binary is the
 * program when it is the same file (device and inode): with -p, the
 * process's (/proc/PID/exe), whatever path names it (/proc/PID/root/...
 * for another mount namespace's).  And the functions a uprobe's glob
 * names in its binary (bt_resolve_funcs), for the run and for -l.  A
 * uprobe at an offset must be at an instruction's start (check_offset).
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/glob.h"
#include "lib/base/grow.h"
#include "lib/base/proc_self.h"
#include "lib/bt/bt_run_internal.h"
#include "lib/elf/elf.h"
#include "lib/elf/libdeps.h"
#include "lib/probes/inproc_probe.h"
#include "lib/probes/uprobe.h"
#include "lib/session/session.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void bt_names_sort(char **v, size_t *n, bool unique)
{
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	for (size_t i = 1; unique && i < *n; i++)
		if (!strcmp(v[i], v[i - 1])) {
			free(v[i]);
			memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof(*v));
			(*n)--;
			i--;
		}
}

struct names {
	char **v;
	size_t n, cap;
};

/* The defined functions of elf's .symtab and .dynsym matching glob, into
 * nm (duplicates too).  As bpftrace's, not the parts gcc splits off a
 * function (NAME.part.N: it lists and attaches no name holding ".part."). */
static int add_funcs(const struct utrace_elf *elf, const char *glob, struct names *nm)
{
	static const char *const tabs[] = {".symtab", ".dynsym"};

	for (unsigned t = 0; t < 2; t++) {
		struct utrace_elf_section sec;
		size_t count;

		if (utrace_elf_find_section(elf, tabs[t], &sec) < 0)
			continue;
		count = utrace_elf_sym_count(elf, &sec);
		for (size_t i = 1; i < count; i++) {
			struct utrace_elf_sym s;

			if (utrace_elf_sym(elf, &sec, i, &s) < 0 ||
			    (s.type != STT_FUNC && s.type != STT_GNU_IFUNC) || !s.shndx ||
			    !s.value || !*s.name || strstr(s.name, ".part.") ||
			    !utrace_glob_match(glob, s.name))
				continue;
			if (UTRACE_GROW(nm->v, nm->cap, nm->n + 1) < 0 ||
			    !(nm->v[nm->n] = strdup(s.name)))
				return -ENOMEM;
			nm->n++;
		}
	}
	return 0;
}

/* The defined functions of target matching glob, sorted, each once: as
 * bcc reads them for bpftrace, those of its .symtab and .dynsym and of
 * its separate debug file's (by build id: a stripped library's local
 * functions and versioned names). */
int bt_resolve_funcs(const char *target, const char *glob, char ***out, size_t *n)
{
	struct utrace_elf *elf, *dbg;
	struct names nm = {0};
	int ret = utrace_elf_open(target, &elf);

	if (ret < 0)
		return ret;
	ret = add_funcs(elf, glob, &nm);
	if (!ret && utrace_elf_open_debug(elf, &dbg) == 0) {
		ret = add_funcs(dbg, glob, &nm);
		utrace_elf_close(dbg);
	}
	utrace_elf_close(elf);
	bt_names_sort(nm.v, &nm.n, true); /* aliases of one name: once */
	*out = nm.v;
	*n = nm.n;
	return ret;
}

/* The traced program's file: -p's as the process names it (shown) and
 * /proc/PID/exe (opened: its mount namespace may not be ours), else the
 * command as execvp() finds it, resolved. */
static char *program_file(const struct bt_run *r, char *open, size_t size)
{
	char buf[PATH_MAX], *path;

	if (r->o->pid) {
		if (utrace_proc_exe(r->o->pid, buf, sizeof(buf)) < 0)
			return NULL;
		snprintf(open, size, "/proc/%d/exe", r->o->pid);
		return strdup(buf);
	}
	path = utrace_program_path(r->o->argv[0]);
	if (!path)
		return NULL;
	if (!realpath(path, buf)) {
		free(path);
		return NULL;
	}
	free(path);
	snprintf(open, size, "%s", buf);
	return strdup(buf);
}

/* A program, not a library: ET_EXEC, or a PIE (an interpreter and no
 * DT_SONAME; glibc's libc.so.6 has an interpreter too, and a soname). */
static bool is_executable(const char *path)
{
	struct utrace_elf *elf;
	struct utrace_elf_section sec;
	const Elf64_Dyn *dyn;
	bool exe = false;

	if (utrace_elf_open(path, &elf) < 0)
		return false;
	if (utrace_elf_type(elf) == ET_EXEC) {
		exe = true;
	} else if (utrace_elf_find_section(elf, ".interp", &sec) == 0 &&
		   utrace_elf_find_section(elf, ".dynamic", &sec) == 0 &&
		   (dyn = utrace_elf_section_data(elf, &sec)) != NULL) {
		exe = true;
		for (size_t i = 0; i < sec.size / sizeof(*dyn) && dyn[i].d_tag != DT_NULL; i++)
			if (dyn[i].d_tag == DT_SONAME)
				exe = false;
	}
	utrace_elf_close(elf);
	return exe;
}

/*
 * A uprobe at FUNC+OFF: refused before anything runs where OFF is not an
 * instruction boundary (bpftrace: "Could not add uprobe into middle of
 * instruction"), what lib/probes' register check says of the point, as
 * the runtime would say it and leave the probe off, its counts 0.
 */
static int check_offset(struct bt_run *r, const struct bt_site *s)
{
	struct utrace_inproc_probe *p = NULL;
	struct utrace_inproc_probe_loc loc;
	struct utrace_error e = {0};
	char *def = NULL;
	int code, ret = 0;

	if (s->type != BT_P_UPROBE || !s->off)
		return 0;
	if (asprintf(&def, "p:bt/check %s:%s+%llu", s->target, s->func,
		     (unsigned long long)s->off) < 0)
		return utrace_error_set(r->err, -ENOMEM, "out of memory");
	/* with no call sites given, -EILSEQ is the boundary's alone */
	if (utrace_inproc_probe_parse_as(def, NULL, "bt", true, &p, &code, &e) == 0 &&
	    utrace_inproc_probe_locate(p, s->target, NULL, 0, 0, NULL, 0, &loc, &e) == -EILSEQ)
		ret = utrace_error_set(r->err, -EINVAL, "uprobe:%s:%s+%llu: %s", s->target, s->func,
				       (unsigned long long)s->off,
				       utrace_uprobe_error_text(UTRACE_UPROBE_ERR_BAD_INSN_BNDRY));
	utrace_inproc_probe_free(p);
	free(def);
	return ret;
}

/* prog: the program's file as shown, open: as we open it. */
static int check_site(struct bt_run *r, const struct bt_site *s, const char *prog, const char *open)
{
	const char *kind = s->type == BT_P_UPROBE ? "uprobe" : "uretprobe";
	int ret;

	if (access(s->target, R_OK) != 0)
		return utrace_error_set(r->err, -errno, "%s: %s", s->target, strerror(errno));
	if ((ret = check_offset(r, s)) < 0)
		return ret;
	if (utrace_same_file(s->target, open)) /* the same file, by any path */
		return 0;
	if (r->o->pid && is_executable(s->target))
		return utrace_error_set(r->err, -EINVAL,
					"%s:%s:%s: %s is not the program of process %d (%s): "
					"utrace bt runs uprobes in the process it attaches to",
					kind, s->target, s->func, s->target, r->o->pid, prog);
	return 0; /* its probe names its file (bt_session.c inproc_where) */
}

/*
 * Why -c's uprobes are kernel uprobes of the recording rather than
 * in-process probes: utrace's runtime cannot be preloaded into the
 * command (statically linked, as Go's default build; set-ID to someone
 * else), so an in-process probe would never run and every count would
 * be 0.  The kernel's uprobes see it as bpftrace's do, in the processes
 * the recording's kernel instance follows (the command's).  NULL: the
 * in-process probes.
 */
static const char *kuprobes_why(enum utrace_preload why)
{
	switch (why) {
	case UTRACE_PRELOAD_STATIC:
	case UTRACE_PRELOAD_STATIC_GO:
		return "utrace's runtime cannot be preloaded into a statically linked program";
	case UTRACE_PRELOAD_SETUID:
	case UTRACE_PRELOAD_SETGID:
		return "the dynamic loader does not preload utrace's runtime into a set-ID "
		       "program";
	default:
		return NULL;
	}
}

/* What a kernel uprobe of site s cannot do, said before anything runs. */
static int kuprobe_check(struct bt_run *r, const struct bt_site *s, enum utrace_preload why)
{
	const char *kind = s->type == BT_P_UPROBE ? "uprobe" : "uretprobe";
	const char *what = s->code.hit_reads ? "a read of memory at an address computed at run time"
			   : s->code.ustack  ? "ustack"
					     : NULL;

	if (what)
		return utrace_error_set(r->err, -ENOTSUP,
					"%s:%s:%s: %s needs an in-process probe, which %s cannot "
					"have: %s",
					kind, s->target, s->func, what, r->o->argv[0], r->kuprobes);
	if (s->type == BT_P_URETPROBE && why == UTRACE_PRELOAD_STATIC_GO)
		return utrace_error_set(
		    r->err, -ENOTSUP,
		    "uretprobe:%s:%s: %s is a Go program, whose runtime walks "
		    "the return addresses a kernel uretprobe replaces (it would "
		    "abort): probe the function's entry, or a cgo build's C code",
		    s->target, s->func, r->o->argv[0]);
	return 0;
}

int bt_check_targets(struct bt_run *r)
{
	char open[PATH_MAX], *prog = program_file(r, open, sizeof(open));
	enum utrace_preload why;
	int ret = 0;

	if (!prog)
		return 0; /* the recording says why it cannot start it */
	why = r->o->argv && !r->o->pid ? utrace_program_preload(r->o->argv[0]) : UTRACE_PRELOAD_OK;
	r->kuprobes = kuprobes_why(why); /* (-c only: -p attaches) */
	for (unsigned i = 0; i < r->nsites && !ret; i++)
		if (r->sites[i].type == BT_P_UPROBE || r->sites[i].type == BT_P_URETPROBE)
			ret = check_site(r, &r->sites[i], prog, open);
	for (unsigned i = 0; i < r->nsites && !ret && r->kuprobes; i++)
		if (r->sites[i].type == BT_P_UPROBE || r->sites[i].type == BT_P_URETPROBE)
			ret = kuprobe_check(r, &r->sites[i], why);
	free(prog);
	return ret;
}
