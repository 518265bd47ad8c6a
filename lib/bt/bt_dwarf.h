/* SPDX-License-Identifier: MIT */
/*
 * bt_dwarf.h - a uprobe's arguments by name through DWARF (bt_dwarf.c).
 */
#ifndef UTRACE_LIB_BT_DWARF_H
#define UTRACE_LIB_BT_DWARF_H

#include <stdio.h>

struct bt_checker;
struct bt_node;
struct bt_probe;
struct bt_program;

/* `args->NAME` (builtin node n, its str the whole text) in a uprobe: its
 * parameter's register into n->slot, its size in bytes | 0x100 when
 * signed into n->ival, type int; or bpftrace's error. */
int bt_dwarf_check_arg(struct bt_checker *ck, struct bt_node *n);
/* Struct type t of p that the program names but does not define
 * (`(struct Foo *)arg0`), defined from the DWARF of the binary of the
 * probe's uprobe, as bpftrace 0.17 takes it: 0, or -ENOENT (no such
 * struct, no DWARF, no uprobe), -ENOTSUP, -ENOMEM. */
int bt_dwarf_struct(struct bt_program *p, const struct bt_probe *pr, unsigned t);
/* `-lv`: func's parameters in target, "    TYPE NAME" a line (none
 * without DWARF). */
void bt_dwarf_list(const char *target, const char *func, FILE *out);

#endif
