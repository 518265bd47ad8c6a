/* SPDX-License-Identifier: MIT */
/*
 * live_dynev.c - dynamic_events and synthetic_events: the kernel's files
 * for events defined while tracing (trace_dynevent.c, trace_kprobe.c,
 * trace_events_synth.c), over the recording's in-process probes and
 * synthetic events:
 *
 *   dynamic_events    one definition a line as the kernel lists them
 *                     ("p:GRP/EVENT SYMBOL+OFFS NAME=ARG ...", "r:...",
 *                     "f:...", "s:synthetic/NAME\tTYPE FIELD; ...");
 *                     a write runs each line ("-:[GRP/]EVENT" removes,
 *                     "s:" defines a synthetic event, "#" starts a
 *                     comment) and stops at the first that fails; an
 *                     open with O_TRUNC (`>`) removes them all, or none
 *                     (EBUSY) if one is enabled
 *   synthetic_events  the synthetic events ("NAME\tTYPE FIELD; ..."); a
 *                     write defines one, "!NAME" removes it; O_TRUNC as
 *                     above, for them
 *   events/SYS/EVENT/enable  of a dynamic event defined here: 0 or 1
 *
 * A definition the recording refuses is a failed write (EINVAL, EEXIST,
 * ENOENT, EBUSY as the kernel) and, for a bad definition, an error_log
 * entry as the kernel's: "trace_kprobe" (or "trace_fprobe",
 * "synthetic_events"), the definition, a caret under the column the
 * parser names.  An event added starts disabled, as the kernel's; its
 * format and id are under events/ (live_events.c lists the formats of
 * live_dynev_format after the objects' events).
 *
 * The caller holds l->lock.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_format.h"
#include "lib/live/live_int.h"

static void dyn_cb(void *arg, const char *line, const struct utrace_event_format *fmt)
{
	struct utrace_live *l = arg;
	struct live_dyn *d = realloc(l->dyn, (l->ndyn + 1) * sizeof(*d));

	if (!d)
		return;
	l->dyn = d;
	if ((d[l->ndyn].line = strdup(line))) {
		d[l->ndyn].fmt = fmt;
		d[l->ndyn].synth = !strncmp(line, "s:", 2);
		l->ndyn++;
	}
}

/* The probes of the command line, once. */
static void dyn_init(struct utrace_live *l)
{
	if (l->dyn_init)
		return;
	l->dyn_init = true;
	if (l->ops.dynev_initial)
		l->ops.dynev_initial(l->ops.arg, dyn_cb, l);
}

const struct live_dyn *live_dynev_find(struct utrace_live *l, const char *sys, const char *name)
{
	dyn_init(l);
	for (size_t i = 0; i < l->ndyn; i++)
		if ((!sys || !strcmp(l->dyn[i].fmt->system, sys)) &&
		    !strcmp(l->dyn[i].fmt->name, name))
			return &l->dyn[i];
	return NULL;
}

const struct utrace_event_format *live_dynev_format(struct utrace_live *l, size_t i)
{
	dyn_init(l);
	return i < l->ndyn ? l->dyn[i].fmt : NULL;
}

bool live_dynev_has_enable(struct utrace_live *l, const char *sys, const char *name)
{
	/* those of the command line are recorded as -e said */
	return live_dynev_find(l, sys, name) && l->ops.dynev_enable &&
	       l->ops.dynev_enable(l->ops.arg, sys, name, -1) >= 0;
}

static bool dyn_enabled(struct utrace_live *l, const struct live_dyn *d)
{
	return l->ops.dynev_enable &&
	       l->ops.dynev_enable(l->ops.arg, d->fmt->system, d->fmt->name, -1) > 0;
}

static int dyn_remove(struct utrace_live *l, const struct live_dyn *d)
{
	struct utrace_error err = {0};
	size_t i = (size_t)(d - l->dyn);
	int ret;

	if (dyn_enabled(l, d))
		return -EBUSY;
	if (!l->ops.dynev_remove)
		return -EOPNOTSUPP;
	ret = l->ops.dynev_remove(l->ops.arg, d->fmt->system, d->fmt->name, &err);
	if (ret < 0)
		return ret;
	free(l->dyn[i].line);
	memmove(&l->dyn[i], &l->dyn[i + 1], (--l->ndyn - i) * sizeof(l->dyn[0]));
	return 0;
}

/* `>`: every one (synth: the synthetic events only), or none if one is
 * enabled. */
static int dyn_remove_all(struct utrace_live *l, bool synth_only)
{
	int ret = 0;

	dyn_init(l);
	for (size_t i = 0; i < l->ndyn; i++)
		if ((!synth_only || l->dyn[i].synth) && dyn_enabled(l, &l->dyn[i]))
			return -EBUSY;
	for (size_t i = l->ndyn; i-- > 0 && ret >= 0;)
		if (!synth_only || l->dyn[i].synth)
			ret = dyn_remove(l, &l->dyn[i]);
	return ret;
}

/* "-:[GRP/]EVENT" (or "!NAME" of synthetic_events, sys "synthetic"). */
static int dyn_remove_named(struct utrace_live *l, const char *what, const char *sys)
{
	char name[256], *slash;
	const struct live_dyn *d;

	snprintf(name, sizeof(name), "%s", what);
	name[strcspn(name, " \t")] = 0;
	if ((slash = strchr(name, '/'))) {
		*slash = 0;
		sys = name;
	}
	d = live_dynev_find(l, sys, slash ? slash + 1 : name);
	return d ? dyn_remove(l, d) : -ENOENT;
}

