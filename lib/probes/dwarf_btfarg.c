/* SPDX-License-Identifier: MIT */
/*
 * dwarf_btfarg.c - the kernel's BTF arguments (kernel/trace/trace_probe.c:
 * parse_btf_arg, parse_btf_field, fetch_type_from_btf_type,
 * check_prepare_btf_string_fetch) with a user program's DWARF standing
 * for the kernel's BTF (API in lib/probes/dwarf.h).
 *
 * Design: the kernel reads a function's prototype from BTF: its
 * parameters' names and types, and its return type.  Here the same comes
 * from the function's DWARF subprogram (the concrete DIE at its address,
 * the names and types through its abstract origin when it was also
 * inlined).  An argument is a parameter name, or $retval on a return,
 * then any number of "->field" and ".field": each "->" follows a pointer
 * (one dereference, as the kernel's FETCH_OP_DEREF), each ".field" after
 * it adds the member's offset to that same dereference.  The result is
 * one of the kernel's fetch-args in text, "+OFF(+OFF($argN))", that the
 * ordinary checker (lib/probes/uprobe_args.c) takes: $argN being the
 * parameter where the System V ABI puts it at the entry (its integer
 * register, counted over the parameters before it, as
 * utrace_dwarf_func_sig() counts them), which that checker turns into the
 * register (or the entry's register on a return).  Errors are the
 * kernel's (enum utrace_uprobe_err) at the kernel's offsets in the
 * argument.  The default type is the kernel's rule: a pointer x64, an
 * enum s32 (s64 if 8 bytes), an integer by its size and sign, a bitfield
 * b<bits>@<offset>/<container>, anything else the kernel's default x64;
 * ":string" on a char pointer reads the string it points to, on a char
 * array the array itself.
 */
#include <ctype.h>
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/dwarf_internal.h"
#include "lib/probes/uprobe.h"

struct utrace_dwarf_proto {
	struct utrace_dwarf *d;
	Dwarf_Die func;
	struct utrace_dwarf_sig sig;
	unsigned nparams;
	Dwarf_Die param[UTRACE_DWARF_SIG_MAX];
};

int utrace_dwarf_proto_open(const char *path, uint64_t vaddr, struct utrace_dwarf_proto **out)
{
	struct utrace_dwarf_proto *p = calloc(1, sizeof(*p));
	struct utrace_error err = {0};
	Dwarf_Die child;
	int ret;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	ret = utrace_dwarf_open(path, &p->d, &err);
	if (ret == 0 && (dw_addr_func(p->d, vaddr, &p->func) < 0 ||
			 utrace_dwarf_func_sig(p->d, vaddr, &p->sig) < 0))
		ret = -ENOENT;
	if (ret == 0 && dwarf_child(&p->func, &child) == 0) {
		do {
			if (dwarf_tag(&child) == DW_TAG_formal_parameter &&
			    p->nparams < UTRACE_DWARF_SIG_MAX)
				p->param[p->nparams++] = child;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (ret < 0) {
		utrace_dwarf_proto_free(p);
		return ret == -ENODATA || ret == -ENOENT ? ret : -ENODATA;
	}
	*out = p;
	return 0;
}

void utrace_dwarf_proto_free(struct utrace_dwarf_proto *p)
{
	if (!p)
		return;
	utrace_dwarf_close(p->d);
	free(p);
}

unsigned utrace_dwarf_proto_nparams(const struct utrace_dwarf_proto *p)
{
	return p->nparams;
}

const char *utrace_dwarf_proto_param(const struct utrace_dwarf_proto *p, unsigned i)
{
	Dwarf_Die die;
	const char *name;

	if (i >= p->nparams)
		return NULL;
	die = p->param[i];
	name = dwarf_diename(&die);
	return name && *name ? name : NULL;
}

int utrace_dwarf_proto_find(const struct utrace_dwarf_proto *p, const char *name, size_t len)
{
	for (unsigned i = 0; i < p->nparams; i++) {
		const char *n = utrace_dwarf_proto_param(p, i);

		if (n && strlen(n) == len && !strncmp(n, name, len))
			return (int)i;
	}
	return -1;
}

/* The type of a typed DIE, qualifiers and typedefs peeled (the kernel's
 * btf_type_skip_modifiers); false for void. */
static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &t))
		return false;
	return dwarf_peel_type(&t, out) == 0;
}

