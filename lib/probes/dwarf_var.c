/* SPDX-License-Identifier: MIT */
/*
 * dwarf_var.c - a name expression (`count`, `p->next->len`, `s.f`,
 * `arr[2]`, `*ptr`, `buf:string`) turned into one of the kernel's
 * fetch-args, typed from DWARF (API in lib/probes/dwarf.h).
 *
 * Design: the expression is read left to right, carrying one "object": its
 * DWARF type and where it is (struct dw_loc: a register's value, or memory
 * at BASE+OFF where BASE is itself a fetch-arg giving an address).  Each
 * step is perf probe's convert_variable_fields():
 *   .f      the object is in memory: OFF += the member's offset;
 *   ->f     the object is a pointer: BASE = its value, OFF = the member's;
 *   [i]     an array in memory: OFF += i * size; a pointer: as ->;
 *   *       a pointer: BASE = its value, OFF = 0.
 * The value of an object in memory is the fetch-arg "+OFF(BASE)" (or
 * "@SYM+OFF" for a static one): one dereference per pointer followed, as
 * in the kernel's own syntax.  The type then says how to read it:
 * s/u by DWARF encoding and size, x64 for pointers, a bitfield as
 * b<bits>@<LSB offset>/<container bits> on its container (little endian:
 * DW_AT_data_bit_offset, or DWARF 2's DW_AT_bit_offset counted from the
 * most significant bit, both turned into the offset from the least
 * significant one), a whole array as TYPE[N], and :string as the string
 * at a char pointer's value or a char array's address.
 */
#include <ctype.h>
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/dwarf_internal.h"

#define FETCHARG_MAX 63 /* the kernel's MAX_ARGSTR_LEN */

struct obj {
	Dwarf_Die type; /* the object's type, qualifiers and typedefs peeled */
	bool has_type;
	struct dw_loc loc;
	int bit_size, bit_off; /* a bitfield member: bits and LSB offset in its container */
	const char *last;      /* the last member or variable name, perf's argument name */
	size_t last_len;
};

struct conv {
	struct utrace_dwarf *d;
	const char *arg;
	struct utrace_error *err;
	int base_col; /* 1-based column of the expression in arg */
};

static int fail(struct conv *c, int code, const char *at, const char *fmt, const char *what,
		size_t len)
{
	char detail[300];

	snprintf(detail, sizeof(detail), fmt, (int)len, what);
	return dw_fail(c->err, code, c->base_col + (int)(at - c->arg), "%s", detail);
}

bool utrace_dwarf_is_name_arg(const char *arg)
{
	const char *eq = strchr(arg, '='), *body = arg;

	if (eq) {
		for (const char *s = arg; s < eq; s++)
			if (!isalnum((unsigned char)*s) && *s != '_')
				return false;
		body = eq + 1;
	}
	while (*body == '*')
		body++;
	return isalpha((unsigned char)*body) || *body == '_';
}

static bool peel(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &t))
		return false;
	return dwarf_peel_type(&t, out) == 0;
}

/* The value of obj as a fetch-arg. */
static int value_text(const struct obj *o, char *buf, size_t size)
{
	if (!o->loc.in_mem)
		return snprintf(buf, size, "%s", o->loc.base);
	if (o->loc.base[0] == '@')
		return snprintf(buf, size, "%s%+" PRId64, o->loc.base, o->loc.off);
	return snprintf(buf, size, "%+" PRId64 "(%s)", o->loc.off, o->loc.base);
}

