/* SPDX-License-Identifier: MIT */
/*
 * bt_print_internal.h - what bt_print.c (maps, keys, values, sort orders)
 * bt_print_hist.c (the hist/lhist bars and their json) and bt_print_msg.c
 * (printf and the other messages, bpftrace's json escaping) share.
 */
#ifndef UTRACE_LIB_BT_PRINT_INTERNAL_H
#define UTRACE_LIB_BT_PRINT_INTERNAL_H

#include "lib/bt/bt_print.h"

/* A hist()'s buckets as text (bpftrace's TextOutput::hist_to_str):
 * nothing when every bucket is 0.  Counts are divided by div. */
void bt_hist_text(FILE *out, const uint64_t *b, uint64_t div);
/* lhist()'s buckets of map m as text (no div, as bpftrace). */
void bt_lhist_text(FILE *out, const struct utrace_bt_map *m, const uint64_t *b);
/* The same as json arrays: `[]` when every bucket is 0. */
void bt_hist_json(FILE *out, const uint64_t *b, uint64_t div);
void bt_lhist_json(FILE *out, const struct utrace_bt_map *m, const uint64_t *b);
/* The number of lhist buckets of m: (max - min) / step + 2. */
size_t bt_lhist_nbuckets(const struct utrace_bt_map *m);

/* bpftrace's json_escape of len bytes (bt_print_msg.c). */
void bt_json_escape(FILE *out, const char *s, size_t len);
/* A buf() (common/bt_buf.h's form) as bpftrace prints it, mode 'r'
 * (%r, keys, values), 'x' (%rx) or 'h' (%rh) (bt_print_buf.c). */
void bt_buf_print(FILE *out, const char *enc, char mode);
/* A tuple (common/bt_tuple.h's form), text or json (bt_print_tuple.c). */
void bt_tuple_print(FILE *out, const char *t, bool json);
/* The same, mode 0 text, 1 json, 2 a text key (a struct compact). */
void bt_tuple_print_as(FILE *out, const char *t, int mode);

#endif
