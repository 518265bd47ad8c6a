/* SPDX-License-Identifier: MIT */
/*
 * test_synth.c - synthetic event definitions (lib/hist/synth.c): the
 * format the kernel gives them (fields in u64 slots after the common
 * ones, its print fmt) and its errors with their columns.
 */
#include <errno.h>
#include <string.h>

#include "lib/hist/synth.h"
#include "tests/unit/check.h"

static void test_format(void)
{
	struct utrace_synth *s = NULL;
	struct utrace_error err = {0};
	const struct utrace_event_field *f;
	int code = -1;

	check(utrace_synth_parse("req_lat u64 lat; int id", 7, &s, &code, &err) == 0 && s &&
		  code == 0,
	      "the canonical definition parses: %s", err.msg);
	if (!s)
		return;
	check(!strcmp(s->name, "req_lat") && s->nr_fields == 2 &&
		  !strcmp(s->fmt->system, "synthetic") && !strcmp(s->fmt->name, "req_lat"),
	      "synthetic:req_lat with 2 fields");
	check(s->fmt->nr_fields == 6 && s->fmt->fields[3].common, "the 4 common fields first");
	f = utrace_event_field_find(s->fmt, "lat");
	check(f && f->offset == 8 && f->size == 8 && !f->is_signed, "lat: u64 at 8");
	f = utrace_event_field_find(s->fmt, "id");
	check(f && f->offset == 16 && f->size == 4 && f->is_signed, "id: int at 16, signed");
	check(s->fmt->rec_size == 24 || s->fmt->rec_size == 20, "record of 24 bytes (%u)",
	      s->fmt->rec_size);
	check(strstr(s->format, "ID: 7\n") && strstr(s->format, "print fmt: \"lat=%llu id=%d\", "
							       "REC->lat, REC->id"),
	      "its format text has the ID and the kernel's print fmt");
	utrace_synth_free(s);

	check(utrace_synth_parse("  w unsigned int a;unsigned long b ; s8 c;", 1, &s, &code,
				 &err) == 0 &&
		  s && s->nr_fields == 3,
	      "unsigned types, blanks and a trailing ';'");
	if (s) {
		f = utrace_event_field_find(s->fmt, "c");
		check(f && f->offset == 24 && f->size == 1 && f->is_signed, "s8 c at 24");
		check(strstr(s->format, "\"a=%u b=%lu c=%d\"") != NULL, "their print fmt");
	}
	utrace_synth_free(s);
}

/* The legacy form: fields without ';' between them, as the kernel still
 * takes them; and the listing's "char[16] comm". */
static void test_legacy(void)
{
	struct utrace_synth *s = NULL;
	struct utrace_error err = {0};
	const struct utrace_event_field *f;
	int code = -1;

	check(utrace_synth_parse("wakeup_latency  u64 lat pid_t pid char comm[16]", 1, &s, &code,
				 &err) == 0 &&
		  s && s->nr_fields == 3,
	      "fields without ';' parse: %s", err.msg);
	if (!s)
		return;
	f = utrace_event_field_find(s->fmt, "comm");
	check(f && f->offset == 24 && f->kind == UTRACE_EF_CHARS && f->size == 16,
	      "comm: char[16] after lat and pid");
	check(!strcmp(s->desc, "u64 lat; pid_t pid; char[16] comm"), "listed as the kernel: %s",
	      s->desc);
	utrace_synth_free(s);
	s = NULL;
	check(utrace_synth_parse("w u64 a unsigned int b; char[] c long d", 1, &s, &code, &err) ==
			  0 &&
		  s && s->nr_fields == 4 && !strcmp(s->desc, "u64 a; unsigned int b; char[] c; long d"),
	      "legacy and ';' parts mixed, unsigned types: %s", s ? s->desc : err.msg);
	utrace_synth_free(s);
	s = NULL;
	check(utrace_synth_parse("st pid_t pid; unsigned long[] stack", 1, &s, &code, &err) == 0 &&
		  s && !strcmp(s->desc, "pid_t pid; unsigned long[] stack") &&
		  strstr(s->format, "field:__data_loc unsigned long[] stack;\toffset:16;\tsize:8;") &&
		  strstr(s->format, "__get_stacktrace(stack)"),
	      "a stack field: a __data_loc unsigned long[]: %s", err.msg);
	utrace_synth_free(s);
}

static void test_errors(void)
{
	static const struct {
		const char *text;
		int code, column;
	} bad[] = {
	    {"", UTRACE_SYNTH_ERR_INVALID_CMD, 0},
	    {"1lat u64 lat", UTRACE_SYNTH_ERR_BAD_NAME, 1},
	    {"lat", UTRACE_SYNTH_ERR_INVALID_CMD, 0},
	    {"lat u64", UTRACE_SYNTH_ERR_INVALID_CMD, 0},
	    {"lat u63 x", UTRACE_SYNTH_ERR_INVALID_TYPE, 5},
	    {"lat u64 x; float y", UTRACE_SYNTH_ERR_INVALID_TYPE, 12},
	    {"lat u64 x-y", UTRACE_SYNTH_ERR_BAD_NAME, 9},
	    {"lat u64 x; int x", UTRACE_SYNTH_ERR_INVALID_FIELD, 16},
	    {"lat u64 x y", UTRACE_SYNTH_ERR_INVALID_FIELD, 11},
	    /* the kernel's trigger-synthetic_event_syntax_errors.tc */
	    {"myevent chr arg", UTRACE_SYNTH_ERR_INVALID_TYPE, 9},
	    {"myevent unsigned arg", UTRACE_SYNTH_ERR_INCOMPLETE_TYPE, 9},
	    {"myevent char str]; int v", UTRACE_SYNTH_ERR_BAD_NAME, 14},
	    {"mye-vent char str[]", UTRACE_SYNTH_ERR_BAD_NAME, 1},
	    {"myevent char st-r[]", UTRACE_SYNTH_ERR_BAD_NAME, 14},
	    {"myevent char str;[]", UTRACE_SYNTH_ERR_INVALID_FIELD, 18},
	    {"myevent char str; int", UTRACE_SYNTH_ERR_INVALID_FIELD, 19},
	    {"myevent char str[; int v", UTRACE_SYNTH_ERR_INVALID_ARRAY_SPEC, 14},
	    {"myevent char str[kdjdk]", UTRACE_SYNTH_ERR_INVALID_ARRAY_SPEC, 14},
	    {"myevent char str[257]", UTRACE_SYNTH_ERR_INVALID_ARRAY_SPEC, 14},
	    {"mye;vent char str[]", UTRACE_SYNTH_ERR_INVALID_CMD, 0},
	    {"myevent ; char str[]", UTRACE_SYNTH_ERR_INVALID_CMD, 0},
	    {"myevent; char str[]", UTRACE_SYNTH_ERR_INVALID_CMD, 0},
	    {";myevent char str[]", UTRACE_SYNTH_ERR_INVALID_CMD, 0},
	    {"myevent", UTRACE_SYNTH_ERR_INVALID_CMD, 0},
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct utrace_synth *s = NULL;
		struct utrace_error err = {0};
		int code = 0, ret = utrace_synth_parse(bad[i].text, 1, &s, &code, &err);

		check(ret == -EINVAL && !s && code == bad[i].code && err.column == bad[i].column,
		      "'%s': %s (code %d, column %d)", bad[i].text, err.msg, code, err.column);
	}
}

int main(void)
{
	test_format();
	test_legacy();
	test_errors();
	return check_done();
}
