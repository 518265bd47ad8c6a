/* SPDX-License-Identifier: MIT */
/*
 * bt_inproc.h - the part of a bpftrace program that can run at the hit in
 * the traced program (bt_inproc.c): which site programs qualify, the
 * tables (common/bt_table.h) their maps go to, and those tables read back
 * into the tool's maps (bt_maps.h) when they are printed.
 */
#ifndef UTRACE_LIB_BT_INPROC_H
#define UTRACE_LIB_BT_INPROC_H

#include <stdbool.h>
#include <stddef.h>

#include "common/bt_table.h"
#include "lib/bt/bt_compile.h"
#include "lib/bt/bt_maps.h"

/* Whether code can run at the hit: only aggregations into tables
 * (count, sum, min, max, avg, stats, hist, lhist), keys and predicates of
 * integers and strings, arguments, retval, pid, tid, comm and reads of
 * the program's memory.  NULL or a reason why not (printf, a map read,
 * ...), for -v. */
const char *bt_inproc_refusal(const struct bt_code *code);
/* The table bits for map d holding at most max_keys keys. */
uint32_t bt_inproc_table_bits(const struct utrace_bt_mapdesc *d, size_t max_keys);
/* The bytes of map d's table of 1 << bits elements. */
uint64_t bt_inproc_table_bytes(const struct utrace_bt_mapdesc *d, uint32_t bits);
/* m (bt_inproc_table_bytes of zeroes) made an empty table for d. */
void bt_inproc_table_init(struct utrace_hist_map *m, const struct utrace_bt_mapdesc *d,
			  uint32_t bits);
/* Every entry of table m (map `map` of d's description) merged into ms,
 * its drops counted with the maps'; 0, or -EINVAL if m is not d's. */
int bt_inproc_table_read(struct bt_maps *ms, unsigned map, const struct utrace_bt_mapdesc *d,
			 struct utrace_hist_map *m);

#endif
