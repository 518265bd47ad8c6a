/* SPDX-License-Identifier: MIT */
/*
 * bt_dwarf.c - a uprobe's arguments by name through the binary's DWARF,
 * as bpftrace 0.17 takes them: `args->NAME` is the function's parameter
 * NAME, read where the calling convention puts it at the entry (the
 * integer argument registers in order, System V), as wide and as signed
 * as its type; `-lv` lists each function's parameters ("    int* n").
 * The function's signature is lib/probes' (utrace_dwarf_func_sig).
 * `args.NAME`, the spelling of later bpftrace versions, is taken too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_check.h"
#include "lib/bt/bt_dwarf.h"
#include "lib/bt/bt_run_internal.h"
#include "lib/bt/bt_types.h"
#include "lib/elf/symtab.h"
#include "lib/probes/dwarf.h"

/* The DWARF of target and the vaddr of func (a glob: its first match). */
static int open_func(const char *target, const char *func, struct utrace_dwarf **d,
		     uint64_t *vaddr)
{
	struct utrace_error err = {0};
	struct utrace_symtab *tab = NULL;
	char **funcs = NULL;
	size_t n = 0;
	int ret = bt_resolve_funcs(target, func, &funcs, &n);

	*d = NULL;
	if (!ret && !n)
		ret = -ENOENT;
	if (!ret)
		ret = utrace_symtab_load(target, &tab, &err);
	if (!ret)
		ret = utrace_dwarf_open(target, d, &err);
	for (size_t i = 0; !ret && i < utrace_symtab_count(tab); i++) {
		const struct utrace_sym *s = utrace_symtab_get(tab, i);

		if (!strcmp(s->name, funcs[0])) {
			*vaddr = s->vaddr;
			break;
		}
		if (i + 1 == utrace_symtab_count(tab))
			ret = -ENOENT;
	}
	for (size_t i = 0; i < n; i++)
		free(funcs[i]);
	free(funcs);
	if (tab)
		utrace_symtab_free(tab);
	if (ret < 0) {
		utrace_dwarf_close(*d);
		*d = NULL;
	}
	return ret;
}

/* The signature of func in target. */
static int func_sig(const char *target, const char *func, struct utrace_dwarf_sig *sig)
{
	struct utrace_dwarf *d;
	uint64_t vaddr = 0;
	int ret = open_func(target, func, &d, &vaddr);

	if (!ret)
		ret = utrace_dwarf_func_sig(d, vaddr, sig);
	utrace_dwarf_close(d);
	return ret;
}

/* Parameter name's argument register, size and kind; -ENOENT if the
 * function has no such parameter in an integer register. */
static int param_reg(const struct utrace_dwarf_sig *sig, const char *name, unsigned *reg,
		     unsigned *size, char *kind)
{
	unsigned r = sig->ret_kind == 'a' && sig->ret_size > 16;

	for (unsigned i = 0; i < sig->nparams; i++) {
		char k = sig->param[i].kind;
		unsigned sz = sig->param[i].size;

		if (!strcmp(sig->param[i].name, name)) {
			if (k == 'f' || k == 'a' || r >= 6)
				return -ENOENT;
			*reg = r;
			*size = sz && sz < 8 ? sz : 8;
			*kind = k;
			return 0;
		}
		if (k != 'f' && !(k == 'a' && (sz > 16 || !sz)))
			r += k == 'a' ? (sz + 7) / 8 : 1;
	}
	return -ENOENT;
}

/* The fetch-arg text of expr at the entry (vaddr), without "NAME=". */
static char *entry_fetch(struct utrace_dwarf *d, uint64_t vaddr, const char *expr,
			 struct utrace_error *err)
{
	char *out = NULL, *eq;

	if (utrace_dwarf_fetcharg(d, vaddr, false, expr, 1, &out, err) < 0)
		return NULL;
	eq = strchr(out, '=');
	memmove(out, eq ? eq + 1 : out, strlen(eq ? eq + 1 : out) + 1);
	return out;
}

/* The member's fetch-arg at the function's entry, where bpftrace reads
 * it: the DWARF location of its parameter (a stack slot until the
 * prologue has stored it) replaced by the parameter's argument register. */
