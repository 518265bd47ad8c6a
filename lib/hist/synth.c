/* SPDX-License-Identifier: MIT */
/*
 * synth.c - a synthetic event definition ("req_lat u64 lat; int id", the
 * kernel's synthetic_events syntax) parsed into the format the kernel
 * gives it (kernel/trace/trace_events_synth.c): the 4 common fields, then
 * one u64 slot per field with the field's own size at its start, and the
 * print fmt "lat=%llu id=%d".  Integer types only, as the values an
 * action hands over are numbers here.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist/synth.h"

static const char *const synth_err_text[] = {
#define UTRACE_SYNTH_ERR_TEXT(name, text) text,
    UTRACE_SYNTH_ERRORS(UTRACE_SYNTH_ERR_TEXT)
#undef UTRACE_SYNTH_ERR_TEXT
};

/* The kernel's synth_field_size() and synth_field_fmt() of the integer
 * types it knows. */
static const struct {
	const char *type, *fmt;
	unsigned size;
} synth_types[] = {
    {"s64", "%lld", 8},	   {"u64", "%llu", 8},		 {"s32", "%d", 4},
    {"u32", "%u", 4},	   {"s16", "%d", 2},		 {"u16", "%u", 2},
    {"s8", "%d", 1},	   {"u8", "%u", 1},		 {"char", "%d", 1},
    {"unsigned char", "%u", 1}, {"int", "%d", 4},	 {"unsigned int", "%u", 4},
    {"long", "%ld", 8},	   {"unsigned long", "%lu", 8},	 {"bool", "%d", 1},
    {"pid_t", "%d", 4},	   {"gfp_t", "%x", 4},
};

struct synth_field {
	char type[32], name[64];
	unsigned t; /* synth_types[t] */
};

static int synth_fail(int *code, int c, const char *text, const char *at,
		      struct utrace_error *err)
{
	*code = c;
	utrace_error_set(err, -EINVAL, "%s", synth_err_text[c]);
	err->column = at ? (int)(at - text) + 1 : 0;
	return -EINVAL;
}

