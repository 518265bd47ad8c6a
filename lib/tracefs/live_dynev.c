/* SPDX-License-Identifier: MIT */
/*
 * live_dynev.c - dynamic_events, kprobe_events, uprobe_events and
 * synthetic_events: the kernel's files for events defined while tracing
 * (trace_dynevent.c, trace_kprobe.c, trace_uprobe.c,
 * trace_events_synth.c), over the recording's in-process probes and
 * synthetic events:
 *
 *   dynamic_events    one definition a line as the kernel lists them
 *                     ("p:GRP/EVENT SYMBOL[+OFFS] NAME=ARG ...", "r:...",
 *                     "f:...", "t:GRP/EVENT TRACEPOINT ...",
 *                     "p:GRP/EVENT PATH:0xOFFSET ...",
 *                     "e:GRP/EVENT SYS.EVENT ...",
 *                     "s:synthetic/NAME\tTYPE FIELD; ...");
 *                     a write runs each line ("-:[GRP/]EVENT" removes,
 *                     "s:" defines a synthetic event, "#" starts a
 *                     comment) and stops at the first that fails; an
 *                     open with O_TRUNC (`>`) removes them all, or none
 *                     (EBUSY) if one is enabled
 *   kprobe_events     the same for the probes on symbols (p, r) alone:
 *                     default group "kprobes"
 *   uprobe_events     the same for the probes at PATH:OFFSET alone:
 *                     default group "uprobes"
 *   synthetic_events  the synthetic events ("NAME\tTYPE FIELD; ..."); a
 *                     write defines one, "!NAME" removes it; O_TRUNC as
 *                     above, for them
 *   events/SYS/EVENT/enable  of a dynamic event defined here: 0 or 1, with
 *                            the soft mode's "*" as any event's
 *
 * One list holds them all, each with its kind; a file is a filter of
 * kinds (dyn_files): what it lists, what its "-:" and `>` remove, and
 * what its other lines define.
 *
 * A definition the recording refuses is a failed write (EINVAL, EEXIST,
 * ENOENT, EBUSY as the kernel) and, for a bad definition, an error_log
 * entry as the kernel's: "trace_kprobe" (or "trace_fprobe", "event_probe",
 * "trace_uprobe", "synthetic_events"), the definition, a caret under the column the
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

#include "lib/base/grow.h"
#include "lib/events/event_format.h"
#include "lib/tracefs/live_internal.h"

/* What a file takes: the kinds it lists and removes, the probe_add
 * file of its p/r lines, whether its lines are synthetic definitions. */
struct dyn_file {
	unsigned kinds;
	enum utrace_live_probe probe;
	bool synth;
};

#define DYN_ALL \
	(LIVE_DYN_KPROBE | LIVE_DYN_FPROBE | LIVE_DYN_UPROBE | LIVE_DYN_SYNTH | LIVE_DYN_EPROBE)
static const struct dyn_file dyn_files[] = {
    [LIVE_DYN_DYNAMIC] = {DYN_ALL, UTRACE_LIVE_DYNAMIC, false},
    [LIVE_DYN_SYNTHETIC] = {LIVE_DYN_SYNTH, UTRACE_LIVE_DYNAMIC, true},
    [LIVE_DYN_KPROBES] = {LIVE_DYN_KPROBE, UTRACE_LIVE_KPROBE, false},
    [LIVE_DYN_UPROBES] = {LIVE_DYN_UPROBE, UTRACE_LIVE_UPROBE, false},
};

/* The kind of a line as dynamic_events lists it: a uprobe's point is
 * its file's absolute path. */
static unsigned dyn_kind(const char *line)
{
	const char *w = line + strcspn(line, " \t");

	w += strspn(w, " \t");
	return line[0] == 's'	? LIVE_DYN_SYNTH
	       : line[0] == 'e' ? LIVE_DYN_EPROBE
	       : line[0] == 'f' || line[0] == 't' ? LIVE_DYN_FPROBE
	       : w[0] == '/'	? LIVE_DYN_UPROBE
				: LIVE_DYN_KPROBE;
}