static char *member_fetch(struct utrace_dwarf *d, uint64_t entry, const char *expr,
			  const char *reg, struct utrace_error *err)
{
	static const char *const regs[6] = {"%di", "%si", "%dx", "%cx", "%r8", "%r9"};
	size_t plen = strcspn(expr, "-.[:");
	char *param = strndup(expr, plen), *base = NULL, *m = NULL, *at, *out = NULL;
	unsigned r = (unsigned)(reg[0] - '0');

	if (param && (base = entry_fetch(d, entry, param, err)) && (m = entry_fetch(d, entry, expr, err))) {
		char *colon = strrchr(base, ':');

		if (colon)
			*colon = 0;
		at = base[0] == '%' ? NULL : strstr(m, base);
		if (!at || r >= 6)
			out = strdup(m);
		else if (asprintf(&out, "%.*s%s%s", (int)(at - m), m, regs[r], at + strlen(base)) < 0)
			out = NULL;
	}
	free(param);
	free(base);
	free(m);
	return out;
}

/* An array member of integers (fetch's type "s32[3]"): a record, its C
 * type an array of them, printed as bpftrace prints one ("[1,2,3]");
 * n is left an int if the type is no such array.  0, or -ENOMEM. */
static int array_record(struct bt_program *p, struct bt_node *n, const char *fetch)
{
	const char *type = strrchr(fetch, ':');
	unsigned bits = 0, count = 0, elem, t;
	char sign = 0, close = 0;

	if (!type || sscanf(type + 1, "%c%u[%u%c", &sign, &bits, &count, &close) != 4 ||
	    close != ']' || (sign != 's' && sign != 'u' && sign != 'x') || !count ||
	    (bits != 8 && bits != 16 && bits != 32 && bits != 64))
		return 0;
	if (!(elem = bt_ctype_int(p, bits / 8, sign == 's', false)) ||
	    !(t = bt_ctype_array(p, elem, count)))
		return -ENOMEM;
	n->type = BT_T_RECORD;
	n->ctype = t;
	n->size = bits / 8 * count;
	return 0;
}

/* args->p->member: an extra fetch-arg of the probe (n->a's text), read
 * at the entry from the parameter's register through the member offsets
 * DWARF gives; a char array is a string. */
static int check_member(struct bt_checker *ck, struct bt_node *n, const char *expr)
{
	const struct bt_attach *ap = &ck->probe->aps[0];
	size_t plen = strcspn(expr, "-.[:");
	struct utrace_dwarf_sig sig;
	struct utrace_dwarf *d = NULL;
	uint64_t entry = 0;
	unsigned reg = 6, size;
	char kind, *param = strndup(expr, plen), *fetch = NULL, *str = NULL, r[2] = {'6', 0};
	bool array;

	if (param && !func_sig(ap->target, ap->func, &sig) && !param_reg(&sig, param, &reg, &size, &kind))
		r[0] = (char)('0' + reg);
	free(param);
	if (open_func(ap->target, ap->func, &d, &entry) < 0 ||
	    !(fetch = member_fetch(d, entry, expr, r, ck->err))) {
		utrace_dwarf_close(d);
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_DWARF_PARAM, expr);
	}
	array = strchr(strrchr(fetch, ':') ? strrchr(fetch, ':') : fetch, '[') != NULL;
	n->type = BT_T_INT;
	n->slot = -1;
	n->ival = 0;
	if (array && asprintf(&str, "%s:string", expr) > 0) {
		char *sf = member_fetch(d, entry, str, r, ck->err);

		if (sf) {
			free(fetch);
			fetch = sf;
			n->type = BT_T_STR;
			n->size = 64;
			n->ival = 0x200;
		}
	}
	free(str);
	utrace_dwarf_close(d);
	if (array && n->type == BT_T_INT && array_record(ck->p, n, fetch) < 0) {
		free(fetch);
		return utrace_error_set(ck->err, -ENOMEM, "out of memory");
	}
	if (array && n->type == BT_T_INT) {
		free(fetch);
		return utrace_error_set(ck->err, -EINVAL,
					"%s:%u:%u: an array member (%s) is not supported by utrace bt "
					"yet", ck->p->name, n->loc.line, n->loc.col, n->str);
	}
	if (!(n->a = calloc(1, sizeof(*n->a)))) {
		free(fetch);
		return utrace_error_set(ck->err, -ENOMEM, "out of memory");
	}
	n->a->kind = BT_N_STR;
	n->a->str = fetch;
	return 0;
}

