/* SPDX-License-Identifier: MIT */
/*
 * fork.c - fork() from inside traced frames.  The child returns through
 * those frames (its copy of the return stack must be valid), calls
 * child_work() and exits with status 5; the parent waits, calls
 * parent_work() and prints the child's status.  Then posix_spawn()s
 * /bin/true (an uninstrumented image started with libutrace preloaded).
 * Expectation: child_work appears under the child's pid, parent_work under
 * the parent's, and each task's braces balance.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "progs.h"

extern char **environ;

TRACED int child_leaf(int x)
{
	BARRIER();
	return x + 100;
}

TRACED int child_work(int x)
{
	int r = child_leaf(x) + child_leaf(x + 1);

	BARRIER();
	return r;
}

TRACED int parent_leaf(int x)
{
	BARRIER();
	return x - 1;
}

TRACED int parent_work(int x)
{
	int r = parent_leaf(x) * 2;

	BARRIER();
	return r;
}

TRACED pid_t spawn_child(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	BARRIER();
	return pid;
}

int main(void)
{
	int status = 0;
	pid_t pid = spawn_child();

	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		int r = child_work(opaque(1));

		printf("child: child_work = %d\n", r);
		exit(5);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	printf("parent: parent_work = %d\n", parent_work(opaque(10)));
	if (WIFEXITED(status))
		printf("parent: child exited with %d\n", WEXITSTATUS(status));
	else
		printf("parent: child died abnormally (status 0x%x)\n", status);

	char *args[] = {"true", NULL};
	fflush(stdout);
	if (posix_spawn(&pid, "/bin/true", NULL, NULL, args, environ) != 0) {
		perror("posix_spawn");
		return 1;
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	printf("parent: /bin/true exited with %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
