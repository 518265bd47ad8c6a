/* SPDX-License-Identifier: MIT */
/*
 * dwarf_struct.c - a struct's definition from a file's DWARF as C text
 * (API in lib/probes/dwarf.h), for tools that lay C structs out from
 * their own definitions (utrace bt's `(struct Foo *)arg0`, which bpftrace
 * 0.17 types through the binary's DWARF).
 *
 * Design: the first complete DW_TAG_structure_type of that name (the
 * compilation units in order), each member as a declaration in
 * fixed-width names: qualifiers and typedefs skipped down to the real
 * type, a base type as int8 ... uint64 (a one-byte character as char),
 * an enum as the integer of its size, a pointer as `struct X *` or
 * `T *` (void, a function, a union: uint8 *), an array with its
 * dimensions, a bitfield with its width, an embedded struct as `struct X`
 * with X's own definition before it.  The caller lays the text out with
 * natural alignment, as the compiler did (a packed struct would differ);
 * a union, a floating-point or an anonymous member is refused (-ENOTSUP).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/dwarf_internal.h"

#define DEPTH_MAX 8

struct sdef {
	struct utrace_dwarf *d;
	FILE *m;      /* the text being written */
	char *done[32]; /* the structs written already */
	unsigned ndone;
};

static int struct_text(struct sdef *s, Dwarf_Die *st, unsigned depth);

/* die's type with qualifiers and typedefs skipped; false if none (void). */
static bool real_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;
	int tag;

	do {
		if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, type))
			return false;
		die = type;
		tag = dwarf_tag(type);
	} while (tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
		 tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type || tag == DW_TAG_typedef);
	return true;
}

/* A base type or an enum: "char", "int32", "uint8"; -ENOTSUP otherwise. */
static int int_name(Dwarf_Die *t, char *buf, size_t size)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc = DW_ATE_signed, bytes = 0;
	int tag = dwarf_tag(t);

	if ((tag != DW_TAG_base_type && tag != DW_TAG_enumeration_type) ||
	    dwarf_formudata(dwarf_attr_integrate(t, DW_AT_byte_size, &attr), &bytes) != 0 ||
	    (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8))
		return -ENOTSUP;
	if (tag == DW_TAG_base_type &&
	    dwarf_formudata(dwarf_attr_integrate(t, DW_AT_encoding, &attr), &enc) != 0)
		return -ENOTSUP;
	if (enc == DW_ATE_float)
		return -ENOTSUP;
	if (bytes == 1 && (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char))
		snprintf(buf, size, "char");
	else
		snprintf(buf, size, "%sint%u",
			 enc == DW_ATE_signed || enc == DW_ATE_signed_char ? "" : "u",
			 (unsigned)bytes * 8);
	return 0;
}

/* The declaration's type part for die's type (its array dimensions into
 * dims): "int32", "struct Foo *", "uint8 **". */
static int type_text(struct sdef *s, Dwarf_Die *die, char *buf, size_t size, char *dims,
		     size_t dsize, unsigned depth)
{
	Dwarf_Die t, sub;
	size_t len;
	int tag, ret;

	if (!real_type(die, &t)) /* void: only behind a pointer */
		return snprintf(buf, size, "uint8") < 0 ? -ENOTSUP : 1;
	tag = dwarf_tag(&t);
	if (tag == DW_TAG_pointer_type) {
		if ((ret = type_text(s, &t, buf, size, NULL, 0, DEPTH_MAX)) < 0 || ret == 2)
			snprintf(buf, size, "uint8"); /* a function, a union ... */
		len = strlen(buf);
		snprintf(buf + len, size - len, " *");
		return 0;
	}
	if (tag == DW_TAG_array_type && dims) {
		if (dwarf_child(&t, &sub) == 0)
			do {
				Dwarf_Attribute a;
				Dwarf_Word n = 0, ub = 0;

				if (dwarf_tag(&sub) != DW_TAG_subrange_type)
					continue;
				if (dwarf_formudata(dwarf_attr_integrate(&sub, DW_AT_count, &a), &n) != 0 &&
				    dwarf_formudata(dwarf_attr_integrate(&sub, DW_AT_upper_bound, &a),
						    &ub) == 0)
					n = ub + 1;
				len = strlen(dims);
				snprintf(dims + len, dsize - len, "[%llu]", (unsigned long long)n);
			} while (dwarf_siblingof(&sub, &sub) == 0);
		return type_text(s, &t, buf, size, NULL, 0, depth);
	}
	if (tag == DW_TAG_structure_type) {
		const char *name = dwarf_diename(&t);

		if (!name)
			return 2;
		snprintf(buf, size, "struct %s", name);
		/* embedded (not behind a pointer): its layout is needed first */
		return depth < DEPTH_MAX ? struct_text(s, &t, depth + 1) : 0;
	}
	return int_name(&t, buf, size) < 0 ? 2 : 0;
}

