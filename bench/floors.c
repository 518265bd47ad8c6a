// SPDX-License-Identifier: MIT
//
// floors.c - what the machine's cheapest pieces of a traced event cost, so
// that a benchmark's figure can be read against its floor on the machine it
// ran on (issue 25).  Printed as one line of key=ns pairs (CPU time of this
// thread per operation, the loop's own cost taken off):
//
//   rdtsc        one rdtsc (the runtime's clock, runtime/rt.h)
//   wN           one record of N bytes written at the head of a 16 MiB
//                buffer (a thread's ring buffer: runtime/ring_buffer.c), the
//                head kept in memory, wrapping at the end: the stores a
//                tracer must do, for N = 4, 8, 12, 20, 32 (an ENTRY or EXIT,
//                -, a FUNC, an enabled event with two ints, a probe hit with
//                two fetch-args)
//   sN           the same N-byte records (N = 4, 12, 20, 32) streamed into a
//                16 MiB ring of 16 KiB sub-buffers that another thread, on
//                the other CPU, drains as the recorder does (it reads each
//                sub-buffer the writer has left: lib/record/recorder_drain.c
//                counts its records and writes it out), the writer
//                publishing each record's end with a release store as
//                rt_rb_commit does: each new line of the ring was last
//                read on the other CPU and must be fetched back for writing
//                (a read for ownership), which wN's buffer, in this CPU's
//                caches, never pays.  The real floor of a record's write on
//                a traced thread; the writer never waits for the reader
//                (a reader that falls behind makes it cheaper, not dearer)
//   lock_add     a locked add to a line this thread owns
//   cmpxchg      a locked compare-and-exchange on it
//   add          a plain add to a table slot (a hist table's stripe)
//   tbl          a hash table's update, the least a hist trigger's hit does
//                with one key and one value: hash the key, find its slot
//                (64 keys, open addressing), compare, two plain adds
//   hmap         the same update in the hist trigger's own table
//                (common/hist_map.h: jhash of the 8-byte key, the
//                lock-free probe with its acquire loads, the key compare,
//                two plain adds into the thread's stripe): what
//                common/hist_fast.h must do, less the loads of the fields
//   btmap        a bt map's count() at a one-integer key in its table
//                (common/bt_table.h utrace_bt_table_update16): what each
//                map of a utrace bt action on a uprobe must do
//
// Usage: floors [ROUNDS] (default 5: the median of ROUNDS runs of each
// loop).  Not pass/fail: bench/lib.sh's bench_floors prints it.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/bt_table.h"
#include "common/hist_map.h"

#define ITERS 5000000u
#define BUF_SIZE (16u << 20)
#define MAX_ROUNDS 15

static unsigned char *buf;
static volatile size_t head_mem; /* the head, in memory as the ring keeps it */
static volatile uint64_t line[8] __attribute__((aligned(64)));
static uint64_t table[64];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static __attribute__((noinline)) void loop_empty(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void loop_rdtsc(unsigned n)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < n; i++)
		s += rdtsc();
	__asm__ volatile("" ::"r"(s));
}

/* the record's words come from registers, as a tracer's do: stored one
 * by one (a copy from the stack would add a store-forwarding stall) */
#define STORE_REC(p, w, N)                                                                         \
	do {                                                                                       \
		for (unsigned k = 0; k + 8 <= (N); k += 8)                                         \
			memcpy((p) + k, &(uint64_t){(w) + k}, 8);                                  \
		if ((N) % 8)                                                                       \
			memcpy((p) + (N) - 4, &(uint32_t){(uint32_t)(w)}, 4);                      \
	} while (0)

#define LOOP_WRITE(N)                                                                              \
	static __attribute__((noinline)) void loop_w##N(unsigned n)                               \
	{                                                                                          \
		for (unsigned i = 0; i < n; i++) {                                                 \
			size_t h = head_mem;                                                       \
			unsigned char *p;                                                          \
			uint64_t w = (uint64_t)i * 0x9e3779b97f4a7c15ull;                          \
			if (h + (N) > BUF_SIZE)                                                    \
				h = 0;                                                             \
			p = buf + h;                                                               \
			STORE_REC(p, w, N);                                                        \
			head_mem = h + (N);                                                        \
		}                                                                                  \
	}
