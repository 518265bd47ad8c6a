/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe_internal.h - what inproc_probes.c (probes installed at registration) and
 * inproc_probe_live.c (probes added while the program runs) share: a batch of
 * INPROC_PROBEs taken, then put in place at once.
 */
#ifndef UTRACE_RUNTIME_INPROC_PROBE_INT_H
#define UTRACE_RUNTIME_INPROC_PROBE_INT_H

#include "runtime/rt.h"

struct ipp_batch {
	struct rt_inproc_probe *p;
	size_t n, cap;
	bool alone; /* the only thread: a jmp may replace several instructions */
	uint8_t **int3; /* addresses to put an int3 on */
	size_t nint3;
	struct rt_poke *sites; /* call sites to point at their slots */
	size_t nsites;
	struct rt_poke *opt; /* jmps written once no thread is in the way */
	uint64_t *opt_hi;    /* (inproc_probe_opt.c), each over [addr, opt_hi) */
	size_t nopt;
};

/* inproc_probes.c, with rt_ipp_lock held: one INPROC_PROBE of object o whose probe
 * area is area, its slot written (the area writable), added to b (<0:
 * malformed); the batch put in place (the objects lock held too). */
int rt_ipp_take(struct ipp_batch *b, const struct rt_object *o, uint8_t *area,
	       const struct utrace_msg_inproc_probe *m, uint32_t size) RT_HIDDEN;
int rt_ipp_commit(struct ipp_batch *b) RT_HIDDEN;
void rt_ipp_batch_free(struct ipp_batch *b) RT_HIDDEN;
/* inproc_probes.c, with rt_ipp_lock held: the call site at addr got the
 * program's bytes back (inproc_probe_remove.c), so a probe added there later
 * makes a slot and a call of its own. */
void rt_ipp_site_forget(uint64_t addr) RT_HIDDEN;
/* Table t (rt_ipp_lock held) published: the one every hit reads now */
void rt_ipp_table_set(struct ipp_table *t) RT_HIDDEN;
/* The trap and fault handlers, once. */
void rt_ipp_install_handlers(void) RT_HIDDEN;

/* inproc_probe_area.c, with rt_ipp_lock held: object obj's probe area (addr NULL:
 * none yet), the slots below next taken; NULL if it has none and add is
 * false (or no memory). */
struct ipp_area {
	uint32_t obj; /* rt_object index */
	uint32_t next;
	uint8_t *addr;
};
struct ipp_area *rt_ipp_area(uint32_t obj, bool add) RT_HIDDEN;
/* inproc_probe_area.c, with rt_ipp_lock held: o's probe area, a fresh one
 * (registration) or the one it has, mapped now if none (NULL: none within
 * reach); and the one installer of a INPROC_PROBE in area a, at registration
 * and live (<0: malformed, or the area could not be written). */
struct ipp_area *rt_ipp_area_map(const struct rt_object *o, bool fresh) RT_HIDDEN;
int rt_ipp_install(struct ipp_batch *b, const struct rt_object *o, struct ipp_area *a,
		  const struct utrace_msg_inproc_probe *m, uint32_t size) RT_HIDDEN;

/* Call sites carrying probes, each with its index k (the slot's) */
#define IPP_SITES_MAX 4096

/* inproc_probe_jit.c: site k's probe p (its table's first at the site, or
 * NULL), *cont its tracer stub; its stub, made when a table is published
 * (rt_ipp_lock held): rt_ipp_site_jit[k], NULL where the hit takes the
 * trampoline's ways (arch/x86_64/inproc_probe.S reads it). */
struct rt_ipp_jit_site {
	uint32_t k;
	const uint64_t *cont;
	const struct rt_inproc_probe *p;
};
extern void *rt_ipp_site_jit[IPP_SITES_MAX] RT_HIDDEN;
void rt_ipp_jit_build(const struct rt_ipp_jit_site *sites, uint32_t n) RT_HIDDEN;

#endif
