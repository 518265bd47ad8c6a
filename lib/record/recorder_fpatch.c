/* SPDX-License-Identifier: MIT */
/*
 * recorder_fpatch.c - the recorder's side of function-entry patching
 * (common/proto.h FPATCH_ASK ... FPATCH): for an object without compiler
 * sites that the recording traces (the program itself, or a library a
 * ":mod:" filter names, as with compiler sites), the plan of
 * lib/probes/func_patch.c, made once per file and kept for every process
 * that loads it; each entry's displaced instructions relocated for the
 * slot the runtime mapped.  The first time a file is planned, a notice
 * says how many entries were patched (how many of them with int3) and
 * why the others were not, and, for the object of a runtime that reads
 * return addresses (Go, the JVM, V8: lib/probes/func_patch_deny.c), that
 * function_graph traces its functions' entries only.
 *
 * A plan of a big object takes seconds (cc1: 40k functions, millions of
 * branches), and gcc runs cc1, as and collect2 as processes of their own:
 * so a plan is kept by the file's build id (its path when it has none),
 * which every process of the recording that maps the same binary finds,
 * whatever path it has it by.  And unless the recording may change its
 * filter later (--tracefs), only the functions the filter selects are
 * planned (utrace_fpatch_plan_only): the others would never be patched.
 * Where the filter names files (":mod:"), the selection depends on the
 * file's name, which the key then holds too.
 *
 * The recording's own kernel uprobes (--probe, -e usdt:) are left out of
 * the plan by their file and offset (utrace_fpatch_plan_uprobe): the
 * entry patch would overwrite the int3 the kernel puts there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/glob.h"
#include "lib/elf/elf.h"
#include "lib/events/ftrace_filter.h"
#include "lib/probes/func_patch.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_fpatch.h"

#define FP_ID_MAX 64

_Static_assert(UTRACE_FPATCH_CODE <= UTRACE_FPATCH_ORIG, "an entry's displaced bytes are sent whole");

/* The plans, one per file, and how many were made and reused (for
 * utrace_recorder_finish's stats). */
struct rec_fpatch {
	struct rec_fplan *fplans;
	uint32_t fp_plans, fp_reused; /* plans made, and asks a plan made already answered */
};

/* A connection's FPATCH_AREA due after its FPATCH_ASK: the plan, for
 * object obj loaded at bias. */
struct rec_fpatch_due {
	struct rec_fplan *plan;
	uint32_t obj;
	uint64_t bias;
};

struct rec_fplan {
	char *path;
	uint8_t id[FP_ID_MAX]; /* build id */
	int idlen;	       /* 0: none, the path is the key */
	bool only;	       /* only the filter's functions were planned */
	struct utrace_fpatch_plan plan;
	uint32_t *ok; /* indices of the entries to patch */
	uint32_t nok;
	struct rec_fplan *next;
};

/* Whether the recording traces the object at path (main: the program). */
static bool rec_fpatch_wanted(const struct utrace_recorder *r, const char *path, bool main)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = r->o.filter ? utrace_func_filter_total(r->o.filter) : 0;

	if (main)
		return true;
	for (size_t i = 0; i < n; i++) {
		enum utrace_filter_list which;
		bool neg;
		const char *e = utrace_func_filter_expr(r->o.filter, i, &which, &neg);
		const char *mod = e ? strstr(e, ":mod:") : NULL;

		if (mod && !neg && utrace_glob_match(mod + 5, base))
			return true;
	}
	return false;
}

/* "PATH: N of M functions patched at their entry; K left out: ...; L more
 * not selected by the filter, not planned" (M: those selected) */
static void rec_fpatch_say(struct utrace_recorder *r, struct rec_conn *c, const struct rec_fplan *p)
{
	size_t found = p->plan.n - p->plan.count[UTRACE_FPATCH_PART];
	size_t sel = found - p->plan.count[UTRACE_FPATCH_UNSELECTED];
	char text[2048];
	int len;

	if (!r->o.notice)
		return;
	len = snprintf(text, sizeof(text),
		       "%s has no call sites: %u of %zu functions patched at their entry", p->path,
		       p->nok, sel);
	if (p->plan.nint3)
		len += snprintf(text + len, sizeof(text) - (size_t)len,
				" (%zu with int3, where a jmp is not safe)", p->plan.nint3);
	if (p->nok < sel)
		len += snprintf(text + len, sizeof(text) - (size_t)len,
				"; %zu left out (utrace list -f --why):", sel - p->nok);
	for (unsigned w = 1; w < UTRACE_FPATCH_NWHY && len < (int)sizeof(text); w++)
		if (p->plan.count[w] && w != UTRACE_FPATCH_PART && w != UTRACE_FPATCH_UNSELECTED)
			len += snprintf(text + len, sizeof(text) - (size_t)len, " %zu %s,",
					p->plan.count[w], utrace_fpatch_why_text(w));
	if (len > 0 && len < (int)sizeof(text) && text[len - 1] == ',')
		text[--len] = 0;
	if (found > sel && len < (int)sizeof(text))
		snprintf(text + len, sizeof(text) - (size_t)len,
			 "; %zu more not selected by the filter, not planned", found - sel);
	r->o.notice(r->o.notice_arg, c->pid, text);
	if (p->nok && p->plan.runtime && r->o.tracer == UTRACE_TRACER_FUNCTION_GRAPH) {
		snprintf(text, sizeof(text),
			 "%.1800s: %s reads the return addresses on its stack: function_graph "
			 "traces its functions' entries only (no return, no duration)",
			 p->path, utrace_fpatch_runtime_text(p->plan.runtime));
		r->o.notice(r->o.notice_arg, c->pid, text);
	}
}

