/* SPDX-License-Identifier: MIT */
/*
 * export_chrome.c - Chrome trace-event JSON, one event per line.
 *
 * Design: the JSON Object Format of the Trace Event Format document
 * (traceEvents array, then displayTimeUnit and otherData).  Entries and
 * returns map to "B"/"E" duration events, which the viewers pair per
 * thread like a stack, so events are written in the order they stream
 * by and nothing is kept per call.  An "E" repeats its function's name
 * (when the return knows it): speedscope ends a "B" only on an "E" of
 * the same name.  A return without its entry (filtered
 * out, before the start of an --overwrite recording) cannot be an "E":
 * it becomes a complete "X" event starting duration ns before it.  The
 * viewers sort events by time themselves, so such an event may come
 * later in the file than the ones it overlaps.  Metadata ("M") events
 * name processes (the program's file name) and threads (their comm),
 * deduplicated by sorting the buffers by (pid, tid).
 *
 * Names are escaped for JSON, and bytes that are not UTF-8 replaced, so
 * any symbol table makes a valid document.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/fastout.h"
#include "lib/export/export_chrome.h"
#include "lib/export/export_fields.h"
#include "lib/export/json.h"
#include "lib/export/export_threads.h"
#include "lib/report/report_signal.h"

struct utrace_chrome {
	struct utrace_dat *d;
	FILE *out;
	uint32_t flags;
	int first;			    /* no event written yet (commas go before events) */
	struct utrace_event_fields *fields; /* the events' formats, parsed once */
	int nr_args;			    /* of the event being written */
};

/* ns as microseconds with three decimals */
/* Decimal digits of v at p; the end. */
static char *fmt_u64(char *p, uint64_t v)
{
	/* two digits a division: a dump's numbers are 6 to 16 digits long */
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	char tmp[20], *e = tmp + sizeof(tmp), *q = e;

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		q -= 2;
		memcpy(q, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, pairs + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	memcpy(p, q, (size_t)(e - q));
	return p + (e - q);
}

static char *fmt_i32(char *p, int32_t v)
{
	if (v < 0) {
		*p++ = '-';
		return fmt_u64(p, (uint64_t) - (int64_t)v);
	}
	return fmt_u64(p, (uint64_t)v);
}

/* ns as microseconds with three decimals */
static char *fmt_us(char *p, uint64_t ns)
{
	unsigned r = (unsigned)(ns % 1000);

	p = fmt_u64(p, ns / 1000);
	*p++ = '.';
	*p++ = (char)('0' + r / 100);
	*p++ = (char)('0' + r / 10 % 10);
	*p++ = (char)('0' + r % 10);
	return p;
}

static char *fmt_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* True if s goes into a JSON string as it is (printable ASCII). */
static int json_plain(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f || *s == '"' ||
		    *s == '\\')
			return 0;
	return 1;
}

static void comma(struct utrace_chrome *c)
{
	if (!c->first)
		fputs(",\n", c->out);
	c->first = 0;
}

static int meta(void *arg, enum utrace_export_task kind, int32_t pid, int32_t tid, const char *name)
{
	struct utrace_chrome *c = arg;

	comma(c);
	fprintf(c->out, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":\"",
		pid, tid, kind == UTRACE_EXPORT_PROCESS ? "process_name" : "thread_name");
	utrace_json_string(c->out, name);
	fputs("\"}}", c->out);
	return 0;
}

int utrace_chrome_begin(struct utrace_dat *d, const struct utrace_report_filter *f, FILE *out,
			uint32_t flags, struct utrace_chrome **out_c, struct utrace_error *err)
{
	struct utrace_chrome *c = calloc(1, sizeof(*c));
	int ret;

	*out_c = NULL;
	if (!c)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	c->d = d;
	c->out = out;
	c->flags = flags;
	c->first = 1;
	fputs("{\"traceEvents\":[\n", out);
	ret = utrace_event_fields_new(d, &c->fields, err);
	if (ret == 0)
		ret = utrace_export_tasks(d, f, meta, c, err);
	if (ret < 0) {
		utrace_event_fields_free(c->fields);
		free(c);
		return ret;
	}
	*out_c = c;
	return 0;
}

