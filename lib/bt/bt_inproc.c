/* SPDX-License-Identifier: MIT */
/*
 * bt_inproc.c - which compiled programs (common/bt_prog.h) may run at the
 * hit inside the traced program, and their maps' tables
 * (common/bt_table.h): made empty, and read back into the tool's maps.
 *
 * A program qualifies when everything it does stays in the hit and its
 * tables: no record to write (printf, print, exit, clear ...), no map to
 * read back (a table is written by many threads, merged only when read),
 * and only the builtins the runtime knows at the hit without a system
 * call (pid, tid, retval, comm, the arguments).  It may read the
 * program's memory at addresses computed at run time (LOAD, and STR
 * then: the runtime reads them, a system call a read), unless -kk wants
 * a faulting read reported; str() of an argument alone keeps the replay
 * path, where the probe's fetch-arg reads it at no system call.
 * Anything else keeps the replay path of bt_session.c.
 */
#include <errno.h>
#include <string.h>

#include "lib/bt/bt_inproc.h"

_Static_assert(UTRACE_BTT_COUNT == (int)UTRACE_BT_AGG_COUNT &&
		       UTRACE_BTT_SUM == (int)UTRACE_BT_AGG_SUM &&
		       UTRACE_BTT_MIN == (int)UTRACE_BT_AGG_MIN &&
		       UTRACE_BTT_MAX == (int)UTRACE_BT_AGG_MAX &&
		       UTRACE_BTT_AVG == (int)UTRACE_BT_AGG_AVG &&
		       UTRACE_BTT_STATS == (int)UTRACE_BT_AGG_STATS &&
		       UTRACE_BTT_HIST == (int)UTRACE_BT_AGG_HIST &&
		       UTRACE_BTT_LHIST == (int)UTRACE_BT_AGG_LHIST,
	       "bt_table.h's aggregations are bt_print.h's");
_Static_assert(UTRACE_BT_TABLE_HIST_BUCKETS == UTRACE_BT_HIST_BUCKETS, "hist buckets");

static const char *insn_refusal(const struct utrace_bt_insn *in, const struct utrace_bt_hdr *h)
{
	switch (in->op) {
	case UTRACE_BOP_STR: return "str() of an argument: its probe reads it, cheaper";
	case UTRACE_BOP_LOAD:
		if (in->imm > 0)
			return "-kk: a read that faults is reported by utrace bt";
		return NULL;
	case UTRACE_BOP_LOADREC: return "a struct is made a value in utrace bt";
	case UTRACE_BOP_SCONST:
		if (in->b && ((const char *)h)[in->imm] == UTRACE_BT_T_LONG)
			return "a name over 63 bytes is kept whole by utrace bt";
		return NULL;
	case UTRACE_BOP_STRFTIME: return "strftime() formats in the tool";
	case UTRACE_BOP_MGET: return "a map is read";
	case UTRACE_BOP_MSET: return "a map is assigned";
	case UTRACE_BOP_MDEL: return "delete()";
	case UTRACE_BOP_EMIT: return "printf, print, time, clear, zero or exit";
	case UTRACE_BOP_USTACK: return "ustack: the stack is named in utrace bt";
	case UTRACE_BOP_USYM: return "usym(): the symbol is named in utrace bt";
	case UTRACE_BOP_NAME: return "username, strerror(): named in utrace bt";
	case UTRACE_BOP_LOOP: return "a while loop runs in utrace bt, not at the hit";
	case UTRACE_BOP_FIELD: return "an argument's member (DWARF) is read in utrace bt";
	case UTRACE_BOP_AGG:
		if (!utrace_bt_table_agg_ok(&utrace_bt_maps(h)[in->a]))
			return "an aggregation a table does not hold";
		return NULL;
	case UTRACE_BOP_BUILTIN:
		if (in->a != UTRACE_BB_PID && in->a != UTRACE_BB_TID && in->a != UTRACE_BB_RETVAL)
			return "a builtin the hit does not know without a system call";
		return NULL;
	default: return NULL;
	}
}

const char *bt_inproc_refusal(const struct bt_code *code)
{
	const struct utrace_bt_hdr *h = code->prog;
	const struct utrace_bt_insn *ins;

	if (!h || utrace_bt_check(code->prog, code->len) < 0)
		return "a malformed program";
	ins = utrace_bt_insns(h);
	for (uint32_t i = 0; i < h->nr_insns; i++) {
		const char *why = ins[i].op == UTRACE_BOP_STR && code->hit_reads && !ins[i].imm
					  ? NULL /* read at the hit with the rest */
					  : insn_refusal(&ins[i], h);

		if (why)
			return why;
	}
	return NULL;
}

uint32_t bt_inproc_table_bits(const struct utrace_bt_mapdesc *d, size_t max_keys)
{
	uint64_t want = max_keys;
	uint32_t bits = 4;

	if (d->agg == UTRACE_BTT_HIST)
		want *= UTRACE_BT_TABLE_HIST_BUCKETS;
	else if (d->agg == UTRACE_BTT_LHIST)
		want *= utrace_bt_lhist_nbuckets(d);
	while (bits < UTRACE_BT_TABLE_BITS_MAX && (1ull << bits) < want)
		bits++;
	return bits;
}

uint64_t bt_inproc_table_bytes(const struct utrace_bt_mapdesc *d, uint32_t bits)
{
	return utrace_hist_map_bytes(bits, utrace_bt_table_key_size(d), UTRACE_BT_TABLE_SUMS);
}

void bt_inproc_table_init(struct utrace_hist_map *m, const struct utrace_bt_mapdesc *d,
			  uint32_t bits)
{
	m->bits = bits;
	m->key_size = utrace_bt_table_key_size(d);
	m->nr_sums = UTRACE_BT_TABLE_SUMS;
	m->magic = UTRACE_HIST_MAP_MAGIC;
}

int bt_inproc_table_read(struct bt_maps *ms, unsigned map, const struct utrace_bt_mapdesc *d,
			 struct utrace_hist_map *m)
{
	uint32_t nslots, max, ks = utrace_bt_table_key_size(d);
	struct utrace_hist_mslot *slots;

	if (m->magic != UTRACE_HIST_MAP_MAGIC || m->key_size != ks ||
	    m->nr_sums != UTRACE_BT_TABLE_SUMS || m->bits > UTRACE_BT_TABLE_BITS_MAX)
		return -EINVAL;
	nslots = 2u << m->bits;
	max = 1u << m->bits;
	slots = utrace_hist_slots(m);
	for (uint32_t k = 0; k < nslots; k++) {
		uint64_t w = __atomic_load_n(&slots[k].word, __ATOMIC_ACQUIRE), bucket, sums[2];
		const uint8_t *elt;

		if (!w || utrace_hist_slot_elt(w) >= max)
			continue;
		elt = utrace_hist_elt(m, utrace_hist_slot_elt(w));
		memcpy(sums, elt + ks, sizeof(sums));
		utrace_hist_map_merge(m, utrace_hist_slot_elt(w), (uint8_t *)sums);
		memcpy(&bucket, elt, 8);
		bt_maps_merge(ms, map, elt + 8, (uint32_t)bucket, sums[0],
			      d->agg == UTRACE_BTT_MIN || d->agg == UTRACE_BTT_MAX
				      ? utrace_bt_ext_dec(d->agg, sums[1])
				      : (int64_t)sums[1]);
	}
	bt_maps_add_drops(ms, __atomic_load_n(&m->drops, __ATOMIC_RELAXED));
	return 0;
}
