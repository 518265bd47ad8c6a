/* SPDX-License-Identifier: MIT */
/*
 * bt_kcap.c - str() and join() of a kernel tracepoint's pointer fields
 * (sys_enter_openat's args.filename, sys_enter_execve's args.argv) in
 * utrace bt.  The kernel's record holds the address only, and the replay
 * (bt_session.c) comes after the hit, too late to read the process's
 * memory; bpftrace reads it in its BPF program, at the hit.  So does
 * utrace bt: each kernel event of a tracepoint site whose action names
 * such a field (a `char *` one: its string; a `char **` one: its array
 * of strings, for join) gets a BPF program of ours that reads them at
 * every hit (lib/kernel/kernel_kcap.h); the replay of the event's tracefs
 * record takes the capture of the same thread's hit with the same
 * addresses, and STR and LOAD find the strings there, at the addresses
 * the fields hold.
 *
 * comm too is the thread's name at the hit, as bpftrace's
 * bpf_get_current_comm(): the record holds the thread's id only, and
 * the name the tool could find for it when the record is replayed (the
 * recording's, /proc's, the kernel's saved_cmdlines: bt_tracepoint.c)
 * is its name then, after an exec or a prctl(PR_SET_NAME) since the hit
 * (`sh -c '...; exec cmd'`: the shell's opens counted as cmd's).  So a
 * kernel event one of whose probes' actions or predicates uses comm has
 * its capture read the name as well (UTRACE_KCAP_COMM); the others do
 * without that helper call.  A hit whose capture was lost (the ring was
 * full) has the name found at the replay, as one with no capture.
 *
 * Where BPF cannot be used (not root), the strings are empty and comm
 * the name found at the replay, as utrace bt says once at the start.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_run_internal.h"
#include "lib/bt/bt_tracepoint.h"
#include "lib/events/event_format.h"
#include "lib/kernel/kernel_kcap.h"
#include "lib/kernel/kernel_tracefs.h"

/* The kernel's format of "SYS:NAME" and its id; NULL if none. */
static struct utrace_event_format *kernel_format(const char *func, int *id)
{
	struct utrace_event_format *f = NULL;
	struct utrace_error e = {0};
	char sys[256], path[4096], *text;
	const char *name = strchr(func, ':');

	*id = -1;
	if (!name || (size_t)(name - func) >= sizeof(sys) || !utrace_tracefs_root())
		return NULL;
	snprintf(sys, sizeof(sys), "%.*s", (int)(name - func), func);
	name++;
	text = utrace_tracefs_read(
	    utrace_tracefs_path(path, utrace_tracefs_root(), "events/%s/%s/id", sys, name));
	if (text)
		*id = atoi(text);
	free(text);
	text = utrace_tracefs_read(
	    utrace_tracefs_path(path, utrace_tracefs_root(), "events/%s/%s/format", sys, name));
	if (*id < 0 || !text || utrace_event_format_parse(sys, text, &f, &e) < 0)
		f = NULL;
	free(text);
	return f;
}

/* Site s's fields to read at the event (f, and their slots in
 * tp_fields): those str() or join() read through (the checker's
 * tp_deref), from the kernel's format fmt; how many. */
static unsigned site_fields(const struct bt_run *r, const struct utrace_event_format *fmt,
			    struct bt_site *s, struct utrace_kcap_field *f)
{
	s->nkfields = 0;
	for (unsigned i = 0; i < r->prog.ntp_fields && s->nkfields < UTRACE_KCAP_FIELDS_MAX; i++) {
		const struct utrace_event_field *fl =
		    r->prog.tp_deref >> i & 1 ? utrace_event_field_find(fmt, r->prog.tp_fields[i])
					      : NULL;
		int kind = fl ? utrace_kcap_field_kind(fl->type, fl->size, fl->offset) : -1;

		if (kind < 0)
			continue;
		f[s->nkfields] =
		    (struct utrace_kcap_field){fl->offset, (enum utrace_kcap_kind)kind};
		s->kfield[s->nkfields++] = (uint8_t)i;
	}
	return s->nkfields;
}

/* Whether a probe of kernel event func (a site of it) uses comm. */
static bool event_comm(const struct bt_run *r, const char *func)
{
	for (unsigned i = 0; i < r->nsites; i++)
		if (r->sites[i].type == BT_P_TRACEPOINT && !strcmp(r->sites[i].func, func) &&
		    bt_code_uses_comm(&r->sites[i].code))
			return true;
	return false;
}

