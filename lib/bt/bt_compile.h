/* SPDX-License-Identifier: MIT */
/*
 * bt_compile.h - a checked program (bt_ast.h) compiled into the runtime's
 * bytecode (common/bt_prog.h): one program per attach point of each
 * probe (a probe's `probe` and `func` builtins are constants of its
 * attach point and function), with the maps' descriptions they share and
 * the printf/time formats their records name by index.
 */
#ifndef UTRACE_LIB_BT_COMPILE_H
#define UTRACE_LIB_BT_COMPILE_H

#include <stdio.h>

#include "common/bt_prog.h"
#include "lib/bt/bt_ast.h"

struct bt_code {
	void *prog; /* struct utrace_bt_hdr, maps, insns, data */
	uint32_t len;
	char **fields; /* FIELD k's fetch-arg ("+0(%dx):s32", "+4(%dx):string") */
	unsigned nfields;
	unsigned *ftypes; /* FIELD k's C type (bt_types.h) when it reads a struct or an
			   * array ("+0(%di):u8[16]"), BT_FTYPE_MACADDR for macaddr()'s
			   * 6 bytes, BT_FTYPE_BUF for buf()'s, else 0 */
	const struct bt_program *p; /* the program whose types ftypes names */
	/* a uprobe's LOAD or STR at an address computed at run time: made
	 * at the hit (runtime/bt_probe.c), a replayed action's captured */
	bool hit_reads;
	bool ustack; /* it reads the user stack (ustack) */
};

#define BT_FTYPE_MACADDR 0xffffffffu
#define BT_FTYPE_BUF 0xfffffffeu /* buf()'s bytes, escaped (common/bt_buf.h) */

struct bt_formats {
	char **fmts; /* printf's and time()'s formats, by record id */
	unsigned n;
	uint32_t *stacks; /* each format's: bit k, its argument k is a ustack id */
	/* printf's argument kinds are in the record itself */
};

/* The program of probe pr at attach point ap, func its function ("" if
 * none).  0, or -ENOMEM / -EINVAL (err) for what cannot be compiled. */
int bt_compile(const struct bt_program *p, const struct bt_probe *pr, const struct bt_attach *ap,
	       const char *func, struct bt_formats *fmts, struct bt_code *out,
	       struct utrace_error *err);
void bt_formats_free(struct bt_formats *f);

/* Whether code uses the thread's name (comm, UTRACE_BOP_COMM). */
bool bt_code_uses_comm(const struct bt_code *c);

/* The helpers whose failures -k and -kk report (bpftrace's names). */
enum bt_helper {
	BT_HELPER_MAP_LOOKUP, /* a map read that finds no element (-kk) */
	BT_HELPER_MAP_DELETE, /* delete() of no element (-k) */
	BT_HELPER_PROBE_READ, /* a read of memory that faults (-kk) */
	BT_HELPER_PROBE_READ_USER, /* the same at a uprobe's hit */
	BT_HELPER_PROBE_READ_STR,  /* str() of memory that faults (-kk) */
	BT_HELPER_PROBE_READ_USER_STR, /* the same at a uprobe's hit */
};
/* -k: the text of helper's failure at loc, kept as its record id's
 * format (bt_helper_err.c); malloc'ed. */
char *bt_helper_err_text(const struct bt_program *p, struct bt_loc loc, enum bt_helper helper);

/* The program as text, one instruction a line (-d). */
void bt_code_dump(const struct bt_code *c, FILE *out);

#endif
