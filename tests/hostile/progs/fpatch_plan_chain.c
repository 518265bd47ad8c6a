/* SPDX-License-Identifier: MIT */
/*
 * fpatch_plan_chain.c - for tests/hostile/fpatch_plan.sh, built without
 * utrace's flags: `chain PATH...` works a little (work(), in every
 * process), then runs PATH... as a chain: a child that execs PATH with
 * the rest as its arguments, and waits for it.  Each process prints its
 * depth's result line.  Its many small functions make a plan that is not
 * only main's.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define F(n)                                                                                       \
	__attribute__((noinline)) int f##n(int x)                                                  \
	{                                                                                          \
		return x * (n + 3) + 1;                                                            \
	}
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7)

__attribute__((noinline)) int work(int x)
{
	int (*fs[])(int) = {f0, f1, f2, f3, f4, f5, f6, f7};

	for (int i = 0; i < 8; i++)
		x = fs[i](x) & 0xffff;
	return x;
}

int main(int argc, char **argv)
{
	int status = 0;
	pid_t pid;

	printf("%d %d\n", argc, work(argc));
	fflush(stdout);
	if (argc < 2)
		return 0;
	pid = fork();
	if (pid == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
