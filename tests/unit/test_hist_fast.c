/* SPDX-License-Identifier: MIT */
/*
 * test_hist_fast.c - common/hist_fast.h against the interpreter: which
 * programs have the "one number as key, sums of fields" shape, and for
 * those that do, the same records run through utrace_hist_fast_run() and
 * through utrace_hist_run() into two tables must leave the two tables
 * identical byte for byte (slots, keys, sums, drops), with records cut
 * short and a full table among them; and threads inserting at once lose
 * no hit, those that own a stripe of the table adding there without a
 * locked add (common/hist_map.h).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/hist_fast.h"
#include "common/hist_prog.h"
#include "lib/hist/hist.h"
#include "lib/hist/hist_compile.h"
#include "tests/unit/check.h"

static const struct utrace_event_field fields[] = {
    UTRACE_EVENT_COMMON_FIELDS,
    {"int", "id", "id", 8, 4, true, false, UTRACE_EF_INT},
    {"short", "small", "small", 12, 2, true, false, UTRACE_EF_INT},
    {"unsigned char", "tiny", "tiny", 14, 1, false, false, UTRACE_EF_INT},
    {"unsigned long", "len", "len", 16, 8, false, false, UTRACE_EF_INT},
    {"char", "comm[16]", "comm", 24, 16, true, false, UTRACE_EF_CHARS},
    {"unsigned int", "u", "u", 40, 4, false, false, UTRACE_EF_INT},
};
static const struct utrace_event_format fmt = {
    .system = "t", .name = "ev", .rec_size = 48,
    .nr_fields = sizeof(fields) / sizeof(fields[0]), .fields = fields,
};

struct rec {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid, id;
	int16_t small;
	uint8_t tiny, pad;
	uint64_t len;
	char comm[16];
	uint32_t u, pad2;
};

struct prog {
	struct utrace_hist_spec *spec;
	struct utrace_hist_hdr *hdr;
	struct utrace_hist_fast fast;
	uint64_t size;
};

static int make(struct prog *p, const char *text)
{
	struct utrace_error err = {0};
	uint32_t len;
	int code = 0;

	memset(p, 0, sizeof(*p));
	if (utrace_hist_parse(text, &p->spec, &code, &err) < 0 ||
	    utrace_hist_compile(p->spec, &fmt, (void **)&p->hdr, &len, &code, &err) < 0) {
		check(0, "%s compiles: %s", text, err.msg);
		return -1;
	}
	utrace_hist_fast_of(p->hdr, &p->fast);
	p->size = utrace_hist_map_bytes(p->hdr->map_bits, p->hdr->key_size, p->hdr->nr_sums);
	return 0;
}

static void drop(struct prog *p)
{
	free(p->hdr);
	utrace_hist_spec_free(p->spec);
}

static struct utrace_hist_map *new_map(const struct prog *p)
{
	struct utrace_hist_map *m =
	    mmap(NULL, p->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	m->magic = UTRACE_HIST_MAP_MAGIC;
	m->bits = p->hdr->map_bits;
	m->key_size = p->hdr->key_size;
	m->nr_sums = p->hdr->nr_sums;
	return m;
}

static void test_shapes(void)
{
	static const struct {
		const char *text;
		int ok;
		unsigned nr_vals;
	} cases[] = {
	    {"hist:keys=id", 1, 0},
	    {"hist:keys=id:vals=len", 1, 1},
	    {"hist:keys=common_pid:vals=len,small", 1, 2},
	    {"hist:keys=small:vals=len if id > 3", 1, 1},
	    {"hist:keys=id.hex:vals=len:sort=len.descending:size=256", 1, 1},
	    {"hist:keys=id.log2", 0, 0},
	    {"hist:keys=id.buckets=10", 0, 0},
	    {"hist:keys=comm", 0, 0},
	    {"hist:keys=id,len", 0, 0},
	    {"hist:keys=id:vals=len+id", 0, 0},
	    {"hist:keys=id:t=common_timestamp", 0, 0},
	    {"hist:keys=common_cpu", 0, 0},
	    {"hist:keys=id:v=len:onmax($v).save(tiny)", 0, 0},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct prog p;

		if (make(&p, cases[i].text) < 0)
			continue;
		check((int)p.fast.ok == cases[i].ok, "%s: fast path %s", cases[i].text,
		      cases[i].ok ? "taken" : "left to the interpreter");
		if (p.fast.ok)
			check(p.fast.nr_vals == cases[i].nr_vals, "%s: %u values", cases[i].text,
			      cases[i].nr_vals);
		drop(&p);
	}
}

/* xorshift: the same records every run */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The table as a reader sees it, in the layout the interpreter fills:
 * every stripe's sums added to its element's, the stripes and their
 * owners cleared. */
