/* SPDX-License-Identifier: MIT */
/*
 * event_format.c - the static tracepoints of an ELF file, and the
 * kernel's format text for each, both ways: what the parts share.
 *
 * Design: loading from the __utrace_events section is
 * event_format_elf.c's, the format text (written and parsed) is
 * event_format_text.c's; both build the same struct utrace_event_format
 * (lib/events/event_format_internal.h).  This file holds what they stand
 * on: everything a list or a parsed format owns (strings, field arrays)
 * is allocated from one pool and freed with it, and a field's type and
 * name decide what a filter can do with it, as the kernel's
 * filter_assign_type decides.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_format_internal.h"

/* ---- pool ----------------------------------------------------------- */

/* n bytes, 8-aligned, zeroed; NULL when out of memory.  Lists and
 * formats are small: one block an allocation is enough. */
void *ef_pool_alloc(struct ef_pool *p, size_t n)
{
	struct ef_chunk *c = calloc(1, sizeof(*c) + n);

	if (!c)
		return NULL;
	c->next = p->head;
	p->head = c;
	return c->data;
}

char *ef_pool_strndup(struct ef_pool *p, const char *s, size_t n)
{
	char *r = ef_pool_alloc(p, n + 1);

	if (r)
		memcpy(r, s, n);
	return r;
}

void ef_pool_free(struct ef_pool *p)
{
	while (p->head) {
		struct ef_chunk *c = p->head;

		p->head = c->next;
		free(c);
	}
}

/* ---- fields --------------------------------------------------------- */

/* "char", "const unsigned char", ... (len bytes of t): what the kernel's
 * filter treats as text. */
static bool is_char_type(const char *t, size_t len)
{
	static const char *const quals[] = {"const ", "volatile ", "signed ", "unsigned "};

	for (size_t i = 0, q; i < sizeof(quals) / sizeof(quals[0]); i++) {
		q = strlen(quals[i]);
		if (len > q && !strncmp(t, quals[i], q)) {
			t += q;
			len -= q;
			i = (size_t)-1; /* again from the first */
		}
	}
	return len == 4 && !strncmp(t, "char", 4);
}

/* What a filter can do with the field (kernel: filter_assign_type). */
static enum utrace_event_field_kind classify(const char *type, const char *name, uint32_t size)
{
	if (ef_starts_with(type, "__data_loc ")) {
		const char *el = type + strlen("__data_loc ");
		size_t len = strlen(el);

		/* 8: a synthetic event's char[] (trace_events_synth.c gives
		 * it a u64 slot; the __data_loc is its low, first, 4 bytes) */
		if (size != 4 && size != 8)
			return UTRACE_EF_OTHER;
		if (len > 2 && !strcmp(el + len - 2, "[]") && is_char_type(el, len - 2))
			return UTRACE_EF_STRING;
		return UTRACE_EF_DYNARRAY;
	}
	if (ef_starts_with(type, "__rel_loc"))
		return UTRACE_EF_OTHER; /* offset relative to the field: not ours */
	/* char name[N]; char name[] of size 0 (ftrace:print's buf) is the
	 * rest of the record, a string as the kernel's filter_assign_type
	 * takes it */
	if (strchr(name, '['))
		return (size || !strcmp(strchr(name, '['), "[]")) && is_char_type(type, strlen(type))
			   ? UTRACE_EF_CHARS
			   : UTRACE_EF_OTHER;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return UTRACE_EF_OTHER;
	if (strchr(type, '*')) /* pointers are numbers */
		return UTRACE_EF_INT;
	if (ef_starts_with(type, "struct ") || ef_starts_with(type, "union ") ||
	    strstr(type, "float") || strstr(type, "double") || strstr(type, "_Float"))
		return UTRACE_EF_OTHER;
	return UTRACE_EF_INT;
}

/* Sets f's type and name (copies) and what derives from them and its
 * size; 0 or -ENOMEM. */
int ef_field_set(struct ef_pool *p, struct utrace_event_field *f, const char *type, size_t tlen,
		 const char *name, size_t nlen)
{
	size_t n;

	f->type = ef_pool_strndup(p, type, tlen);
	f->name = ef_pool_strndup(p, name, nlen);
	if (!f->type || !f->name)
		return -ENOMEM;
	n = strcspn(f->name, "[");
	f->base = f->name[n] ? ef_pool_strndup(p, f->name, n) : f->name;
	if (!f->base)
		return -ENOMEM;
	f->kind = classify(f->type, f->name, f->size);
	return 0;
}

const struct utrace_event_field *utrace_event_field_find(const struct utrace_event_format *f,
							 const char *name)
{
	for (unsigned i = 0; f && i < f->nr_fields; i++)
		if (!strcmp(f->fields[i].base, name))
			return &f->fields[i];
	return NULL;
}

int utrace_event_format_id(const struct utrace_event_format *f)
{
	return ((const struct ef_event *)f)->id;
}