/* is_good_name(): [A-Za-z_][A-Za-z0-9_]* */
static bool synth_good_name(const char *s, size_t n)
{
	if (!n || (!isalpha((unsigned char)s[0]) && s[0] != '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

static const char *synth_skip(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

static const char *synth_word(const char *p, const char *end)
{
	while (p < end && !isspace((unsigned char)*p))
		p++;
	return p;
}

/* One "type name" (or "unsigned type name") in [p, end). */
static int synth_field(const char *text, const char *p, const char *end, struct synth_field *f,
		       int *code, struct utrace_error *err)
{
	const char *w[4], *we[4];
	unsigned n = 0;

	for (p = synth_skip(p, end); p < end && n < 4; p = synth_skip(p, end)) {
		w[n] = p;
		p = we[n] = synth_word(p, end);
		n++;
	}
	if (!n)
		return synth_fail(code, UTRACE_SYNTH_ERR_INVALID_CMD, text, p, err);
	if (n >= 3 && we[0] - w[0] == 8 && !strncmp(w[0], "unsigned", 8)) {
		snprintf(f->type, sizeof(f->type), "unsigned %.*s", (int)(we[1] - w[1]), w[1]);
		w[1] = w[2], we[1] = we[2];
		n--;
	} else {
		snprintf(f->type, sizeof(f->type), "%.*s", (int)(we[0] - w[0]), w[0]);
	}
	if (n < 2)
		return synth_fail(code, UTRACE_SYNTH_ERR_INCOMPLETE_TYPE, text, w[0], err);
	if (n > 2 || !synth_good_name(w[1], (size_t)(we[1] - w[1])) || we[1] - w[1] >= 64)
		return synth_fail(code, UTRACE_SYNTH_ERR_INVALID_FIELD, text, w[n > 2 ? 2 : 1], err);
	snprintf(f->name, sizeof(f->name), "%.*s", (int)(we[1] - w[1]), w[1]);
	for (f->t = 0; f->t < sizeof(synth_types) / sizeof(synth_types[0]); f->t++)
		if (!strcmp(synth_types[f->t].type, f->type))
			return 0;
	return synth_fail(code, UTRACE_SYNTH_ERR_INVALID_TYPE, text, w[0], err);
}

/* The format file the kernel would show for the event. */
static char *synth_format(const char *name, int id, const struct synth_field *f, unsigned n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	fprintf(m, "name: %s\nID: %d\nformat:\n", name, id);
	fprintf(m, "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		   "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		   "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		   "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n");
	for (unsigned i = 0; i < n; i++) /* synth_field_signed(): not "u..." nor gfp_t */
		fprintf(m, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", f[i].type,
			f[i].name, 8 + 8 * i, synth_types[f[i].t].size,
			f[i].type[0] != 'u' && strcmp(f[i].type, "gfp_t"));
	fprintf(m, "\nprint fmt: \"");
	for (unsigned i = 0; i < n; i++)
		fprintf(m, "%s=%s%s", f[i].name, synth_types[f[i].t].fmt, i + 1 < n ? " " : "");
	fputc('"', m);
	for (unsigned i = 0; i < n; i++)
		fprintf(m, ", REC->%s", f[i].name);
	fputc('\n', m);
	if (fclose(m) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static int synth_make(const char *name, int id, const struct synth_field *f, unsigned n,
		      struct utrace_synth **out, struct utrace_error *err)
{
	struct utrace_synth *s = calloc(1, sizeof(*s));
	int ret;

	if (!s || !(s->name = strdup(name)) || !(s->format = synth_format(name, id, f, n))) {
		utrace_synth_free(s);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	s->nr_fields = n;
	ret = utrace_event_format_parse("synthetic", s->format, &s->fmt, err);
	if (ret < 0) {
		utrace_synth_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

int utrace_synth_parse(const char *text, int id, struct utrace_synth **out, int *code,
		       struct utrace_error *err)
{
	struct synth_field *f = calloc(UTRACE_SYNTH_FIELDS_MAX, sizeof(*f));
	const char *end = text + strlen(text), *p = synth_skip(text, end), *ne, *q;
	char name[64];
	unsigned n = 0;
	int ret;

	*out = NULL;
	*code = UTRACE_SYNTH_ERR_NONE;
	if (!f)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	ne = synth_word(p, end);
	if (ne == p) {
		ret = synth_fail(code, UTRACE_SYNTH_ERR_INVALID_CMD, text, NULL, err);
		goto out;
	}
	if (!synth_good_name(p, (size_t)(ne - p)) || ne - p >= (int)sizeof(name)) {
		ret = synth_fail(code, UTRACE_SYNTH_ERR_BAD_NAME, text, p, err);
		goto out;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(ne - p), p);
	for (p = ne; synth_skip(p, end) < end; p = q + (q < end)) {
		q = memchr(p, ';', (size_t)(end - p));
		if (!q)
			q = end;
		if (synth_skip(p, q) == q && q == end)
			break; /* a ';' at the end */
		if (n == UTRACE_SYNTH_FIELDS_MAX) {
			ret = synth_fail(code, UTRACE_SYNTH_ERR_TOO_MANY_FIELDS, text, p, err);
			goto out;
		}
		if ((ret = synth_field(text, p, q, &f[n], code, err)) < 0)
			goto out;
		for (unsigned i = 0; i < n; i++)
			if (!strcmp(f[i].name, f[n].name)) {
				ret = synth_fail(code, UTRACE_SYNTH_ERR_INVALID_FIELD, text,
						 strstr(p, f[n].name), err);
				goto out;
			}
		n++;
	}
	if (!n) {
		ret = synth_fail(code, UTRACE_SYNTH_ERR_INVALID_CMD, text, NULL, err);
		goto out;
	}
	ret = synth_make(name, id, f, n, out, err);
out:
	free(f);
	return ret;
}

void utrace_synth_free(struct utrace_synth *s)
{
	if (!s)
		return;
	utrace_event_format_free(s->fmt);
	free(s->format);
	free(s->name);
	free(s);
}
