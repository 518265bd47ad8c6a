/* SPDX-License-Identifier: MIT */
/*
 * bt_compile_emit.c - the compiler's output (bt_compile.c): instructions,
 * forward jumps patched, string constants (placed after the instructions
 * when the program is laid out), printf/time formats by record id, and
 * the first error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_compile_internal.h"
#include "lib/bt/bt_longval.h"

unsigned bt_comp_emit(struct comp *c, unsigned op, unsigned a, unsigned b, int64_t imm)
{
	if (c->n == c->cap) {
		unsigned cap = c->cap ? 2 * c->cap : 64;
		struct utrace_bt_insn *ins;

		/* past the limit: refused before the array grows (realloc may
		 * have moved it: c->ins is kept, freed once by bt_compile) */
		if (cap > UTRACE_BT_MAX_INSNS) {
			c->failed = c->failed ? c->failed : -E2BIG;
			return 0;
		}
		if (!(ins = realloc(c->ins, cap * sizeof(*ins)))) {
			c->failed = c->failed ? c->failed : -ENOMEM;
			return 0;
		}
		c->ins = ins;
		c->cap = cap;
	}
	c->ins[c->n] = (struct utrace_bt_insn){.op = (uint8_t)op, .a = (uint8_t)a,
					       .b = (uint16_t)b, .imm = imm};
	return c->n++;
}

void bt_comp_patch(struct comp *c, unsigned at)
{
	if (at < c->n)
		c->ins[at].imm = c->n;
}

/* A name (probe, func) that bpftrace prints whole however long: over a
 * slot's 63 bytes, the constant is its handle in the run's store
 * (bt_longval.c), and the program runs in the tool (bt_inproc.c). */
void bt_comp_sconst_name(struct comp *c, const char *s)
{
	char handle[UTRACE_BT_STRLEN];

	if (strlen(s) >= UTRACE_BT_STRLEN && c->p->longvals) {
		bt_longval_put(c->p->longvals, s, strlen(s), handle);
		s = handle;
	}
	bt_comp_sconst(c, s);
}

void bt_comp_sconst(struct comp *c, const char *s)
{
	size_t len = strlen(s);
	char *d;

	if (len >= UTRACE_BT_STRLEN)
		len = UTRACE_BT_STRLEN - 1;
	d = realloc(c->data, c->ndata + len + 1);
	if (!d) {
		c->failed = -ENOMEM;
		return;
	}
	c->data = d;
	memcpy(d + c->ndata, s, len);
	d[c->ndata + len] = 0;
	bt_comp_emit(c, UTRACE_BOP_SCONST, 0, (unsigned)len, c->ndata);
	c->ndata += (unsigned)len + 1;
}

void bt_comp_unsupported(struct comp *c, const struct bt_node *n, const char *what)
{
	if (!c->failed)
		c->failed = utrace_error_set(c->err, -EINVAL,
					     "%s:%u:%u: %s is not supported by utrace bt yet",
					     c->p->name, n->loc.line, n->loc.col, what);
}

unsigned bt_comp_fmt_add(struct comp *c, const char *fmt)
{
	char **f = realloc(c->fmts->fmts, (c->fmts->n + 1) * sizeof(*f));
	uint32_t *st = realloc(c->fmts->stacks, (c->fmts->n + 1) * sizeof(*st));

	if (st) {
		c->fmts->stacks = st;
		st[c->fmts->n] = 0;
	}

	if (!f || !st || !(f[c->fmts->n] = strdup(fmt))) {
		if (f)
			c->fmts->fmts = f;
		c->failed = -ENOMEM;
		return 0;
	}
	c->fmts->fmts = f;
	return c->fmts->n++;
}

/* -k: the record id of helper's failure at loc. */
int64_t bt_comp_helper_err(struct comp *c, struct bt_loc loc, enum bt_helper helper)
{
	char *text = bt_helper_err_text(c->p, loc, helper);
	unsigned id;

	if (!text) {
		c->failed = -ENOMEM;
		return 0;
	}
	id = bt_comp_fmt_add(c, text);
	free(text);
	return id;
}