/* Follows a pointer: its value becomes the base, OFF = off. */
static int deref(struct conv *c, struct obj *o, int64_t off, const char *at, const char *name,
		 size_t len)
{
	char v[sizeof(o->loc.base)];
	int tag = dwarf_tag(&o->type);

	if (!o->has_type || (tag != DW_TAG_pointer_type && tag != DW_TAG_array_type))
		return fail(c, UTRACE_DWARF_ERR_NOT_POINTER, at, "'%.*s'", name, len);
	if (tag == DW_TAG_array_type) { /* arr->f: arr[0].f */
		if (!o->loc.in_mem)
			return fail(c, UTRACE_DWARF_ERR_IN_REGISTER, at, "'%.*s'", name, len);
	} else {
		if ((size_t)value_text(o, v, sizeof(v)) >= sizeof(v))
			return fail(c, UTRACE_DWARF_ERR_TOO_LONG, at, "'%.*s'", name, len);
		strcpy(o->loc.base, v);
		o->loc.in_mem = true;
		o->loc.off = 0;
	}
	o->loc.off += off;
	o->has_type = peel(&o->type, &o->type);
	return 0;
}

static int64_t member_offset(Dwarf_Die *m, Dwarf_Die *mtype, struct obj *o)
{
	Dwarf_Attribute attr;
	Dwarf_Word w = 0, bo;
	int bits = dwarf_bitsize(m), size = dwarf_bytesize(mtype);

	o->bit_size = o->bit_off = 0;
	if (bits > 0 && size > 0) {
		if (dwarf_attr(m, DW_AT_data_bit_offset, &attr) &&
		    dwarf_formudata(&attr, &w) == 0) {
			uint64_t byte = w / ((uint64_t)size * 8) * (uint64_t)size;

			o->bit_off = (int)(w - byte * 8);
			if (o->bit_off + bits > size * 8) /* straddles two units */
				return -1;
			o->bit_size = bits;
			return (int64_t)byte;
		}
		if (dwarf_attr(m, DW_AT_bit_offset, &attr) && dwarf_formudata(&attr, &bo) == 0) {
			o->bit_size = bits;
			o->bit_off = size * 8 - (int)bo - bits; /* counted from the MSB */
		}
	}
	if (dwarf_attr(m, DW_AT_data_member_location, &attr) && dwarf_formudata(&attr, &w) == 0)
		return (int64_t)w;
	return dwarf_attr(m, DW_AT_data_member_location, &attr) ? -1 : 0;
}

/* Member name of the struct/union type st, anonymous members searched too;
 * its offset added to *off. */
static bool find_member(Dwarf_Die *st, const char *name, size_t len, Dwarf_Die *out, int64_t *off,
			struct obj *o)
{
	Dwarf_Die m, mt;

