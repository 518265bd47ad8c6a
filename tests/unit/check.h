/* SPDX-License-Identifier: MIT */
/*
 * check.h - what every unit test needs: check() and check_skip(), which
 * print one "ok - ..." / "not ok - ..." line a check (tests/run-unit.sh
 * counts them), check_done() for main's exit code, a temporary directory
 * for files and fixture programs, and building fixtures in it with the
 * compiler from $UTRACE_TEST_CC.
 *
 * Header-only: a unit test is one .c file linked with libutrace-tool.a.
 * Everything is static inline, so a test pays only for what it calls and
 * -Wall -Wextra -Werror says nothing of the rest.  Names other than
 * check() and failures start with check_, out of the way of a test's own.
 */
#ifndef UTRACE_TESTS_CHECK_H
#define UTRACE_TESTS_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Checks that failed so far. */
static int failures;

/* One check: prints "ok - what" or "not ok - what", what from fmt. */
static inline void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		failures++;
}

/* A check that could not run here: counts as passed, says why. */
static inline void check_skip(const char *what, const char *why)
{
	printf("ok - %s # SKIP %s\n", what, why);
	fflush(stdout);
}

/* main's exit code: 1 if a check failed, else 0. */
static inline int check_done(void)
{
	return failures ? 1 : 0;
}

/* $var if set and not empty, else def. */
static inline const char *check_env_or(const char *var, const char *def)
{
	const char *v = getenv(var);

	return v && *v ? v : def;
}

/* The C compiler for fixtures: $UTRACE_TEST_CC, default cc. */
static inline const char *check_cc(void)
{
	return check_env_or("UTRACE_TEST_CC", "cc");
}

/* The C++ compiler for fixtures: $UTRACE_TEST_CXX, default c++. */
static inline const char *check_cxx(void)
{
	return check_env_or("UTRACE_TEST_CXX", "c++");
}

/* Nonzero if prog is on $PATH. */
static inline int check_have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* Room for /tmp/utrace-test-<prefix>-XXXXXX: small, so that gcc can see
 * paths built from it fit their buffers. */
#define CHECK_TMPDIR_MAX 64

/* The temporary directory's path ("" before check_tmpdir_init()). */
static inline char *check_tmpdir(void)
{
	static char dir[CHECK_TMPDIR_MAX];

	return dir;
}

/*
 * Creates /tmp/utrace-test-<prefix>-XXXXXX; 0, or -1 with errno set (the
 * caller says so its own way).
 */
static inline int check_tmpdir_init(const char *prefix)
{
	char *dir = check_tmpdir();

	snprintf(dir, CHECK_TMPDIR_MAX, "/tmp/utrace-test-%s-XXXXXX", prefix);
	return mkdtemp(dir) ? 0 : -1;
}

/* Removes the temporary directory, unless $UTRACE_TEST_KEEP is set. */
static inline void check_tmpdir_cleanup(void)
{
	const char *dir = check_tmpdir();
	char cmd[128];

	if (!*dir || getenv("UTRACE_TEST_KEEP"))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
}

/* The start of main: check_tmpdir_init(prefix), or exit status 2 if the
 * directory cannot be made. */
static inline void check_begin(const char *prefix)
{
	if (check_tmpdir_init(prefix) < 0) {
		perror("mkdtemp");
		exit(2);
	}
}

/* The end of main: check_tmpdir_cleanup(), then check_done(). */
static inline int check_end(void)
{
	check_tmpdir_cleanup();
	return check_done();
}

/*
 * name in the temporary directory.  The result lives until four more
 * calls, so a few can be used in one expression.
 */
static inline const char *check_path(const char *name)
{
	static char bufs[4][512];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", check_tmpdir(), name);
	return b;
}

/* Writes len bytes of data to name in the temporary directory; 0 or -1. */
static inline int check_write_file(const char *name, const void *data, size_t len)
{
	FILE *f = fopen(check_path(name), "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/*
 * Writes src to srcname (NULL: "<out>.c") in the temporary directory and
 * compiles it there with cc -O2 and flags into out, the compiler's
 * messages into out.log; 0 on success.
 */
static inline int check_build(const char *cc, const char *out, const char *srcname, const char *src,
			      const char *flags)
{
	char cmd[2048], name[256];

	if (!srcname) {
		snprintf(name, sizeof(name), "%s.c", out);
		srcname = name;
	}
	if (check_write_file(srcname, src, strlen(src)) < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "cd %s && %s -O2 -o %s %s %s 2>%s.log", check_tmpdir(), cc, out,
		 srcname, flags, out);
	return system(cmd) == 0 ? 0 : -1;
}

/* The whole file at path in malloc'd memory, its size in *len, with a NUL
 * after it (callers read it as a string); NULL if it cannot be read. */
static inline void *check_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		if (buf)
			buf[n] = 0;
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

#endif
