/* SPDX-License-Identifier: MIT */
/*
 * event_format_text.c - the kernel's format text of an event, both ways
 * (lib/events/event_format.h): written for a format, and parsed into one.
 *
 * Design: the text is the kernel's events/<system>/<event>/format, byte
 * for byte (kernel/trace/trace_events.c, f_show): the common fields, a
 * blank line, the event's fields, a blank line, "print fmt: ".  Parsing
 * accepts every format file a kernel writes (the print fmt may span
 * lines), so that a trace file's formats, ours or the kernel's, read back
 * the same way.  A parsed format owns its pool, freed with it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_format_internal.h"

/* ---- text ----------------------------------------------------------- */

static void text_field(FILE *m, const struct utrace_event_field *f)
{
	fprintf(m, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", f->type, f->name,
		f->offset, f->size, f->is_signed ? 1 : 0);
}

char *utrace_event_format_text(const struct utrace_event_format *f, int id)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	unsigned i;
	bool ok;

	if (!m)
		return NULL;
	fprintf(m, "name: %s\nID: %d\nformat:\n", f->name, id);
	for (i = 0; i < f->nr_fields && f->fields[i].common; i++)
		text_field(m, &f->fields[i]);
	fputc('\n', m);
	for (; i < f->nr_fields; i++)
		text_field(m, &f->fields[i]);
	fprintf(m, "\nprint fmt: %s\n", f->print_fmt ? f->print_fmt : "");
	ok = !ferror(m);
	if (fclose(m) != 0 || !ok) {
		free(text);
		return NULL;
	}
	return text;
}

/* ---- parsing -------------------------------------------------------- */

struct ef_parser {
	const char *what; /* the event's name once known */
	unsigned line;
	struct utrace_error *err;
};

