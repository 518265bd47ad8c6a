/* SPDX-License-Identifier: MIT */
/*
 * bt_compile.c - a probe's predicate and action into the stack machine of
 * common/bt_prog.h, once, in the tool.  Expressions leave one value on the
 * stack; statements leave none.  `@m[k] op= v` and `@m[k]++` read and
 * write the element with its key built twice (KEY before MGET and before
 * MSET), so that a map read inside v cannot change the key written.
 * Branches (if, ?:, && and ||, the predicate) jump forward only; a while
 * loop's LOOP jumps back to its condition (a run stops after
 * UTRACE_BT_STEPS_MAX instructions, common/bt_prog.h).
 *
 * This file compiles a probe and lays its program out.  The files below
 * it, each calling only those after it (no call circle): bt_compile_stmt.c
 * (statements), bt_compile_expr.c (expressions), bt_compile_mem.c (reads
 * of memory), bt_compile_emit.c (the instructions, string constants and
 * formats).  bt_compile_mem.c reaches the expressions through c->ops.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_check.h"
#include "lib/bt/bt_compile_internal.h"

/* The header, the maps' descriptions, the instructions, the data. */
static int finish(struct comp *c, struct bt_code *out)
{
	const struct bt_program *p = c->p;
	size_t head = sizeof(struct utrace_bt_hdr) + p->nmaps * sizeof(struct utrace_bt_mapdesc);
	size_t len = head + c->n * sizeof(struct utrace_bt_insn) + c->ndata;
	uint8_t *b = calloc(1, len);
	struct utrace_bt_hdr *h = (struct utrace_bt_hdr *)b;
	struct utrace_bt_mapdesc *m = (struct utrace_bt_mapdesc *)(h + 1);

	if (!b)
		return -ENOMEM;
	*h = (struct utrace_bt_hdr){(uint32_t)len, UTRACE_BT_MAGIC, c->n, p->nmaps};
	for (unsigned i = 0; i < p->nmaps; i++) {
		const struct bt_mapdef *d = &p->maps[i];

		m[i] = (struct utrace_bt_mapdesc){.nkeys = d->nkeys, .agg = (uint32_t)d->agg,
						  .value_str = d->vtype == BT_T_TUPLE ||
								       d->vtype == BT_T_RECORD ? 2u
							       : d->vtype == BT_T_BUF ? 3u
							       : d->vtype == BT_T_STR &&
									 bt_is_timestamp(p, d->vctype)
								   ? 4u
			       : d->vtype == BT_T_STR ||
								       d->vtype == BT_T_USYM,
						  .lmin = d->lmin, .lmax = d->lmax, .lstep = d->lstep};
		for (unsigned k = 0; k < d->nkeys; k++)
			if (d->key_types[k] == BT_T_STR || d->key_types[k] == BT_T_USYM)
				m[i].key_str |= 1u << k;
			else if (d->key_types[k] == BT_T_BUF)
				m[i].key_str |= 1u << k | 1u << (16 + k);
			else if (d->key_types[k] == BT_T_RECORD || d->key_types[k] == BT_T_TUPLE)
				m[i].key_str |= 1u << k | 1u << (8 + k);
	}
	for (unsigned i = 0; i < c->n; i++)
		if (c->ins[i].op == UTRACE_BOP_SCONST)
			c->ins[i].imm += (int64_t)(head + c->n * sizeof(struct utrace_bt_insn));
	if (c->n) /* an empty action has no instructions, no data */
		memcpy(b + head, c->ins, c->n * sizeof(struct utrace_bt_insn));
	if (c->ndata)
		memcpy(b + head + c->n * sizeof(struct utrace_bt_insn), c->data, c->ndata);
	out->prog = b;
	out->len = (uint32_t)len;
	return utrace_bt_check(b, out->len) ? -EINVAL : 0;
}

int bt_compile(const struct bt_program *p, const struct bt_probe *pr, const struct bt_attach *ap,
	       const char *func, struct bt_formats *fmts, struct bt_code *out,
	       struct utrace_error *err)
{
	static const struct bt_comp_ops ops = {bt_comp_expr};
	struct comp c = {.ops = &ops, .p = p, .ap = ap, .func = func, .fmts = fmts, .err = err};
	unsigned j = UINT32_MAX;
	int ret;

	bt_comp_count_vars(&c, pr->body, pr->nbody);
	if (pr->pred) {
		bt_comp_expr(&c, pr->pred);
		j = bt_comp_emit(&c, UTRACE_BOP_JZ, 0, 0, 0);
	}
	bt_comp_stmts(&c, pr->body, pr->nbody);
	if (j != UINT32_MAX)
		bt_comp_patch(&c, j);
	ret = c.failed;
	if (!ret)
		ret = finish(&c, out);
	out->fields = c.fields;
	out->nfields = c.nfields;
	out->ftypes = c.ftypes;
	out->p = p;
	out->hit_reads = c.hit_reads;
	out->ustack = c.ustack;
	if (ret == -E2BIG || ret == -ENOMEM)
		utrace_error_set(err, ret, "%s", ret == -E2BIG ? "program too large" : "out of memory");
	else if (ret == -EINVAL && !err->msg[0])
		utrace_error_set(err, ret, "internal error: the compiled program does not check");
	free(c.ins);
	free(c.data);
	bt_comp_mem_free(&c);
	return ret;
}

void bt_formats_free(struct bt_formats *f)
{
	for (unsigned i = 0; i < f->n; i++)
		free(f->fmts[i]);
	free(f->fmts);
	free(f->stacks);
	f->stacks = NULL;
	f->fmts = NULL;
	f->n = 0;
}

bool bt_code_uses_comm(const struct bt_code *c)
{
	const struct utrace_bt_hdr *h = c->prog;
	const struct utrace_bt_insn *in;

	if (!h || c->len < sizeof(*h))
		return false;
	in = utrace_bt_insns(h);
	for (uint32_t i = 0; i < h->nr_insns; i++)
		if (in[i].op == UTRACE_BOP_COMM)
			return true;
	return false;
}
