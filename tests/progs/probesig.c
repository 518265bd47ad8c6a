/* SPDX-License-Identifier: MIT */
/*
 * probesig.c - a program with SIGSEGV and SIGBUS dispositions of its own,
 * whose hit() gets pointers an in-process probe on it reads
 * (tests/e2e/t/probes-sigown.sh): a probe's faulting read must give 0 and
 * reach none of them, while the program's own faults and sent signals
 * are handled as untraced.  Every way calls hit() with 16 (unmapped), a
 * good pointer to 42, 16 again and a page past the end of its (empty)
 * file (SIGBUS), x = 0 to 3, then:
 *
 *   probesig late     signal(SIGSEGV) and signal(SIGBUS) in main, after
 *                     the runtime's handler; a store to 16: its handler
 *                     says so and exits 3
 *   probesig siginfo  an SA_SIGINFO handler set with sigaction (read back
 *                     as set) that makes a PROT_NONE page writable and
 *                     returns (the store is done again), then says where
 *                     the store to 16 faulted and exits 4
 *   probesig none     no handler: the store to 16 kills (SIGSEGV, 139)
 *   probesig ign      run with SIGSEGV ignored (the test's shell: trap ''
 *                     SEGV), a disposition from before the runtime
 *                     started: it reads SIG_IGN back, a sent SIGSEGV is
 *                     dropped, the store to 16 kills all the same (the
 *                     kernel forces a fault it cannot deliver)
 */
#define _GNU_SOURCE /* memfd_create */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "progs.h"

static char *volatile page;
static volatile long *volatile unmapped = (long *)16;
long good = 42;

TRACED long hit(long *p, long x)
{
	__asm__ __volatile__("" : : "r"(p) : "memory"); /* p passed, kept */
	return x + 1;
}

static void hits(void)
{
	long sum = 0;
	int fd = memfd_create("probesig", 0);
	long *bus = fd < 0 ? NULL : mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);

	if (bus == MAP_FAILED || !bus) {
		perror("memfd mmap");
		exit(1);
	}
	sum += hit((long *)16, 0);
	sum += hit(&good, 1);
	sum += hit((long *)16, 2);
	sum += hit(bus, 3);
	printf("hits %ld\n", sum);
	fflush(stdout);
}

static void store16(void)
{
	*unmapped = 1;
}

static void on_late(int sig)
{
	printf("late handler: %s\n", sig == SIGSEGV ? "SIGSEGV" : "SIGBUS");
	exit(3);
}

static void on_info(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (page && (char *)si->si_addr >= page && (char *)si->si_addr < page + 4096) {
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
		printf("siginfo handler: the page made writable\n");
		return;
	}
	printf("siginfo handler: %s code %d addr %p\n", sig == SIGSEGV ? "SIGSEGV" : "SIGBUS",
	       si->si_code, si->si_addr);
	exit(4);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	struct sigaction sa, old;

	if (!strcmp(mode, "late")) {
		printf("old SIGSEGV %s\n", signal(SIGSEGV, on_late) == SIG_DFL ? "SIG_DFL" : "other");
		printf("old SIGBUS %s\n", signal(SIGBUS, on_late) == SIG_DFL ? "SIG_DFL" : "other");
		hits();
	} else if (!strcmp(mode, "siginfo")) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_info;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGSEGV, &sa, NULL);
		sigaction(SIGSEGV, NULL, &old);
		printf("read back %s\n",
		       (old.sa_flags & SA_SIGINFO) && old.sa_sigaction == on_info ? "ours" : "other");
		hits();
		page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		page[8] = 7;
		printf("page %d\n", page[8]);
	} else if (!strcmp(mode, "none")) {
		hits();
	} else if (!strcmp(mode, "ign")) {
		sigaction(SIGSEGV, NULL, &old);
		printf("inherited %s\n", old.sa_handler == SIG_IGN ? "SIG_IGN" : "other");
		hits();
		raise(SIGSEGV);
		printf("sent SIGSEGV ignored\n");
	} else {
		fprintf(stderr, "usage: probesig late|siginfo|none|ign\n");
		return 2;
	}
	fflush(stdout);
	store16();
	printf("not reached\n");
	return 0;
}