static __attribute__((format(printf, 2, 3))) int perr(struct ef_parser *ps, const char *fmt, ...)
{
	char what[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return utrace_error_set(ps->err, -EINVAL, "event format%s%s: line %u: %s",
				ps->what ? " of " : "", ps->what ? ps->what : "", ps->line, what);
}

/* A decimal number of at most 32 bits at *s, then ';'; advances *s. */
static bool parse_u32(const char **s, const char *end, uint32_t *v)
{
	unsigned long long n;
	char *e;

	if (*s >= end || !isdigit((unsigned char)**s))
		return false;
	errno = 0;
	n = strtoull(*s, &e, 10); /* stops at the ';' or the '\n' at end */
	if (errno || n > UINT32_MAX || e >= end || *e != ';')
		return false;
	*v = (uint32_t)n;
	*s = e + 1;
	return true;
}

/* "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" (also the old
 * "field special:" and lines without signed:). */
static int parse_field(struct ef_parser *ps, struct ef_pool *pool, const char *s, const char *end,
		       bool common, struct utrace_event_field *f)
{
	const char *decl, *semi, *name, *stop, *type_end;
	unsigned have = 0;
	int nlen;

	s += strspn(s, " \t");
	s += strlen("field");
	while (s < end && *s != ':')
		s++;
	if (s >= end)
		return perr(ps, "no ':' after field");
	decl = ++s;
	semi = memchr(decl, ';', (size_t)(end - decl));
	if (!semi || memchr(decl, '\t', (size_t)(semi - decl)))
		return perr(ps, "no ';' after the field's declaration");
	/* NAME: the last word, with its [N] if any. */
	stop = semi;
	while (stop > decl && stop[-1] == ' ')
		stop--;
	name = stop;
	if (name > decl && name[-1] == ']') {
		while (name > decl && name[-1] != '[')
			name--;
		if (name > decl)
			name--;
	}
	while (name > decl && name[-1] != ' ' && name[-1] != '\t' && name[-1] != '*')
		name--;
	nlen = (int)(stop - name);
	for (type_end = name; type_end > decl && type_end[-1] == ' ';)
		type_end--;
	if (!nlen || *name == '[' || type_end == decl)
		return perr(ps, "no type or name in '%.*s'", (int)(semi - decl), decl);
	/* "key:N;" pairs: offset, size, signed (others are skipped). */
	for (s = semi + 1; (s += strspn(s, " \t")) < end;) {
		const char *key = s, *colon = memchr(s, ':', (size_t)(end - s));
		uint32_t v;

		s = colon ? colon + 1 : end;
		if (!colon || !parse_u32(&s, end, &v))
			return perr(ps, "field %.*s: bad '%.*s'", nlen, name, (int)(end - key),
				    key);
		if (ef_starts_with(key, "offset:")) {
			f->offset = v;
			have |= 1;
		} else if (ef_starts_with(key, "size:")) {
			f->size = v;
			have |= 2;
		} else if (ef_starts_with(key, "signed:")) {
			f->is_signed = v != 0;
		}
	}
	if (have != 3)
		return perr(ps, "field %.*s lacks its offset or size", nlen, name);
	if ((uint64_t)f->offset + f->size > UINT32_MAX)
		return perr(ps, "field %.*s ends beyond 4 GiB", nlen, name);
	f->common = common;
	if (ef_field_set(pool, f, decl, (size_t)(type_end - decl), name, (size_t)nlen) < 0)
		return ef_oom(ps->err);
	return 0;
}

static int parse_lines(struct ef_parser *ps, struct ef_parsed *p, const char *text)
{
	struct utrace_event_format *f = &p->ev.f;
	struct utrace_event_field *fields;
	unsigned nr = 0, cap = 1;
	bool in_format = false, common = true;
	const char *s;
	int ret;

	for (s = text; *s; s++) /* at most one field a line */
		cap += *s == '\n';
	fields = ef_pool_alloc(&p->pool, cap * sizeof(*fields));
	if (!fields)
		return ef_oom(ps->err);
	s = text;

	while (*s) {
		const char *end = s + strcspn(s, "\n");
		const char *next = *end ? end + 1 : end;
		size_t len = (size_t)(end - s);

		ps->line++;
		if (ef_starts_with(s, "print fmt: ")) {
			size_t n = strlen(s + 11);

			if (n && s[11 + n - 1] == '\n')
				n--;
			f->print_fmt = ef_pool_strndup(&p->pool, s + 11, n);
			if (!f->print_fmt)
				return ef_oom(ps->err);
			break;
		} else if (in_format && len && strspn(s, " \t") < len &&
			   ef_starts_with(s + strspn(s, " \t"), "field")) {
			ret = parse_field(ps, &p->pool, s, end, common, &fields[nr]);
			if (ret < 0)
				return ret;
			nr++;
		} else if (strspn(s, " \t") == len) {
			if (in_format && nr)
				common = false; /* the blank line after the common fields */
		} else if (!in_format && ef_starts_with(s, "name: ") && !f->name) {
			f->name = ef_pool_strndup(&p->pool, s + 6, len - 6);
			if (!f->name)
				return ef_oom(ps->err);
			ps->what = f->name;
		} else if (!in_format && ef_starts_with(s, "ID: ")) {
			char *e;
			long id = strtol(s + 4, &e, 10);

			if (e != end || e == s + 4 || id < 0 || id > INT32_MAX)
				return perr(ps, "bad ID '%.*s'", (int)(len - 4), s + 4);
			p->ev.id = (int)id;
		} else if (!in_format && len == 7 && ef_starts_with(s, "format:")) {
			if (!f->name)
				return perr(ps, "format: before name:");
			in_format = true;
		} else {
			return perr(ps, "unexpected '%.*s'", (int)(len > 60 ? 60 : len), s);
		}
		s = next;
	}
	if (!f->name || !*f->name)
		return perr(ps, "no name: line");
	if (!in_format)
		return perr(ps, "no format: line");
	if (!f->print_fmt)
		return perr(ps, "no print fmt: line");
	f->fields = fields;
	f->nr_fields = nr;
	for (unsigned i = 0; i < nr; i++)
		if (fields[i].offset + fields[i].size > f->rec_size)
			f->rec_size = fields[i].offset + fields[i].size;
	return 0;
}

int utrace_event_format_parse(const char *system, const char *text,
			      struct utrace_event_format **out, struct utrace_error *err)
{
	struct ef_parser ps = {.err = err};
	struct ef_parsed *p;
	int ret;

	*out = NULL;
	if (!text)
		return utrace_error_set(err, -EINVAL, "event format: no text");
	p = calloc(1, sizeof(*p));
	if (!p)
		return ef_oom(err);
	p->ev.id = -1;
	if (!system)
		system = "";
	p->ev.f.system = ef_pool_strndup(&p->pool, system, strlen(system));
	ret = p->ev.f.system ? parse_lines(&ps, p, text) : ef_oom(err);
	if (ret < 0) {
		utrace_event_format_free(&p->ev.f);
		return ret;
	}
	*out = &p->ev.f;
	return 0;
}

void utrace_event_format_free(struct utrace_event_format *f)
{
	struct ef_parsed *p = (struct ef_parsed *)f;

	if (!p)
		return;
	ef_pool_free(&p->pool);
	free(p);
}
