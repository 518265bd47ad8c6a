/* SPDX-License-Identifier: MIT */
/*
 * probes_signal.c - a 10 kHz SIGALRM handler (setitimer ITIMER_REAL,
 * 100 us) calls handler_work while the main thread loops in spin_step:
 * return probes on both nest a handler's frame inside an interrupted
 * call's (tests/hostile/probes_signal.sh).  Prints how many times each
 * ran on stderr (the probes' record counts are checked against it) and
 * a result on stdout that does not depend on the timing.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#define STEPS 200000
#define WANT_SIGNALS 1000

static volatile sig_atomic_t handled;
static volatile long sink, zero;

__attribute__((noinline)) long handler_work(long v)
{
	for (int i = 0; i < 20; i++)
		sink += v ^ i;
	return sink & 0xff;
}

__attribute__((noinline)) long spin_step(long v)
{
	long s = v + zero; /* not const: every call stays */

	for (int i = 0; i < 50; i++)
		s = s * 31 + i;
	return s & 0xffff;
}

static void on_alarm(int sig)
{
	(void)sig;
	handler_work(handled);
	handled++;
}

int main(void)
{
	struct itimerval it = {{0, 100}, {0, 100}};
	struct sigaction sa;
	long steps = 0, s = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	/* this thread's trace buffer is made at its first record; a signal
	 * that comes while it is being made is not recorded (yet) */
	s = spin_step(-1) & 0xffff;
	steps++;
	setitimer(ITIMER_REAL, &it, NULL);
	/* a fixed number of steps, and at least WANT_SIGNALS interruptions */
	while (steps < STEPS || handled < WANT_SIGNALS) {
		long v = spin_step(steps);

		/* the result does not depend on the timing: steps 1 to STEPS - 1
		 * run whatever handled is (not STEPS itself: it runs only if
		 * the 1000th signal has not come by then, in a slow run not) */
		if (steps < STEPS)
			s = (s + v) & 0xffff;
		steps++;
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("result %ld\n", s);
	fprintf(stderr, "steps %ld handled %d\n", steps, (int)handled);
	return 0;
}
