/* SPDX-License-Identifier: MIT */
/*
 * eprobe.c - an event probe's definition (lib/probes/eprobe.h): checked in
 * the order and with the carets of the kernel's __trace_eprobe_create
 * (kernel/trace/trace_eprobe.c), its format and its fetch program.
 *
 * Design: an event probe is an in-process probe without a place: it
 * shares struct utrace_inproc_probe (the arguments as uprobe_args.c
 * checks and translates them, the layout and the format of
 * fetch_compile.c), flagged eprobe, so that its record and its fetch
 * program are made by the code every probe's are.  What differs is the
 * kernel's TPARG_FL_TEVENT context: the fetchargs are checked against the
 * attached event's format (struct upr_point's event), $FIELD translated
 * to the field's offset, size and kind, compiled into an LDF from the
 * attached record (common/fetch_prog.h UTRACE_FR_EVENT).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_filter.h"
#include "lib/probes/eprobe.h"
#include "lib/probes/inproc_probe_internal.h"

struct utrace_eprobe {
	struct utrace_inproc_probe *p; /* its ep_* the attached event */
	char sys[UTRACE_UPROBE_NAME_MAX + 1], name[UTRACE_UPROBE_NAME_MAX + 1];
	char **arg_text; /* each argument as written after NAME= */
};

struct ep_parse {
	const char *def;
	char **tok;
	int *col;
	unsigned n;
	int code, column;
	struct utrace_eprobe *ep;
	const struct utrace_event_format *attached;
};

static int ep_err(struct ep_parse *ps, int code, int column)
{
	ps->code = code;
	ps->column = column;
	return -1;
}

bool utrace_eprobe_is(const char *def)
{
	while (*def == ' ' || *def == '\t')
		def++;
	return def[0] == 'e' && (def[1] == ':' || def[1] == ' ' || def[1] == '\t');
}

/* e[:[GRP/][EVENT]] and SYS.EVENT, as traceprobe_parse_event_name. */
static int ep_names(struct ep_parse *ps, utrace_eprobe_event_fn find, void *arg)
{
	struct utrace_inproc_probe *p = ps->ep->p;
	const char *t0 = ps->tok[0];
	int code, errcol;

	if (t0[1] == ':') {
		code = upr_event_name(t0 + 2, ps->col[0] + 2, p->group, p->event, &errcol);
		if (code)
			return ep_err(ps, code, errcol);
	} else if (t0[1]) {
		return ep_err(ps, UTRACE_UPROBE_ERR_BAD_PROBE_TYPE, ps->col[0]);
	}
	/* the attached event: both names, or NO_EVENT_INFO at its start */
	if (upr_event_name(ps->tok[1], 0, ps->ep->sys, ps->ep->name, &errcol) ||
	    !ps->ep->sys[0] || !ps->ep->name[0])
		return ep_err(ps, UTRACE_UPROBE_ERR_NO_EVENT_INFO, ps->col[1]);
	if (!p->event[0])
		snprintf(p->event, sizeof(p->event), "%s", ps->ep->name);
	ps->attached = find ? find(arg, ps->ep->sys, ps->ep->name) : NULL;
	if (!ps->attached)
		return ep_err(ps, UTRACE_UPROBE_ERR_BAD_ATTACH_EVENT, ps->col[1]);
	return 0;
}

/* [if FILTER]: the rest of the definition, checked against the attached
 * event (the kernel's create_event_filter, its error at its column). */
static int ep_filter(struct ep_parse *ps, unsigned at, struct utrace_error *err)
{
	const char *text;
	void *prog = NULL;
	uint32_t len;
	int ret;

	if (at + 1 >= ps->n)
		return ep_err(ps, UTRACE_UPROBE_ERR_NO_EP_FILTER,
			      ps->col[at] + (int)strlen(ps->tok[at]) + 1);
	text = ps->def + ps->col[at + 1] - 1;
	if (!(ps->ep->p->ep_filter = strdup(text)))
		return -ENOMEM;
	ps->ep->p->ep_filter[strcspn(ps->ep->p->ep_filter, "\n")] = 0;
	ret = utrace_filter_compile(ps->attached, ps->ep->p->ep_filter, &prog, &len, err);
	free(prog);
	if (ret < 0 && err) { /* its column in the definition */
		char *at_col = strstr(err->msg, " at column ");
		int column = err->column + ps->col[at + 1] - 1;

		if (at_col)
			snprintf(at_col, sizeof(err->msg) - (size_t)(at_col - err->msg),
				 " at column %d", column);
		err->column = column;
	}
	return ret < 0 ? -EINVAL : 0;
}

static int ep_args(struct ep_parse *ps, unsigned nargs)
{
	struct utrace_inproc_probe *p = ps->ep->p;
	struct upr_point pt = {.in_process = true, .kernel = true, .fprobe = true};
	int ret;

	pt.event = ps->attached;
	ps->ep->arg_text = calloc(nargs + 1, sizeof(char *));
	if (!ps->ep->arg_text)
		return -ENOMEM;
	for (unsigned i = 0; i < nargs; i++) {
		const char *eq = strchr(ps->tok[2 + i], '=');

		if (!(ps->ep->arg_text[i] = strdup(eq ? eq + 1 : ps->tok[2 + i])))
			return -ENOMEM;
	}
	ret = upr_parse_args(&p->u, &pt, ps->tok + 2, ps->col + 2, nargs, &ps->column);
	if (ret > 0)
		return ep_err(ps, ret, ps->column);
	return ret;
}

static int ep_parse(struct ep_parse *ps, utrace_eprobe_event_fn find, void *arg, int id,
		    struct utrace_error *err)
{
	unsigned nargs;
	int ret = upr_split(ps->def, &ps->tok, &ps->col, &ps->n);

