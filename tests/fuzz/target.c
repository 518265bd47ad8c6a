// SPDX-License-Identifier: MIT
//
// target.c - the program tests/fuzz/run.sh builds (with `utrace cflags`)
// and records to make seeds: an ELF file with call sites, static
// tracepoints and USDT notes for fuzz_elf and fuzz_uprobe, its DWARF for
// fuzz_btfarg's arguments by name (UTRACE_FUZZ_TARGET), and small
// utrace.dat files of every tracer for fuzz_dat.  Few calls, so that the
// recordings stay a few KiB.
#include <stdio.h>

#include <utrace/utrace.h>
#if __has_include(<sys/sdt.h>)
#include <sys/sdt.h>
#else
#define DTRACE_PROBE2(p, n, a, b) ((void)(a), (void)(b))
#endif

#define CREATE_TRACE_POINTS
#include "tp_events.h" /* tests/progs/ */

static volatile int sink;

/* a structure by pointer: fuzz_btfarg's arguments by name (->, ., :string) */
struct fnode {
	int len;
	struct fnode *next;
	const char *name;
	char tag[4];
	unsigned bits : 3;
};

__attribute__((noinline)) int node_len(struct fnode *p, int depth)
{
	sink += p->len + depth;
	return p->next ? p->next->len : p->len;
}

__attribute__((noinline)) int leaf(int i)
{
	trace_tp_value(i, i & 1 ? "odd" : "even");
	DTRACE_PROBE2(fuzz, leaf, i, (long)sink);
	sink += i;
	return sink;
}

__attribute__((noinline)) long walk(int n)
{
	long sum = 0;

	trace_tp_begin((unsigned long)n, -1);
	for (int i = 0; i < n; i++)
		sum += leaf(i);
	utrace_printf("sum=%ld", sum);
	trace_tp_end((unsigned long)n, sum);
	return sum;
}

int main(void)
{
	struct fnode b = {2, NULL, "b", "t", 1}, a = {1, &b, "a", "t", 5};

	printf("%ld %d\n", walk(3), node_len(&a, 1));
	return 0;
}
