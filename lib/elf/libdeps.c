/* SPDX-License-Identifier: MIT */
/*
 * libdeps.c - the shared libraries a program loads when it starts, found
 * the way ldd finds them (libdeps.h): the program's ELF interpreter runs
 * with LD_TRACE_LOADED_OBJECTS=1 and prints "soname => path (address)"
 * lines without running the program itself; a static program has no
 * interpreter and therefore no libraries, and is never executed.  Asking
 * the loader, rather than reading DT_NEEDED and ld.so.conf here, gives
 * exactly the search the program will get (RPATH, RUNPATH,
 * LD_LIBRARY_PATH, hwcaps).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/base/grow.h"
#include "lib/elf/elf.h"
#include "lib/elf/libdeps.h"

/* PROGRAM as a file (like ldd), else as execvp would find it; malloc'ed,
 * or NULL with errno set. */
char *utrace_program_path(const char *prog)
{
	const char *path = getenv("PATH");
	struct stat st;

	if (strchr(prog, '/'))
		return strdup(prog);
	/* execvp's search: glibc's default path when PATH is unset, and an
	 * empty element is the current directory */
	if (!path)
		path = "/bin:/usr/bin";
	for (;;) {
		size_t len = strcspn(path, ":");
		char *full;

		if (asprintf(&full, "%.*s%s%s", (int)len, len ? path : ".", "/", prog) < 0)
			return NULL;
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
			return full;
		free(full);
		if (!path[len])
			break;
		path += len + 1;
	}
	errno = ENOENT;
	return NULL;
}

/* The PT_INTERP path from .interp, or NULL for a static program. */
static char *elf_interp(const struct utrace_elf *elf)
{
	struct utrace_elf_section sec;
	const char *data;

	if (utrace_elf_find_section(elf, ".interp", &sec) < 0 || sec.size < 2)
		return NULL;
	data = utrace_elf_section_data(elf, &sec);
	if (!data || !memchr(data, '\0', (size_t)sec.size))
		return NULL;
	return strdup(data);
}

/* Runs "LD_TRACE_LOADED_OBJECTS=1 interp prog" and returns its output. */
static char *run_ldd(const char *interp, const char *prog)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	int fds[2], status = -1;
	pid_t pid;
	ssize_t r;

	if (!buf || pipe(fds) < 0) {
		free(buf);
		return NULL;
	}
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		free(buf);
		return NULL;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
		execl(interp, interp, prog, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		if (UTRACE_GROW(buf, cap, len + 1024) < 0)
			break;
		r = read(fds[0], buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Parses one ldd line into the library path (in place); NULL if the line
 * names no file (vdso) or the library was not found (*missing set). */
static char *ldd_line_path(char *line, bool *missing)
{
	char *arrow = strstr(line, " => "), *p, *end;

	*missing = false;
	p = arrow ? arrow + 4 : line;
	p += strspn(p, " \t");
	if (!strncmp(p, "not found", 9)) {
		*missing = true;
		return NULL;
	}
	if (*p != '/')
		return NULL;
	end = strstr(p, " (0x");
	if (end)
		*end = '\0';
	else
		p[strcspn(p, " \t")] = '\0';
	return p;
}

static int add(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (!(nv[*n] = strdup(s)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* The libraries of ldd's output (prog and the interpreter left out). */
static int parse_ldd(char *out, const char *prog, struct utrace_libdeps *d)
{
	char *line, *save = NULL;

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool missing;
		char *path = ldd_line_path(line, &missing);

		if (missing) {
			line += strspn(line, " \t");
			line[strcspn(line, " ")] = '\0';
			if (add(&d->missing, &d->nr_missing, line) < 0)
				return -ENOMEM;
			continue;
		}
		if (!path || !strcmp(path, prog) || !strcmp(path, d->interp))
			continue;
		if (add(&d->paths, &d->n, path) < 0)
			return -ENOMEM;
	}
	return 0;
}

int utrace_libdeps_get(const char *prog, struct utrace_libdeps *d, struct utrace_error *err)
{
	struct utrace_elf *elf;
	char *out;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = utrace_elf_open_err(prog, &elf, err);
	if (ret < 0)
		return ret;
	d->interp = elf_interp(elf);
	utrace_elf_close(elf);
	if (!d->interp)
		return 0; /* static: no libraries */
	out = run_ldd(d->interp, prog);
	if (!out) {
		d->ldd_failed = true;
		return 0;
	}
	ret = parse_ldd(out, prog, d);
	free(out);
	if (ret < 0) {
		utrace_libdeps_free(d);
		return utrace_error_set(err, ret, "out of memory");
	}
	return 0;
}

void utrace_libdeps_free(struct utrace_libdeps *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->paths[i]);
	for (size_t i = 0; i < d->nr_missing; i++)
		free(d->missing[i]);
	free(d->paths);
	free(d->missing);
	free(d->interp);
	memset(d, 0, sizeof(*d));
}
