// SPDX-License-Identifier: MIT
//
// track.c - user events shaped as the kernel's sched_waking, sched_switch
// and tcp_probe, for the kernel documentation's onmax() and onchange()
// examples (Documentation/trace/histogram.rst) on user events.
//
// Wakeups: three "cyclictest" tasks (pids 3001..3003, prio 19) are woken
// and switched to, 5 times each, from "swapper/3" (pid 0, prio 120), with a
// sleep of 1 ms * (round + 1) between waking and switch; a "bash" task is
// woken and switched to once (the filter on next_comm leaves it out).
// The latencies depend on the machine; everything else does not.
//
// tcp_probe: a fixed list of (dport, snd_cwnd, snd_wnd, srtt, rcv_wnd), so
// each port's last change of snd_cwnd and the fields saved then are known.
// The program prints nothing that depends on tracing and checks nothing.
#include <stdio.h>
#include <time.h>

#include "progs.h"
#define CREATE_TRACE_POINTS
#include "track_events.h"

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000L}, rem;

	while (nanosleep(&ts, &rem))
		ts = rem;
}

TRACED void wakeup(const char *comm, int pid, int prio, long delay_us)
{
	trace_sched_waking(comm, pid, prio);
	sleep_us(delay_us);
	trace_sched_switch("swapper/3", 0, 120, comm, pid, prio);
	BARRIER();
}

static const struct {
	unsigned short dport;
	unsigned int cwnd, wnd, srtt, rwnd;
} probes[] = {
    {80, 10, 29312, 1000, 42112},   {1521, 8, 35456, 154262, 42112},
    {80, 10, 29312, 1200, 42112},   {80, 12, 30000, 1300, 43000},
    {1521, 8, 35000, 150000, 42112}, {22, 1, 14600, 300, 64000},
    {1521, 9, 36000, 151000, 42000}, {80, 11, 31000, 1250, 44000},
    {22, 1, 14600, 310, 64000},     {1521, 9, 37000, 152000, 42000},
};

TRACED void probe_all(void)
{
	for (unsigned i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		trace_tcp_probe(probes[i].dport, probes[i].cwnd, probes[i].wnd, probes[i].srtt,
				probes[i].rwnd);
		BARRIER();
	}
}

int main(void)
{
	for (int round = 0; round < 5; round++)
		for (int t = 0; t < 3; t++)
			wakeup("cyclictest", opaque(3001 + t), 19, 1000L * (round + 1));
	wakeup("bash", opaque(4000), 120, 100);
	probe_all();
	printf("16 wakeups, 10 probes\n");
	return 0;
}