static bool is_aggregate(Dwarf_Die *t)
{
	int tag = dwarf_tag(t);

	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/* An 8-bit integer: what the kernel takes as a char for a string. */
static bool is_char(Dwarf_Die *t)
{
	return dwarf_tag(t) == DW_TAG_base_type && dwarf_bytesize(t) == 1;
}

/* The kernel's fetch_type_from_btf_type(), NULL for its default. */
static const char *kernel_type(Dwarf_Die *t)
{
	static const char *const st[] = {"s8", "s16", NULL, "s32", NULL, NULL, NULL, "s64"};
	static const char *const ut[] = {"u8", "u16", NULL, "u32", NULL, NULL, NULL, "u64"};
	Dwarf_Attribute attr;
	Dwarf_Word enc = DW_ATE_unsigned;
	int bytes = dwarf_bytesize(t);

	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
		return "x64";
	case DW_TAG_enumeration_type:
		return bytes == 8 ? "s64" : "s32";
	case DW_TAG_base_type:
		if (dwarf_attr(t, DW_AT_encoding, &attr))
			dwarf_formudata(&attr, &enc);
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float || bytes < 1 || bytes > 8)
			return NULL;
		return enc == DW_ATE_signed || enc == DW_ATE_signed_char ? st[bytes - 1]
									 : ut[bytes - 1];
	default:
		return NULL;
	}
}

/* Member name[0..len) of the aggregate st (anonymous members searched
 * too, as btf_find_struct_member): its DIE, *bits its bit offset from the
 * start of st, *bitsize its width if a bitfield (else 0). */