/* The start of an event: ',' before it, time, phase, pid, tid.  The
 * numbers are formatted by hand: printf would take most of the time of
 * a dump, which has one event per entry and per return. */
static void head(struct utrace_chrome *c, const struct utrace_event *ev, uint64_t ts, char ph)
{
	char buf[128], *p = buf;

	if (!c->first)
		p = fmt_str(p, ",\n");
	c->first = 0;
	p = fmt_us(fmt_str(p, "{\"ts\":"), ts);
	p = fmt_str(p, ",\"ph\":\"");
	*p++ = ph;
	p = fmt_i32(fmt_str(p, "\",\"pid\":"), ev->pid);
	p = fmt_i32(fmt_str(p, ",\"tid\":"), ev->tid);
	utrace_out_write(c->out, buf, (size_t)(p - buf));
}

static void name(struct utrace_chrome *c, const struct utrace_event *ev)
{
	const char *s = utrace_dat_func_name(c->d, ev->image, ev->id);

	utrace_out_puts(c->out, ",\"name\":\"");
	if (json_plain(s))
		utrace_out_puts(c->out, s);
	else
		utrace_json_string(c->out, s);
	utrace_out_putc(c->out, '"');
}

static void complete(struct utrace_chrome *c, const struct utrace_event *ev, uint64_t start)
{
	char buf[64], *p;

	head(c, ev, start, 'X');
	name(c, ev);
	p = fmt_us(fmt_str(buf, ",\"dur\":"), ev->duration);
	*p++ = '}';
	utrace_out_write(c->out, buf, (size_t)(p - buf));
}

/* "system:name" of a static tracepoint, from its format ("name: x\n") */
static void event_name(struct utrace_chrome *c, uint32_t id)
{
	const char *system = NULL;
	const char *fmt = utrace_dat_event_format_by_id(c->d, (int)id, &system);
	const char *name = fmt ? strstr(fmt, "name: ") : NULL;

	if (!name) {
		fprintf(c->out, "event %u", id);
		return;
	}
	name += 6;
	if (system && *system) {
		utrace_json_string(c->out, system);
		fputc(':', c->out);
	}
	utrace_json_string_n(c->out, name, strcspn(name, "\n"));
}

/* One field into "args": integers as numbers, strings as strings. */
static int put_arg(void *arg, const struct utrace_field_value *v)
{
	struct utrace_chrome *c = arg;

	fputs(c->nr_args++ ? ",\"" : ",\"args\":{\"", c->out);
	utrace_json_string_n(c->out, v->name, strlen(v->name));
	fputs("\":", c->out);
	if (v->kind == UTRACE_FV_STR) {
		fputc('"', c->out);
		utrace_json_string_n(c->out, v->s, v->len);
		fputc('"', c->out);
	} else if (v->kind == UTRACE_FV_INT) {
		fprintf(c->out, "%" PRId64, v->i);
	} else {
		fprintf(c->out, "%" PRIu64, v->u);
	}
	return 0;
}

/* A tracepoint or kernel event: an instant with its fields as args. */
static int put_tracepoint(struct utrace_chrome *c, const struct utrace_event *ev,
			  struct utrace_error *err)
{
	head(c, ev, ev->ts, 'i');
	fputs(",\"name\":\"", c->out);
	event_name(c, ev->id);
	fputs("\",\"s\":\"t\"", c->out);
	c->nr_args = 0;
	if (utrace_event_fields_each(c->fields, ev, put_arg, c) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	fputs(c->nr_args ? "}}" : "}", c->out);
	return 0;
}

int utrace_chrome_event(struct utrace_chrome *c, const struct utrace_event *ev,
			struct utrace_error *err)
{
	int all_x = c->flags & UTRACE_CHROME_COMPLETE;

