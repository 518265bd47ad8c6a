/* SPDX-License-Identifier: MIT */
/*
 * stderr_log.c LOG - a program that keeps its own log on fd 2 (as a
 * daemon or a service does) and lowers RLIMIT_AS so that a new thread's
 * trace buffer cannot be mapped: whatever utrace has to say about it
 * goes to the recorder, never into this log.  Prints how many lines of
 * its log it did not write itself (0, traced or not).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define THREADS 4

__attribute__((noinline)) int work(int x)
{
	return x * 7 + 1;
}

static void *thread(void *arg)
{
	int *s = arg;

	for (int i = 0; i < 100; i++)
		*s = work(*s) & 0xfff;
	return NULL;
}

/* The address space in use now, in bytes (/proc/self/statm's first). */
static unsigned long vm_bytes(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f && fscanf(f, "%lu", &pages) != 1)
		pages = 0;
	if (f)
		fclose(f);
	return pages * (unsigned long)sysconf(_SC_PAGESIZE);
}

static int foreign_lines(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += strncmp(line, "log: ", 5) != 0;
	if (f)
		fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	int fd, sum = 0, s[THREADS] = {0};
	struct rlimit old, low;
	pthread_attr_t attr;
	pthread_t t[THREADS];

	if (argc < 2 || (fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
		return 2;
	dup2(fd, 2);
	close(fd);
	fprintf(stderr, "log: start\n");
	/* room for small thread stacks, none for a trace buffer */
	getrlimit(RLIMIT_AS, &old);
	low = old;
	low.rlim_cur = vm_bytes() + (1ul << 20);
	setrlimit(RLIMIT_AS, &low);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (int i = 0; i < THREADS; i++) {
		s[i] = i;
		if (pthread_create(&t[i], &attr, thread, &s[i]))
			fprintf(stderr, "log: thread %d not started\n", i);
		else
			pthread_join(t[i], NULL);
	}
	setrlimit(RLIMIT_AS, &old);
	for (int i = 0; i < THREADS; i++)
		sum += s[i];
	fprintf(stderr, "log: done\n");
	printf("%d foreign lines in my log, sum %d\n", foreign_lines(argv[1]), sum);
	return 0;
}
