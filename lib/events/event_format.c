/* SPDX-License-Identifier: MIT */
/*
 * event_format.c - the static tracepoints of an ELF file, and the
 * kernel's format text for each, both ways.
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
 *
 * Everything a list or a parsed format owns (strings, field arrays) is
 * allocated from one pool and freed with it.
 *
 * The text is the kernel's events/<system>/<event>/format, byte for byte
 * (kernel/trace/trace_events.c, f_show): the common fields, a blank line,
 * the event's fields, a blank line, "print fmt: ".  Parsing accepts every
 * format file a kernel writes (the print fmt may span lines), so that a
 * trace file's formats, ours or the kernel's, read back the same way.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/utrace/tracepoint.h"
#include "lib/elf/elf.h"
#include "lib/events/event_format.h"

#define EF_SECTION "__utrace_events"
#define EF_COMMON_SIZE 8u  /* sizeof(struct utrace_trace_entry) */
#define EF_MAX_REC 0xffffu /* a record's length and data_loc offsets are 16 bits */
#define EF_MAX_ALIGN 64u
#define EF_MAX_SECTION (64u << 20) /* some 50000 events */

/* ---- pool ----------------------------------------------------------- */

struct ef_chunk {
	struct ef_chunk *next;
	_Alignas(8) char data[];
};

struct ef_pool {
	struct ef_chunk *head;
};

/* n bytes, 8-aligned, zeroed; NULL when out of memory.  Lists and
 * formats are small: one block an allocation is enough. */
static void *pool_alloc(struct ef_pool *p, size_t n)
{
	struct ef_chunk *c = calloc(1, sizeof(*c) + n);

	if (!c)
		return NULL;
	c->next = p->head;
	p->head = c;
	return c->data;
}

static char *pool_strndup(struct ef_pool *p, const char *s, size_t n)
{
	char *r = pool_alloc(p, n + 1);

	if (r)
		memcpy(r, s, n);
	return r;
}

static void pool_free(struct ef_pool *p)
{
	while (p->head) {
		struct ef_chunk *c = p->head;

		p->head = c->next;
		free(c);
	}
}

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

/* ---- fields --------------------------------------------------------- */

static const struct utrace_event_field common_fields[4] = {
    UTRACE_EVENT_COMMON_FIELDS,
};

