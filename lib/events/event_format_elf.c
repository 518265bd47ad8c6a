/* SPDX-License-Identifier: MIT */
/*
 * event_format_elf.c - the static tracepoints of an ELF file
 * (lib/events/event_format.h): the __utrace_events section read into a
 * list of formats.
 *
 * Design:
 *
 * Loading reads the __utrace_events section (include/utrace/tracepoint.h)
 * straight from the file, through the bounds-checked ELF reader, and
 * trusts nothing in it: every entry's size must lie inside the section,
 * every char array must hold its NUL, every alignment must be a power of
 * two up to 64, and the layout computed from the fields must give the
 * rec_size the compiler recorded.  Entries are copied out with memcpy
 * (the section need not be aligned in the file).  Eight zero bytes where
 * an entry would start are padding and are skipped.
 *
 * Offsets are computed as the compiler computed them: the fields follow
 * the 8 bytes of common fields in order, each at the next multiple of its
 * alignment.  The 4 common fields are added in front, as the kernel's
 * ftrace_common_fields.  A CLASS is laid out once and its field array is
 * shared by its events.  An EVENT names its class; class names are only
 * unique per translation unit (they are static), so among classes of the
 * same name the one nearest in the section wins: a unit's entries are
 * contiguous, whether the compiler emitted them in source order (clang)
 * or reversed (gcc).  For the same reason the list is sorted by
 * system:name, so that it does not depend on the compiler.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/utrace/tracepoint.h"
#include "lib/elf/elf.h"
#include "lib/events/event_format_internal.h"

#define EF_SECTION "__utrace_events"
#define EF_COMMON_SIZE 8u  /* sizeof(struct utrace_trace_entry) */
#define EF_MAX_REC 0xffffu /* a record's length and data_loc offsets are 16 bits */
#define EF_MAX_ALIGN 64u
#define EF_MAX_SECTION (64u << 20) /* some 50000 events */

static const struct utrace_event_field common_fields[4] = {
    UTRACE_EVENT_COMMON_FIELDS,
};

/* ---- loading from an ELF file --------------------------------------- */

struct ef_entry { /* one entry of the section, as found */
	uint64_t off;
	uint32_t size, kind;
};

struct ef_class {
	uint64_t off; /* of its entry: for "nearest" */
	const char *name;
	unsigned nr_fields; /* common fields included */
	struct utrace_event_field *fields;
	const char *print_fmt;
	uint32_t rec_size;
};

struct ef_loader {
	const char *path;
	const unsigned char *data;
	uint64_t size;
	struct ef_pool *pool;
	struct utrace_error *err;
};

/* "PATH: __utrace_events: entry at offset 0xN: what" */
static __attribute__((format(printf, 3, 4))) int bad(struct ef_loader *ld, uint64_t off,
						     const char *fmt, ...)
{
	char what[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return utrace_error_set(ld->err, -EINVAL, "%s: " EF_SECTION ": entry at offset %#llx: %s",
				ld->path, (unsigned long long)off, what);
}

/* A NUL-terminated char array of the file; false if it holds no NUL. */
static bool chars_ok(const char *a, size_t len)
{
	return memchr(a, '\0', len) != NULL;
}

/* Not empty, no control character and none of bad.  Names go into
 * "system:event" (bad: " :"), types and field names into
 * "field:TYPE NAME;\t..." (bad: ";"). */
static bool text_ok(const char *s, const char *bad)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f || strchr(bad, *s))
			return false;
	return true;
}

/* A type as the preprocessor spells it: words, one space between. */
static bool type_ok(const char *s)
{
	return text_ok(s, ";") && s[0] != ' ' && s[strlen(s) - 1] != ' ' && !strstr(s, "  ");
}

/* IDENT or IDENT[LEN]: what a filter names, and what the text parses. */
static bool field_name_ok(const char *s)
{
	size_t n = 0;

	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	if (!n || isdigit((unsigned char)s[0]))
		return false;
	return !s[n] || (s[n] == '[' && text_ok(s + n, ";") && !strchr(s + n + 1, '[') &&
			 strchr(s + n, ']') == s + strlen(s) - 1);
}

