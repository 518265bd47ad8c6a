/* SPDX-License-Identifier: MIT */
/*
 * fdclose.c - a program that closes every descriptor it did not open, as
 * daemons do at start, must stay traced and see what it sees untraced.
 * The runtime holds a descriptor of its own (the socket to the recorder);
 * the program never opened it, so to the program it must not exist.
 *
 * Without arguments, between rounds of traced calls:
 *   a) close(fd) for fd = 3 .. 1023: every one fails with EBADF;
 *   b) closefrom(3);
 *   c) close_range(3, ~0U, 0);
 *   d) dup2 (even fds) and dup3 (odd ones) of a pipe onto every free fd
 *      from 5 up, wherever the runtime's may be, a byte written through
 *      each and read back, then close_range again;
 *   e) a new thread makes traced calls too.
 * It prints what each step saw; the report must hold every call.
 *
 * With "raw": the close goes around libc (syscall(SYS_close_range)), which
 * no interposition sees.  The calls the main thread makes afterwards are
 * still recorded (its buffer stays mapped); a thread started afterwards is
 * not traced, and both the recorder and the runtime say why.  It waits a
 * little before that thread, as a daemon would run on: a process that
 * exits within a millisecond of the close looks to the recorder like one
 * that ended.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "progs.h"

#define ROUND 100

static long calls;

TRACED int work(int i)
{
	BARRIER();
	return i * 2 + 1;
}

TRACED long phase(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++) {
		s += work(i);
		BARRIER();
	}
	__atomic_add_fetch(&calls, n, __ATOMIC_RELAXED);
	return s;
}

/* The fds a daemon's loop would go through: 3 .. min(1024, limit) - 1. */
static int fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur > 1024)
		return 1024;
	return (int)rl.rlim_cur;
}

static void close_loop(int limit)
{
	int closed = 0, other = 0;

	for (int fd = 3; fd < limit; fd++) {
		errno = 0;
		if (close(fd) == 0)
			closed++;
		else if (errno != EBADF)
			other++;
	}
	printf("a) close 3..%d: %d closed, %d not EBADF\n", limit - 1, closed, other);
}

/* Write a byte through every dup, read them all back from the pipe. */
static void dup_pipe(int limit)
{
	int p[2], dups = 0, wrote = 0, got = 0, fail = 0;
	char buf[1100];

	if (pipe(p) < 0 || p[0] != 3 || p[1] != 4) {
		printf("d) pipe: unexpected fds\n");
		return;
	}
	for (int fd = 5; fd < limit; fd++) {
		if ((fd & 1 ? dup3(p[1], fd, O_CLOEXEC) : dup2(p[1], fd)) != fd) {
			fail++;
			continue;
		}
		dups++;
		wrote += write(fd, "x", 1) == 1;
	}
	if (fcntl(5, F_GETFD) != FD_CLOEXEC || fcntl(6, F_GETFD) != 0)
		fail++;
	close(p[1]);
	if (close_range(5, ~0U, 0) < 0)
		fail++;
	for (ssize_t n; (n = read(p[0], buf, sizeof(buf))) > 0;)
		got += (int)n;
	close(p[0]);
	printf("d) dup2/dup3 onto 5..%d: %d dups, %d written, %d read back, %d failures\n",
	       limit - 1, dups, wrote, got, fail);
}

TRACED static void *thread_main(void *arg)
{
	long *s = arg;

	*s = phase(ROUND);
	return NULL;
}

static long in_thread(void)
{
	pthread_t th;
	long s = 0;

	if (pthread_create(&th, NULL, thread_main, &s) || pthread_join(th, NULL))
		return -1;
	return s;
}

/* After everything is closed, every fd from 3 must be closed: none can
 * be closed again, and close says EBADF. */
static void check_all_closed(const char *when, int limit)
{
	int open = 0;

	for (int fd = 3; fd < limit; fd++)
		if (close(fd) == 0 || errno != EBADF)
			open++;
	printf("%s: %d descriptors from 3 were still open\n", when, open);
}

TRACED static int daemon_like(void)
{
	int limit = fd_limit();
	long s = phase(ROUND);

	close_loop(limit);
	s += phase(ROUND);
	closefrom(3);
	check_all_closed("b) closefrom(3)", limit);
	s += phase(ROUND);
	printf("c) close_range(3, ~0U, 0) = %d\n", close_range(3, ~0U, 0));
	check_all_closed("c) close_range", limit);
	s += phase(ROUND);
	dup_pipe(limit);
	check_all_closed("d) after the dups", limit);
	s += phase(ROUND);
	s += in_thread();
	printf("sum %ld, %ld calls of work\n", s, calls);
	return 0;
}

TRACED static int raw(void)
{
	long s = phase(ROUND);

	printf("raw close_range = %ld\n", syscall(SYS_close_range, 3, ~0U, 0));
	s += phase(ROUND);
	/* a daemon runs on: the recorder (which polls every millisecond)
	 * sees the end of the socket while the process is still there */
	usleep(200 * 1000);
	s += in_thread();
	printf("sum %ld, %ld calls of work\n", s, calls);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "raw"))
		return raw();
	return daemon_like();
}