/* Site i's capture (a site of the same event before it shares its). */
static int attach_site(struct bt_run *r, unsigned i, struct utrace_error *err)
{
	struct bt_site *s = &r->sites[i];
	struct utrace_kcap_field f[UTRACE_KCAP_FIELDS_MAX];
	struct utrace_event_format *fmt;
	const char *colon = strchr(s->func, ':');
	char sys[256];
	int id, ret = 0;

	for (unsigned k = 0; k < i; k++)
		if (r->sites[k].type == BT_P_TRACEPOINT && !strcmp(r->sites[k].func, s->func)) {
			s->ktag = r->sites[k].ktag;
			s->nkfields = r->sites[k].nkfields;
			s->kcomm = r->sites[k].kcomm;
			memcpy(s->kfield, r->sites[k].kfield, sizeof(s->kfield));
			return 0;
		}
	if (!colon || (size_t)(colon - s->func) >= sizeof(sys))
		return 0;
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - s->func), s->func);
	if (bt_tracepoint_own(r->prog.exe, sys, colon + 1) || !(fmt = kernel_format(s->func, &id)))
		return 0;
	s->kcomm = event_comm(r, s->func);
	if (site_fields(r, fmt, s, f) || s->kcomm) {
		if (!r->kcap)
			ret = utrace_kcap_new(&r->kcap, err);
		if (!ret)
			ret = utrace_kcap_attach(r->kcap, id, f, s->nkfields,
						 s->kcomm ? UTRACE_KCAP_COMM : 0, err);
		s->ktag = ret;
	}
	utrace_event_format_free(fmt);
	return ret < 0 ? ret : 0;
}

/* What site s's capture not attached (err) means, said. */
static void say_unread(struct bt_run *r, const struct bt_site *s, const struct utrace_error *err)
{
	if (s->nkfields)
		fprintf(r->o->log,
			"utrace bt: tracepoint:%s: the strings its pointer fields point to cannot "
			"be read at the event (%s): str() and join() of them are empty\n",
			s->func, err->msg);
	if (s->kcomm)
		fprintf(r->o->log,
			"utrace bt: tracepoint:%s: the name of the thread (comm) cannot be read at "
			"the event (%s): comm is its name when the hit is replayed\n",
			s->func, err->msg);
}

void bt_kcap_attach(struct bt_run *r)
{
	struct utrace_error err = {0};
	bool strs = false, comm = false;

	for (unsigned i = 0; i < r->nsites; i++)
		r->sites[i].ktag = -1;
	for (unsigned i = 0; i < r->nsites; i++) {
		struct bt_site *s = &r->sites[i];

		if (s->type != BT_P_TRACEPOINT)
			continue;
		if (attach_site(r, i, &err) < 0) {
			say_unread(r, s, &err);
			s->ktag = -1;
			s->nkfields = 0;
			s->kcomm = false;
		}
		strs |= s->ktag >= 0 && s->nkfields;
		comm |= s->ktag >= 0 && s->kcomm;
	}
	if (r->o->verbose && strs)
		fprintf(r->o->log, "utrace bt: strings a kernel event points to read at the event "
				   "by a BPF program on its tracepoint\n");
	if (r->o->verbose && comm)
		fprintf(r->o->log, "utrace bt: the names of the threads that hit a kernel event "
				   "(comm) read at the event by a BPF program on its tracepoint\n");
}

unsigned bt_kcap_take(struct bt_run *r, unsigned k, int tid, uint64_t ns, const int64_t *args,
		      struct utrace_kcap_region *out, unsigned max, char *comm, bool *named)
{
	const struct bt_site *s = &r->sites[k];
	uint64_t vals[UTRACE_KCAP_FIELDS_MAX];
	const char *name;
	unsigned n;

	*named = false;
	if (s->ktag < 0 || (!s->nkfields && !s->kcomm))
		return 0;
	for (unsigned j = 0; j < s->nkfields; j++)
		vals[j] = (uint64_t)args[s->kfield[j]];
	n = utrace_kcap_take(r->kcap, tid, s->ktag, ns, vals, s->nkfields, out, max);
	if ((name = utrace_kcap_comm(r->kcap))) {
		memcpy(comm, name, UTRACE_KCAP_COMMLEN);
		*named = true;
	}
	return n;
}

void bt_kcap_end(struct bt_run *r)
{
	uint64_t lost = utrace_kcap_lost(r->kcap);
	bool strs = false, comm = false;
	const char *what = "strings", *then = "they read as empty strings";

	for (unsigned i = 0; i < r->nsites; i++) {
		strs |= r->sites[i].ktag >= 0 && r->sites[i].nkfields;
		comm |= r->sites[i].ktag >= 0 && r->sites[i].kcomm;
	}
	if (comm && strs) {
		what = "strings and thread names";
		then = "the strings read as empty strings, comm as the name when the hit was replayed";
	} else if (comm) {
		what = "thread names";
		then = "comm is the name when the hit was replayed";
	}
	if (lost)
		fprintf(r->o->log,
			"utrace bt: %llu %s of kernel events were lost before they were read "
			"(their BPF ring was full, or too many waited for their records): %s\n",
			(unsigned long long)lost, what, then);
	utrace_kcap_free(r->kcap);
	r->kcap = NULL;
}