static void fold_stripes(struct utrace_hist_map *m)
{
	uint32_t n = utrace_hist_map_stripes(m->bits, m->nr_sums);

	if (!n)
		return;
	for (uint32_t i = 0; i < 1u << m->bits; i++)
		utrace_hist_map_merge(m, i, utrace_hist_elt(m, i) + m->key_size);
	memset(utrace_hist_stripe_sums(m, 0, 0), 0, utrace_hist_stripes_bytes(m->bits, m->nr_sums));
	memset(m->stripe_owner, 0, sizeof(m->stripe_owner));
}

/* hits records into a fast and an interpreted table, both emptied (:clear)
 * halfway when clear; with memo, the fast path keeps one; tid: the
 * hitting thread's id (not 0: its stripe, where utrace_hist_fast_hit
 * adds, folded into the elements before the tables are compared) */
static void same_tables_tid(const char *text, unsigned keys, unsigned hits, bool with_memo,
			    bool clear, uint32_t tid)
{
	struct utrace_hist_map *fast, *slow;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint64_t memo[UTRACE_HIST_MEMO] = {0};
	struct prog p;

	if (make(&p, text) < 0)
		return;
	check(p.fast.ok, "%s: has the shape", text);
	fast = new_map(&p);
	slow = new_map(&p);
	for (unsigned i = 0; i < hits; i++) {
		uint64_t r = rnd(&seed);
		struct rec rec = {.pid = (int32_t)(r % 7) - 3, .id = (int32_t)(r % keys) - 5,
				  .small = (int16_t)(r >> 8), .tiny = (uint8_t)(r >> 24),
				  .len = r >> 40};
		/* one record in 16 cut short: its fields past the end read 0 */
		uint32_t len = (r >> 60) ? sizeof(rec) : (uint32_t)(r >> 32) % sizeof(rec);
		struct utrace_hist_ctx c = {.rec = (const uint8_t *)&rec, .rec_len = len};

		if (clear && i == hits / 2) {
			utrace_hist_map_empty(fast);
			utrace_hist_map_empty(slow);
		}
		utrace_hist_fast_run(p.hdr, &p.fast, fast, &c, tid, with_memo ? memo : NULL);
		utrace_hist_run(p.hdr, slow, &c);
	}
	if (tid)
		fold_stripes(fast);
	check(!memcmp(fast, slow, p.size), "%s: %u hits over %u keys make the same table%s%s%s",
	      text, hits, keys, with_memo ? ", with a memo" : "", clear ? ", cleared halfway" : "",
	      tid ? ", in a thread's stripe" : "");
	munmap(fast, p.size);
	munmap(slow, p.size);
	drop(&p);
}

static void same_tables(const char *text, unsigned keys, unsigned hits)
{
	same_tables_tid(text, keys, hits, false, false, 0);
	same_tables_tid(text, keys, hits, true, false, 0);
	same_tables_tid(text, keys, hits, true, true, 0);
	/* utrace_hist_fast_hit's: a memo and a stripe (tid 13 owns stripe 5) */
	same_tables_tid(text, keys, hits, true, false, 13);
	same_tables_tid(text, keys, hits, true, true, 13);
	same_tables_tid(text, keys, hits, false, false, 13);
}

struct worker {
	const struct prog *p;
	struct utrace_hist_map *m;
	unsigned n, base;
	uint32_t tid; /* the ctx's thread id: its stripe, or the locked sums */
	uint64_t *memo; /* shared by all, as a process's threads share theirs */
};

static void *work(void *arg)
{
	struct worker *w = arg;

	for (unsigned i = 0; i < w->n; i++) {
		struct rec rec = {.id = (int32_t)((i + w->base) % 100), .len = 2};
		struct utrace_hist_ctx c = {.rec = (const uint8_t *)&rec, .rec_len = sizeof(rec)};

		utrace_hist_fast_run(w->p->hdr, &w->p->fast, w->m, &c, w->tid, w->memo);
	}
	return NULL;
}

/* The table as a reader sees it (stripes merged): hits and sum of vals. */
static void merged(struct utrace_hist_map *m, uint64_t *hits, uint64_t *sum, uint64_t *shared)
{
	*hits = *sum = *shared = 0;
	for (uint32_t i = 0; i < 2u << m->bits; i++) {
		uint64_t wd = utrace_hist_slots(m)[i].word, sums[2];

		if (!wd)
			continue;
		memcpy(sums, utrace_hist_elt(m, utrace_hist_slot_elt(wd)) + 8, sizeof(sums));
		*shared += sums[0];
		utrace_hist_map_merge(m, utrace_hist_slot_elt(wd), (uint8_t *)sums);
		*hits += sums[0];
		*sum += sums[1];
	}
}

