/* SPDX-License-Identifier: MIT */
/*
 * synth.c - a synthetic event definition ("req_lat u64 lat; int id", the
 * kernel's synthetic_events syntax) parsed into the format the kernel
 * gives it (kernel/trace/trace_events_synth.c): the 4 common fields, then
 * one u64 slot per field with the field's own size at its start, and the
 * print fmt "lat=%llu id=%d".  Strings as the kernel's: `char comm[16]`
 * (or `char[16] comm`) takes STR_VAR_LEN_MAX (256) bytes of the record,
 * printed "comm=%s" from REC->comm; `char[] comm` (or `char comm[]`) is a
 * __data_loc word whose bytes follow the fixed fields, printed from
 * __get_str(comm).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist/hist_compile.h"
#include "lib/hist/synth.h"

#define SYNTH_STR_LEN_MAX 256u /* the kernel's STR_VAR_LEN_MAX */
#define SYNTH_DYN 0xffffu

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
	char type[48], name[64];
	unsigned t;   /* synth_types[t], for a number */
	unsigned str; /* 0: a number; N: char[N]; SYNTH_DYN: char[] */
};

/* "char[N]" (N 1..256) or "char[]": the string's kind, else 0. */
static unsigned synth_string(const char *type)
{
	unsigned long n;
	char *end;

	if (strncmp(type, "char[", 5))
		return 0;
	if (!strcmp(type + 5, "]"))
		return SYNTH_DYN;
	n = strtoul(type + 5, &end, 10);
	if (end == type + 5 || strcmp(end, "]") || !n || n > SYNTH_STR_LEN_MAX)
		return 0;
	return (unsigned)n;
}

/* Words the field takes in the record after the common fields. */
static unsigned synth_words(const struct synth_field *f)
{
	return f->str && f->str != SYNTH_DYN ? SYNTH_STR_LEN_MAX / 8 : 1;
}

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
	{
		/* "comm[16]": the array goes to the type, as the kernel's */
		const char *br = memchr(w[1], '[', (size_t)(we[1] - w[1]));

		if (br && strlen(f->type) + (size_t)(we[1] - br) < sizeof(f->type)) {
			snprintf(f->type + strlen(f->type), sizeof(f->type) - strlen(f->type), "%.*s",
				 (int)(we[1] - br), br);
			we[1] = br;
		}
	}
	if (n > 2 || !synth_good_name(w[1], (size_t)(we[1] - w[1])) || we[1] - w[1] >= 64)
		return synth_fail(code, UTRACE_SYNTH_ERR_INVALID_FIELD, text, w[n > 2 ? 2 : 1], err);
	snprintf(f->name, sizeof(f->name), "%.*s", (int)(we[1] - w[1]), w[1]);
	if ((f->str = synth_string(f->type)))
		return 0;
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
	for (unsigned i = 0, off = 8; i < n; off += 8 * synth_words(&f[i]), i++) {
		/* synth_field_signed(): not "u..." nor gfp_t; f_show(): a
		 * char[N]'s array after the name, a __data_loc's type whole */
		int sgn = f[i].type[0] != 'u' && strcmp(f[i].type, "gfp_t");

		if (f[i].str == SYNTH_DYN)
			fprintf(m, "\tfield:__data_loc char[] %s;\toffset:%u;\tsize:8;\tsigned:%d;\n",
				f[i].name, off, sgn);
		else if (f[i].str)
			fprintf(m, "\tfield:char %s[%u];\toffset:%u;\tsize:%u;\tsigned:%d;\n",
				f[i].name, f[i].str, off, f[i].str, sgn);
		else
			fprintf(m, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", f[i].type,
				f[i].name, off, synth_types[f[i].t].size, sgn);
	}
	fprintf(m, "\nprint fmt: \"");
	for (unsigned i = 0; i < n; i++)
		fprintf(m, "%s=%s%s", f[i].name, f[i].str ? "%s" : synth_types[f[i].t].fmt,
			i + 1 < n ? " " : "");
	fputc('"', m);
	for (unsigned i = 0; i < n; i++)
		fprintf(m, f[i].str == SYNTH_DYN ? ", __get_str(%s)" : ", REC->%s", f[i].name);
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

void utrace_synth_info(const struct utrace_synth *s, uint32_t id,
		       struct utrace_hist_synth_info *out)
{
	unsigned k = 0;

	*out = (struct utrace_hist_synth_info){.id = id, .nr_fields = s->nr_fields};
	for (unsigned i = 0; i < s->fmt->nr_fields && k < UTRACE_HIST_PARAMS; i++) {
		const struct utrace_event_field *f = &s->fmt->fields[i];
		unsigned words = f->kind == UTRACE_EF_CHARS ? SYNTH_STR_LEN_MAX / 8 : 1;

		if (f->common)
			continue;
		out->word[k] = (uint16_t)((f->offset - 8) / 8);
		out->str[k] = f->kind == UTRACE_EF_CHARS	 ? (uint16_t)f->size
			      : f->kind == UTRACE_EF_STRING ? UTRACE_HIST_SYNTH_DYNSTR
							    : 0;
		if (out->word[k] + words > out->words)
			out->words = out->word[k] + words;
		k++;
	}
}
