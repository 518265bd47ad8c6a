/* SPDX-License-Identifier: MIT */
/*
 * signals_group.c - sends SIG (argv[1], a number) to its whole process
 * group, as a terminal hang-up or a Ctrl-C does, then says it is still
 * there: started ignoring SIG (nohup), it must be, traced or not.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) int step(int x)
{
	return x + 1;
}

int main(int argc, char **argv)
{
	int s = 0;

	if (argc < 2)
		return 2;
	kill(0, atoi(argv[1]));
	for (int i = 0; i < 1000; i++)
		s = step(s);
	usleep(100000);
	printf("still here %d\n", s);
	return 0;
}