LOOP_WRITE(4)
LOOP_WRITE(8)
LOOP_WRITE(12)
LOOP_WRITE(20)
LOOP_WRITE(32)

#define SUB_SIZE (16u << 10) /* a sub-buffer: UTRACE_SUBBUF_SIZE */
static unsigned char *ring;
static uint32_t ring_commit; /* the current sub-buffer's commit word */
static uint64_t ring_done;   /* sub-buffers finished (the writer's), release */
static uint64_t ring_read;   /* sub-buffers read (the reader's) */
static int ring_stop;

/* The recorder: each finished sub-buffer read whole, in words. */
static void *ring_reader(void *arg)
{
	uint64_t sum = 0;

	(void)arg;
	while (!__atomic_load_n(&ring_stop, __ATOMIC_RELAXED)) {
		uint64_t done = __atomic_load_n(&ring_done, __ATOMIC_ACQUIRE);

		if (ring_read >= done) {
			__builtin_ia32_pause();
			continue;
		}
		if (done - ring_read > BUF_SIZE / SUB_SIZE) /* lapped: read the newest */
			ring_read = done - BUF_SIZE / SUB_SIZE;
		const uint32_t *w =
			(const uint32_t *)(ring + (ring_read % (BUF_SIZE / SUB_SIZE)) * SUB_SIZE);
		for (unsigned i = 0; i < SUB_SIZE / 4; i++)
			sum += w[i];
		ring_read++;
	}
	__asm__ volatile("" ::"r"(sum));
	return NULL;
}

#define LOOP_STREAM(N)                                                                             \
	static __attribute__((noinline)) void loop_s##N(unsigned n)                               \
	{                                                                                          \
		for (unsigned i = 0; i < n; i++) {                                                 \
			size_t h = head_mem, in = h % SUB_SIZE;                                    \
			unsigned char *p;                                                          \
			uint64_t w = (uint64_t)i * 0x9e3779b97f4a7c15ull;                          \
			if (in + (N) > SUB_SIZE) { /* the rest left empty */                       \
				h += SUB_SIZE - in;                                                \
				in = 0;                                                            \
			}                                                                          \
			if (!in && h) { /* the next sub-buffer: the last one is done */            \
				__atomic_store_n(&ring_done, ring_done + 1, __ATOMIC_RELEASE);     \
				if (h >= BUF_SIZE)                                                 \
					h = 0;                                                     \
			}                                                                          \
			p = ring + h;                                                              \
			STORE_REC(p, w, N);                                                        \
			head_mem = h + (N);                                                        \
			__atomic_store_n(&ring_commit, (uint32_t)((h + (N)) % SUB_SIZE),           \
					 __ATOMIC_RELEASE);                                        \
		}                                                                                  \
	}
LOOP_STREAM(4)
LOOP_STREAM(12)
LOOP_STREAM(20)
LOOP_STREAM(32)

/* The reader on another CPU than this thread, when there is one. */
static int ring_start(pthread_t *th)
{
	cpu_set_t set;
	int me = sched_getcpu(), other = -1;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE && other < 0; c++)
			if (CPU_ISSET(c, &set) && c != me)
				other = c;
	if (other >= 0) {
		CPU_ZERO(&set);
		CPU_SET(me, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	if (pthread_create(th, NULL, ring_reader, NULL))
		return -1;
	if (other >= 0) {
		CPU_ZERO(&set);
		CPU_SET(other, &set);
		pthread_setaffinity_np(*th, sizeof(set), &set);
	}
	return 0;
}

static __attribute__((noinline)) void loop_lock_add(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		__atomic_fetch_add(&line[0], 1, __ATOMIC_RELAXED);
}

static __attribute__((noinline)) void loop_cmpxchg(unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t old = line[1];

		__atomic_compare_exchange_n(&line[1], &old, old + 1, 0, __ATOMIC_SEQ_CST,
					    __ATOMIC_RELAXED);
	}
}

static __attribute__((noinline)) void loop_add(unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		table[i & 63] += i;
		__asm__ volatile("" ::: "memory");
	}
}

struct slot {
	uint64_t key, hits, sum;
};
static struct slot slots[256];