struct fp_select {
	const struct utrace_recorder *r;
	const char *path;
};

/* What a SELECT would give the function: patched only if it is traced. */
static bool rec_fpatch_select(void *arg, const char *name, const char *raw)
{
	const struct fp_select *s = arg;

	return utrace_func_filter_select(s->r->o.filter, name, raw, s->path) & UTRACE_SITE_TRACE;
}

static const char *fp_base(const char *path)
{
	return strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
}

/* Whether the filter selects by the file's name (":mod:"). */
static bool fp_by_name(const struct utrace_recorder *r)
{
	size_t n = utrace_func_filter_total(r->o.filter);

	for (size_t i = 0; i < n; i++) {
		enum utrace_filter_list which;
		bool neg;
		const char *e = utrace_func_filter_expr(r->o.filter, i, &which, &neg);

		if (e && strstr(e, ":mod:"))
			return true;
	}
	return false;
}

/* The plan kept for the file whose build id is id (idlen 0: at path). */
static struct rec_fplan *rec_fplan_find(struct utrace_recorder *r, const char *path,
					const uint8_t *id, int idlen, bool only)
{
	for (struct rec_fplan *p = r->fp->fplans; p; p = p->next) {
		if (idlen > 0 ? p->idlen != idlen || memcmp(p->id, id, (size_t)idlen)
			      : p->idlen || strcmp(p->path, path))
			continue;
		if (!only || !fp_by_name(r) || !strcmp(fp_base(p->path), fp_base(path)))
			return p;
	}
	return NULL;
}

/* The plan of path, made now if it is new (NULL: out of memory, or the
 * file cannot be read: then a notice says why). */
static struct rec_fplan *rec_fplan_get(struct utrace_recorder *r, struct rec_conn *c,
				       const char *path)
{
	struct fp_select sel = {r, path};
	struct utrace_error e = {0};
	struct utrace_elf *elf;
	uint8_t id[FP_ID_MAX];
	int idlen = 0;
	/* a live filter may select any function later */
	bool only = r->o.filter && utrace_func_filter_total(r->o.filter) && !r->o.live;
	struct rec_fplan *p;

	if (utrace_elf_open(path, &elf) == 0) {
		idlen = utrace_elf_build_id(elf, id, sizeof(id));
		utrace_elf_close(elf);
	}
	if ((p = rec_fplan_find(r, path, id, idlen, only))) {
		r->fp->fp_reused++;
		return p;
	}
	if (!(p = calloc(1, sizeof(*p))) || !(p->path = strdup(path))) {
		free(p);
		return NULL;
	}
	p->idlen = idlen > 0 ? idlen : 0;
	memcpy(p->id, id, (size_t)p->idlen);
	p->only = only;
	r->fp->fp_plans++;
	if (utrace_fpatch_plan_only(path, only ? rec_fpatch_select : NULL, &sel, &p->plan, &e) < 0) {
		if (r->o.notice)
			r->o.notice(r->o.notice_arg, c->pid, e.msg);
	} else if ((p->ok = calloc(p->plan.n + 1, sizeof(*p->ok)))) {
		for (unsigned i = 0; i < r->o.nr_kuprobes; i++)
			utrace_fpatch_plan_uprobe(&p->plan, path, r->o.kuprobes[i]);
		for (uint32_t i = 0; i < p->plan.n; i++)
			if (p->plan.f[i].why == UTRACE_FPATCH_OK)
				p->ok[p->nok++] = i;
		rec_fpatch_say(r, c, p);
	}
	p->next = r->fp->fplans;
	r->fp->fplans = p;
	return p;
}

/* The program asked for a library the runtime itself runs on. */
static void rec_fpatch_refuse_runtime(struct utrace_recorder *r, struct rec_conn *c,
				      const char *path)
{
	char text[4400];

	if (!r->o.notice)
		return;
	snprintf(text, sizeof(text),
		 "%.4000s has no call sites, and utrace's runtime itself runs on it (libc, the "
		 "dynamic loader, the unwinder): its entries are not patched",
		 path);
	r->o.notice(r->o.notice_arg, c->pid, text);
}

unsigned rec_fpatch_site_flags(const struct utrace_recorder *r, const char *path)
{
	for (const struct rec_fplan *p = r->fp->fplans; p; p = p->next)
		if (!strcmp(p->path, path))
			return p->plan.runtime ? UTRACE_SITE_ENTRY_ONLY : 0;
	return 0;
}

