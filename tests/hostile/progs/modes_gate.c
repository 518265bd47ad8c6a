/* SPDX-License-Identifier: MIT */
/*
 * modes_gate.c - preloaded (LD_PRELOAD) into a hostile program so that it
 * can be attached to (record -P) before it does anything: its constructor
 * waits until the file $MODES_GATE exists, then the program runs as it
 * would.  Built without utrace's flags; nothing of it is traced.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((constructor)) static void modes_gate(void)
{
	const char *f = getenv("MODES_GATE");

	while (f && *f && access(f, F_OK) != 0)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
}