static int load_field(struct ef_loader *ld, uint64_t off, unsigned i, const void *raw,
		      uint64_t *end, uint32_t *max_align, struct utrace_event_field *out)
{
	struct utrace_field_fmt ff;
	uint64_t at;

	memcpy(&ff, raw, sizeof(ff));
	if (!chars_ok(ff.type, sizeof(ff.type)) || !chars_ok(ff.name, sizeof(ff.name)))
		return bad(ld, off, "field %u: type or name not NUL-terminated", i);
	if (!type_ok(ff.type) || !field_name_ok(ff.name))
		return bad(ld, off, "field %u: malformed type '%s' or name '%s'", i, ff.type,
			   ff.name);
	if (!ff.align || ff.align > EF_MAX_ALIGN || (ff.align & (ff.align - 1)))
		return bad(ld, off, "field %s: alignment %u is not a power of two up to %u",
			   ff.name, ff.align, EF_MAX_ALIGN);
	if (ff.is_signed > 1 || ff.kind > UTRACE_FIELD_DATA_LOC)
		return bad(ld, off, "field %s: bad signed (%u) or kind (%u)", ff.name, ff.is_signed,
			   ff.kind);
	if (ff.kind == UTRACE_FIELD_DATA_LOC && (ff.size != 4 || ff.align != 4))
		return bad(ld, off, "field %s: __data_loc of size %u, align %u (not 4)", ff.name,
			   ff.size, ff.align);
	at = (*end + ff.align - 1) & ~(uint64_t)(ff.align - 1);
	if (ff.size > EF_MAX_REC || at + ff.size > EF_MAX_REC)
		return bad(ld, off, "field %s: record larger than %u bytes", ff.name, EF_MAX_REC);
	out->offset = (uint32_t)at;
	out->size = ff.size;
	out->is_signed = ff.is_signed;
	out->common = false;
	if (ef_field_set(ld->pool, out, ff.type, strlen(ff.type), ff.name, strlen(ff.name)) < 0)
		return ef_oom(ld->err);
	*end = at + ff.size;
	if (ff.align > *max_align)
		*max_align = ff.align;
	return 0;
}

static int load_class(struct ef_loader *ld, const struct ef_entry *e, struct ef_class *c)
{
	const unsigned char *p = ld->data + e->off;
	struct utrace_fmt_class h;
	uint64_t fields_end, end = EF_COMMON_SIZE, rec;
	uint32_t max_align = 4; /* the common fields' */
	const char *pf;
	size_t pf_room;
	int ret;

	if (e->size < sizeof(h))
		return bad(ld, e->off, "CLASS of %u bytes, smaller than its header", e->size);
	memcpy(&h, p, sizeof(h));
	if (!chars_ok(h.name, sizeof(h.name)) || !text_ok(h.name, " :"))
		return bad(ld, e->off, "CLASS name malformed or not NUL-terminated");
	if (h.nr_fields > (e->size - sizeof(h)) / sizeof(struct utrace_field_fmt))
		return bad(ld, e->off, "class %s: %u fields do not fit in %u bytes", h.name,
			   h.nr_fields, e->size);
	fields_end = sizeof(h) + (uint64_t)h.nr_fields * sizeof(struct utrace_field_fmt);
	pf = (const char *)p + fields_end;
	pf_room = (size_t)(e->size - fields_end);
	if (!pf_room || !chars_ok(pf, pf_room))
		return bad(ld, e->off, "class %s: print fmt not NUL-terminated", h.name);
	c->off = e->off;
	c->name = ef_pool_strndup(ld->pool, h.name, strlen(h.name));
	c->print_fmt = ef_pool_strndup(ld->pool, pf, strlen(pf));
	c->nr_fields = 4 + h.nr_fields;
	c->fields = ef_pool_alloc(ld->pool, c->nr_fields * sizeof(*c->fields));
	if (!c->name || !c->print_fmt || !c->fields)
		return ef_oom(ld->err);
	memcpy(c->fields, common_fields, sizeof(common_fields));
	for (unsigned i = 0; i < h.nr_fields; i++) {
		ret = load_field(ld, e->off, i, p + sizeof(h) + i * sizeof(struct utrace_field_fmt),
				 &end, &max_align, &c->fields[4 + i]);
		if (ret < 0)
			return ret;
	}
	for (unsigned i = 4; i < c->nr_fields; i++)
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(c->fields[i].base, c->fields[j].base))
				return bad(ld, e->off, "class %s: two fields named %s", h.name,
					   c->fields[i].base);
	/* struct trace_event_raw_<class>: the fields, then char __data[]. */
	rec = (end + max_align - 1) & ~(uint64_t)(max_align - 1);
	if (h.rec_size != rec)
		return bad(ld, e->off,
			   "class %s: the fields end at %llu, which makes a record of %llu "
			   "bytes, but it has %u",
			   h.name, (unsigned long long)end, (unsigned long long)rec, h.rec_size);
	c->rec_size = h.rec_size;
	return 0;
}

