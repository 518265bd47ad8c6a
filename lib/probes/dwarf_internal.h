/* SPDX-License-Identifier: MIT */
/*
 * dwarf_internal.h - what lib/probes/dwarf.c (files, scopes, locations,
 * lines), dwarf_var.c (name expressions) and dwarf_list.c (-V, -L) share.
 */
#ifndef UTRACE_LIB_DWARF_INTERNAL_H
#define UTRACE_LIB_DWARF_INTERNAL_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "lib/probes/dwarf.h"

struct utrace_dwarf {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias; /* DWARF address + bias = the module's address */
	Dwarf_CFI *cfi;	 /* .eh_frame, else .debug_frame; NULL if none */
	char *path;
};

/* Where a variable's value is: a register's value (text "%di"), or memory
 * at the address base + off (base a fetcharg giving an address, or "@SYM"
 * for a symbol's address). */
struct dw_loc {
	bool in_mem;
	char base[160];
	int64_t off;
};

/* Sets err "TEXT at column N: detail" (column 0: no column) and returns
 * -EINVAL. */
int dw_fail(struct utrace_error *err, int code, int column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The scopes holding addr, innermost first (free *scopes); their number,
 * or <= 0 if none. */
int dw_scopes(struct utrace_dwarf *d, uint64_t addr, Dwarf_Die **scopes);
/* The innermost subprogram of scopes (its concrete, out-of-line DIE). */
Dwarf_Die *dw_scope_func(Dwarf_Die *scopes, int n);
/* The function named name with code; 0 or -ENOENT. */
int dw_find_func(struct utrace_dwarf *d, const char *name, Dwarf_Die *func);
/* Where var is at addr inside func: 0, or an enum utrace_dwarf_err. */
int dw_var_location(struct utrace_dwarf *d, Dwarf_Die *var, Dwarf_Die *func, uint64_t addr,
		    struct dw_loc *loc);
/* perf's die_get_typename(): "int", "char*", "struct node*", ...; <0 if unknown. */
int dw_type_name(Dwarf_Die *die, char *buf, size_t size);
/* FUNC, FUNC+OFF, FUNC:LINE or FILE:LINE (at 1-based column col of what
 * the user wrote) to an address and its function: 0 or -EINVAL (err). */
int dw_point_addr(struct utrace_dwarf *d, const char *point, int col, uint64_t *addr,
		  Dwarf_Die *func, struct utrace_error *err);
/* Every statement address of a point (a line has several), sorted. */
#define DW_ADDRS_MAX 64
struct dw_addrs {
	Dwarf_Addr a[DW_ADDRS_MAX];
	unsigned n;
};
int dw_point_addrs(struct utrace_dwarf *d, const char *point, int col, struct dw_addrs *set,
		   bool *is_file, struct utrace_error *err);
/* The (out-of-line) function holding addr: 0 or -ENOENT. */
int dw_addr_func(struct utrace_dwarf *d, uint64_t addr, Dwarf_Die *func);
/* The function's entry and its name; the source path of the function's file. */
const char *dw_func_file(Dwarf_Die *func, char *buf, size_t size);
/* path (a line table's or a declaration's) made absolute with cu's
 * DW_AT_comp_dir, into buf. */
const char *dw_abs_path(Dwarf_Die *cu, const char *path, char *buf, size_t size);

#endif
