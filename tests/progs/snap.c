// SPDX-License-Identifier: MIT
//
// snap.c - the snapshot and stacktrace triggers: snap:snap_tick with id
// 0, 1, ... N - 1, fired from snap_inner(), called by snap_middle(), called
// by snap_outer(), called by main(): a known call chain at every
// optimisation level (TRACED keeps each function and its call), for the
// stacktrace trigger's `<stack trace>` block and the stacktrace hist key.
// With N large, a small --overwrite buffer holds only the last few
// thousand ticks: what a snapshot at id K keeps is the ids right before K.
#include <stdio.h>
#include <stdlib.h>

#include "progs.h"
#define CREATE_TRACE_POINTS
#include "snap_events.h"

TRACED void snap_inner(int id)
{
	trace_snap_tick(id);
	BARRIER();
}

TRACED void snap_middle(int id)
{
	snap_inner(id);
	BARRIER();
}

TRACED void snap_outer(int id)
{
	snap_middle(id);
	BARRIER();
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	for (int i = 0; i < n; i++)
		snap_outer(opaque(i));
	printf("fired %d ticks\n", n);
	return 0;
}
