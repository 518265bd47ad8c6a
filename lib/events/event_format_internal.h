/* SPDX-License-Identifier: MIT */
/*
 * event_format_internal.h - what the parts of lib/events/event_format.h
 * share: the allocation pool, the format and list structures, and a
 * field's type and name set.  event_format.c holds them;
 * event_format_elf.c (loading from an ELF file) and event_format_text.c
 * (the kernel's format text, both ways) call it, never each other.
 */
#ifndef UTRACE_LIB_EVENT_FORMAT_INTERNAL_H
#define UTRACE_LIB_EVENT_FORMAT_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "lib/events/event_format.h"

struct ef_chunk {
	struct ef_chunk *next;
	_Alignas(8) char data[];
};

struct ef_pool {
	struct ef_chunk *head;
};

/* A format with what its owner needs: the id of a parsed text. */
struct ef_event {
	struct utrace_event_format f;
	int id;
};

struct ef_parsed {
	struct ef_event ev; /* first: utrace_event_format_free casts back */
	struct ef_pool pool;
};

struct utrace_event_list {
	unsigned nr;
	struct ef_event *ev;
	struct ef_pool pool;
};

/* n bytes, 8-aligned, zeroed; NULL when out of memory.  Lists and
 * formats are small: one block an allocation is enough. */
void *ef_pool_alloc(struct ef_pool *p, size_t n);
char *ef_pool_strndup(struct ef_pool *p, const char *s, size_t n);
void ef_pool_free(struct ef_pool *p);

/* Sets f's type and name (copies) and what derives from them and its
 * size; 0 or -ENOMEM. */
int ef_field_set(struct ef_pool *p, struct utrace_event_field *f, const char *type, size_t tlen,
		 const char *name, size_t nlen);

static inline int ef_oom(struct utrace_error *err)
{
	return utrace_error_set(err, -ENOMEM, "out of memory");
}

static inline bool ef_starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

#endif