bool rec_fpatch_entry_only_any(const struct utrace_recorder *r)
{
	for (const struct rec_fplan *p = r->fp->fplans; p; p = p->next)
		if (p->plan.runtime && p->nok)
			return true;
	return false;
}

int rec_fpatch_ask(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n)
{
	const struct utrace_msg_fpatch_ask *m = buf;
	struct utrace_msg_fpatch_plan pm = {{sizeof(pm), UTRACE_MSG_FPATCH_PLAN}, 0, 0};
	char path[4096];
	struct rec_fplan *p = NULL;

	if (n < sizeof(*m) + 1 || n - sizeof(*m) >= sizeof(path))
		return -EPROTO;
	memcpy(path, m->path, n - sizeof(*m));
	path[n - sizeof(*m)] = 0;
	pm.obj = m->obj;
	if (r->o.tracer != UTRACE_TRACER_NOP &&
	    rec_fpatch_wanted(r, path, m->flags & UTRACE_OBJ_MAIN)) {
		if (!(m->flags & UTRACE_FPATCH_ASK_RUNTIME))
			p = rec_fplan_get(r, c, path);
		else
			rec_fpatch_refuse_runtime(r, c, path);
	}
	if (p && p->nok && !c->fp_due && !(c->fp_due = calloc(1, sizeof(*c->fp_due))))
		return -ENOMEM;
	if (c->fp_due)
		*c->fp_due = (struct rec_fpatch_due){p && p->nok ? p : NULL, m->obj, m->bias};
	pm.count = p && p->nok ? p->nok : 0;
	return rec_conn_send(c, &pm, sizeof(pm), -1);
}

int rec_fpatch_area(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n)
{
	const struct utrace_msg_fpatch_area *am = buf;
	const struct rec_fplan *p = c->fp_due ? c->fp_due->plan : NULL;
	struct utrace_msg_fpatch *m;
	int ret = 0;

	(void)r;
	if (n < sizeof(*am) || !p || am->obj != c->fp_due->obj)
		return -EPROTO;
	c->fp_due->plan = NULL;
	if (!am->addr)
		return 0; /* no room near the object: it runs untraced */
	if (!(m = malloc(UTRACE_MSG_MAX)))
		return -ENOMEM;
	for (uint32_t first = 0; first < p->nok && ret >= 0; first += UTRACE_FPATCH_PER_MSG) {
		uint32_t cnt = p->nok - first;

		if (cnt > UTRACE_FPATCH_PER_MSG)
			cnt = UTRACE_FPATCH_PER_MSG;
		memset(m, 0, sizeof(*m) + cnt * sizeof(m->e[0]));
		m->hdr.type = UTRACE_MSG_FPATCH;
		m->hdr.size = (uint32_t)(sizeof(*m) + cnt * sizeof(m->e[0]));
		m->obj = am->obj;
		m->first = first;
		m->count = cnt;
		for (uint32_t k = 0; k < cnt; k++) {
			const struct utrace_fpatch_func *f = &p->plan.f[p->ok[first + k]];
			/* the slot's vaddr: its address minus the bias the ASK gave */
			uint64_t at = am->addr + (uint64_t)(first + k) * UTRACE_FPATCH_SLOT +
				      UTRACE_FPATCH_HEAD - c->fp_due->bias;

			m->e[k].vaddr = f->addr;
			m->e[k].len = f->len;
			m->e[k].flags = f->int3 ? UTRACE_FPATCH_ENT_INT3 : 0;
			memcpy(m->e[k].orig, f->code, f->len);
			m->e[k].xol_len = (uint32_t)utrace_fpatch_relocate(
			    f, c->fp_due->bias, at, m->e[k].xol, UTRACE_FPATCH_XOL, m->e[k].cfi,
			    &m->e[k].cfi_len);
		}
		ret = rec_conn_send(c, m, m->hdr.size, -1);
	}
	free(m);
	return ret;
}

int rec_fpatch_new(struct utrace_recorder *r)
{
	r->fp = calloc(1, sizeof(*r->fp));
	return r->fp ? 0 : -ENOMEM;
}

void rec_fpatch_stats(const struct utrace_recorder *r, uint32_t *plans, uint32_t *reused)
{
	*plans = r->fp->fp_plans;
	*reused = r->fp->fp_reused;
}

void rec_fpatch_conn_free(struct rec_conn *c)
{
	free(c->fp_due);
	c->fp_due = NULL;
}

void rec_fpatch_free(struct utrace_recorder *r)
{
	if (!r->fp)
		return;
	while (r->fp->fplans) {
		struct rec_fplan *p = r->fp->fplans;

		r->fp->fplans = p->next;
		utrace_fpatch_plan_free(&p->plan);
		free(p->ok);
		free(p->path);
		free(p);
	}
	free(r->fp);
	r->fp = NULL;
}