/* Walks the section into out (room for size / 8 entries); 0 or <0. */
static int walk(struct ef_loader *ld, struct ef_entry *out, unsigned *nr)
{
	uint64_t off = 0;
	unsigned n = 0;

	while (off < ld->size) {
		struct ef_entry e = {.off = off};
		uint32_t abi = 0;

		if (ld->size - off < 8) {
			for (uint64_t i = off; i < ld->size; i++)
				if (ld->data[i])
					return bad(ld, off, "truncated: %llu bytes left",
						   (unsigned long long)(ld->size - off));
			break;
		}
		memcpy(&e.size, ld->data + off, 4);
		memcpy(&e.kind, ld->data + off + 4, 4);
		if (!e.size && !e.kind) { /* padding between entries */
			off += 8;
			continue;
		}
		if (e.size < 8 || e.size > ld->size - off)
			return bad(ld, off, "size %u does not fit in the section (%llu bytes)",
				   e.size, (unsigned long long)ld->size);
		if (e.kind != UTRACE_FMT_CLASS && e.kind != UTRACE_FMT_EVENT)
			return bad(ld, off, "unknown kind %u", e.kind);
		if (e.size >= 12) /* both headers: {size, kind, abi, ...} */
			memcpy(&abi, ld->data + off + 8, 4);
		if (abi != UTRACE_EVENT_ABI)
			return bad(ld, off, "ABI version %u, this utrace reads %d", abi,
				   UTRACE_EVENT_ABI);
		out[n++] = e;
		off += ((uint64_t)e.size + 7) & ~(uint64_t)7;
	}
	*nr = n;
	return 0;
}

static int cmp_event(const void *a, const void *b)
{
	const struct ef_event *x = a, *y = b;
	int r = strcmp(x->f.system, y->f.system);

	return r ? r : strcmp(x->f.name, y->f.name);
}

