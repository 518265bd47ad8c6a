// SPDX-License-Identifier: MIT
// tests/stress/exceptions_end.cc - exceptions that end a thread or the
// program, or start in a signal handler (built with
// -fnon-call-exceptions): a SIGFPE handler that throws through the signal
// frame, pthread_cancel of a thread deep in traced frames with
// destructors, and (with an argument) an exception out of a noexcept
// function, which terminates exactly as untraced.  Run by
// tests/stress/run.sh, which compares the output and the exit status.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

#define NI __attribute__((noinline))
static volatile int sink, zero;

NI int thrower(int i) { if (i >= 0) throw i; return i; }

// -fnon-call-exceptions: a signal handler throws through the signal frame
static void on_fpe(int) { throw 99; }
NI int divide(int a) { return a / zero; }
NI int catch_signal() { try { return divide(7); } catch (int v) { return v; } }

// pthread_cancel of a thread deep in traced frames, with destructors
struct Cleanup { NI ~Cleanup() { sink++; } };
NI void wait_deep(int n) { Cleanup c; if (!n) { for (;;) pause(); } wait_deep(n - 1); sink++; }
NI long cancel_deep() {
	pthread_t t;
	void *r;
	pthread_create(&t, nullptr, [](void *) -> void * { wait_deep(10); return nullptr; }, nullptr);
	usleep(50000);
	pthread_cancel(t);
	pthread_join(t, &r);
	return r == PTHREAD_CANCELED ? 1 : 0;
}

// noexcept: terminate exactly as untraced
NI void no_throw(int i) noexcept { thrower(i); }

int main(int argc, char **argv) {
	setvbuf(stdout, nullptr, _IOLBF, 0);
	signal(SIGFPE, on_fpe);
	printf("signal %d\n", catch_signal());
	printf("cancel %ld sink %d\n", cancel_deep(), sink);
	if (argc > 1)
		no_throw(1);
	return 0;
}