static int oom(struct utrace_error *err)
{
	return utrace_error_set(err, -ENOMEM, "out of memory");
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

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
	if (starts_with(type, "__data_loc ")) {
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
	if (starts_with(type, "__rel_loc"))
		return UTRACE_EF_OTHER; /* offset relative to the field: not ours */
	if (strchr(name, '['))
		return size && is_char_type(type, strlen(type)) ? UTRACE_EF_CHARS : UTRACE_EF_OTHER;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return UTRACE_EF_OTHER;
	if (strchr(type, '*')) /* pointers are numbers */
		return UTRACE_EF_INT;
	if (starts_with(type, "struct ") || starts_with(type, "union ") || strstr(type, "float") ||
	    strstr(type, "double") || strstr(type, "_Float"))
		return UTRACE_EF_OTHER;
	return UTRACE_EF_INT;
}

/* Sets f's type and name (copies) and what derives from them and its
 * size; 0 or -ENOMEM. */
static int field_set(struct ef_pool *p, struct utrace_event_field *f, const char *type, size_t tlen,
		     const char *name, size_t nlen)
{
	size_t n;

	f->type = pool_strndup(p, type, tlen);
	f->name = pool_strndup(p, name, nlen);
	if (!f->type || !f->name)
		return -ENOMEM;
	n = strcspn(f->name, "[");
	f->base = f->name[n] ? pool_strndup(p, f->name, n) : f->name;
	if (!f->base)
		return -ENOMEM;
	f->kind = classify(f->type, f->name, f->size);
	return 0;
}

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
	if (field_set(ld->pool, out, ff.type, strlen(ff.type), ff.name, strlen(ff.name)) < 0)
		return oom(ld->err);
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
	c->name = pool_strndup(ld->pool, h.name, strlen(h.name));
	c->print_fmt = pool_strndup(ld->pool, pf, strlen(pf));
	c->nr_fields = 4 + h.nr_fields;
	c->fields = pool_alloc(ld->pool, c->nr_fields * sizeof(*c->fields));
	if (!c->name || !c->print_fmt || !c->fields)
		return oom(ld->err);
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
	ev->f.system = pool_strndup(ld->pool, h.system, strlen(h.system));
	ev->f.name = pool_strndup(ld->pool, h.name, strlen(h.name));
	if (!ev->f.system || !ev->f.name)
		return oom(ld->err);
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
	l->ev = pool_alloc(&l->pool, (size_t)nr * sizeof(*l->ev));
	if (!ents || !cls || !l->ev) {
		ret = oom(ld->err);
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
	const char *why = NULL;
	int ret;

	*out = NULL;
	ret = utrace_elf_open_why(path, &elf, &why);
	if (ret < 0)
		return utrace_error_set(err, ret, "%s: %s", path, why ? why : strerror(-ret));
	l = calloc(1, sizeof(*l));
	if (!l) {
		utrace_elf_close(elf);
		return oom(err);
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
	pool_free(&l->pool);
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

/* ---- text ----------------------------------------------------------- */

static void text_field(FILE *m, const struct utrace_event_field *f)
{
	fprintf(m, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", f->type, f->name,
		f->offset, f->size, f->is_signed ? 1 : 0);
}

char *utrace_event_format_text(const struct utrace_event_format *f, int id)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	unsigned i;
	bool ok;

	if (!m)
		return NULL;
	fprintf(m, "name: %s\nID: %d\nformat:\n", f->name, id);
	for (i = 0; i < f->nr_fields && f->fields[i].common; i++)
		text_field(m, &f->fields[i]);
	fputc('\n', m);
	for (; i < f->nr_fields; i++)
		text_field(m, &f->fields[i]);
	fprintf(m, "\nprint fmt: %s\n", f->print_fmt ? f->print_fmt : "");
	ok = !ferror(m);
	if (fclose(m) != 0 || !ok) {
		free(text);
		return NULL;
	}
	return text;
}

/* ---- parsing -------------------------------------------------------- */

struct ef_parser {
	const char *what; /* the event's name once known */
	unsigned line;
	struct utrace_error *err;
};

static __attribute__((format(printf, 2, 3))) int perr(struct ef_parser *ps, const char *fmt, ...)
{
	char what[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return utrace_error_set(ps->err, -EINVAL, "event format%s%s: line %u: %s",
				ps->what ? " of " : "", ps->what ? ps->what : "", ps->line, what);
}

/* A decimal number of at most 32 bits at *s, then ';'; advances *s. */
static bool parse_u32(const char **s, const char *end, uint32_t *v)
{
	unsigned long long n;
	char *e;

	if (*s >= end || !isdigit((unsigned char)**s))
		return false;
	errno = 0;
	n = strtoull(*s, &e, 10); /* stops at the ';' or the '\n' at end */
	if (errno || n > UINT32_MAX || e >= end || *e != ';')
		return false;
	*v = (uint32_t)n;
	*s = e + 1;
	return true;
}

/* "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" (also the old
 * "field special:" and lines without signed:). */
static int parse_field(struct ef_parser *ps, struct ef_pool *pool, const char *s, const char *end,
		       bool common, struct utrace_event_field *f)
{
	const char *decl, *semi, *name, *stop, *type_end;
	unsigned have = 0;
	int nlen;

	s += strspn(s, " \t");
	s += strlen("field");
	while (s < end && *s != ':')
		s++;
	if (s >= end)
		return perr(ps, "no ':' after field");
	decl = ++s;
	semi = memchr(decl, ';', (size_t)(end - decl));
	if (!semi || memchr(decl, '\t', (size_t)(semi - decl)))
		return perr(ps, "no ';' after the field's declaration");
	/* NAME: the last word, with its [N] if any. */
	stop = semi;
	while (stop > decl && stop[-1] == ' ')
		stop--;
	name = stop;
	if (name > decl && name[-1] == ']') {
		while (name > decl && name[-1] != '[')
			name--;
		if (name > decl)
			name--;
	}
	while (name > decl && name[-1] != ' ' && name[-1] != '\t' && name[-1] != '*')
		name--;
	nlen = (int)(stop - name);
	for (type_end = name; type_end > decl && type_end[-1] == ' ';)
		type_end--;
	if (!nlen || *name == '[' || type_end == decl)
		return perr(ps, "no type or name in '%.*s'", (int)(semi - decl), decl);
	/* "key:N;" pairs: offset, size, signed (others are skipped). */
	for (s = semi + 1; (s += strspn(s, " \t")) < end;) {
		const char *key = s, *colon = memchr(s, ':', (size_t)(end - s));
		uint32_t v;

		s = colon ? colon + 1 : end;
		if (!colon || !parse_u32(&s, end, &v))
			return perr(ps, "field %.*s: bad '%.*s'", nlen, name, (int)(end - key),
				    key);
		if (starts_with(key, "offset:")) {
			f->offset = v;
			have |= 1;
		} else if (starts_with(key, "size:")) {
			f->size = v;
			have |= 2;
		} else if (starts_with(key, "signed:")) {
			f->is_signed = v != 0;
		}
	}
	if (have != 3)
		return perr(ps, "field %.*s lacks its offset or size", nlen, name);
	if ((uint64_t)f->offset + f->size > UINT32_MAX)
		return perr(ps, "field %.*s ends beyond 4 GiB", nlen, name);
	f->common = common;
	if (field_set(pool, f, decl, (size_t)(type_end - decl), name, (size_t)nlen) < 0)
		return oom(ps->err);
	return 0;
}

static int parse_lines(struct ef_parser *ps, struct ef_parsed *p, const char *text)
{
	struct utrace_event_format *f = &p->ev.f;
	struct utrace_event_field *fields;
	unsigned nr = 0, cap = 1;
	bool in_format = false, common = true;
	const char *s;
	int ret;

	for (s = text; *s; s++) /* at most one field a line */
		cap += *s == '\n';
	fields = pool_alloc(&p->pool, cap * sizeof(*fields));
	if (!fields)
		return oom(ps->err);
	s = text;

	while (*s) {
		const char *end = s + strcspn(s, "\n");
		const char *next = *end ? end + 1 : end;
		size_t len = (size_t)(end - s);

		ps->line++;
		if (starts_with(s, "print fmt: ")) {
			size_t n = strlen(s + 11);

			if (n && s[11 + n - 1] == '\n')
				n--;
			f->print_fmt = pool_strndup(&p->pool, s + 11, n);
			if (!f->print_fmt)
				return oom(ps->err);
			break;
		} else if (in_format && len && strspn(s, " \t") < len &&
			   starts_with(s + strspn(s, " \t"), "field")) {
			ret = parse_field(ps, &p->pool, s, end, common, &fields[nr]);
			if (ret < 0)
				return ret;
			nr++;
		} else if (strspn(s, " \t") == len) {
			if (in_format && nr)
				common = false; /* the blank line after the common fields */
		} else if (!in_format && starts_with(s, "name: ") && !f->name) {
			f->name = pool_strndup(&p->pool, s + 6, len - 6);
			if (!f->name)
				return oom(ps->err);
			ps->what = f->name;
		} else if (!in_format && starts_with(s, "ID: ")) {
			char *e;
			long id = strtol(s + 4, &e, 10);

			if (e != end || e == s + 4 || id < 0 || id > INT32_MAX)
				return perr(ps, "bad ID '%.*s'", (int)(len - 4), s + 4);
			p->ev.id = (int)id;
		} else if (!in_format && len == 7 && starts_with(s, "format:")) {
			if (!f->name)
				return perr(ps, "format: before name:");
			in_format = true;
		} else {
			return perr(ps, "unexpected '%.*s'", (int)(len > 60 ? 60 : len), s);
		}
		s = next;
	}
	if (!f->name || !*f->name)
		return perr(ps, "no name: line");
	if (!in_format)
		return perr(ps, "no format: line");
	if (!f->print_fmt)
		return perr(ps, "no print fmt: line");
	f->fields = fields;
	f->nr_fields = nr;
	for (unsigned i = 0; i < nr; i++)
		if (fields[i].offset + fields[i].size > f->rec_size)
			f->rec_size = fields[i].offset + fields[i].size;
	return 0;
}

int utrace_event_format_parse(const char *system, const char *text,
			      struct utrace_event_format **out, struct utrace_error *err)
{
	struct ef_parser ps = {.err = err};
	struct ef_parsed *p;
	int ret;

	*out = NULL;
	if (!text)
		return utrace_error_set(err, -EINVAL, "event format: no text");
	p = calloc(1, sizeof(*p));
	if (!p)
		return oom(err);
	p->ev.id = -1;
	if (!system)
		system = "";
	p->ev.f.system = pool_strndup(&p->pool, system, strlen(system));
	ret = p->ev.f.system ? parse_lines(&ps, p, text) : oom(err);
	if (ret < 0) {
		utrace_event_format_free(&p->ev.f);
		return ret;
	}
	*out = &p->ev.f;
	return 0;
}

void utrace_event_format_free(struct utrace_event_format *f)
{
	struct ef_parsed *p = (struct ef_parsed *)f;

	if (!p)
		return;
	pool_free(&p->pool);
	free(p);
}