/*
 * 8 threads that own a stripe each (tids 1..8), 2 whose stripe another
 * owns (9, 10: the locked sums) and one with no id (0: locked too), all on
 * one table at once: no hit lost, and the locked sums hold exactly the
 * hits of the three that own no stripe (the others took no locked add).
 */
static void test_threads(void)
{
	enum { N = 11, HITS = 100000 };
	static uint64_t memo[UTRACE_HIST_MEMO];
	struct worker w[N];
	pthread_t th[N];
	uint64_t hits, sum, shared;
	struct utrace_hist_map *m;
	struct prog p;

	if (make(&p, "hist:keys=id:vals=len") < 0)
		return;
	m = new_map(&p);
	check(utrace_hist_stripe_owners(m) != NULL, "a table of 2 sums has stripes");
	for (unsigned i = 0; i < N; i++) {
		w[i] = (struct worker){&p, m, HITS, i * 37, i < 10 ? i + 1 : 0, memo};
		pthread_create(&th[i], NULL, work, &w[i]);
	}
	for (unsigned i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	merged(m, &hits, &sum, &shared);
	check(hits == N * HITS && sum == 2ull * N * HITS,
	      "%d threads: %llu hits, %llu summed (%d, %d)", N, (unsigned long long)hits,
	      (unsigned long long)sum, N * HITS, 2 * N * HITS);
	check(shared == 3ull * HITS, "locked adds only for the 3 threads without a stripe: %llu (%d)",
	      (unsigned long long)shared, 3 * HITS);
	munmap(m, p.size);
	drop(&p);
}

/* A table too big for stripes (size= over 65536) has none: the locked sums. */
static void test_no_stripes(void)
{
	struct worker w;
	uint64_t hits, sum, shared;
	struct utrace_hist_map *m;
	struct prog p;

	if (make(&p, "hist:keys=id:vals=len:size=131072") < 0)
		return;
	m = new_map(&p);
	check(!utrace_hist_stripe_owners(m), "size=131072: no stripes");
	w = (struct worker){&p, m, 1000, 0, 5, NULL};
	work(&w);
	merged(m, &hits, &sum, &shared);
	check(hits == 1000 && shared == 1000 && sum == 2000, "no stripes: %llu hits, all locked",
	      (unsigned long long)hits);
	munmap(m, p.size);
	drop(&p);
}

/* :clear (utrace_hist_map_empty) empties the stripes too: a table filled
 * again after it counts only the new hits. */
static void test_empty(void)
{
	struct worker w;
	uint64_t hits, sum, shared;
	struct utrace_hist_map *m;
	struct prog p;

	if (make(&p, "hist:keys=id:vals=len") < 0)
		return;
	m = new_map(&p);
	w = (struct worker){&p, m, 1000, 0, 3, NULL};
	work(&w);
	utrace_hist_map_empty(m);
	merged(m, &hits, &sum, &shared);
	check(hits == 0 && m->next_elt == 0, "emptied: %llu hits", (unsigned long long)hits);
	w.n = 500;
	work(&w);
	merged(m, &hits, &sum, &shared);
	check(hits == 500 && sum == 1000 && shared == 0,
	      "filled again after emptying: %llu hits, %llu summed (500, 1000)",
	      (unsigned long long)hits, (unsigned long long)sum);
	munmap(m, p.size);
	drop(&p);
}

/* utrace_hist_fast_hit counts what it takes and leaves the rest alone: a
 * key the memo does not have yet, a stripe another thread owns, a record
 * cut short, a filter. */
static void test_hit(void)
{
	uint64_t memo[UTRACE_HIST_MEMO] = {0}, hits, sum, shared;
	struct rec rec = {.id = 7, .len = 3};
	struct utrace_hist_ctx c = {.rec = (const uint8_t *)&rec, .rec_len = sizeof(rec)};
	struct utrace_hist_map *m;
	struct prog p, q;

	if (make(&p, "hist:keys=id:vals=len") < 0)
		return;
	m = new_map(&p);
	check(!utrace_hist_fast_hit(&p.fast, m, c.rec, c.rec_len, 13, memo),
	      "a key new to the memo: not the hit's");
	utrace_hist_fast_run(p.hdr, &p.fast, m, &c, 13, memo); /* inserts, claims stripe 5 */
	check(utrace_hist_fast_hit(&p.fast, m, c.rec, c.rec_len, 13, memo),
	      "the key again, the stripe the thread's: the hit's");
	check(!utrace_hist_fast_hit(&p.fast, m, c.rec, c.rec_len, 21, memo),
	      "stripe 5 is tid 13's: not tid 21's hit");
	check(!utrace_hist_fast_hit(&p.fast, m, c.rec, 20, 13, memo),
	      "a record without its len: not the hit's");
	merged(m, &hits, &sum, &shared);
	check(hits == 2 && sum == 6 && shared == 0, "2 hits counted once each: %llu, %llu summed",
	      (unsigned long long)hits, (unsigned long long)sum);
	if (make(&q, "hist:keys=id:vals=len if id > 3") == 0) {
		check(q.fast.ok && q.fast.hit_min == UINT64_MAX, "a filter: never the hit's");
		drop(&q);
	}
	munmap(m, p.size);
	drop(&p);
}

/*
 * utrace_hist_fast_hit_as made for a trigger's own kinds of load (what
 * the runtime's hist writers are: runtime/trace_events.c) counts as the
 * one for any load: keys and values of each kind, negative and with the
 * high bit set, into two tables that must come out the same.
 */
static void test_hit_kinds(void)
{
	static const struct {
		const char *text;
		uint8_t kk, vk;
	} cases[] = {
	    {"hist:keys=id", UTRACE_HFK_S32, UTRACE_HFK_NONE},
	    {"hist:keys=u:vals=id", UTRACE_HFK_U32, UTRACE_HFK_S32},
	    {"hist:keys=len:vals=u", UTRACE_HFK_64, UTRACE_HFK_U32},
	    {"hist:keys=id:vals=len", UTRACE_HFK_S32, UTRACE_HFK_64},
	    {"hist:keys=small:vals=len", UTRACE_HFK_ANY, UTRACE_HFK_64},
	    {"hist:keys=u:vals=len,small", UTRACE_HFK_U32, UTRACE_HFK_ANY},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t ma[UTRACE_HIST_MEMO] = {0}, mb[UTRACE_HIST_MEMO] = {0};
		uint64_t seed = 0x2545f4914f6cdd1dull;
		struct utrace_hist_map *a, *b;
		unsigned taken = 0;
		struct prog p;

		if (make(&p, cases[i].text) < 0)
			continue;
		check(p.fast.key_kind == cases[i].kk && p.fast.val_kind == cases[i].vk,
		      "%s: loads of kinds %u, %u (%u, %u)", cases[i].text, cases[i].kk,
		      cases[i].vk, p.fast.key_kind, p.fast.val_kind);
		a = new_map(&p);
		b = new_map(&p);
		for (unsigned n = 0; n < 20000; n++) {
			uint64_t r = rnd(&seed);
			struct rec rec = {.id = (int32_t)(r % 9) - 4, .small = (int16_t)(r % 5) - 2,
					  .len = (r >> 8) % 3 << 62 | (r >> 16) % 4,
					  .u = 0xfffffff0u + (uint32_t)(r >> 24) % 9};
			struct utrace_hist_ctx c = {.rec = (const uint8_t *)&rec,
						    .rec_len = sizeof(rec)};

			if (utrace_hist_fast_hit_as(&p.fast, a, c.rec, 13, ma, p.fast.key_kind,
						    p.fast.val_kind))
				taken++;
			else
				utrace_hist_fast_run(p.hdr, &p.fast, a, &c, 13, ma);
			if (!utrace_hist_fast_hit_as(&p.fast, b, c.rec, 13, mb, UTRACE_HFK_ANY,
						     UTRACE_HFK_ANY))
				utrace_hist_fast_run(p.hdr, &p.fast, b, &c, 13, mb);
		}
		fold_stripes(a);
		fold_stripes(b);
		check(taken > 5000 && !memcmp(a, b, p.size),
		      "%s: its kinds' hit (%u of 20000) makes the table any load's does",
		      cases[i].text, taken);
		munmap(a, p.size);
		munmap(b, p.size);
		drop(&p);
	}
}

int main(void)
{
	test_shapes();
	same_tables("hist:keys=id:vals=len", 50, 100000);
	same_tables("hist:keys=common_pid:vals=len,small", 1000, 100000);
	same_tables("hist:keys=small:vals=tiny if id > 3", 3000, 100000);
	same_tables("hist:keys=tiny:size=128", 100000, 20000); /* full: drops */
	test_hit();
	test_hit_kinds();
	test_threads();
	test_no_stripes();
	test_empty();
	return check_done();
}
