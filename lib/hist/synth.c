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
 * __get_str(comm); `unsigned long[] stack` is a __data_loc of return
 * addresses.  Fields are split as the kernel's __create_synth_event()
 * splits them: at ';', and within a part word by word, so that the
 * legacy form without ';' ("lat u64 lat pid_t pid") still works.
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
	bool stack;   /* "unsigned long[]": a __data_loc of return addresses */
};

/* The words of one ';'-separated part, as the kernel's argv_split(). */
#define SYNTH_ARGV_MAX (3 * UTRACE_SYNTH_FIELDS_MAX + 1)
struct synth_argv {
	const char *w[SYNTH_ARGV_MAX];
	size_t len[SYNTH_ARGV_MAX];
	unsigned n;
};

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

/* The kernel's synth_field_string_size(): N of "char[N]" (1..256), 0 for
 * "char[]", -1 for a bad array. */
static int synth_string_size(const char *type)
{
	const char *start = strstr(type, "char[") + 5, *end = strchr(type, ']');
	unsigned long n;
	char *e;

	if (!end || end < start || end[1] || end - start > 3)
		return -1;
	if (end == start)
		return 0;
	n = strtoul(start, &e, 0);
	if (e != end || n > SYNTH_STR_LEN_MAX)
		return -1;
	return (int)n;
}

/* Sets f->str, f->stack or f->t from f->type as the kernel's
 * synth_field_size(): <0 a bad array size, 0 an unknown type. */
static int synth_kind(struct synth_field *f)
{
	int n;

	for (f->t = 0; f->t < sizeof(synth_types) / sizeof(synth_types[0]); f->t++)
		if (!strcmp(synth_types[f->t].type, f->type))
			return 1;
	if (strstr(f->type, "char[")) {
		if ((n = synth_string_size(f->type)) < 0)
			return -1;
		f->str = n ? (unsigned)n : SYNTH_DYN;
		return 1;
	}
	f->stack = strstr(f->type, "long[") != NULL;
	return f->stack;
}

/* The kernel's parse_synth_field(): one field from the words w[0..n) of
 * a ';'-separated part ("[unsigned] TYPE NAME[ARRAY]"); *used: the words
 * it took. */
static int synth_field(const char *text, const struct synth_argv *a, unsigned i,
		       struct synth_field *f, unsigned *used, int *code, struct utrace_error *err)
{
	const char *type = a->w[i], *name, *br, *ne;
	size_t tl = a->len[i], nl;
	bool uns = tl == 8 && !strncmp(type, "unsigned", 8);
	int k;

	if (uns && a->n - i < 3)
		return synth_fail(code, UTRACE_SYNTH_ERR_INCOMPLETE_TYPE, text, type, err);
	if (uns)
		type = a->w[i + 1], tl = a->len[i + 1];
	*used = uns ? 3 : 2;
	if (i + *used > a->n)
		return synth_fail(code, UTRACE_SYNTH_ERR_INVALID_FIELD, text, type, err);
	name = a->w[i + *used - 1];
	ne = name + a->len[i + *used - 1];
	br = memchr(name, '[', (size_t)(ne - name));
	nl = (size_t)((br ? br : ne) - name);
	if (!synth_good_name(name, nl) || nl >= sizeof(f->name))
		return synth_fail(code, UTRACE_SYNTH_ERR_BAD_NAME, text, name, err);
	snprintf(f->name, sizeof(f->name), "%.*s", (int)nl, name);
	if ((size_t)snprintf(f->type, sizeof(f->type), "%s%.*s%.*s", uns ? "unsigned " : "",
			     (int)tl, type, br ? (int)(ne - br) : 0, br ? br : "") >= sizeof(f->type))
		return synth_fail(code, UTRACE_SYNTH_ERR_INVALID_TYPE, text, type, err);
	if ((k = synth_kind(f)) < 0 && br)
		return synth_fail(code, UTRACE_SYNTH_ERR_INVALID_ARRAY_SPEC, text, name, err);
	if (k <= 0)
		return synth_fail(code, UTRACE_SYNTH_ERR_INVALID_TYPE, text, type, err);
	return 0;
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