static void dyn_cb(void *arg, const char *line, const struct utrace_event_format *fmt)
{
	struct utrace_live *l = arg;
	struct live_dyn *d;

	if (UTRACE_GROW(l->dyn, l->cap_dyn, l->ndyn + 1) < 0)
		return;
	d = l->dyn;
	if ((d[l->ndyn].line = strdup(line))) {
		d[l->ndyn].fmt = fmt;
		d[l->ndyn].kind = dyn_kind(line);
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

/* The event (sys, name) of one of kinds (sys NULL: any system). */
static const struct live_dyn *dyn_find(struct utrace_live *l, const char *sys, const char *name,
				       unsigned kinds)
{
	dyn_init(l);
	for (size_t i = 0; i < l->ndyn; i++)
		if ((l->dyn[i].kind & kinds) && (!sys || !strcmp(l->dyn[i].fmt->system, sys)) &&
		    !strcmp(l->dyn[i].fmt->name, name))
			return &l->dyn[i];
	return NULL;
}

/* an instance's events/ shows the top level's dynamic events */
const struct live_dyn *live_dynev_find(struct utrace_live *l, const char *sys, const char *name)
{
	return dyn_find(live_top(l), sys, name, DYN_ALL);
}

/* The i-th event: an event of several points (several lines) once. */
const struct utrace_event_format *live_dynev_format(struct utrace_live *l, size_t i)
{
	l = live_top(l);
	dyn_init(l);
	for (size_t k = 0; k < l->ndyn; k++) {
		bool again = false;

		for (size_t j = 0; j < k && !again; j++)
			again = l->dyn[j].fmt == l->dyn[k].fmt;
		if (!again && !i--)
			return l->dyn[k].fmt;
	}
	return NULL;
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
	ret = l->ops.dynev_remove(l->ops.arg, d->fmt->system, d->fmt->name, d->line, &err);
	if (ret < 0)
		return ret;
	free(l->dyn[i].line);
	memmove(&l->dyn[i], &l->dyn[i + 1], (--l->ndyn - i) * sizeof(l->dyn[0]));
	return 0;
}

/* `>`: every one of kinds, or none if one is enabled. */
static int dyn_remove_all(struct utrace_live *l, unsigned kinds)
{
	int ret = 0;

	dyn_init(l);
	for (size_t i = 0; i < l->ndyn; i++)
		if ((l->dyn[i].kind & kinds) && dyn_enabled(l, &l->dyn[i]))
			return -EBUSY;
	for (size_t i = l->ndyn; i-- > 0 && ret >= 0;)
		if (l->dyn[i].kind & kinds)
			ret = dyn_remove(l, &l->dyn[i]);
	return ret;
}

/* An event probe's attached SYS.EVENT, which a removal may write
 * SYS/EVENT (the kernel's eprobe_dyn_event_match): whether w and head's
 * first word, n bytes, say the same. */
static bool dyn_same_attached(const struct live_dyn *d, const char *w, const char *head, size_t n,
			      bool first)
{
	size_t s = strcspn(w, ".");

	return first && d->kind == LIVE_DYN_EPROBE && s < n && head[s] == '/' &&
	       !strncmp(w, head, s) && !strncmp(w + s + 1, head + s + 1, n - s - 1);
}

/* Whether d's definition begins with the words of head (the kernel's
 * match_command_head: the point, then NAME=ARG one by one; a synthetic
 * event's are not compared, as the kernel's synth_event_match). */
static bool dyn_head_matches(const struct live_dyn *d, const char *head)
{
	const char *w = d->line + strcspn(d->line, " \t");
	size_t n;
	bool first = true;

	head += strspn(head, " \t");
	if (!*head || d->kind == LIVE_DYN_SYNTH)
		return true;
	while (*head) {
		w += strspn(w, " \t");
		n = strcspn(head, " \t");
		if (strcspn(w, " \t") != n ||
		    (strncmp(w, head, n) && !dyn_same_attached(d, w, head, n, first)))
			return false;
		first = false;
		w += n;
		head += n;
		head += strspn(head, " \t");
	}
	return true;
}

/*
 * "[GRP/]EVENT [HEAD]" of "-:" or "!TYPE:" (synthetic_events' "!NAME
 * [FIELDS]": sys "synthetic", the fields ignored as the kernel's
 * synth_event_delete does), of kinds: every event that matches goes, as
 * the kernel's dyn_event_release (an empty EVENT matches the group's all,
 * HEAD the definition's first words); ENOENT if none does, EBUSY if one
 * is enabled (those before it are gone).
 */
static int dyn_remove_named(struct utrace_live *l, const char *what, const char *sys,
			    unsigned kinds)
{
	char name[256], *slash, *ev;
	const char *head = sys ? "" : what + strcspn(what, " \t");
	int ret = -ENOENT;

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(what, " \t"), what);
	ev = name;
	if ((slash = strchr(name, '/'))) {
		*slash = 0;
		sys = name;
		ev = slash + 1;
	}
	if (!sys && !*ev)
		return -EINVAL;
	dyn_init(l);
	for (size_t i = l->ndyn; i-- > 0 && ret != -EBUSY;) {
		const struct live_dyn *d = &l->dyn[i];

		if (!(d->kind & kinds) || (sys && strcmp(d->fmt->system, sys)) ||
		    (*ev && strcmp(d->fmt->name, ev)) || !dyn_head_matches(d, head))
			continue;
		ret = dyn_remove(l, d);
		if (ret < 0 && ret != -EBUSY)
			break;
	}
	return ret;
}

/* Where error_log says a refused definition def of file f comes from. */
static const char *dyn_errloc(const struct dyn_file *f, const char *def)
{
	const char *w = def + strcspn(def, " \t");
	size_t n;

	w += strspn(w, " \t");
	n = strcspn(w, " \t");
	if (f->synth)
		return "synthetic_events";
	if (def[0] == 'f' || def[0] == 't')
		return "trace_fprobe";
	if (def[0] == 'e')
		return "event_probe";
	if (f->probe == UTRACE_LIVE_UPROBE ||
	    (f->probe == UTRACE_LIVE_DYNAMIC && (memchr(w, ':', n) || memchr(w, '/', n))))
		return "trace_uprobe";
	return "trace_kprobe";
}

/* One definition: added, or its error logged. */
static int dyn_add(struct utrace_live *l, const char *def, const struct dyn_file *f)
{
	const struct utrace_event_format *fmt = NULL;
	struct utrace_error err = {0};
	char *line = NULL, *text, *adef = NULL, *point = NULL;
	int ret = 0;

	/* the kernel's address point: the symbol that holds it */
	if (!f->synth && f->probe != UTRACE_LIVE_UPROBE)
		ret = live_kaddr_point(l, def, &adef, &point, &err);
	if (ret >= 0)
		ret = f->synth
			  ? (l->ops.synth_add ? l->ops.synth_add(l->ops.arg, def, &line, &fmt, &err)
					      : -EOPNOTSUPP)
			  : (l->ops.probe_add ? l->ops.probe_add(l->ops.arg, adef ? adef : def,
								 f->probe, &line, &fmt, &err)
					      : -EOPNOTSUPP);
	if (ret >= 0 && point)
		(void)live_kaddr_line(&line, point); /* out of memory: by its symbol */
	free(adef);
	free(point);
	if (ret < 0) {
		/* the parser's "TEXT at column N": the text alone */
		if ((text = strdup(err.msg[0] ? err.msg : strerror(-ret))) &&
		    err.column > 0 && strstr(text, " at column "))
			*strstr(text, " at column ") = 0;
		if (text && ret != -ENOMEM)
			live_errlog_add(l, dyn_errloc(f, def), def, text,
					err.column > 0 ? (unsigned)err.column - 1 : 0);
		free(text);
		return ret;
	}
	if (UTRACE_GROW(l->dyn, l->cap_dyn, l->ndyn + 1) < 0) {
		free(line);
		return -ENOMEM;
	}
	l->dyn[l->ndyn++] = (struct live_dyn){line, fmt, dyn_kind(line)};
	return 0;
}

/* One line of a write to file f. */
static int dyn_command(struct utrace_live *l, char *s, const struct dyn_file *f)
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
	if (f->synth)
		return s[0] == '!' ? dyn_remove_named(l, s + 1, "synthetic", f->kinds)
				   : dyn_add(l, s, f);
	if (s[0] == '-' && s[1] == ':')
		return dyn_remove_named(l, s + 2, NULL, f->kinds);
	/* dynamic_events' "!TYPE:[GRP/]EVENT [HEAD]", its definition as
	 * written, removes it too */
	if (f->probe == UTRACE_LIVE_DYNAMIC && s[0] == '!') {
		char *c = strchr(s, ':');

		return c && c < s + strcspn(s, " \t") ? dyn_remove_named(l, c + 1, NULL, f->kinds)
						      : -EINVAL;
	}
	if (f->probe == UTRACE_LIVE_DYNAMIC && s[0] == 's' && s[1] == ':') {
		/* "s:[synthetic/]NAME FIELDS" */
		s += 2;
		if (!strncmp(s, "synthetic/", 10))
			s += 10;
		return dyn_add(l, s, &dyn_files[LIVE_DYN_SYNTHETIC]);
	}
	/* kprobe_events and uprobe_events take p and r alone, the others
	 * with no error_log entry (the kernel's -ECANCELED) */
	if (f->probe != UTRACE_LIVE_DYNAMIC && s[0] != 'p' && s[0] != 'r')
		return -EINVAL;
	return dyn_add(l, s, f);
}