static int member_text(struct sdef *s, Dwarf_Die *m, unsigned depth, FILE *out)
{
	char type[160], dims[64] = "";
	const char *name = dwarf_diename(m);
	Dwarf_Attribute a;
	Dwarf_Word bits = 0;
	int ret = type_text(s, m, type, sizeof(type), dims, sizeof(dims), depth);

	if (ret < 0)
		return ret;
	if (ret == 2 || !name) /* a union, a float, an anonymous member */
		return -ENOTSUP;
	fprintf(out, " %s %s%s", type, name, dims);
	if (dwarf_formudata(dwarf_attr_integrate(m, DW_AT_bit_size, &a), &bits) == 0)
		fprintf(out, " : %llu", (unsigned long long)bits);
	fprintf(out, ";");
	return 0;
}

/* struct st's definition, after those of the structs it embeds. */
static int struct_text(struct sdef *s, Dwarf_Die *st, unsigned depth)
{
	const char *name = dwarf_diename(st);
	char *body = NULL;
	size_t len = 0;
	Dwarf_Die m;
	FILE *out;
	int ret = 0;

	for (unsigned i = 0; name && i < s->ndone; i++)
		if (!strcmp(s->done[i], name))
			return 0;
	if (!name || s->ndone == 32 || !(s->done[s->ndone] = strdup(name)))
		return -ENOTSUP;
	s->ndone++;
	if (!(out = open_memstream(&body, &len)))
		return -ENOMEM;
	if (dwarf_child(st, &m) == 0)
		do {
			if (dwarf_tag(&m) == DW_TAG_member)
				ret = member_text(s, &m, depth, out);
		} while (!ret && dwarf_siblingof(&m, &m) == 0);
	fclose(out);
	if (!ret)
		fprintf(s->m, "struct %s {%s };\n", name, body ? body : "");
	free(body);
	return ret;
}

/* The first complete struct named name in the unit's top-level DIEs. */
static bool find_struct(struct utrace_dwarf *d, const char *name, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;

		if (dwarf_offdie(d->dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0)
			do {
				const char *n = dwarf_diename(&c);

				if (dwarf_tag(&c) == DW_TAG_structure_type && n && !strcmp(n, name) &&
				    !dwarf_hasattr(&c, DW_AT_declaration)) {
					*out = c;
					return true;
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		off = next;
	}
	return false;
}

int utrace_dwarf_struct_def(struct utrace_dwarf *d, const char *name, char **text)
{
	struct sdef s = {.d = d};
	size_t len = 0;
	Dwarf_Die st;
	int ret;

	*text = NULL;
	if (!find_struct(d, name, &st))
		return -ENOENT;
	if (!(s.m = open_memstream(text, &len)))
		return -ENOMEM;
	ret = struct_text(&s, &st, 0);
	fclose(s.m);
	for (unsigned i = 0; i < s.ndone; i++)
		free(s.done[i]);
	if (ret < 0) {
		free(*text);
		*text = NULL;
	}
	return ret;
}
