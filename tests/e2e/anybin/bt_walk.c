/* SPDX-License-Identifier: MIT */
/*
 * bt_walk.c - the program of tests/e2e/t/bt_walk.sh: walk() takes a
 * linked list, whose members utrace bt reads at addresses it computes as
 * it goes (n = n->next); the second list ends in a pointer into nothing
 * (8), which a read must survive, giving 0.
 */
#include <stdio.h>

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

int main(void)
{
	long r;

	for (int i = 0; i < 6; i++) {
		nodes[i].val = i * i + 1; /* 1 2 5 10 17 26 */
		nodes[i].next = i < 5 ? &nodes[i + 1] : NULL;
	}
	r = walk(nodes, 0);
	nodes[5].next = (struct node *)8; /* a pointer into nothing */
	r += walk(&nodes[3], 3);
	printf("%ld\n", r);
	return 0;
}
