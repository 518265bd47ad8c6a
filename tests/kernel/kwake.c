/* SPDX-License-Identifier: MIT */
/*
 * kwake.c - known wakeups for tests/kernel/kwakeup.sh and
 * tests/kernel/sched_latency.sh:
 *   kwake sleep N [F] N sleeps of 1 ms: N wakeups, N switches in; first
 *                     "0" written to file F (tracing_max_latency: the
 *                     wakeup tracers measure from kwake on, after exec)
 *   kwake pingpong N  two threads hand a byte back and forth N times
 *                     through pipes: each blocks and is woken N times
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2], n;

static void *peer(void *arg)
{
	char c;

	for (int i = 0; i < n; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			break;
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	char c = 'x';

	if (argc < 3)
		return 2;
	n = atoi(argv[2]);
	if (!strcmp(argv[1], "sleep")) {
		if (argc > 3) {
			int fd = open(argv[3], O_WRONLY);

			if (fd < 0 || write(fd, "0\n", 2) != 2 || close(fd))
				return 1;
		}
		for (int i = 0; i < n; i++) {
			struct timespec ts = {0, 1000000};

			while (nanosleep(&ts, &ts))
				;
		}
		return 0;
	}
	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, peer, NULL))
		return 1;
	for (int i = 0; i < n; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	pthread_join(t, NULL);
	return 0;
}
