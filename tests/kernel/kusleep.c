/* SPDX-License-Identifier: MIT */
/*
 * kusleep.c - a function that sleeps 20 ms in usleep(), for
 * tests/kernel/sched_graph.sh: built with `utrace cflags`, recorded with
 * -e sched:sched_switch, its graph shows the time switched out as
 * linux:schedule under usleep() (--libcall, the default) or under nap()
 * (--no-libcall).
 */
#include <unistd.h>

__attribute__((noinline)) void nap(void)
{
	usleep(20000);
}

int main(void)
{
	nap();
	return 0;
}
