/* SPDX-License-Identifier: MIT */
/*
 * gotcall.c - calls through the GOT into a library linked at start-up
 * (dlthreads_lib.c) whose entries utrace patches: with --libcall and the
 * library selected, each call is recorded once (the entry's record, not
 * a library call on top of it), the graph balanced.
 */
#include <stdio.h>

int dl_add(int, int);
int dl_work(int);

int main(void)
{
	int s = dl_add(1, 2);

	for (int i = 0; i < 3; i++)
		s += dl_work(10);
	printf("%d\n", s);
	return 0;
}
