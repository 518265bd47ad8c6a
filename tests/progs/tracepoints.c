// SPDX-License-Identifier: MIT
//
// tracepoints.c - static tracepoints and utrace_printf inside traced
// functions: recorded only when enabled (-e), filtered in the process
// (-f), shown in time order with the calls.
#include <stdio.h>

#include <utrace/utrace.h>

#include "progs.h"
#define CREATE_TRACE_POINTS
#include "tp_events.h"

static const char *const names[] = {"zero", "one", "two", "three", "four"};

TRACED int step(int i)
{
	trace_tp_value(i, names[i]);
	BARRIER();
	return i * 2;
}

TRACED long run(void)
{
	long sum = 0;

	trace_tp_begin(5, -1);
	for (int i = 0; i < 5; i++)
		sum += step(opaque(i));
	utrace_printf("sum=%ld", sum);
	trace_tp_end(5, sum);
	return sum;
}

int main(void)
{
	printf("sum %ld\n", run());
	return 0;
}