	if (dwarf_child(st, &m) != 0)
		return false;
	do {
		const char *mn = dwarf_diename(&m);
		int64_t mo;

		if (dwarf_tag(&m) != DW_TAG_member || !peel(&m, &mt))
			continue;
		mo = member_offset(&m, &mt, o);
		if (mo < 0)
			continue;
		if (mn && strlen(mn) == len && !strncmp(mn, name, len)) {
			*out = m;
			*off += mo;
			return true;
		}
		if (!mn && (dwarf_tag(&mt) == DW_TAG_structure_type ||
			    dwarf_tag(&mt) == DW_TAG_union_type)) {
			int64_t inner = *off + mo;

			if (find_member(&mt, name, len, out, &inner, o)) {
				*off = inner;
				return true;
			}
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

/* obj.f (arrow: obj->f) with the name at s[0..len). */
static int member(struct conv *c, struct obj *o, bool arrow, const char *s, size_t len)
{
	Dwarf_Die m;
	int64_t off = 0;
	int tag = o->has_type ? dwarf_tag(&o->type) : 0;

	if (arrow) {
		if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type)
			return fail(c, UTRACE_DWARF_ERR_NEED_DOT, s - 2, "'%.*s'", o->last,
				    o->last_len);
		if (tag != DW_TAG_pointer_type)
			return fail(c, UTRACE_DWARF_ERR_NOT_POINTER, s - 2, "'%.*s'", o->last,
				    o->last_len);
		if (deref(c, o, 0, s - 2, o->last, o->last_len) < 0)
			return -EINVAL;
		tag = o->has_type ? dwarf_tag(&o->type) : 0;
	} else if (tag == DW_TAG_pointer_type) {
		return fail(c, UTRACE_DWARF_ERR_NEED_ARROW, s - 1, "'%.*s'", o->last, o->last_len);
	}
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
		return fail(c, UTRACE_DWARF_ERR_NOT_STRUCT, s - (arrow ? 2 : 1), "'%.*s'", o->last,
			    o->last_len);
	if (!find_member(&o->type, s, len, &m, &off, o))
		return fail(c, UTRACE_DWARF_ERR_NO_MEMBER, s, "'%.*s'", s, len);
	if (!o->loc.in_mem)
		return fail(c, UTRACE_DWARF_ERR_IN_REGISTER, s, "'%.*s'", o->last, o->last_len);
	o->loc.off += off;
	o->has_type = peel(&m, &o->type);
	o->last = s;
	o->last_len = len;
	return 0;
}

/* obj[idx] at s ('['). */
static int subscript(struct conv *c, struct obj *o, const char *s, long idx)
{
	int tag = o->has_type ? dwarf_tag(&o->type) : 0;
	Dwarf_Die el;
	int size;

	if ((tag != DW_TAG_array_type && tag != DW_TAG_pointer_type) || !peel(&o->type, &el))
		return fail(c, UTRACE_DWARF_ERR_NOT_ARRAY, s, "'%.*s'", o->last, o->last_len);
	size = dwarf_bytesize(&el);
	if (size <= 0)
		return fail(c, UTRACE_DWARF_ERR_BAD_TYPE, s, "'%.*s'", o->last, o->last_len);
	if (tag == DW_TAG_array_type && !o->loc.in_mem)
		return fail(c, UTRACE_DWARF_ERR_IN_REGISTER, s, "'%.*s'", o->last, o->last_len);
	return deref(c, o, (int64_t)idx * size, s, o->last, o->last_len);
}

/* Element count of an array type (first dimension; 0 if unknown). */
static long array_len(Dwarf_Die *arr)
{
	Dwarf_Die sub;
	Dwarf_Attribute attr;
	Dwarf_Word v;

	if (dwarf_child(arr, &sub) != 0 || dwarf_tag(&sub) != DW_TAG_subrange_type)
		return 0;
	if (dwarf_attr(&sub, DW_AT_count, &attr) && dwarf_formudata(&attr, &v) == 0)
		return (long)v;
	if (dwarf_attr(&sub, DW_AT_upper_bound, &attr) && dwarf_formudata(&attr, &v) == 0)
		return (long)v + 1;
	return 0;
}

/* The kernel type of a scalar type; false if not a scalar. */
static bool scalar_type(Dwarf_Die *t, char *buf, size_t size)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc = DW_ATE_unsigned;
	int bytes = dwarf_bytesize(t), tag = dwarf_tag(t);
	char sign = 'u';

	if (tag == DW_TAG_pointer_type) {
		snprintf(buf, size, "x64");
		return true;
	}
	if (tag != DW_TAG_base_type && tag != DW_TAG_enumeration_type)
		return false;
	if (tag == DW_TAG_base_type && dwarf_attr(t, DW_AT_encoding, &attr))
		dwarf_formudata(&attr, &enc);
	if (tag == DW_TAG_enumeration_type) {
		Dwarf_Die under;

		if (peel(t, &under) && dwarf_attr(&under, DW_AT_encoding, &attr))
			dwarf_formudata(&attr, &enc);
	}
	if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
		sign = 's';
	else if (enc == DW_ATE_float)
		sign = 'x'; /* the raw bits: the kernel prints no floats */
	if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
		return false;
	snprintf(buf, size, "%c%d", sign, bytes * 8);
	return true;
}

static bool is_char(Dwarf_Die *t)
{
	return dwarf_tag(t) == DW_TAG_base_type && dwarf_bytesize(t) == 1;
}

/* The fetch-arg and type of the final object into out. */
static int finish(struct conv *c, struct obj *o, const char *type, const char *at, char *fetch,
		  size_t fsize, char *tbuf, size_t tsize)
{
	int tag = o->has_type ? dwarf_tag(&o->type) : 0;
	Dwarf_Die el;
	char v[sizeof(o->loc.base) + 32];

	if (value_text(o, v, sizeof(v)) >= (int)sizeof(v))
		return fail(c, UTRACE_DWARF_ERR_TOO_LONG, at, "'%.*s'", o->last, o->last_len);
	if (type && !strcmp(type, "string")) {
		bool ok = tag && peel(&o->type, &el) && is_char(&el);

		if (!ok || (tag != DW_TAG_pointer_type && tag != DW_TAG_array_type))
			return fail(c, UTRACE_DWARF_ERR_NOT_STRING, at, "'%.*s'", o->last,
				    o->last_len);
		if (tag == DW_TAG_array_type) /* the string at the array's address */
			snprintf(fetch, fsize, "%s", v);
		else
			snprintf(fetch, fsize, "+0(%s)", v);
		snprintf(tbuf, tsize, "string");
		return 0;
	}
	snprintf(fetch, fsize, "%s", v);
	if (type) {
		snprintf(tbuf, tsize, "%s", type);
		return 0;
	}
	if (o->bit_size) {
		snprintf(tbuf, tsize, "b%d@%d/%d", o->bit_size, o->bit_off,
			 dwarf_bytesize(&o->type) * 8);
		return 0;
	}
	if (tag == DW_TAG_array_type && o->loc.in_mem && peel(&o->type, &el) &&
	    scalar_type(&el, tbuf, tsize) && array_len(&o->type) > 0) {
		size_t l = strlen(tbuf);

		snprintf(tbuf + l, tsize - l, "[%ld]",
			 array_len(&o->type) > 64 ? 64 : array_len(&o->type));
		return 0;
	}
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type)
		return fail(c, UTRACE_DWARF_ERR_WHOLE_STRUCT, at, "'%.*s'", o->last, o->last_len);
	if (!tag || !scalar_type(&o->type, tbuf, tsize))
		return fail(c, UTRACE_DWARF_ERR_BAD_TYPE, at, "'%.*s'", o->last, o->last_len);
	return 0;
}

