/* SPDX-License-Identifier: MIT */
/*
 * fuzz_event_format.c - the parser of the kernel's tracepoint format text
 * (lib/events/event_format.h), as a trace file's EVENT_FORMAT records and
 * tracefs's events/SYSTEM/EVENT/format files give it.
 *
 * Whatever the text, parsing must give a format or an error with a
 * message.  A format it gives must describe fields inside its record,
 * print as text that parses back to the same fields (what `utrace record`
 * saves is what `utrace report` reads), and take a filter on each of its
 * fields without the compiled program reading outside a record.
 */
#include "common/filter_prog.h"
#include "lib/events/event_filter.h"
#include "lib/events/event_format.h"
#include "tests/fuzz/fuzz.h"

static bool same_fields(const struct utrace_event_format *a, const struct utrace_event_format *b)
{
	if (a->nr_fields != b->nr_fields || a->rec_size != b->rec_size)
		return false;
	for (unsigned i = 0; i < a->nr_fields; i++) {
		const struct utrace_event_field *x = &a->fields[i], *y = &b->fields[i];

		if (strcmp(x->name, y->name) || strcmp(x->type, y->type) ||
		    x->offset != y->offset || x->size != y->size || x->kind != y->kind ||
		    x->is_signed != y->is_signed)
			return false;
	}
	return true;
}

/* "FIELD == 1" or "FIELD ~ \"a*\"" on a record of zeroes of the format's
 * size (at most 64 KiB: larger ones are skipped). */
static void filter_field(const struct utrace_event_format *f, const struct utrace_event_field *fd)
{
	struct utrace_error err;
	uint32_t len, n = f->rec_size;
	void *prog = NULL;
	uint8_t *rec;
	char expr[300];

	if (n > 65536)
		return;
	snprintf(expr, sizeof(expr), "%s %s", fd->base,
		 fd->kind == UTRACE_EF_INT ? "== 1" : "~ \"a*\"");
	if (utrace_filter_compile(f, expr, &prog, &len, &err) < 0 || !prog)
		return;
	rec = calloc(1, n ? n : 1);
	if (!rec || utrace_filter_check(prog, len) < 0)
		abort();
	(void)utrace_filter_run(prog, len, rec, n);
	free(rec);
	free(prog);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct utrace_event_format *f, *g;
	struct utrace_error err = {0};
	char *text = fuzz_str(data, size), *again;

	if (utrace_event_format_parse("fuzz", text, &f, &err) < 0) {
		if (!err.msg[0])
			abort();
		free(text);
		return 0;
	}
	for (unsigned i = 0; i < f->nr_fields; i++) {
		const struct utrace_event_field *fd = &f->fields[i];

		if ((uint64_t)fd->offset + fd->size > f->rec_size ||
		    utrace_event_field_find(f, fd->base) == NULL)
			abort();
		filter_field(f, fd);
	}
	/* a text without ID: is given 0, as `utrace list` does */
	again = utrace_event_format_text(f, utrace_event_format_id(f) < 0 ? 0 : utrace_event_format_id(f));
	if (!again)
		abort();
	if (utrace_event_format_parse("fuzz", again, &g, &err) < 0 || !same_fields(f, g)) {
		fprintf(stderr, "format text does not parse back: %s\n%s", err.msg, again);
		abort();
	}
	utrace_event_format_free(g);
	free(again);
	utrace_event_format_free(f);
	free(text);
	return 0;
}
