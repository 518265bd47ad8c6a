/* SPDX-License-Identifier: MIT */
/*
 * kthreads.c - short-lived threads, for tests/kernel/kthreads.sh: main
 * starts NTHREADS threads one after another; each writes WRITE_LEN bytes
 * to /dev/null once and ends.  No thread lives long enough for a poll of
 * /proc to see it: only a kernel that follows the new tasks itself
 * (options/event-fork) records their writes.
 */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#define NTHREADS 14
#define WRITE_LEN 4093 /* the test's filter: count == 4093 */

static char buf[WRITE_LEN];
static int fd;

static void *writer(void *arg)
{
	(void)arg;
	return (void *)(long)write(fd, buf, sizeof(buf));
}

int main(void)
{
	int ok = 0;

	fd = open("/dev/null", O_WRONLY);
	if (fd < 0)
		return 1;
	for (int i = 0; i < NTHREADS; i++) {
		pthread_t t;
		void *ret;

		if (pthread_create(&t, NULL, writer, NULL) || pthread_join(t, &ret))
			return 1;
		ok += (long)ret == WRITE_LEN;
	}
	return ok == NTHREADS ? 0 : 1;
}