static size_t ident_len(const char *s)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return n;
}

/* The variable at the start of expr (after its stars). */
static int lookup_var(struct conv *c, uint64_t vaddr, const char *s, size_t len, struct obj *o)
{
	Dwarf_Die *scopes = NULL, var, *func;
	char name[128];
	int n, idx, ret;

	snprintf(name, sizeof(name), "%.*s", (int)len, s);
	n = dw_scopes(c->d, vaddr, &scopes);
	func = dw_scope_func(scopes, n);
	if (!func) {
		free(scopes);
		return dw_fail(c->err, UTRACE_DWARF_ERR_NO_SCOPE, c->base_col, "0x%" PRIx64, vaddr);
	}
	idx = dwarf_getscopevar(scopes, n, name, 0, NULL, 0, 0, &var);
	if (idx < 0) {
		ret = fail(c, UTRACE_DWARF_ERR_NO_VAR, s, "'%.*s'", s, len);
		goto out;
	}
	ret = dw_var_location(c->d, &var, func, vaddr, &o->loc);
	if (ret) {
		ret = fail(c, ret, s, "'%.*s'", s, len);
		goto out;
	}
	o->has_type = peel(&var, &o->type);
	o->last = s;
	o->last_len = len;
out:
	free(scopes);
	return ret;
}

