/* SPDX-License-Identifier: MIT */
/*
 * bt_cpp.c - the preprocessor lines at the top of a bpftrace program
 * (`#include <sys/xattr.h>`, `#define NAME VALUE`).  bpftrace hands them
 * to clang as "definitions.h" (after a line of its own, so the program's
 * line L is the file's L + 1) and reads the C types and macros it gets.
 * utrace bt has no C compiler: an #include must name a header that
 * exists in the system's include folders (else clang's error, as
 * bpftrace prints it), but what the header declares is not read; an
 * object-like #define is expanded in the program as clang would (whole
 * identifiers, outside strings).  Other directives are taken and
 * ignored.  The directive lines become empty lines, so the program's
 * lines keep their numbers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/bt/bt_ast.h"

#define BT_CPP_MACROS 64

struct macro {
	char name[64];
	char value[128];
};

static const char *const include_dirs[] = {"/usr/local/include", "/usr/include/x86_64-linux-gnu",
					   "/usr/include"};

/* An #include's header: it exists, or clang's error. */
static int check_include(const char *line, unsigned lineno, struct utrace_error *err)
{
	const char *open = line + strcspn(line, "<\""), *close;
	char path[512];

	if (!*open || !(close = strchr(open + 1, *open == '<' ? '>' : '"')))
		return 0;
	for (size_t i = 0; i < sizeof(include_dirs) / sizeof(include_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%.*s", include_dirs[i], (int)(close - open - 1),
			 open + 1);
		if (!access(path, R_OK))
			return 0;
	}
	return utrace_error_set(err, -ENOENT,
				"definitions.h:%u:%u: fatal error: '%.*s' file not found",
				lineno + 1, (unsigned)(open - line) + 1, (int)(close - open - 1),
				open + 1);
}

/* #define NAME VALUE (no parameters) into m; false if it is not one. */
static bool parse_define(const char *line, struct macro *m)
{
	const char *s = line + 1 + strspn(line + 1, " \t"), *name;
	size_t n;

	if (strncmp(s, "define", 6) || !isspace((unsigned char)s[6]))
		return false;
	name = s + 6 + strspn(s + 6, " \t");
	for (n = 0; isalnum((unsigned char)name[n]) || name[n] == '_'; n++)
		;
	if (!n || n >= sizeof(m->name) || name[n] == '(')
		return false;
	memcpy(m->name, name, n);
	m->name[n] = 0;
	s = name + n + strspn(name + n, " \t");
	n = strcspn(s, "\n");
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	snprintf(m->value, sizeof(m->value), "%.*s", (int)n, s);
	return true;
}

/* One line of the program, its macros expanded, onto out. */
static void expand_line(FILE *out, const char *s, size_t len, const struct macro *ms, unsigned n)
{
	bool in_str = false;

	for (size_t i = 0; i < len;) {
		size_t w = 0;

		if (in_str || s[i] == '"' || !(isalpha((unsigned char)s[i]) || s[i] == '_') ||
		    (i && (isalnum((unsigned char)s[i - 1]) || strchr("_$@", s[i - 1])))) {
			if (s[i] == '"' && (!i || s[i - 1] != '\\'))
				in_str = !in_str;
			fputc(s[i++], out);
			continue;
		}
		while (i + w < len && (isalnum((unsigned char)s[i + w]) || s[i + w] == '_'))
			w++;
		for (unsigned k = 0; k < n; k++)
			if (strlen(ms[k].name) == w && !strncmp(ms[k].name, s + i, w)) {
				fputs(ms[k].value, out);
				i += w;
				w = 0;
				break;
			}
		fwrite(s + i, 1, w, out);
		i += w;
	}
}

int bt_preprocess(const char *src, char **out, struct utrace_error *err)
{
	struct macro ms[BT_CPP_MACROS];
	unsigned n = 0, lineno = 1;
	size_t len = 0;
	FILE *m = open_memstream(out, &len);
	int ret = 0;

	if (!m)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (const char *s = src; *s && !ret; lineno++) {
		size_t l = strcspn(s, "\n");
		const char *t = s + strspn(s, " \t");

		if (*t == '#' && !strncmp(t + 1 + strspn(t + 1, " \t"), "include", 7))
			ret = check_include(t, lineno, err);
		else if (*t == '#' && n < BT_CPP_MACROS && parse_define(t, &ms[n]))
			n++;
		if (*t != '#')
			expand_line(m, s, l, ms, n);
		if (s[l] == '\n')
			fputc('\n', m);
		s += l + (s[l] == '\n');
	}
	if (fclose(m) && !ret)
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	if (ret) {
		free(*out);
		*out = NULL;
	}
	return ret;
}
