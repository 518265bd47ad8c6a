/* SPDX-License-Identifier: MIT */
/*
 * bt_maps.h - the maps of a running bpftrace program, held by the tool
 * (bt_maps.c): the map callbacks of common/bt_prog.h's context, and the
 * maps handed to the printer (bt_print.h).
 */
#ifndef UTRACE_LIB_BT_MAPS_H
#define UTRACE_LIB_BT_MAPS_H

#include <stdio.h>

#include "common/bt_prog.h"
#include "lib/bt/bt_print.h"
#include "lib/bt/bt_usym.h"

struct bt_maps;

/* The maps described in a compiled program (every program of one bt
 * program describes them all).  0 or -ENOMEM. */
int bt_maps_new(const void *prog, struct bt_maps **out);
void bt_maps_free(struct bt_maps *ms);
/* The context's callbacks; arg is the struct bt_maps. */
int bt_maps_get(void *arg, unsigned map, const uint8_t *key, struct utrace_bt_mval *v);
void bt_maps_update(void *arg, unsigned map, const uint8_t *key, int agg,
		    const struct utrace_bt_mval *v);
/* An element merged from elsewhere (the traced program's tables,
 * common/bt_table.h): n updates whose value is v (count: unused; sum,
 * avg, stats: their sum; min, max: their extreme), in bucket (hist,
 * lhist); as n calls of bt_maps_update would leave it. */
void bt_maps_merge(struct bt_maps *ms, unsigned map, const uint8_t *key, uint32_t bucket,
		   uint64_t n, int64_t v);
/* The key elements of map in key_stack (bit i), and its values if
 * value_stack, are ustack ids of u: printed as their frames. */
void bt_maps_set_stacks(struct bt_maps *ms, unsigned map, uint32_t key_stack, bool value_stack,
			const struct bt_usym *u);
struct bt_longvals;
/* The store of the struct values longer than a slot (bt_longval.h) the
 * maps' keys and values may name: printed whole. */
void bt_maps_set_longvals(struct bt_maps *ms, struct bt_longvals *lv);
/* Map's integer values (a scalar's, a sum's) print as unsigned. */
void bt_maps_set_unsigned(struct bt_maps *ms, unsigned map);
/* The keys a map may hold (BPFTRACE_MAP_KEYS_MAX). */
size_t bt_maps_max_keys(const struct bt_maps *ms);
/* Updates lost elsewhere, counted with the maps' own. */
void bt_maps_add_drops(struct bt_maps *ms, uint64_t n);
void bt_maps_clear(struct bt_maps *ms, unsigned map);
void bt_maps_zero(struct bt_maps *ms, unsigned map);
size_t bt_maps_count(const struct bt_maps *ms, unsigned map);
/* Updates that found the map full. */
uint64_t bt_maps_drops(const struct bt_maps *ms);
/* print(@name, top, div) through utrace_bt_map_print. */
int bt_maps_print(struct bt_maps *ms, unsigned map, const char *name, size_t top, uint64_t div,
		  enum utrace_bt_format fmt, FILE *out);

#endif