/* Parses expr (up to end) into o. */
static int convert(struct conv *c, uint64_t vaddr, const char *expr, const char *end, struct obj *o)
{
	const char *s = expr;
	unsigned stars = 0;
	size_t len;

	while (*s == '*')
		s++, stars++;
	len = ident_len(s);
	if (!len)
		return fail(c, UTRACE_DWARF_ERR_BAD_EXPR, s, "%.*s", "expected a name", 15);
	if (lookup_var(c, vaddr, s, len, o) < 0)
		return -EINVAL;
	s += len;
	while (s < end) {
		bool arrow = !strncmp(s, "->", 2);
		char *e;
		long idx;

		if (arrow || *s == '.') {
			s += arrow ? 2 : 1;
			len = ident_len(s);
			if (!len)
				return fail(c, UTRACE_DWARF_ERR_BAD_EXPR, s, "%.*s",
					    "expected a member name", 22);
			if (member(c, o, arrow, s, len) < 0)
				return -EINVAL;
			s += len;
		} else if (*s == '[') {
			idx = strtol(s + 1, &e, 0);
			if (e == s + 1 || *e != ']' || idx < 0)
				return fail(c, UTRACE_DWARF_ERR_BAD_EXPR, s + 1, "%.*s",
					    "expected an index", 17);
			if (subscript(c, o, s, idx) < 0)
				return -EINVAL;
			s = e + 1;
		} else {
			return fail(c, UTRACE_DWARF_ERR_BAD_EXPR, s, "%.*s",
				    "expected '->', '.', '[' or ':'", 30);
		}
	}
	for (; stars; stars--)
		if (deref(c, o, 0, expr, o->last, o->last_len) < 0)
			return -EINVAL;
	return 0;
}

int utrace_dwarf_fetcharg(struct utrace_dwarf *d, uint64_t vaddr, bool is_return, const char *arg,
			  int col, char **out, struct utrace_error *err)
{
	const char *eq = strchr(arg, '='), *expr = eq ? eq + 1 : arg, *colon = strchr(expr, ':');
	const char *end = colon ? colon : expr + strlen(expr), *type = colon ? colon + 1 : NULL;
	struct conv c = {.d = d, .arg = arg, .err = err, .base_col = col};
	struct obj o = {0};
	char fetch[256], tbuf[32], name[64];

	*out = NULL;
	if (is_return)
		return dw_fail(err, UTRACE_DWARF_ERR_ON_RETURN, col + (int)(expr - arg), "'%s'",
			       expr);
	if (convert(&c, vaddr, expr, end, &o) < 0)
		return -EINVAL;
	if (finish(&c, &o, type, expr, fetch, sizeof(fetch), tbuf, sizeof(tbuf)) < 0)
		return -EINVAL;
	if (strlen(fetch) > FETCHARG_MAX)
		return dw_fail(err, UTRACE_DWARF_ERR_TOO_LONG, col + (int)(expr - arg), "%s",
			       fetch);
	/* perf's names: the last member's, else the expression's with _ for : */
	if (eq)
		snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
	else if (o.last != expr + strspn(expr, "*"))
		snprintf(name, sizeof(name), "%.*s", (int)o.last_len, o.last);
	else
		snprintf(name, sizeof(name), "%.*s%s%s", (int)o.last_len, o.last, type ? "_" : "",
			 type ? type : "");
	for (char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
	if (asprintf(out, "%s=%s:%s", name, fetch, tbuf) < 0) {
		*out = NULL;
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

int utrace_dwarf_rewrite_args(const char *path, uint64_t *vaddr, bool entry, bool is_return,
			      char **args, const int *col, unsigned n, struct utrace_error *err)
{
	struct utrace_dwarf *d = NULL;
	int done = 0, ret = 0;

	for (unsigned i = 0; i < n && ret == 0; i++) {
		char *out;

		if (!utrace_dwarf_is_name_arg(args[i]))
			continue;
		if (!d) {
			ret = utrace_dwarf_open(path, &d, err);
			if (ret == 0 && entry && !is_return)
				utrace_dwarf_skip_prologue(d, *vaddr, vaddr);
			if (ret < 0)
				break;
		}
		ret = utrace_dwarf_fetcharg(d, *vaddr, is_return, args[i], col[i], &out, err);
		if (ret == 0) {
			free(args[i]);
			args[i] = out;
			done++;
		}
	}
	utrace_dwarf_close(d);
	return ret < 0 ? ret : done;
}
