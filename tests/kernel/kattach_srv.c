/* SPDX-License-Identifier: MIT */
/*
 * kattach_srv.c - a small server and its client for tests/kernel/attach.sh:
 * `kattach_srv server PATH` answers each request (a number) on a unix
 * stream socket with a function of it, from a thread per connection;
 * `kattach_srv client PATH N` sends N requests one after the other on
 * one connection and prints how many were answered, and answered right.
 * Attaching to and detaching from the server while the client runs must
 * not lose or change an answer.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

__attribute__((noinline)) static uint64_t answer(uint64_t q)
{
	for (int i = 0; i < 20; i++)
		q = q * 6364136223846793005ull + 1442695040888963407ull;
	return q;
}

static void *serve(void *arg)
{
	int fd = (int)(intptr_t)arg;
	uint64_t q, a;

	while (read(fd, &q, sizeof(q)) == sizeof(q)) {
		a = answer(q);
		if (write(fd, &a, sizeof(a)) != sizeof(a))
			break;
	}
	close(fd);
	return NULL;
}

static int addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", path);
	return socket(AF_UNIX, SOCK_STREAM, 0);
}

static int server(const char *path)
{
	struct sockaddr_un sa;
	int ls = addr(path, &sa);

	unlink(path);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 16))
		return 1;
	fprintf(stderr, "ready\n");
	for (;;) {
		int fd = accept(ls, NULL, NULL);
		pthread_t th;

		if (fd < 0)
			return 1;
		pthread_create(&th, NULL, serve, (void *)(intptr_t)fd);
		pthread_detach(th);
	}
}

static int client(const char *path, long n)
{
	struct sockaddr_un sa;
	int fd = addr(path, &sa);
	long answered = 0, right = 0;

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return 1;
	for (long i = 0; i < n; i++) {
		uint64_t q = (uint64_t)i, a;

		if (write(fd, &q, sizeof(q)) != sizeof(q) || read(fd, &a, sizeof(a)) != sizeof(a))
			break;
		answered++;
		right += a == answer(q);
	}
	printf("answered %ld right %ld of %ld\n", answered, right, n);
	return answered == n && right == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "server"))
		return server(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "client"))
		return client(argv[2], atol(argv[3]));
	fprintf(stderr, "usage: kattach_srv server PATH | client PATH N\n");
	return 2;
}