		if (f[i].str == SYNTH_DYN || f[i].stack) /* signed as "__data_loc ..." */
			fprintf(m, "\tfield:__data_loc %s %s;\toffset:%u;\tsize:8;\tsigned:1;\n",
				f[i].type, f[i].name, off);
		else if (f[i].str)
			fprintf(m, "\tfield:char %s[%u];\toffset:%u;\tsize:%u;\tsigned:%d;\n",
				f[i].name, f[i].str, off, f[i].str, sgn);
		else
			fprintf(m, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", f[i].type,
				f[i].name, off, synth_types[f[i].t].size, sgn);
	}
	fprintf(m, "\nprint fmt: \"");
	for (unsigned i = 0; i < n; i++)
		fprintf(m, "%s=%s%s", f[i].name,
			f[i].str || f[i].stack ? "%s" : synth_types[f[i].t].fmt,
			i + 1 < n ? " " : "");
	fputc('"', m);
	for (unsigned i = 0; i < n; i++)
		fprintf(m,
			f[i].stack		 ? ", __get_stacktrace(%s)"
			: f[i].str == SYNTH_DYN ? ", __get_str(%s)"
						: ", REC->%s",
			f[i].name);
	fputc('\n', m);
	if (fclose(m) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* "TYPE NAME; TYPE NAME": the fields as synthetic_events lists them (the
 * kernel's synth_event_show(): an array in the type, "char[16] comm"). */
static char *synth_desc(const struct synth_field *f, unsigned n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	for (unsigned i = 0; i < n; i++)
		fprintf(m, "%s%s %s", i ? "; " : "", f[i].type, f[i].name);
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
	if (!(s->desc = synth_desc(f, n))) {
		utrace_synth_free(s);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	ret = utrace_event_format_parse("synthetic", s->format, &s->fmt, err);
	if (ret < 0) {
		utrace_synth_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

/* Splits [p, end) into a's words; false if there are too many. */
static bool synth_split(const char *p, const char *end, struct synth_argv *a)
{
	a->n = 0;
	for (p = synth_skip(p, end); p < end; p = synth_skip(p, end)) {
		if (a->n == SYNTH_ARGV_MAX)
			return false;
		a->w[a->n] = p;
		p = synth_word(p, end);
		a->len[a->n] = (size_t)(p - a->w[a->n]);
		a->n++;
	}
	return true;
}

/* The kernel's check_command(): the part before the first ';' holds the
 * name and a whole field, at least 3 words. */
static bool synth_command_ok(const char *p, const char *end)
{
	const char *semi = memchr(p, ';', (size_t)(end - p));
	struct synth_argv a;

	return !synth_split(p, semi ? semi : end, &a) || a.n >= 3;
}

/* The fields of [p, end): ';'-separated parts, each of one field or, in
 * the legacy form without ';', of several ("u64 lat pid_t pid"). */
static int synth_fields(const char *text, const char *p, const char *end,
			struct synth_field *f, unsigned *n, int *code, struct utrace_error *err)
{
	struct synth_argv a;
	const char *q;
	unsigned used;
	int ret;

	for (*n = 0; p < end; p = q + (q < end)) {
		if (!(q = memchr(p, ';', (size_t)(end - p))))
			q = end;
		if (!synth_split(p, q, &a))
			return synth_fail(code, UTRACE_SYNTH_ERR_TOO_MANY_FIELDS, text, NULL, err);
		for (unsigned i = 0; i < a.n; i += used) {
			if (*n == UTRACE_SYNTH_FIELDS_MAX)
				return synth_fail(code, UTRACE_SYNTH_ERR_TOO_MANY_FIELDS, text, NULL,
						  err);
			if ((ret = synth_field(text, &a, i, &f[*n], &used, code, err)) < 0)
				return ret;
			for (unsigned k = 0; k < *n; k++)
				if (!strcmp(f[k].name, f[*n].name))
					return synth_fail(code, UTRACE_SYNTH_ERR_INVALID_FIELD, text,
							  a.w[i + used - 1], err);
			(*n)++;
		}
	}
	if (!*n)
		return synth_fail(code, UTRACE_SYNTH_ERR_INVALID_CMD, text, NULL, err);
	return 0;
}

int utrace_synth_parse(const char *text, int id, struct utrace_synth **out, int *code,
		       struct utrace_error *err)
{
	struct synth_field *f = calloc(UTRACE_SYNTH_FIELDS_MAX, sizeof(*f));
	const char *end = text + strlen(text), *p = synth_skip(text, end), *ne;
	char name[64];
	unsigned n = 0;
	int ret;

	*out = NULL;
	*code = UTRACE_SYNTH_ERR_NONE;
	if (!f)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	ne = synth_word(p, end);
	if (ne == p || !synth_command_ok(p, end)) {
		ret = synth_fail(code, UTRACE_SYNTH_ERR_INVALID_CMD, text, NULL, err);
		goto out;
	}
	if (!synth_good_name(p, (size_t)(ne - p)) || ne - p >= (int)sizeof(name)) {
		ret = synth_fail(code, UTRACE_SYNTH_ERR_BAD_NAME, text, p, err);
		goto out;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(ne - p), p);
	ret = synth_fields(text, ne, end, f, &n, code, err);
	if (ret == 0)
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
	free(s->desc);
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
		out->str[k] = f->kind == UTRACE_EF_CHARS	   ? (uint16_t)f->size
			      : f->kind == UTRACE_EF_STRING   ? UTRACE_HIST_SYNTH_DYNSTR
			      : f->kind == UTRACE_EF_DYNARRAY ? UTRACE_HIST_SYNTH_STACK
							      : 0;
		if (out->word[k] + words > out->words)
			out->words = out->word[k] + words;
		k++;
	}
}
