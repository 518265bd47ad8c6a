/* SPDX-License-Identifier: MIT */
/*
 * bt_walk.c - the program of tests/e2e/t/bt_walk.sh: walk() takes a
 * linked list, whose members utrace bt reads at addresses it computes as
 * it goes (n = n->next); the second list ends in a pointer into nothing
 * (8), which a read must survive, giving 0.  name() takes a string
 * across two pages, then one that runs into an unmapped page with no
 * NUL: str() reads the first whole and the second as "" (bpftrace's
 * probe_read_str fails at the fault).
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

struct node {
	struct node *next;
	long val;
};

static struct node nodes[6];

__attribute__((noinline)) long walk(struct node *n, long first)
{
	__asm__ volatile("" : : "r"(n), "r"(first) : "memory");
	return first;
}

__attribute__((noinline)) long name(const char *s, long k)
{
	__asm__ volatile("" : : "r"(s), "r"(k) : "memory");
	return k;
}

int main(void)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long r;

	for (int i = 0; i < 6; i++) {
		nodes[i].val = i * i + 1; /* 1 2 5 10 17 26 */
		nodes[i].next = i < 5 ? &nodes[i + 1] : NULL;
	}
	r = walk(nodes, 0);
	nodes[5].next = (struct node *)8; /* a pointer into nothing */
	r += walk(&nodes[3], 3);
	if (p == MAP_FAILED)
		return 1;
	memcpy(p + 4096 - 5, "hello world", 12); /* across two pages */
	r += name(p + 4096 - 5, 0);
	munmap(p + 4096, 4096);
	memcpy(p + 4096 - 3, "xyz", 3); /* no NUL before the unmapped page */
	r += name(p + 4096 - 3, 0);
	printf("%ld\n", r);
	return 0;
}
