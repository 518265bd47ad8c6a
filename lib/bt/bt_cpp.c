/* SPDX-License-Identifier: MIT */
/*
 * bt_cpp.c - the preprocessor lines at the top of a bpftrace program
 * (`#include <sys/xattr.h>`, `#define NAME VALUE`) and bpftrace's
 * --include FILE and -I DIR.  bpftrace hands them to clang as
 * "definitions.h" (after a line of its own, so the program's line L is
 * the file's L + 1) and reads the C types and macros it gets.  utrace bt
 * has no C compiler: an #include must name a header that exists in the
 * -I folders or the system's include folders (else clang's error, as
 * bpftrace prints it); the object-like #defines of the header and of
 * what it includes (found the same way, a missing one skipped) are read,
 * #undef undoes one, a later one replaces an earlier one; conditionals
 * (#if, #ifdef ...) are not evaluated, every branch is read, so a header
 * whose branches define a macro differently gives the last one; its C
 * declarations are not read.  An object-like #define is expanded in the
 * program as clang would (whole identifiers, outside strings, its value
 * expanded again, a macro not inside itself).  Other directives are
 * taken and ignored.  The directive lines become empty lines, so the
 * program's lines keep their numbers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/bt/bt_ast.h"

#define CPP_DEPTH 24	  /* nested #includes read */
#define CPP_EXPAND_DEPTH 16 /* a macro's value expanded again */

struct macro {
	char *name;
	char *value;
};

struct cpp {
	struct macro *ms;
	unsigned n, cap;
	char *const *dirs; /* -I */
	unsigned ndirs;
	char **seen; /* the headers read (each once, as their guards would) */
	unsigned nseen;
	bool nomem;
};

static const char *const include_dirs[] = {"/usr/local/include", "/usr/include/x86_64-linux-gnu",
					   "/usr/include"};

static void set_macro(struct cpp *c, const char *name, size_t nlen, const char *value, size_t vlen)
{
	unsigned i;

	for (i = 0; i < c->n; i++)
		if (strlen(c->ms[i].name) == nlen && !strncmp(c->ms[i].name, name, nlen))
			break;
	if (i == c->n) {
		if (!value)
			return;
		if (c->n == c->cap) {
			unsigned cap = c->cap ? 2 * c->cap : 64;
			struct macro *m = realloc(c->ms, cap * sizeof(*m));

			if (!m) {
				c->nomem = true;
				return;
			}
			c->ms = m;
			c->cap = cap;
		}
		c->ms[c->n].name = strndup(name, nlen);
		c->ms[c->n].value = NULL;
		if (!c->ms[c->n].name) {
			c->nomem = true;
			return;
		}
		c->n++;
	}
	free(c->ms[i].value);
	c->ms[i].value = NULL;
	if (!value) { /* #undef */
		free(c->ms[i].name);
		c->ms[i] = c->ms[--c->n];
		return;
	}
	if (!(c->ms[i].value = strndup(value, vlen)))
		c->nomem = true;
}

/* #define NAME VALUE (no parameters), #undef NAME into c; false if the
 * line is neither. */
static bool parse_define(struct cpp *c, const char *line)
{
	const char *s = line + 1 + strspn(line + 1, " \t"), *name;
	bool undef = !strncmp(s, "undef", 5) && isspace((unsigned char)s[5]);
	size_t n;

	if (!undef && (strncmp(s, "define", 6) || !isspace((unsigned char)s[6])))
		return false;
	s += undef ? 5 : 6;
	name = s + strspn(s, " \t");
	for (n = 0; isalnum((unsigned char)name[n]) || name[n] == '_'; n++)
		;
	if (!n || name[n] == '(')
		return false;
	if (undef) {
		set_macro(c, name, n, NULL, 0);
		return true;
	}
	s = name + n + strspn(name + n, " \t");
	{
		size_t v = strcspn(s, "\n");

		while (v && isspace((unsigned char)s[v - 1]))
			v--;
		/* a comment after the value is not part of it */
		for (size_t k = 0; k + 1 < v; k++)
			if (s[k] == '/' && (s[k + 1] == '*' || s[k + 1] == '/')) {
				v = k;
				while (v && isspace((unsigned char)s[v - 1]))
					v--;
				break;
			}
		set_macro(c, name, n, s, v);
	}
	return true;
}