/* A pointer parameter's C type from its type's name ("int*"), so that
 * `*(args->n)` reads what it points to (bt_types.h); 0 if none. */
static unsigned param_ctype(struct bt_program *p, const struct utrace_dwarf_sig *sig,
			    const char *name)
{
	struct utrace_error err = {0};
	struct bt_lexer lx;
	struct bt_token t = {0};
	unsigned type = 0;

	for (unsigned i = 0; i < sig->nparams; i++) {
		if (strcmp(sig->param[i].name, name) || !strchr(sig->param[i].type, '*'))
			continue;
		bt_lex_init(&lx, sig->param[i].type);
		lx.top = false;
		if (bt_lex_next(&lx, &t) < 0 || !bt_ctype_starts(&t) ||
		    bt_ctype_parse_name(p, &lx, &t, &type, &err) < 0 || t.kind != BT_TK_EOF)
			type = 0;
		free(t.sval);
		break;
	}
	return bt_ctype(p, type) && bt_ctype(p, type)->kind == BT_C_PTR ? type : 0;
}

int bt_dwarf_check_arg(struct bt_checker *ck, struct bt_node *n)
{
	const struct bt_probe *pr = ck->probe;
	const char *name = n->str + (n->str[4] == '.' ? 5 : 6);
	struct utrace_dwarf_sig sig;
	unsigned reg, size;
	char kind;

	for (unsigned i = 0; i < pr->naps; i++)
		if (pr->aps[i].type != BT_P_UPROBE)
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_UNKNOWN_IDENT, n->str);
	if (strstr(name, "->") || strchr(name, '.'))
		return check_member(ck, n, name);
	if (func_sig(pr->aps[0].target, pr->aps[0].func, &sig) < 0 ||
	    param_reg(&sig, name, &reg, &size, &kind) < 0)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_DWARF_PARAM, name);
	n->type = BT_T_INT;
	n->slot = (int)reg;
	n->ival = (int64_t)(size | (kind == 's' ? 0x100u : 0));
	n->ctype = param_ctype(ck->p, &sig, name);
	return 0;
}

/* The definitions text (utrace_dwarf_struct_def) into p's C types. */
static int parse_defs(struct bt_program *p, const char *text)
{
	struct utrace_error err = {0};
	struct bt_lexer lx;
	struct bt_token t = {0};
	int ret;

	bt_lex_init(&lx, text);
	ret = bt_lex_next(&lx, &t);
	while (!ret && t.kind == BT_TK_ATTACH && t.len == 6 && !memcmp(t.start, "struct", 6))
		ret = bt_ctype_parse_def(p, &lx, &t, &err);
	free(t.sval);
	return ret < 0 ? ret : t.kind == BT_TK_EOF ? 0 : -EINVAL;
}

int bt_dwarf_struct(struct bt_program *p, const struct bt_probe *pr, unsigned t)
{
	const struct bt_ctype *c = bt_ctype(p, t);
	struct utrace_error err = {0};
	struct utrace_dwarf *d = NULL;
	char *name, *text = NULL;
	int ret;

	if (!c || c->kind != BT_C_STRUCT || c->defined || !c->name || !pr || !pr->naps ||
	    (pr->aps[0].type != BT_P_UPROBE && pr->aps[0].type != BT_P_URETPROBE))
		return -ENOENT;
	if (!(name = strdup(c->name)))
		return -ENOMEM;
	ret = utrace_dwarf_open(pr->aps[0].target, &d, &err);
	if (!ret)
		ret = utrace_dwarf_struct_def(d, name, &text);
	if (!ret) {
		const char *src = p->src;

		p->src = text; /* (its errors, none expected, would quote it) */
		ret = parse_defs(p, text);
		p->src = src;
	}
	utrace_dwarf_close(d);
	free(text);
	free(name);
	return ret;
}

void bt_dwarf_list(const char *target, const char *func, FILE *out)
{
	struct utrace_dwarf_sig sig;

	if (func_sig(target, func, &sig) < 0)
		return;
	for (unsigned i = 0; i < sig.nparams; i++)
		fprintf(out, "    %s %s\n", sig.param[i].type, sig.param[i].name);
}
