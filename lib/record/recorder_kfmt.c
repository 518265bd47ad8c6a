/* SPDX-License-Identifier: MIT */
/*
 * recorder_kfmt.c - what the kernel said about its events and pages, kept
 * from the start: each enabled event's format by kernel id (and those the
 * --synthetic events get, recorder_khist.c), its trace clock and its
 * sub-buffer size (recorder_kernel.c).  The kernel's triggers, hists and
 * merge read them here; this file calls none of them back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_format.h"
#include "lib/events/ftrace_formats.h"
#include "lib/hist/synth.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_kernel.h"

struct rec_kfmts {
	struct rec_kfmt *kfmts;
	bool ktsc;	  /* the kernel's trace_clock is x86-tsc */
	uint32_t ksubbuf; /* the kernel's sub-buffer size */
	int print_id;	  /* trace_marker's (rec_kprint_format), -1: none */
};

int rec_kfmt_new(struct utrace_recorder *r)
{
	r->kf = calloc(1, sizeof(*r->kf));
	if (r->kf)
		r->kf->print_id = -1;
	return r->kf ? 0 : -ENOMEM;
}

int rec_kfmt_add(struct utrace_recorder *r, int id, int synth, struct utrace_event_format *fmt,
		 struct utrace_error *err)
{
	struct rec_kfmt *k = calloc(1, sizeof(*k)), **tail = &r->kf->kfmts;

	if (!k) {
		utrace_event_format_free(fmt);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	*k = (struct rec_kfmt){id, synth, fmt, NULL};
	while (*tail)
		tail = &(*tail)->next;
	/* whole before it is linked: the tracefs's threads walk the list
	 * without the recorder (lib/record/recorder_livekev.c) */
	__atomic_store_n(tail, k, __ATOMIC_RELEASE);
	return 0;
}

const struct rec_kfmt *rec_kfmt_find(const struct utrace_recorder *r, const char *sys,
				     const char *name)
{
	for (const struct rec_kfmt *k = r->kf->kfmts; k; k = k->next)
		if (!strcmp(k->fmt->system, sys) && !strcmp(k->fmt->name, name))
			return k;
	return NULL;
}

/* A kernel event the live tracefs shows: a kernel format of a kernel -e
 * (not a synthetic event's, not the kernel's internal ftrace entries). */
bool rec_kfmt_is_shown(const struct utrace_recorder *r, const struct rec_kfmt *k)
{
	return r->o.live && r->km && k->synth == -1 && k->id < UTRACE_EV_ID_BASE &&
	       strcmp(k->fmt->system, "ftrace");
}

const struct rec_kfmt *rec_kfmt_shown(const struct utrace_recorder *r, const char *sys,
				      const char *name)
{
	for (const struct rec_kfmt *k = r->kf->kfmts; k; k = k->next)
		if (rec_kfmt_is_shown(r, k) && !strcmp(k->fmt->system, sys) &&
		    !strcmp(k->fmt->name, name))
			return k;
	return NULL;
}

const struct rec_kfmt *rec_kfmt_first(const struct utrace_recorder *r)
{
	return r->kf->kfmts;
}

void rec_kheader_set(struct utrace_recorder *r, bool tsc, uint32_t subbuf)
{
	r->kf->ktsc = tsc;
	r->kf->ksubbuf = subbuf;
}

bool rec_ktsc(const struct utrace_recorder *r)
{
	return r->kf->ktsc;
}

uint32_t rec_ksubbuf(const struct utrace_recorder *r)
{
	return r->kf->ksubbuf;
}

void rec_kfmt_free(struct utrace_recorder *r)
{
	if (!r->kf)
		return;
	while (r->kf->kfmts) {
		struct rec_kfmt *k = r->kf->kfmts;

		r->kf->kfmts = k->next;
		utrace_event_format_free(k->fmt);
		free(k);
	}
	free(r->kf);
	r->kf = NULL;
}

int rec_ksynth_format(struct utrace_recorder *r, unsigned n, int id, struct utrace_error *err)
{
	const struct utrace_synth *s = r->o.synths[n];
	struct utrace_dat_event_format ef = {.id = (uint32_t)id};
	struct utrace_event_format *fmt = NULL;
	char *text;
	int ret;

	if (!(text = utrace_event_format_text(s->fmt, id)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	ret = utrace_event_format_parse("synthetic", text, &fmt, err);
	if (ret >= 0) {
		struct iovec iov[3] = {{&ef, sizeof(ef)},
				       {(void *)"synthetic", sizeof("synthetic")},
				       {text, strlen(text) + 1}};

		ret = utrace_dat_write(r->w, UTRACE_DAT_EVENT_FORMAT, iov, 3, err);
	}
	free(text);
	return ret < 0 ? ret : rec_kfmt_add(r, id, (int)n, fmt, err);
}

/* trace_marker's event (ftrace:print, the kernel's format) with kernel id
 * id, for the marker writes of a live recording whose merge runs
 * (recorder_kmarker.c): its format written with that id, as the
 * kernel's, so the reader knows its records. */
int rec_kprint_format(struct utrace_recorder *r, int id, struct utrace_error *err)
{
	const struct utrace_ftrace_format *ff = utrace_ftrace_format_find("print");
	struct utrace_dat_event_format ef = {.id = (uint32_t)id};
	struct utrace_event_format *base = NULL, *fmt = NULL;
	char *text = NULL;
	int ret;

	if (!ff)
		return utrace_error_set(err, -ENOENT, "no format of ftrace:print");
	if ((ret = utrace_event_format_parse("ftrace", ff->text, &base, err)) < 0)
		return ret;
	text = utrace_event_format_text(base, id);
	utrace_event_format_free(base);
	if (!text)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	ret = utrace_event_format_parse("ftrace", text, &fmt, err);
	if (ret >= 0) {
		struct iovec iov[3] = {{&ef, sizeof(ef)},
				       {(void *)"ftrace", sizeof("ftrace")},
				       {text, strlen(text) + 1}};

		ret = utrace_dat_write(r->w, UTRACE_DAT_EVENT_FORMAT, iov, 3, err);
	}
	free(text);
	if (ret < 0) {
		utrace_event_format_free(fmt);
		return ret;
	}
	if ((ret = rec_kfmt_add(r, id, -1, fmt, err)) >= 0)
		r->kf->print_id = id;
	return ret;
}

int rec_kmerge_print_id(const struct utrace_recorder *r)
{
	return r->km ? r->kf->print_id : -1;
}