/* One definition: added, or its error logged. */
static int dyn_add(struct utrace_live *l, const char *def, bool synth)
{
	const struct utrace_event_format *fmt = NULL;
	struct utrace_error err = {0};
	struct live_dyn *d;
	char *line = NULL, *text;
	int ret;

	ret = synth ? (l->ops.synth_add ? l->ops.synth_add(l->ops.arg, def, &line, &fmt, &err)
					: -EOPNOTSUPP)
		    : (l->ops.probe_add ? l->ops.probe_add(l->ops.arg, def, &line, &fmt, &err)
					: -EOPNOTSUPP);
	if (ret < 0) {
		/* the parser's "TEXT at column N": the text alone */
		if ((text = strdup(err.msg[0] ? err.msg : strerror(-ret))) &&
		    err.column > 0 && strstr(text, " at column "))
			*strstr(text, " at column ") = 0;
		if (text && ret != -ENOMEM)
			live_errlog_add(l, synth ? "synthetic_events"
					: def[0] == 'f' ? "trace_fprobe" : "trace_kprobe",
					def, text, err.column > 0 ? (unsigned)err.column - 1 : 0);
		free(text);
		return ret;
	}
	if (!(d = realloc(l->dyn, (l->ndyn + 1) * sizeof(*d)))) {
		free(line);
		return -ENOMEM;
	}
	l->dyn = d;
	d[l->ndyn++] = (struct live_dyn){line, fmt, synth};
	return 0;
}

/* One line of a write. */
static int dyn_command(struct utrace_live *l, char *s, bool synth_file)
{
	char *e;

	s[strcspn(s, "#")] = 0; /* a comment */
	for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
		;
	*e = 0;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return 0;
	dyn_init(l);
	if (synth_file)
		return s[0] == '!' ? dyn_remove_named(l, s + 1, "synthetic") : dyn_add(l, s, true);
	if (s[0] == '-' && s[1] == ':')
		return dyn_remove_named(l, s + 2, NULL);
	if (s[0] == 's' && s[1] == ':') {
		/* "s:[synthetic/]NAME FIELDS" */
		s += 2;
		if (!strncmp(s, "synthetic/", 10))
			s += 10;
		return dyn_add(l, s, true);
	}
	return dyn_add(l, s, false);
}

static long dyn_write(struct utrace_live *l, const char *buf, size_t n, bool synth_file)
{
	char *s = strndup(buf, n), *line, *save = NULL;
	int ret = 0;

	if (!s)
		return -ENOMEM;
	for (line = strtok_r(s, "\n", &save); line && ret >= 0; line = strtok_r(NULL, "\n", &save))
		ret = dyn_command(l, line, synth_file);
	free(s);
	return ret < 0 ? ret : (long)n;
}

static int dyn_show(struct utrace_live *l, FILE *out, bool synth_file)
{
	dyn_init(l);
	for (size_t i = 0; i < l->ndyn; i++) {
		const char *line = l->dyn[i].line;

		if (synth_file && !l->dyn[i].synth)
			continue;
		/* synthetic_events: the line without "s:synthetic/" */
		if (synth_file && strchr(line, '/'))
			line = strchr(line, '/') + 1;
		fprintf(out, "%s\n", line);
	}
	return 0;
}

int live_show_dynev(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	return dyn_show(l, out, false);
}

int live_open_dynev(struct utrace_live *l, struct live_handle *h, int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY && (flags & O_TRUNC) ? dyn_remove_all(l, false) : 0;
}

long live_write_dynev(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	return dyn_write(l, buf, n, false);
}

int live_show_synth(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	return dyn_show(l, out, true);
}

int live_open_synth(struct utrace_live *l, struct live_handle *h, int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY && (flags & O_TRUNC) ? dyn_remove_all(l, true) : 0;
}

long live_write_synth(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	return dyn_write(l, buf, n, true);
}

/* events/SYS/EVENT/enable of a dynamic event */
static int show_enable(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	int on = l->ops.dynev_enable ? l->ops.dynev_enable(l->ops.arg, h->sys, h->ev, -1) : 0;

	fprintf(out, "%d\n", on > 0);
	return 0;
}

static long write_enable(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	size_t len = n;
	int ret;

	while (len && isspace((unsigned char)buf[len - 1]))
		len--;
	if (len != 1 || (buf[0] != '0' && buf[0] != '1'))
		return -EINVAL;
	if (!l->ops.dynev_enable)
		return -EOPNOTSUPP;
	ret = l->ops.dynev_enable(l->ops.arg, h->sys, h->ev, buf[0] - '0');
	return ret < 0 ? ret : (long)n;
}

const struct live_file live_dynev_enable = {"enable", 0644, show_enable, NULL, write_enable,
					    NULL, 0, false};

void live_dynev_free(struct utrace_live *l)
{
	for (size_t i = 0; i < l->ndyn; i++)
		free(l->dyn[i].line);
	free(l->dyn);
	l->dyn = NULL;
	l->ndyn = 0;
}
