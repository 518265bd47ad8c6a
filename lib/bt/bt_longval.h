/* SPDX-License-Identifier: MIT */
/*
 * bt_longval.h - struct and array values longer than a bytecode slot
 * (bt_longval.c): the tool's store that keeps their text and hands the
 * bytecode a short handle in their place.
 */
#ifndef UTRACE_LIB_BT_LONGVAL_H
#define UTRACE_LIB_BT_LONGVAL_H

#include <stddef.h>
#include <stdint.h>

/* The longest text a value may have (bt_compile_mem.c refuses a type
 * whose text could be longer). */
#define BT_LONGVAL_TEXT_MAX 16384u

struct bt_longvals;

/* An empty store: 0 or -ENOMEM. */
int bt_longvals_new(struct bt_longvals **out);
void bt_longvals_free(struct bt_longvals *lv);
/* The value whose text is text (len bytes, common/bt_tuple.h's form)
 * into slot (UTRACE_BT_STRLEN bytes): the text itself if it fits, else
 * the handle of its copy in the store (the same text, the same handle),
 * or, when the store is full, the text cut at the slot's end. */
void bt_longval_put(struct bt_longvals *lv, const char *text, size_t len, char *slot);
/* The whole text of slot value s: s itself when it holds no handle,
 * else s with each handle replaced by its text.  Valid while lv lives. */
const char *bt_longval_text(struct bt_longvals *lv, const char *s);
/* The whole text of string value s: a handle's (a name kept whole),
 * else s itself. */
const char *bt_longval_str(const struct bt_longvals *lv, const char *s);
/* The values cut because the store was full. */
uint64_t bt_longvals_cut(const struct bt_longvals *lv);

#endif
