/* SPDX-License-Identifier: MIT */
/*
 * live_evconf.c - what an event of the live tracefs is set to beyond its
 * switch: events/SYSTEM/EVENT/filter, trigger and hist, with the kernel's
 * rules (kernel/trace/trace_events_filter.c, trace_events_trigger.c):
 *
 *   filter   "none" when empty, else the expression written; `echo 0 >
 *            filter` clears it.  An expression that does not compile
 *            fails the write (EINVAL), leaves the event unfiltered, logs
 *            "event filter parse error" with a caret under the bad token
 *            in error_log, and the file then reads the expression, the
 *            caret and "parse_error: TEXT", as the kernel's does.
 *
 * The expression is compiled here first (lib/events/event_filter.h, on
 * the format the tracefs shows) for the error's text and column; the
 * recording compiles it again for each object's own layout (ops
 * ->event_filter).  The caller holds l->lock.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_filter.h"
#include "lib/events/event_format.h"
#include "lib/live/live_int.h"

struct live_evconf {
	char sys[65], ev[65];
	char *filter; /* what `cat filter` shows (after an error: the error) */
	struct live_evconf *next;
};

static struct live_evconf *evconf(struct utrace_live *l, const struct live_handle *h, bool create)
{
	struct live_evconf *c;

	for (c = l->evconfs; c; c = c->next)
		if (!strcmp(c->sys, h->sys) && !strcmp(c->ev, h->ev))
			return c;
	if (!create || !(c = calloc(1, sizeof(*c))))
		return NULL;
	memcpy(c->sys, h->sys, sizeof(c->sys));
	memcpy(c->ev, h->ev, sizeof(c->ev));
	c->next = l->evconfs;
	l->evconfs = c;
	return c;
}

void live_evconf_free(struct utrace_live *l)
{
	while (l->evconfs) {
		struct live_evconf *c = l->evconfs;

		l->evconfs = c->next;
		free(c->filter);
		free(c);
	}
}

/* The text of a write without the white space around it (strstrip). */
static char *stripped(const char *buf, size_t n)
{
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	while (n && isspace((unsigned char)*buf))
		buf++, n--;
	return strndup(buf, n);
}

int live_show_filter(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	const struct live_evconf *c = evconf(l, h, false);

	fprintf(out, "%s\n", c && c->filter ? c->filter : "none");
	return 0;
}

/* A bad expression: the kernel's append_filter_err. */
static int filter_error(struct utrace_live *l, struct live_evconf *c, char *text, int code,
			unsigned pos)
{
	const char *why = utrace_filter_error_text(code);
	struct utrace_error err = {0};
	size_t n = strlen(text) + strlen(why) + pos + 32;
	char *shown = malloc(n);

	live_errlog_add(l, "event filter parse error", text, why, pos);
	if (shown) /* the caret's width is the column, 1-based but for 0 */
		snprintf(shown, n, "%s\n%*s\nparse_error: %s\n", text, (int)(pos ? pos + 1 : 0), "^",
			 why);
	free(c->filter);
	c->filter = shown;
	free(text);
	/* the kernel leaves the event unfiltered */
	l->ops.event_filter(l->ops.arg, c->sys, c->ev, NULL, &err);
	return -EINVAL;
}

long live_write_filter(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	const struct utrace_event_format *f = live_event_find(l, h->sys, h->ev);
	struct live_evconf *c = evconf(l, h, true);
	struct utrace_error err = {0};
	char *text = stripped(buf, n);
	void *prog = NULL;
	uint32_t len;
	int code = 0, ret;

	if (!f || !c || !text) {
		free(text);
		return f ? -ENOMEM : -ENOENT;
	}
	if (!strcmp(text, "0")) {
		free(text);
		text = NULL;
	} else if (utrace_filter_compile_code(f, text, &prog, &len, &code, &err) < 0) {
		return filter_error(l, c, text, code, err.column > 0 ? (unsigned)err.column - 1 : 0);
	}
	free(prog);
	ret = l->ops.event_filter(l->ops.arg, h->sys, h->ev, text, &err);
	if (ret < 0) {
		live_errlog_add(l, "event filter", text ? text : "0", err.msg, 0);
		free(text);
		return ret;
	}
	free(c->filter);
	c->filter = text;
	return (long)n;
}
