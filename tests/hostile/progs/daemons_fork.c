/* SPDX-License-Identifier: MIT */
/*
 * daemons_fork.c DIR - starts a daemon as daemon(3) does (fork, setsid,
 * fork again, stdio on /dev/null), then ends.  The daemon writes its pid
 * to DIR/pid, calls a traced function until DIR/release exists (at most
 * 120 s), then loads a library, forks a child, starts a thread and
 * makes 300,000 more calls (enough to fill a small buffer many times), as
 * a runtime whose recorder has gone must let it, and writes its result and how many
 * calls it made to DIR/done and exits.
 * Untraced or traced, the command ends at once and the daemon finishes
 * its work with the same result.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char path[4096];
static volatile unsigned sink; /* every call is made, whatever the optimiser sees */

__attribute__((noinline)) unsigned work(unsigned x)
{
	sink = x;
	return x * 2654435761u + 1;
}

static void *thread(void *arg)
{
	unsigned *s = arg;

	for (int i = 0; i < 200000; i++)
		*s = work(*s);
	return NULL;
}

static void put(const char *dir, const char *name, const char *text)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(tmp, "w")))
		exit(3);
	fputs(text, f);
	fclose(f);
	rename(tmp, path); /* whole or not there */
}

static void daemon_main(const char *dir)
{
	unsigned s = 1, w = 1, calls = 0;
	int status;
	pid_t child;
	char text[64];
	struct stat st;
	pthread_t t;

	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	put(dir, "pid", text);
	snprintf(path, sizeof(path), "%s/release", dir);
	for (int i = 0; i < 12000 && stat(path, &st) < 0; i++) {
		for (int k = 0; k < 100; k++, calls++)
			w = work(w);
		usleep(10000);
	}
	/* after the recording: what makes the runtime talk to a recorder
	 * that has gone (a library, a process, a thread), many calls */
	if (!dlopen("libm.so.6", RTLD_NOW))
		exit(5);
	if ((child = fork()) == 0)
		_exit((int)(work(s) & 1) + 10);
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) < 10)
		exit(6);
	if (pthread_create(&t, NULL, thread, &s) || pthread_join(t, NULL))
		exit(4);
	for (int i = 0; i < 100000; i++)
		s = work(s);
	calls += 300001;
	/* the result is the same however long it waited; the calls are not */
	snprintf(text, sizeof(text), "result %u\ncalls %u\n", s, calls);
	put(dir, "done", text);
}

int main(int argc, char **argv)
{
	unsigned s = 7;
	pid_t pid;
	int fd;

	if (argc < 2)
		return 2;
	for (int i = 0; i < 1000; i++)
		s = work(s);
	printf("command %u\n", s);
	fflush(stdout);
	if ((pid = fork()) < 0)
		return 1;
	if (pid) { /* the command: waits for the first child only */
		waitpid(pid, NULL, 0);
		return 0;
	}
	setsid();
	if (fork())
		_exit(0);
	fd = open("/dev/null", O_RDWR);
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
	daemon_main(argv[1]);
	return 0;
}