static uint64_t dist(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static int load_event(struct ef_loader *ld, const struct ef_entry *e, const struct ef_class *cls,
		      unsigned nr_cls, struct ef_event *ev)
{
	struct utrace_fmt_event h;
	const struct ef_class *best = NULL;

	if (e->size < sizeof(h))
		return bad(ld, e->off, "EVENT of %u bytes, smaller than its header", e->size);
	memcpy(&h, ld->data + e->off, sizeof(h));
	if (!chars_ok(h.system, sizeof(h.system)) || !chars_ok(h.name, sizeof(h.name)) ||
	    !chars_ok(h.class_name, sizeof(h.class_name)) || !text_ok(h.system, " :") ||
	    !text_ok(h.name, " :") || !text_ok(h.class_name, " :"))
		return bad(ld, e->off, "EVENT names malformed or not NUL-terminated");
	for (unsigned i = 0; i < nr_cls; i++)
		if (!strcmp(cls[i].name, h.class_name) &&
		    (!best || dist(cls[i].off, e->off) < dist(best->off, e->off)))
			best = &cls[i];
	if (!best)
		return utrace_error_set(ld->err, -EINVAL,
					"%s: event %s:%s: its class %s is not in " EF_SECTION,
					ld->path, h.system, h.name, h.class_name);
	ev->id = -1;
	ev->f.system = ef_pool_strndup(ld->pool, h.system, strlen(h.system));
	ev->f.name = ef_pool_strndup(ld->pool, h.name, strlen(h.name));
	if (!ev->f.system || !ev->f.name)
		return ef_oom(ld->err);
	ev->f.rec_size = best->rec_size;
	ev->f.nr_fields = best->nr_fields;
	ev->f.fields = best->fields;
	ev->f.print_fmt = best->print_fmt;
	return 0;
}

static int load_section(struct ef_loader *ld, struct utrace_event_list *l)
{
	struct ef_entry *ents = NULL;
	struct ef_class *cls = NULL;
	unsigned nr = 0, nr_cls = 0, nr_ev = 0;
	int ret;

	if (ld->size > EF_MAX_SECTION)
		return bad(ld, 0, "section of %llu bytes: too large", (unsigned long long)ld->size);
	nr = (unsigned)(ld->size / 8) + 1; /* entries are at least 8 bytes */
	ents = calloc(nr, sizeof(*ents));
	cls = calloc(nr, sizeof(*cls));
	l->ev = ef_pool_alloc(&l->pool, (size_t)nr * sizeof(*l->ev));
	if (!ents || !cls || !l->ev) {
		ret = ef_oom(ld->err);
		goto out;
	}
	ret = walk(ld, ents, &nr);
	for (unsigned i = 0; ret == 0 && i < nr; i++)
		if (ents[i].kind == UTRACE_FMT_CLASS)
			ret = load_class(ld, &ents[i], &cls[nr_cls++]);
	for (unsigned i = 0; ret == 0 && i < nr; i++) {
		if (ents[i].kind != UTRACE_FMT_EVENT)
			continue;
		ret = load_event(ld, &ents[i], cls, nr_cls, &l->ev[nr_ev]);
		for (unsigned j = 0; ret == 0 && j < nr_ev; j++)
			if (!cmp_event(&l->ev[j], &l->ev[nr_ev]))
				ret = bad(ld, ents[i].off, "event %s:%s defined twice",
					  l->ev[j].f.system, l->ev[j].f.name);
		nr_ev++;
	}
	if (ret == 0) {
		qsort(l->ev, nr_ev, sizeof(*l->ev), cmp_event);
		l->nr = nr_ev;
	}
out:
	free(ents);
	free(cls);
	return ret;
}

int utrace_event_list_load(const char *path, struct utrace_event_list **out,
			   struct utrace_error *err)
{
	struct utrace_event_list *l;
	struct utrace_elf_section sec;
	struct utrace_elf *elf;
	int ret;

	*out = NULL;
	ret = utrace_elf_open_err(path, &elf, err);
	if (ret < 0)
		return ret;
	l = calloc(1, sizeof(*l));
	if (!l) {
		utrace_elf_close(elf);
		return ef_oom(err);
	}
	ret = utrace_elf_find_section(elf, EF_SECTION, &sec);
	if (ret == -ENOENT || (ret == 0 && sec.size == 0)) {
		ret = 0;
	} else if (ret < 0) {
		ret = utrace_error_set(err, ret, "%s: %s", path, strerror(-ret));
	} else {
		struct ef_loader ld = {path, utrace_elf_section_data(elf, &sec), sec.size, &l->pool,
				       err};

		ret = ld.data ? load_section(&ld, l)
			      : utrace_error_set(err, -EINVAL,
						 "%s: " EF_SECTION " is not in the file", path);
	}
	utrace_elf_close(elf);
	if (ret < 0) {
		utrace_event_list_free(l);
		return ret;
	}
	*out = l;
	return 0;
}

void utrace_event_list_free(struct utrace_event_list *l)
{
	if (!l)
		return;
	ef_pool_free(&l->pool);
	free(l);
}

unsigned utrace_event_list_count(const struct utrace_event_list *l)
{
	return l ? l->nr : 0;
}

const struct utrace_event_format *utrace_event_list_get(const struct utrace_event_list *l,
							unsigned i)
{
	return l && i < l->nr ? &l->ev[i].f : NULL;
}

const struct utrace_event_format *utrace_event_list_find(const struct utrace_event_list *l,
							 const char *system, const char *name)
{
	for (unsigned i = 0; l && i < l->nr; i++)
		if ((!system || !strcmp(l->ev[i].f.system, system)) &&
		    !strcmp(l->ev[i].f.name, name))
			return &l->ev[i].f;
	return NULL;
}