	if (ret < 0)
		return ret;
	if (!ps->n || ps->tok[0][0] != 'e')
		return ep_err(ps, UTRACE_UPROBE_ERR_BAD_PROBE_TYPE, 1);
	if (ps->n < 2)
		return ep_err(ps, UTRACE_UPROBE_ERR_NO_EVENT_INFO,
			      ps->col[0] + (int)strlen(ps->tok[0]) + 1);
	if (ep_names(ps, find, arg) < 0)
		return -1;
	for (nargs = 0; 2 + nargs < ps->n && strcmp(ps->tok[2 + nargs], "if"); nargs++)
		;
	if (2 + nargs < ps->n && (ret = ep_filter(ps, 2 + nargs, err)) < 0)
		return ret;
	if ((ret = ep_args(ps, nargs)) != 0)
		return ret;
	if (!(ps->ep->p->ep_sys = strdup(ps->ep->sys)) ||
	    !(ps->ep->p->ep_name = strdup(ps->ep->name)) || !(ps->ep->p->ep_def = strdup(ps->def)))
		return -ENOMEM;
	/* every argument was checked: a format that cannot be made is a bug */
	return ipp_make_format(ps->ep->p, id) < 0 ? -ENOMEM : 0;
}

int utrace_eprobe_parse(const char *def, utrace_eprobe_event_fn find, void *arg, int id,
			struct utrace_eprobe **out, int *code, struct utrace_error *err)
{
	struct ep_parse ps = {.def = def ? def : ""};
	int ret = -ENOMEM;

	*out = NULL;
	if (code)
		*code = UTRACE_UPROBE_ERR_NONE;
	if ((ps.ep = calloc(1, sizeof(*ps.ep))) && (ps.ep->p = calloc(1, sizeof(*ps.ep->p)))) {
		ps.ep->p->eprobe = true;
		snprintf(ps.ep->p->group, sizeof(ps.ep->p->group), "%s",
			 UTRACE_EPROBE_DEFAULT_GROUP);
		ret = ep_parse(&ps, find, arg, id, err);
	}
	if (ret == -1) {
		struct upr_failure f = {.code = ps.code, .column = ps.column, .detail = ""};

		ret = upr_parse_failed(ret, &f, code, err);
	} else if (ret == -ENOMEM) {
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < ps.n; i++)
		free(ps.tok[i]);
	free(ps.tok);
	free(ps.col);
	if (ret < 0)
		utrace_eprobe_free(ps.ep);
	else
		*out = ps.ep;
	return ret < 0 ? ret : 0;
}

void utrace_eprobe_free(struct utrace_eprobe *ep)
{
	if (!ep)
		return;
	for (unsigned i = 0; ep->arg_text && ep->arg_text[i]; i++)
		free(ep->arg_text[i]);
	free(ep->arg_text);
	utrace_inproc_probe_free(ep->p);
	free(ep);
}

struct utrace_inproc_probe *utrace_eprobe_take(struct utrace_eprobe *ep)
{
	struct utrace_inproc_probe *p = ep->p;

	ep->p = NULL;
	utrace_eprobe_free(ep);
	return p;
}

const char *utrace_eprobe_group(const struct utrace_eprobe *ep)
{
	return ep->p->group;
}

const char *utrace_eprobe_event(const struct utrace_eprobe *ep)
{
	return ep->p->event;
}

const char *utrace_eprobe_attached_system(const struct utrace_eprobe *ep)
{
	return ep->sys;
}

const char *utrace_eprobe_attached_event(const struct utrace_eprobe *ep)
{
	return ep->name;
}

const char *utrace_eprobe_filter(const struct utrace_eprobe *ep)
{
	return ep->p->ep_filter;
}

const struct utrace_event_format *utrace_eprobe_format(const struct utrace_eprobe *ep)
{
	return ep->p->fmt;
}

const char *utrace_eprobe_format_text(const struct utrace_eprobe *ep)
{
	return ep->p->format;
}

char *utrace_eprobe_saved_format(const struct utrace_eprobe *ep, int id)
{
	static const char pf[] = "\nprint fmt: \"";
	char *text = utrace_event_format_text(ep->p->fmt, id), *at, *out;
	size_t n;

	if (!text || !(at = strstr(text, pf)))
		return text;
	at += sizeof(pf) - 1;
	n = strlen(text) + strlen(ep->sys) + strlen(ep->name) + 4;
	if ((out = malloc(n)))
		snprintf(out, n, "%.*s(%s.%s)%s", (int)(at - text), text, ep->sys, ep->name, at);
	free(text);
	return out;
}

char *utrace_eprobe_line(const struct utrace_eprobe *ep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	fprintf(m, "e:%s/%s %s.%s", ep->p->group, ep->p->event, ep->sys, ep->name);
	for (unsigned i = 0; i < ep->p->u.nargs; i++)
		fprintf(m, " %s=%s", ep->p->u.args[i].name, ep->arg_text[i]);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int utrace_eprobe_compile(const struct utrace_eprobe *ep, void **prog, uint32_t *len,
			  struct utrace_error *err)
{
	return utrace_inproc_probe_compile(ep->p, NULL, NULL, prog, len, err);
}

static const struct utrace_event_format *ep_this(void *arg, const char *sys, const char *name)
{
	(void)sys;
	(void)name;
	return arg;
}

int utrace_eprobe_compile_on(const char *def, const struct utrace_event_format *attached,
			     void **prog, uint32_t *len, struct utrace_error *err)
{
	struct utrace_eprobe *ep = NULL;
	int ret = utrace_eprobe_parse(def, ep_this, (void *)attached, 0, &ep, NULL, err);

	if (ret >= 0)
		ret = utrace_eprobe_compile(ep, prog, len, err);
	utrace_eprobe_free(ep);
	return ret;
}
