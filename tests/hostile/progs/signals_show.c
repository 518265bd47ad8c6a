/* SPDX-License-Identifier: MIT */
/*
 * signals_show.c - prints the signals it was started ignoring and
 * blocking (its /proc/self/status SigIgn and SigBlk lines), after some
 * traced calls: what a traced program sees must be what it sees untraced.
 */
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) int step(int x)
{
	return x * 5 + 3;
}

int main(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	int s = 0;

	for (int i = 0; i < 100; i++)
		s = step(s) & 0xfff;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigIgn:", 7) || !strncmp(line, "SigBlk:", 7))
			fputs(line, stdout);
	printf("%d\n", s);
	return 0;
}
