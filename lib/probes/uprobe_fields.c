/* SPDX-License-Identifier: MIT */
/*
 * uprobe_fields.c - what a parsed probe says: its line for the kernel's
 * uprobe_events (p:GROUP/EVENT PATH:OFFSET(REF_CTR) NAME=FETCH:TYPE ...)
 * and the accessors of its parts.  Parsing and naming are uprobe.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/probes/uprobe_internal.h"

int utrace_uprobe_kernel_line(const struct utrace_uprobe *p, char *buf, size_t size)
{
	size_t len = 0;
	int n;

#define PUT(...)                                                                                   \
	do {                                                                                       \
		n = snprintf(buf + (len < size ? len : size), len < size ? size - len : 0,         \
			     __VA_ARGS__);                                                         \
		len += n > 0 ? (size_t)n : 0;                                                      \
	} while (0)

	if (size)
		buf[0] = 0;
	PUT("%c:%s/%s %s:0x%" PRIx64, p->is_return ? 'r' : 'p', p->group, p->event, p->path,
	    p->offset);
	if (p->ref_ctr)
		PUT("(0x%" PRIx64 ")", p->ref_ctr);
	for (unsigned i = 0; i < p->nargs; i++)
		PUT(" %s=%s:%s", p->args[i].name, p->args[i].fetch, p->args[i].type);
#undef PUT
	return (int)len;
}

const char *utrace_uprobe_group(const struct utrace_uprobe *p)
{
	return p->group;
}

const char *utrace_uprobe_event(const struct utrace_uprobe *p)
{
	return p->event;
}

const char *utrace_uprobe_path(const struct utrace_uprobe *p)
{
	return p->path;
}

uint64_t utrace_uprobe_offset(const struct utrace_uprobe *p)
{
	return p->offset;
}

uint64_t utrace_uprobe_ref_ctr_offset(const struct utrace_uprobe *p)
{
	return p->ref_ctr;
}

bool utrace_uprobe_is_return(const struct utrace_uprobe *p)
{
	return p->is_return;
}

const char *utrace_uprobe_symbol(const struct utrace_uprobe *p, uint64_t *sym_offset)
{
	if (sym_offset)
		*sym_offset = p->sym_off;
	return p->symbol;
}

unsigned utrace_uprobe_nargs(const struct utrace_uprobe *p)
{
	return p->nargs;
}

const char *utrace_uprobe_arg_name(const struct utrace_uprobe *p, unsigned i)
{
	return i < p->nargs ? p->args[i].name : NULL;
}

const char *utrace_uprobe_arg_fetch(const struct utrace_uprobe *p, unsigned i)
{
	return i < p->nargs ? p->args[i].fetch : NULL;
}

const char *utrace_uprobe_arg_type(const struct utrace_uprobe *p, unsigned i)
{
	return i < p->nargs ? p->args[i].type : NULL;
}
