/* SPDX-License-Identifier: MIT */
/*
 * probes.c - what in-process probes (--probe without PATH:) read, printed
 * by the program itself so the test can compare: arguments in registers,
 * nested dereferences, strings, bitfields, an array, return values, a
 * global through @SYMBOL, and a pointer that faults.  straight() and
 * callee() have no branch, so a probe on any of their instructions fires
 * exactly once per call; straight() calls and touches a global
 * RIP-relative, so the sweep moves a call and RIP-relative accesses.
 *
 * struct node's layout (x86-64): next 0, len 8, name 16, the bitfields'
 * word 24 (flags bits 0-2, kind bits 3-6), arr 28.
 */
#include <stdio.h>

#include "progs.h"

struct node {
	struct node *next;
	unsigned len;
	const char *name;
	unsigned flags : 3, kind : 4;
	int arr[4];
};

int counter = 100;

TRACED long visit(struct node *n, long k)
{
	long s = 0;

	for (struct node *p = n; p; p = p->next)
		s += (long)p->len * k;
	printf("visit len=%u nlen=%u name=%s k=%ld flags=%u kind=%u arr={%d,%d,%d,%d}\n", n->len,
	       n->next ? n->next->len : 0, n->name, k, n->flags, n->kind, n->arr[0], n->arr[1],
	       n->arr[2], n->arr[3]);
	return s;
}

TRACED int callee(int x)
{
	return x * 3 + 1;
}

TRACED int straight(int x)
{
	int r;

	counter += x;
	r = callee(x) + counter;
	BARRIER();
	return r;
}

TRACED int add(int a, int b)
{
	BARRIER();
	return a + b;
}

TRACED int fault_target(const char *p)
{
	BARRIER();
	return p != 0;
}

int main(void)
{
	struct node b = {0, 7, "second", 5, 9, {1, 2, 3, 4}};
	struct node a = {&b, opaque(3), "first", 2, 11, {-5, 6, 70, 800}};
	long t = 0;

	for (int i = 0; i < 3; i++) {
		int r = add(i, 40);

		printf("add a=%d b=%d ret=%d\n", i, 40, r);
		t += visit(&a, i + 1) + r;
		r = straight(i + 2);
		printf("straight x=%d counter=%d ret=%d\n", i + 2, counter, r);
	}
	printf("fault_target %d\n", fault_target((const char *)16));
	printf("total %ld\n", t);
	return 0;
}
