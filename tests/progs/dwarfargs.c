/* SPDX-License-Identifier: MIT */
/*
 * dwarfargs.c - what probes by source names read (utrace probe -V and -L,
 * --probe with DWARF names, tests/kernel/dwarf_probes.sh): a walk over a
 * linked list of structures with every kind of member (pointer, long,
 * bitfields, array, char array), a string parameter and a global.  It
 * prints every value a probe reads, so that a test can compare them.
 */
#include <stdio.h>

#include "progs.h"

struct node {
	int id;
	struct node *next;
	long len;
	unsigned flag : 3;
	unsigned mode : 5;
	int arr[4];
	char name[8];
};

int counter = 5;

TRACED long walk(struct node *p, int count, const char *buf)
{
	long total = 0;
	int i;

	for (i = 0; i < count && p; i++) {
		total += p->len + p->arr[2];
		p = p->next;
	}
	printf("walk %s %ld\n", buf, total);
	return total;
}

TRACED int scale(int n, const char *label)
{
	BARRIER();
	return opaque(n) * counter + (label[0] == 's');
}

int main(int argc, char **argv)
{
	struct node b = {
	    .id = 2, .len = 40, .flag = 5, .mode = 17, .arr = {1, 2, 3, 4}, .name = "bee"};
	struct node a = {.id = 1,
			 .next = &b,
			 .len = 30,
			 .flag = 2,
			 .mode = 9,
			 .arr = {5, 6, 7, 8},
			 .name = "ay"};
	long total;

	(void)argv;
	printf("count=%d len=%ld next_len=%ld arr2=%d flag=%u mode=%u name=%s next_name=%s "
	       "counter=%d\n",
	       argc + 1, a.len, b.len, a.arr[2], a.flag, a.mode, a.name, b.name, counter);
	total = walk(&a, argc + 1, "hello");
	printf("total=%ld scale=%d\n", total, scale(opaque(3), "six"));
	return 0;
}