static bool find_member(Dwarf_Die *st, const char *name, size_t len, Dwarf_Die *out,
			uint64_t *bits, int *bitsize, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;
	Dwarf_Die m, mt;

	if (depth > 8 || dwarf_child(st, &m) != 0)
		return false;
	do {
		const char *mn = dwarf_diename(&m);
		uint64_t off = 0;
		int bs = dwarf_bitsize(&m), size;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		if (dwarf_attr(&m, DW_AT_data_bit_offset, &attr) && dwarf_formudata(&attr, &w) == 0)
			off = w;
		else if (dwarf_attr(&m, DW_AT_data_member_location, &attr) &&
			 dwarf_formudata(&attr, &w) == 0)
			off = w * 8;
		if (bs > 0 && dwarf_attr(&m, DW_AT_bit_offset, &attr) &&
		    dwarf_formudata(&attr, &w) == 0 && type_of(&m, &mt) &&
		    (size = dwarf_bytesize(&mt)) > 0)
			off += (uint64_t)size * 8 - w - (uint64_t)bs; /* DWARF 2: from the MSB */
		if (mn && strlen(mn) == len && !strncmp(mn, name, len)) {
			*out = m;
			*bits += off;
			*bitsize = bs > 0 ? bs : 0;
			return true;
		}
		if (!mn && type_of(&m, &mt) && is_aggregate(&mt)) {
			uint64_t inner = *bits + off;

			if (find_member(&mt, name, len, out, &inner, bitsize, depth + 1)) {
				*bits = inner;
				return true;
			}
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

/* One argument being converted: the fetch-arg text so far, the type of
 * its value, the kernel's ctx->offset. */
struct conv {
	char fetch[256];
	Dwarf_Die type;
	bool has_type;
	int bitsize, bitoff;
	int offset, code;
};

static int fail(struct conv *c, int code, int offset)
{
	c->code = code;
	c->offset = offset;
	return -1;
}

/* The kernel's split_next_field(): 1 for "->", 0 for "." or none, -1 for
 * a lone '-'; *next the field after it (NULL: none), *end where the
 * name ends. */
static int split_next(struct conv *c, const char *s, const char **end, const char **next)
{
	const char *f = strpbrk(s, ".-");

	*next = NULL;
	*end = f ? f : s + strlen(s);
	if (!f)
		return 0;
	if (f[0] == '-' && f[1] != '>')
		return fail(c, UTRACE_UPROBE_ERR_BAD_HYPHEN, c->offset + (int)(f - s));
	*next = f + (f[0] == '-' ? 2 : 1);
	return f[0] == '-';
}

/* parse_btf_field(): field (at offset c->offset of the argument) on the
 * pointer c->type. */
static int fields(struct conv *c, const char *field)
{
	char buf[sizeof(c->fetch)];
	const char *end, *next;
	Dwarf_Die st, m;
	int is_ptr;

	do {
		uint64_t bits = 0;

		if (!c->has_type || dwarf_tag(&c->type) != DW_TAG_pointer_type)
			return fail(c, UTRACE_UPROBE_ERR_NO_PTR_STRCT, c->offset);
		if (!type_of(&c->type, &st))
			return fail(c, UTRACE_UPROBE_ERR_BAD_BTF_TID, c->offset);
		do {
			is_ptr = split_next(c, field, &end, &next);
			if (is_ptr < 0)
				return -1;
			if (!is_aggregate(&st))
				return fail(c, UTRACE_UPROBE_ERR_BAD_BTF_TID, c->offset);
			if (!find_member(&st, field, (size_t)(end - field), &m, &bits, &c->bitsize,
					 0))
				return fail(c, UTRACE_UPROBE_ERR_NO_BTF_FIELD, c->offset);
			if (!type_of(&m, &st))
				return fail(c, UTRACE_UPROBE_ERR_BAD_BTF_TID, c->offset);
			if (next)
				c->offset += (int)(next - field);
			field = next;
		} while (!is_ptr && field);
		/* a bitfield is read from the whole unit of its type */
		if (c->bitsize && dwarf_bytesize(&st) > 0) {
			uint64_t unit = (uint64_t)dwarf_bytesize(&st) * 8;

			c->bitoff = (int)(bits % unit);
			bits -= (uint64_t)c->bitoff;
		}
		if ((size_t)snprintf(buf, sizeof(buf), "+%" PRIu64 "(%s)", bits / 8, c->fetch) >=
		    sizeof(buf))
			return fail(c, UTRACE_UPROBE_ERR_ARG_TRANSLATED_TOO_LONG, c->offset);
		strcpy(c->fetch, buf);
		c->type = st;
		c->has_type = true;
	} while (field);
	return 0;
}

/* The parameter i as the kernel's $argN at the entry: its integer
 * register (or stack slot) under the System V ABI. */
static int param_fetch(const struct utrace_dwarf_proto *p, unsigned i, struct conv *c)
{
	const struct utrace_dwarf_sig *s = &p->sig;
	unsigned slot = s->ret_kind == 'a' && s->ret_size > 16, j;
	bool all_int = !slot;
	char k = i < s->nparams ? s->param[i].kind : '?';

	if (k == 'a')
		return fail(c, UTRACE_UPROBE_ERR_NOSUP_DAT_ARG, 0);
	if (k == 'f' || k == '?')
		return fail(c, UTRACE_UPROBE_ERR_NOT_INT_ARG, 0);
	for (j = 0; j < i; j++) {
		char kj = s->param[j].kind;
		unsigned sz = s->param[j].size;

		all_int &= kj != 'f' && kj != 'a' && kj != '?';
		if (kj != 'f' && !(kj == 'a' && (sz > 16 || !sz)))
			slot += kj == 'a' ? (sz + 7) / 8 : 1;
	}
	/* past the sixth register, on the stack: in order only after
	 * integer parameters alone */
	if (slot >= 6 && !all_int)
		return fail(c, UTRACE_UPROBE_ERR_NOT_INT_ARG, 0);
	snprintf(c->fetch, sizeof(c->fetch), "$arg%u", slot + 1);
	return 0;
}

/* The type of the value and its string read: the end of
 * traceprobe_parse_probe_arg_body() with BTF. */
static int finish(struct conv *c, const char *type, char *out, size_t size)
{
	const char *kt = c->has_type ? kernel_type(&c->type) : NULL;
	Dwarf_Die el;
	int n;

	if (type && strstr(type, "string")) {
		int tag = c->has_type ? dwarf_tag(&c->type) : 0;
		bool chars = tag && type_of(&c->type, &el) && is_char(&el);

		if (chars && tag == DW_TAG_pointer_type) {
			char buf[sizeof(c->fetch)];

			if ((size_t)snprintf(buf, sizeof(buf), "+%s0(%s)", type[0] == 'u' ? "u" : "",
					     c->fetch) >= sizeof(buf))
				return fail(c, UTRACE_UPROBE_ERR_ARG_TRANSLATED_TOO_LONG, c->offset);
			strcpy(c->fetch, buf);
		} else if (!chars || tag != DW_TAG_array_type) {
			return fail(c, UTRACE_UPROBE_ERR_BAD_TYPE4STR, c->offset);
		}
	}
	if (type)
		n = snprintf(out, size, "%s:%s", c->fetch, type);
	else if (c->bitsize)
		n = snprintf(out, size, "%s:b%d@%d/%d", c->fetch, c->bitsize, c->bitoff,
			     dwarf_bytesize(&c->type) * 8);
	else
		n = snprintf(out, size, "%s:%s", c->fetch, kt ? kt : "x64");
	if (n < 0 || (size_t)n >= size)
		return fail(c, UTRACE_UPROBE_ERR_ARG_TRANSLATED_TOO_LONG, 0);
	return 0;
}

int utrace_dwarf_proto_fetcharg(const struct utrace_dwarf_proto *p, const char *body,
				bool is_return, char *out, size_t size, int *pos)
{
	const char *colon = strchr(body, ':'), *type = colon ? colon + 1 : NULL;
	char var[UTRACE_UPROBE_ARG_MAX + 1];
	const char *end, *field;
	struct conv c = {0};
	int is_ptr, i;

	snprintf(var, sizeof(var), "%.*s", colon ? (int)(colon - body) : (int)strlen(body), body);
	is_ptr = split_next(&c, var, &end, &field);
	if (is_ptr < 0)
		goto out;
	if (!is_ptr && field) { /* a dot-connected field on an argument */
		fail(&c, UTRACE_UPROBE_ERR_NOSUP_DAT_ARG, (int)(field - var));
		goto out;
	}
	if (is_return && !strncmp(var, "$retval", (size_t)(end - var)) && end - var == 7) {
		if (p->sig.ret_kind == 'v') {
			fail(&c, UTRACE_UPROBE_ERR_NO_RETVAL, 0);
			goto out;
		}
		Dwarf_Die func = p->func;

		strcpy(c.fetch, "$retval");
		c.has_type = type_of(&func, &c.type);
	} else {
		i = utrace_dwarf_proto_find(p, var, (size_t)(end - var));
		if (i < 0) {
			fail(&c, UTRACE_UPROBE_ERR_NO_BTFARG, 0);
			goto out;
		}
		Dwarf_Die die = p->param[i];

		if (param_fetch(p, (unsigned)i, &c) < 0)
			goto out;
		c.has_type = type_of(&die, &c.type);
	}
	if (field) {
		c.offset = (int)(field - var);
		if (fields(&c, field) < 0)
			goto out;
	}
	finish(&c, type, out, size);
out:
	*pos = c.offset;
	return c.code;
}