static const struct dyn_file *dyn_file(const struct live_handle *h)
{
	return &dyn_files[h->f->which];
}

long live_write_dynev(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	char *s = strndup(buf, n), *line, *save = NULL;
	int ret = 0;

	if (!s)
		return -ENOMEM;
	for (line = strtok_r(s, "\n", &save); line && ret >= 0; line = strtok_r(NULL, "\n", &save))
		ret = dyn_command(l, line, dyn_file(h));
	free(s);
	return ret < 0 ? ret : (long)n;
}

int live_show_dynev(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	const struct dyn_file *f = dyn_file(h);

	dyn_init(l);
	for (size_t i = 0; i < l->ndyn; i++) {
		const char *line = l->dyn[i].line;

		if (!(l->dyn[i].kind & f->kinds))
			continue;
		/* synthetic_events: the line without "s:synthetic/" */
		if (f->synth && strchr(line, '/'))
			line = strchr(line, '/') + 1;
		fprintf(out, "%s\n", line);
	}
	return 0;
}

int live_open_dynev(struct utrace_live *l, struct live_handle *h, int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY && (flags & O_TRUNC)
		   ? dyn_remove_all(l, dyn_file(h)->kinds)
		   : 0;
}

/* events/SYS/EVENT/enable of a dynamic event */
static int show_enable(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	int on = l->ops.dynev_enable ? l->ops.dynev_enable(l->ops.arg, h->sys, h->ev, -1) : 0;

	fprintf(out, "%d%s\n", on > 0, live_soft_mark(l, h->sys, h->ev));
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
	l->cap_dyn = 0;
}