/* The header an #include line names, found in dir (the including file's
 * folder for "x", NULL: none), the -I folders, the system's; its path
 * into path, or false. */
static bool find_header(const struct cpp *c, const char *line, const char *dir, char *path,
			size_t size, const char **name, int *nlen)
{
	const char *open = line + strcspn(line, "<\""), *close;

	if (!*open || !(close = strchr(open + 1, *open == '<' ? '>' : '"')))
		return false;
	*name = open + 1;
	*nlen = (int)(close - open - 1);
	if (*open == '"' && dir) {
		snprintf(path, size, "%s/%.*s", dir, *nlen, *name);
		if (!access(path, R_OK))
			return true;
	}
	for (unsigned i = 0; i < c->ndirs; i++) {
		snprintf(path, size, "%s/%.*s", c->dirs[i], *nlen, *name);
		if (!access(path, R_OK))
			return true;
	}
	for (size_t i = 0; i < sizeof(include_dirs) / sizeof(include_dirs[0]); i++) {
		snprintf(path, size, "%s/%.*s", include_dirs[i], *nlen, *name);
		if (!access(path, R_OK))
			return true;
	}
	return false;
}

static void read_header(struct cpp *c, const char *path, unsigned depth);

/* One directive line of a header (its continuations joined). */
static void header_line(struct cpp *c, const char *line, const char *dir, unsigned depth)
{
	const char *t = line + strspn(line, " \t"), *name;
	char path[1024];
	int nlen;

	if (*t != '#')
		return;
	if (!strncmp(t + 1 + strspn(t + 1, " \t"), "include", 7)) {
		if (find_header(c, t, dir, path, sizeof(path), &name, &nlen))
			read_header(c, path, depth + 1);
		return;
	}
	parse_define(c, t);
}

static void read_header(struct cpp *c, const char *path, unsigned depth)
{
	char *line = NULL, *dir, *slash;
	size_t cap = 0, len = 0;
	FILE *f;
	char **seen;

	if (depth > CPP_DEPTH || c->nomem)
		return;
	for (unsigned i = 0; i < c->nseen; i++)
		if (!strcmp(c->seen[i], path))
			return;
	if (!(seen = realloc(c->seen, (c->nseen + 1) * sizeof(*seen))) ||
	    !(seen[c->nseen] = strdup(path)) || !(dir = strdup(path))) {
		if (seen)
			c->seen = seen;
		c->nomem = true;
		return;
	}
	c->seen = seen;
	c->nseen++;
	if ((slash = strrchr(dir, '/')))
		*slash = 0;
	if ((f = fopen(path, "re"))) {
		char buf[4096];

		while (fgets(buf, sizeof(buf), f)) {
			size_t l = strlen(buf), keep;
			bool more;

			while (l && (buf[l - 1] == '\n' || buf[l - 1] == '\r'))
				l--;
			more = l && buf[l - 1] == '\\';
			keep = more ? l - 1 : l;
			if (len + keep + 2 > cap) {
				char *n = realloc(line, cap = 2 * (len + keep + 2));

				if (!n)
					break;
				line = n;
			}
			memcpy(line + len, buf, keep);
			len += keep;
			line[len] = 0;
			if (more)
				continue;
			header_line(c, line, dir, depth);
			len = 0;
		}
		fclose(f);
	}
	free(line);
	free(dir);
}

/* An #include of the program (or --include's): the header exists, or
 * clang's error; its macros read. */
