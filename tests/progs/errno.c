/* SPDX-License-Identifier: MIT */
/*
 * errno.c - errno (and the return registers) must survive the tracer's
 * entry and return hooks, which may make system calls of their own (mmap
 * a buffer, write to the socket) on the first call of a thread or when a
 * sub-buffer fills.
 *
 *  - errno set by the caller is seen unchanged inside a traced callee and
 *    after it returns;
 *  - errno set by a failing syscall inside a traced callee is seen by the
 *    caller after the return hook ran;
 *  - a fresh thread's first traced call (when the runtime sets up that
 *    thread's buffer) leaves errno alone;
 *  - 20000 calls in a loop (several sub-buffer switches) keep it too.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "progs.h"

static int failures;

static void check(const char *what, int got, int want)
{
	if (got != want) {
		printf("FAIL %s: errno %d, expected %d\n", what, got, want);
		failures++;
	}
}

TRACED int sees_errno(void)
{
	BARRIER();
	return errno;
}

TRACED int fails_open(void)
{
	int fd = open("/nonexistent/utrace-errno-test", O_RDONLY);

	BARRIER();
	return fd;
}

TRACED int fails_close(void)
{
	int r = close(-1);

	BARRIER();
	return r;
}

TRACED int nop_call(int x)
{
	BARRIER();
	return x;
}

TRACED void *thread_main(void *arg)
{
	(void)arg;
	errno = EDOM;
	nop_call(1); /* the first traced call of this thread */
	check("thread first call", errno, EDOM);
	errno = ERANGE;
	check("thread callee", sees_errno(), ERANGE);
	return NULL;
}

int main(void)
{
	pthread_t t;

	errno = EINTR;
	check("callee sees caller's errno", sees_errno(), EINTR);
	check("caller keeps errno", errno, EINTR);

	errno = 0;
	if (fails_open() != -1)
		printf("FAIL open succeeded\n");
	check("errno from open in callee", errno, ENOENT);

	errno = 0;
	if (fails_close() != -1)
		printf("FAIL close succeeded\n");
	check("errno from close in callee", errno, EBADF);

	errno = EAGAIN;
	for (int i = 0; i < 20000; i++) {
		nop_call(i);
		if (errno != EAGAIN) {
			check("errno across 20000 calls", errno, EAGAIN);
			break;
		}
	}

	pthread_create(&t, NULL, thread_main, NULL);
	pthread_join(t, NULL);

	printf("errno: %s\n", failures ? "FAILED" : "all checks passed");
	return failures != 0;
}
