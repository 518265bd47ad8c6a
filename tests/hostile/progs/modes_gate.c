/* SPDX-License-Identifier: MIT */
/*
 * modes_gate.c - preloaded (LD_PRELOAD) into a hostile program so that it
 * can be attached to (record -P) before it does anything: its constructor
 * creates $MODES_GATE.ready, waits until the file $MODES_GATE exists, then
 * the program runs as it would.  The ready file is what the test waits
 * for before it attaches: until then the pid may still be the shell's
 * child before its execve (an attach there is lost at the exec), or the
 * dynamic loader before libc is mapped.  Built without utrace's flags;
 * nothing of it is traced.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((constructor)) static void modes_gate(void)
{
	const char *f = getenv("MODES_GATE");
	char ready[4096];
	int fd;

	if (f && *f && snprintf(ready, sizeof(ready), "%s.ready", f) < (int)sizeof(ready) &&
	    (fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0)
		close(fd);
	while (f && *f && access(f, F_OK) != 0)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
}