static int include(struct cpp *c, const char *line, unsigned lineno, struct utrace_error *err)
{
	char path[1024];
	const char *name;
	int nlen;

	if (find_header(c, line, NULL, path, sizeof(path), &name, &nlen)) {
		read_header(c, path, 0);
		return c->nomem ? utrace_error_set(err, -ENOMEM, "out of memory") : 0;
	}
	if (!strchr(line, '<') && !strchr(line, '"'))
		return 0;
	return utrace_error_set(err, -ENOENT,
				"definitions.h:%u:%u: fatal error: '%.*s' file not found",
				lineno + 1, (unsigned)(name - 1 - line) + 1, nlen, name);
}

static const struct macro *lookup(const struct cpp *c, const char *s, size_t w)
{
	for (unsigned k = 0; k < c->n; k++)
		if (strlen(c->ms[k].name) == w && !strncmp(c->ms[k].name, s, w))
			return &c->ms[k];
	return NULL;
}

/* Text s, its macros expanded (again in their values, a macro not
 * inside its own value), onto out. */
static void expand(FILE *out, const char *s, size_t len, const struct cpp *c,
		   const struct macro **active, unsigned depth)
{
	bool in_str = false;

	for (size_t i = 0; i < len;) {
		const struct macro *m;
		size_t w = 0;
		bool busy = false;

		if (in_str || s[i] == '"' || !(isalpha((unsigned char)s[i]) || s[i] == '_') ||
		    (i && (isalnum((unsigned char)s[i - 1]) || strchr("_$@", s[i - 1])))) {
			if (s[i] == '"' && (!i || s[i - 1] != '\\'))
				in_str = !in_str;
			fputc(s[i++], out);
			continue;
		}
		while (i + w < len && (isalnum((unsigned char)s[i + w]) || s[i + w] == '_'))
			w++;
		m = lookup(c, s + i, w);
		for (unsigned k = 0; m && k < depth; k++)
			busy |= active[k] == m;
		if (m && !busy && depth < CPP_EXPAND_DEPTH) {
			active[depth] = m;
			expand(out, m->value, strlen(m->value), c, active, depth + 1);
		} else {
			fwrite(s + i, 1, w, out);
		}
		i += w;
	}
}

static void cpp_free(struct cpp *c)
{
	for (unsigned i = 0; i < c->n; i++) {
		free(c->ms[i].name);
		free(c->ms[i].value);
	}
	for (unsigned i = 0; i < c->nseen; i++)
		free(c->seen[i]);
	free(c->ms);
	free(c->seen);
}

int bt_preprocess(const char *src, const struct bt_cpp_opts *o, char **out,
		  struct utrace_error *err)
{
	struct cpp c = {.dirs = o ? o->dirs : NULL, .ndirs = o ? o->ndirs : 0};
	const struct macro *active[CPP_EXPAND_DEPTH];
	unsigned lineno = 1;
	size_t len = 0;
	FILE *m = open_memstream(out, &len);
	int ret = 0;

	if (!m)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; o && i < o->nincludes && !ret; i++) {
		char line[1024];

		snprintf(line, sizeof(line), "#include <%s>", o->includes[i]);
		ret = include(&c, line, 0, err);
	}
	for (const char *s = src; *s && !ret; lineno++) {
		size_t l = strcspn(s, "\n");
		const char *t = s + strspn(s, " \t");

		if (*t == '#' && !strncmp(t + 1 + strspn(t + 1, " \t"), "include", 7))
			ret = include(&c, t, lineno, err);
		else if (*t == '#')
			parse_define(&c, t);
		if (*t != '#')
			expand(m, s, l, &c, active, 0);
		if (s[l] == '\n')
			fputc('\n', m);
		s += l + (s[l] == '\n');
	}
	if (!ret && c.nomem)
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	cpp_free(&c);
	if (fclose(m) && !ret)
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	if (ret) {
		free(*out);
		*out = NULL;
	}
	return ret;
}
