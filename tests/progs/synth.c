// SPDX-License-Identifier: MIT
//
// synth.c - requests with a known latency, for the kernel's latency recipe
// on user events (ts0=..., $ts0, onmatch().req_lat(...), a synthetic
// event and its histogram): requests 1, 2 and 3 each begin, take id * 2 ms
// and end, in that order, then request 9 ends without ever beginning
// (nothing may match it) and request 4 begins and never ends.  The
// program checks nothing: the test compares the synthetic histogram with
// these rules (one entry per id 1..3, lat >= id * 2000 us).
#include <stdio.h>
#include <time.h>

#include "progs.h"
#define CREATE_TRACE_POINTS
#include "synth_events.h"

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L}, rem;

	while (nanosleep(&ts, &rem))
		ts = rem;
}

TRACED void request(int id)
{
	trace_req_begin(id);
	sleep_ms(2L * id);
	trace_req_end(id);
	BARRIER();
}

int main(void)
{
	for (int id = 1; id <= 3; id++)
		request(opaque(id));
	trace_req_end(opaque(9));
	trace_req_begin(opaque(4));
	printf("3 requests\n");
	return 0;
}
