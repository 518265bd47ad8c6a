/* SPDX-License-Identifier: MIT */
/*
 * probes_live.c STOP READY - the program that tests/hostile/probes_live.sh
 * adds and removes probes in through the live tracefs.  8 threads call
 * hotfn in a loop; the main thread sleeps in nanosleep(3 s) again and
 * again, and another thread waits in poll() then read() on a pipe that
 * main writes 64 bytes into at the end: nothing utrace does may
 * interrupt them (no EINTR, no short sleep or read).  READY is created
 * once everything runs; STOP ends it.  stdout holds only what must be
 * the same as untraced: how many calls went wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define HOT 8

static volatile long sink;
static const char *stop;
static int fds[2];
static int poll_eintr, read_short;

__attribute__((noinline)) long hotfn(long v)
{
	long s = v;

	for (int i = 0; i < 10; i++)
		s = s * 7 + i;
	sink += s;
	return s & 0xff;
}

static void *hot(void *arg)
{
	(void)arg;
	while (access(stop, F_OK) != 0) {
		for (int i = 0; i < 20; i++)
			hotfn(i);
		usleep(2000);
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct pollfd p = {.fd = fds[0], .events = POLLIN};
	char buf[64];
	ssize_t n;

	(void)arg;
	while (poll(&p, 1, -1) < 0)
		poll_eintr += errno == EINTR;
	n = read(fds[0], buf, sizeof(buf));
	read_short = n != (ssize_t)sizeof(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec ts = {3, 0};
	pthread_t t[HOT + 1];
	int bad_sleeps = 0, sleeps = 0, fd;
	char data[64] = {0};

	if (argc < 3 || pipe(fds) < 0)
		return 2;
	stop = argv[1];
	for (int i = 0; i < HOT; i++)
		pthread_create(&t[i], NULL, hot, NULL);
	pthread_create(&t[HOT], NULL, reader, NULL);
	if ((fd = open(argv[2], O_CREAT | O_WRONLY, 0600)) >= 0)
		close(fd);
	while (access(stop, F_OK) != 0) {
		bad_sleeps += nanosleep(&ts, NULL) != 0;
		sleeps++;
	}
	if (write(fds[1], data, sizeof(data)) != (ssize_t)sizeof(data))
		return 3;
	for (int i = 0; i <= HOT; i++)
		pthread_join(t[i], NULL);
	printf("interrupted sleeps %d, poll EINTR %d, short reads %d\n", bad_sleeps, poll_eintr,
	       read_short);
	fprintf(stderr, "%d sleeps\n", sleeps);
	return 0;
}
