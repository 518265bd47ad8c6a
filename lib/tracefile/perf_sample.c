/* SPDX-License-Identifier: MIT */
/*
 * perf_sample.c - one PERF_RECORD_SAMPLE into a struct utrace_dat_sample
 * (perf_sample.h).
 *
 * Design: the fields follow each other in the kernel's order for the
 * bits of sample_type (perf_output_sample()); each u64 is read with
 * memcpy (a record in a buffer of records need not be aligned) and only
 * if it lies within the record, so a damaged record is told apart from a
 * good one and never read past.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/tracefile/perf_sample.h"

/* Reads u64 i of a record; false past its end. */
static bool word(const unsigned char *r, size_t size, size_t *at, uint64_t *v)
{
	if (*at + 8 > size)
		return false;
	memcpy(v, r + *at, 8);
	*at += 8;
	return true;
}

/* PERF_SAMPLE_CALLCHAIN: u64 nr, nr addresses with context markers
 * (PERF_CONTEXT_KERNEL, then the kernel's, PERF_CONTEXT_USER, then the
 * user's); 1 if damaged, -ENOMEM. */
static int parse_chain(struct utrace_perf_parser *s, const unsigned char *r, size_t size,
		       size_t *at, struct utrace_dat_sample *out)
{
	uint64_t nr, v = 0;
	bool kernel = false;

	if (!word(r, size, at, &nr) || nr > (size - *at) / 8)
		return 1;
	if (UTRACE_GROW(s->chain, s->cap_chain, nr) < 0)
		return -ENOMEM;
	for (uint64_t i = 0; i < nr; i++) {
		word(r, size, at, &v);
		if (v >= (uint64_t)PERF_CONTEXT_MAX) { /* a context marker */
			kernel = v == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		s->chain[out->nr++] = v;
		out->nr_kernel += kernel;
	}
	out->chain = s->chain;
	return 0;
}

/* PERF_SAMPLE_REGS_USER: u64 abi, then (abi not NONE) a u64 per bit of
 * the mask; 1 if damaged. */
static int parse_regs(struct utrace_perf_parser *s, const unsigned char *r, size_t size, size_t *at,
		      struct utrace_dat_sample *out)
{
	uint64_t abi;
	unsigned n = (unsigned)__builtin_popcountll(s->regs_user);

	if (!word(r, size, at, &abi))
		return 1;
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return 0;
	for (unsigned i = 0; i < n; i++)
		if (!word(r, size, at, &s->regs[i]))
			return 1;
	out->nr_regs = n;
	out->regs_mask = s->regs_user;
	out->regs = s->regs;
	return 0;
}

/* PERF_SAMPLE_STACK_USER: u64 size, size bytes, then (size not 0) u64
 * dyn_size, the part the kernel could copy; 1 if damaged. */
static int parse_stack(const unsigned char *r, size_t size, size_t *at,
		       struct utrace_dat_sample *out)
{
	uint64_t len, dyn;

	if (!word(r, size, at, &len))
		return 1;
	if (!len)
		return 0;
	if (len > size - *at || len % 8)
		return 1;
	out->stack = r + *at;
	*at += len;
	if (!word(r, size, at, &dyn) || dyn > len)
		return 1;
	out->stack_size = dyn;
	return 0;
}

int utrace_perf_parse_sample(struct utrace_perf_parser *s, uint64_t t, const void *rec, size_t size,
			     struct utrace_dat_sample *out)
{
	const unsigned char *r = rec;
	size_t at = sizeof(struct perf_event_header);
	uint64_t v = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((t & PERF_SAMPLE_IP) && !word(r, size, &at, &out->ip))
		return 1;
	if (t & PERF_SAMPLE_TID) {
		if (!word(r, size, &at, &v))
			return 1;
		out->pid = (int32_t)(uint32_t)v;
		out->tid = (int32_t)(uint32_t)(v >> 32);
	}
	if ((t & PERF_SAMPLE_TIME) && !word(r, size, &at, &out->ts))
		return 1;
	if (t & PERF_SAMPLE_CPU) {
		if (!word(r, size, &at, &v))
			return 1;
		out->cpu = (uint32_t)v;
	}
	if ((t & PERF_SAMPLE_PERIOD) && !word(r, size, &at, &out->period))
		return 1;
	if ((t & PERF_SAMPLE_CALLCHAIN) && (ret = parse_chain(s, r, size, &at, out)))
		return ret;
	if (t & PERF_SAMPLE_REGS_USER && parse_regs(s, r, size, &at, out))
		return 1;
	if (t & PERF_SAMPLE_STACK_USER && parse_stack(r, size, &at, out))
		return 1;
	return 0;
}

void utrace_perf_parser_free(struct utrace_perf_parser *p)
{
	free(p->chain);
	p->chain = NULL;
	p->cap_chain = 0;
}