static __attribute__((noinline)) void loop_tbl(unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t key = i & 63;
		unsigned j = (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 56);

		while (slots[j].hits && slots[j].key != key)
			j = (j + 1) & 255;
		slots[j].key = key;
		slots[j].hits++;
		slots[j].sum += 1;
		__asm__ volatile("" ::: "memory");
	}
}

#define MAP_BITS 11 /* the table of a hist trigger's size=2048 */
static struct utrace_hist_map *hmap, *btmap;
static const struct utrace_bt_mapdesc bt_count = {.nkeys = 1, .agg = UTRACE_BTT_COUNT};

static struct utrace_hist_map *map_new(uint32_t key_size)
{
	uint64_t bytes = utrace_hist_map_bytes(MAP_BITS, key_size, 2);
	struct utrace_hist_map *m = aligned_alloc(4096, (bytes + 4095) & ~4095ull);

	if (m) {
		memset(m, 0, bytes);
		*m = (struct utrace_hist_map){.magic = UTRACE_HIST_MAP_MAGIC, .bits = MAP_BITS,
					      .key_size = key_size, .nr_sums = 2};
	}
	return m;
}

static __attribute__((noinline)) void loop_hmap(unsigned n)
{
	int s = utrace_hist_stripe_claim(hmap, 4242);

	for (unsigned i = 0; i < n; i++) {
		uint64_t key = i & 63;
		uint32_t e = utrace_hist_map_insert_idx(hmap, (const uint8_t *)&key, 8);

		if (e != UINT32_MAX && s >= 0) {
			uint64_t *ss = utrace_hist_stripe_sums(hmap, (uint32_t)s, e);

			utrace_hist_add_owned(&ss[0], 1);
			utrace_hist_add_owned(&ss[1], i);
		}
		__asm__ volatile("" ::: "memory");
	}
}

static __attribute__((noinline)) void loop_btmap(unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		utrace_bt_table_update16(btmap, &bt_count, i & 63, 1, 4242, 0);
		__asm__ volatile("" ::: "memory");
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* median ns a call of fn's body, over rounds runs */
static double measure(void (*fn)(unsigned), int rounds)
{
	double v[MAX_ROUNDS];

	for (int r = 0; r < rounds; r++) {
		double t0 = now_ns();

		fn(ITERS);
		v[r] = (now_ns() - t0) / ITERS;
	}
	qsort(v, (size_t)rounds, sizeof(v[0]), cmp_double);
	return v[rounds / 2];
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(unsigned);
	} cases[] = {{"rdtsc", loop_rdtsc}, {"w4", loop_w4},	     {"w8", loop_w8},
		     {"w12", loop_w12},	    {"w20", loop_w20},	     {"w32", loop_w32},
		     {"lock_add", loop_lock_add}, {"cmpxchg", loop_cmpxchg}, {"add", loop_add},
		     {"tbl", loop_tbl}, {"hmap", loop_hmap}, {"btmap", loop_btmap},
		     {"s4", loop_s4}, {"s12", loop_s12}, {"s20", loop_s20}, {"s32", loop_s32}};
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	double empty;
	pthread_t reader;

	if (rounds < 1 || rounds > MAX_ROUNDS)
		rounds = 5;
	buf = aligned_alloc(4096, BUF_SIZE);
	ring = aligned_alloc(4096, BUF_SIZE);
	hmap = map_new(8);
	btmap = map_new(16);
	if (!buf || !ring || !hmap || !btmap)
		return 1;
	memset(buf, 0, BUF_SIZE); /* faulted in, as a ring buffer in use is */
	memset(ring, 0, BUF_SIZE);
	empty = measure(loop_empty, rounds);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool stream = cases[i].name[0] == 's';
		double v;

		if (stream && ring_start(&reader))
			return 1;
		head_mem = 0;
		v = measure(cases[i].fn, rounds) - empty;
		if (stream) {
			__atomic_store_n(&ring_stop, 1, __ATOMIC_RELAXED);
			pthread_join(reader, NULL);
			ring_stop = 0;
			ring_done = ring_read = 0;
		}

		printf("%s%s=%.2f", i ? " " : "", cases[i].name, v < 0 ? 0 : v);
	}
	putchar('\n');
	free(buf);
	free(ring);
	free(hmap);
	free(btmap);
	return 0;
}
