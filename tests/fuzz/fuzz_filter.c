/* SPDX-License-Identifier: MIT */
/*
 * fuzz_filter.c - the event filter compiler (lib/events/event_filter.h)
 * on arbitrary expressions, against an event with a field of every kind,
 * and the compiled program run on a record (common/filter_prog.h).
 *
 * Input: the expression, then optionally a NUL and the record's bytes
 * (else a fixed record).  Whatever the expression, compiling must give a
 * program or an error with a message and a column; a program the compiler
 * gives must pass utrace_filter_check() and its listing, and running it
 * on any record, even one too short for its fields, must stay in bounds.
 */
#include <errno.h>

#include "common/filter_prog.h"
#include "lib/events/event_filter.h"
#include "lib/events/event_format.h"
#include "tests/fuzz/fuzz.h"

/* The kernel's format text of the event the filters are compiled for. */
static const char format_text[] = FUZZ_SAMPLE_FORMAT;

/* A record of that event: count 7, comm "bash", word "foobar". */
static const uint8_t fixed_rec[] = {
    42, 0, 5, 0, 0xd2, 4, 0, 0,	 7, 0, 0, 0, 0xd4, 0xfe, 200, 0xff, /* ... ch */
    0x10, 0, 0, 0, 0, 0, 0, 0,	 'b', 'a', 's', 'h', 0, 0, 0, 0,    /* len, comm */
    0, 0, 0, 0, 0, 0, 0, 0,	 68, 0, 7, 0, 0, 0, 0, 0,	    /* comm, word, vals */
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,		    /* big */
    1, 0, 0, 0, 2, 0, 0, 0,	 1, 0, 0, 0x80,			    /* arr, flags32 */
    'f', 'o', 'o', 'b', 'a', 'r', 0,				    /* word's data */
};

static struct utrace_event_format *fmt;

static void load_format(void)
{
	struct utrace_error err;

	if (!fmt && utrace_event_format_parse("test", format_text, &fmt, &err) < 0) {
		fprintf(stderr, "fuzz_filter: the built-in format: %s\n", err.msg);
		abort();
	}
}

/* Runs prog on the record's first n bytes, copied to a block of exactly
 * n bytes (ASan then sees a read past its end), for n = the whole record
 * and a few of its prefixes (a field past the end must not be read). */
static void run(const void *prog, uint32_t len, const uint8_t *rec, size_t rec_len)
{
	size_t n = rec_len;

	for (;;) {
		uint8_t *copy = malloc(n ? n : 1);

		if (!copy)
			abort();
		memcpy(copy, rec, n);
		(void)utrace_filter_run(prog, len, copy, (uint32_t)n);
		free(copy);
		if (!n)
			break;
		n = n > 8 ? n - 1 - n / 4 : n - 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct utrace_error err = {0};
	const uint8_t *rec;
	size_t rec_len;
	uint32_t len = 0;
	void *prog = NULL;
	char *expr, buf[256];
	int ret, code = -1;

	load_format();
	expr = fuzz_split(data, size, &rec, &rec_len);
	if (!rec_len) {
		rec = fixed_rec;
		rec_len = sizeof(fixed_rec);
	}
	ret = utrace_filter_compile_code(fmt, expr, &prog, &len, &code, &err);
	if (ret < 0) {
		/* an error names itself and where it is */
		if (!err.msg[0] || code <= UTRACE_FILTER_ERR_NONE || code >= UTRACE_FILTER_ERR_MAX ||
		    (ret == -EINVAL && err.column < 1))
			abort();
	} else if (prog) {
		if (code != UTRACE_FILTER_ERR_NONE || utrace_filter_check(prog, len) < 0 ||
		    utrace_filter_disasm(prog, len, buf, sizeof(buf)) < 0)
			abort();
		run(prog, len, rec, rec_len);
	} else if (len) {
		abort();
	}
	free(prog);
	free(expr);
	return 0;
}