	switch (ev->kind) {
	case UTRACE_EV_ENTRY:
		if (all_x)
			break;
		head(c, ev, ev->ts, 'B');
		name(c, ev);
		putc_unlocked('}', c->out);
		break;
	case UTRACE_EV_EXIT:
		if (all_x || (ev->flags & UTRACE_EVF_NO_ENTRY)) {
			if ((ev->flags & (UTRACE_EVF_NO_DURATION | UTRACE_EVF_NO_ID)) ||
			    ev->id == UTRACE_DAT_NO_ID)
				break;
			complete(c, ev, ev->ts > ev->duration ? ev->ts - ev->duration : 0);
		} else {
			/* The name is optional in the format, but speedscope
			 * pairs an "E" with the "B" on top only if the names
			 * match, and drops the return otherwise. */
			head(c, ev, ev->ts, 'E');
			if (!(ev->flags & UTRACE_EVF_NO_ID) && ev->id != UTRACE_DAT_NO_ID)
				name(c, ev);
			putc_unlocked('}', c->out);
		}
		break;
	case UTRACE_EV_LEAF:
		complete(c, ev, ev->ts);
		break;
	case UTRACE_EV_FUNC:
		head(c, ev, ev->ts, 'i');
		name(c, ev);
		fputs(",\"s\":\"t\"}", c->out);
		break;
	case UTRACE_EV_PRINT:
		head(c, ev, ev->ts, 'i');
		fputs(",\"name\":\"", c->out);
		utrace_json_string_n(c->out, ev->data, ev->data_len);
		fputs("\",\"s\":\"t\"}", c->out);
		break;
	case UTRACE_EV_EVENT:
		return put_tracepoint(c, ev, err);
	case UTRACE_EV_SIGNAL: { /* record --dump-on-crash: an instant, as a marker */
		char text[256];

		utrace_report_signal_text(c->d, ev, text, sizeof(text));
		head(c, ev, ev->ts, 'i');
		fputs(",\"name\":\"signal: ", c->out);
		utrace_json_string_n(c->out, text, strlen(text));
		fputs("\",\"s\":\"t\"}", c->out);
		break;
	}
	case UTRACE_EV_LOST:
		head(c, ev, ev->ts, 'i');
		if (ev->flags & UTRACE_EVF_LOST_UNKNOWN)
			fputs(",\"name\":\"LOST EVENTS\",\"s\":\"t\"}", c->out);
		else
			fprintf(c->out, ",\"name\":\"LOST %" PRIu64 " EVENTS\",\"s\":\"t\"}",
				ev->lost);
		break;
	}
	if (ferror(c->out))
		return utrace_error_set(err, -EIO, "%s: writing the JSON failed",
					utrace_dat_path(c->d));
	return 0;
}

static void other(struct utrace_chrome *c, const char *key, const char *value, int last)
{
	fprintf(c->out, "\"%s\":\"", key);
	utrace_json_string(c->out, value ? value : "");
	fputs(last ? "\"" : "\",", c->out);
}

int utrace_chrome_end(struct utrace_chrome *c, struct utrace_error *err)
{
	uint64_t samples;
	int ret = 0;

	fputs("\n]", c->out);
	if (err && utrace_chrome_samples(c->d, c->out, &samples, err) < 0)
		ret = err->code;
	fputs(",\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{", c->out);
	other(c, "source", "utrace", 0);
	other(c, "file", utrace_dat_path(c->d), 0);
	other(c, "tracer", utrace_dat_meta(c->d, "tracer"), 0);
	other(c, "command", utrace_dat_meta(c->d, "command"), 1);
	fputs("}}\n", c->out);
	if (fflush(c->out) == EOF || ferror(c->out))
		ret = utrace_error_set(err, -EIO, "%s: writing the JSON failed: %s",
				       utrace_dat_path(c->d), strerror(errno));
	utrace_event_fields_free(c->fields);
	free(c);
	return ret;
}
