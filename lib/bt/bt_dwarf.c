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
#include "lib/elf/symtab.h"
#include "lib/probes/dwarf.h"

/* The signature of func in target (a glob: its first match). */
static int func_sig(const char *target, const char *func, struct utrace_dwarf_sig *sig)
{
	struct utrace_error err = {0};
	struct utrace_symtab *tab = NULL;
	struct utrace_dwarf *d = NULL;
	char **funcs = NULL;
	size_t n = 0;
	int ret = bt_resolve_funcs(target, func, &funcs, &n);

	if (!ret && !n)
		ret = -ENOENT;
	if (!ret)
		ret = utrace_symtab_load(target, &tab, &err);
	if (!ret)
		ret = utrace_dwarf_open(target, &d, &err);
	for (size_t i = 0; !ret && i < utrace_symtab_count(tab); i++) {
		const struct utrace_sym *s = utrace_symtab_get(tab, i);

		if (!strcmp(s->name, funcs[0])) {
			ret = utrace_dwarf_func_sig(d, s->vaddr, sig);
			break;
		}
		if (i + 1 == utrace_symtab_count(tab))
			ret = -ENOENT;
	}
	for (size_t i = 0; i < n; i++)
		free(funcs[i]);
	free(funcs);
	utrace_dwarf_close(d);
	if (tab)
		utrace_symtab_free(tab);
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
		return utrace_error_set(ck->err, -EINVAL,
					"%s:%u:%u: a member of an argument (%s) is not supported "
					"by utrace bt yet",
					ck->p->name, n->loc.line, n->loc.col, n->str);
	if (func_sig(pr->aps[0].target, pr->aps[0].func, &sig) < 0 ||
	    param_reg(&sig, name, &reg, &size, &kind) < 0)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_DWARF_PARAM, name);
	n->type = BT_T_INT;
	n->slot = (int)reg;
	n->ival = (int64_t)(size | (kind == 's' ? 0x100u : 0));
	return 0;
}

void bt_dwarf_list(const char *target, const char *func, FILE *out)
{
	struct utrace_dwarf_sig sig;

	if (func_sig(target, func, &sig) < 0)
		return;
	for (unsigned i = 0; i < sig.nparams; i++)
		fprintf(out, "    %s %s\n", sig.param[i].type, sig.param[i].name);
}
