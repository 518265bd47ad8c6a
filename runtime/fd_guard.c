/* SPDX-License-Identifier: MIT */
/*
 * fd_guard.c - the runtime's descriptors, kept safe from the program.
 *
 * Daemons close every descriptor they did not open (a loop of close from
 * 3 up, closefrom(3), close_range(3, ~0U, 0)) and dup2 onto numbers of
 * their choice.  The socket to the recorder is such a descriptor: closed,
 * the recorder sees the process gone and the rest of the run is not
 * recorded.  So, as LTTng-UST does:
 *
 *   - the runtime's descriptors live at a high number (guard_floor), where
 *     a program that takes the lowest free one never lands;
 *   - close, closefrom, close_range, dup2 and dup3 are interposed, and the
 *     program sees what it would see untraced, where that number is not
 *     open: close(ours) fails with EBADF and closes nothing, a range is
 *     closed around ours, dup2(x, ours) first moves ours elsewhere, and
 *     ours as a source is EBADF.
 *
 * The variables that hold those descriptors (rt.sock) are registered here
 * by address, so this file needs nothing of the rest of the runtime.  A
 * thread uses such a descriptor between rt_fd_use and rt_fd_done; a move
 * publishes the new number first, then waits for the threads that may
 * still hold the old one before the program's dup2 replaces it (Dekker:
 * both sides use sequentially consistent operations), so a message is
 * never written into the program's file.
 *
 * Everything here is async-signal-safe (system calls, atomics, a spin
 * lock that a signal handler of its own holder skips) and keeps errno as
 * the libc call would have left it.  A raw syscall(SYS_close, ...) goes
 * around all of this: channel.c and the recorder notice it and say so.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/rt.h"

#define RT_EXPORT __attribute__((visibility("default")))
#define FD_SLOTS 4

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

static int *fd_slots[FD_SLOTS]; /* variables holding a guarded fd (or -1) */
static int fd_users;		/* threads between rt_fd_use and rt_fd_done */
static __thread int fd_using;	/* ... of which this thread (nested: a signal) */
static int fd_moving;		/* spin lock of moves */
static __thread int fd_moving_here;

static int (*real_close)(int);
static int (*real_dup2)(int, int);

/* The real close is a cancellation point: looked up before main runs (an
 * interposer must not call dlsym, which is not signal-safe).  Until then,
 * the system calls themselves. */
__attribute__((constructor(101))) static void fd_guard_init(void)
{
	real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	real_dup2 = (int (*)(int, int))dlsym(RTLD_NEXT, "dup2");
}

static int sys_close(int fd)
{
	return real_close ? real_close(fd) : (int)syscall(SYS_close, fd);
}

static bool fd_guarded(int fd)
{
	if (fd < 0)
		return false;
	for (int i = 0; i < FD_SLOTS; i++)
		if (fd_slots[i] && __atomic_load_n(fd_slots[i], __ATOMIC_RELAXED) == fd)
			return true;
	return false;
}

/*
 * Where the runtime's descriptors go: 32 below the soft RLIMIT_NOFILE,
 * but never above 1024.  Programs get the lowest free number, so they
 * reach ours only with about 1000 descriptors open.  Not higher: the
 * kernel sizes a process's descriptor table to its highest open fd, and
 * a soft limit of a million would cost every traced process an 8 MiB
 * table; 1024 is also the limit most programs assume (FD_SETSIZE, the
 * classic close loop).
 */
static int guard_floor(void)
{
	struct rlimit rl;
	long lim = 1024;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 1024)
		lim = (long)rl.rlim_cur;
	return (int)(lim > 64 ? lim - 32 : lim / 2);
}

/* A copy of fd at the floor or above, else anywhere; -1 if none. */
static int fd_move_up(int fd)
{
	int n = fcntl(fd, F_DUPFD_CLOEXEC, guard_floor());

	return n >= 0 ? n : fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

int rt_fd_guard(int *var)
{
	int saved_errno = errno, fd = *var, n, i, free_slot = -1;

	for (i = 0; i < FD_SLOTS && fd_slots[i] != var; i++)
		if (!fd_slots[i] && free_slot < 0)
			free_slot = i;
	if (i == FD_SLOTS) {
		if (free_slot < 0)
			return -ENOSPC;
		fd_slots[free_slot] = var;
	}
	n = fd < guard_floor() ? fd_move_up(fd) : -1;
	if (n >= 0) {
		__atomic_store_n(var, n, __ATOMIC_SEQ_CST);
		sys_close(fd);
	}
	errno = saved_errno;
	return 0;
}

void rt_fd_release(int *var)
{
	int fd = __atomic_exchange_n(var, -1, __ATOMIC_SEQ_CST);

	if (fd >= 0) /* directly: a fork child's first steps call nothing replaceable */
		rt_syscall3(SYS_close, fd, 0, 0);
}

int rt_fd_use(int *var)
{
	__atomic_add_fetch(&fd_users, 1, __ATOMIC_SEQ_CST);
	fd_using++;
	return __atomic_load_n(var, __ATOMIC_SEQ_CST);
}

void rt_fd_done(void)
{
	fd_using--;
	__atomic_sub_fetch(&fd_users, 1, __ATOMIC_RELEASE);
}

/* ---- moving ours out of the program's way --------------------------- */

static void move_lock(void)
{
	if (fd_moving_here++) /* a signal handler of the holder: go on */
		return;
	while (__atomic_exchange_n(&fd_moving, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void move_unlock(void)
{
	if (!--fd_moving_here)
		__atomic_store_n(&fd_moving, 0, __ATOMIC_RELEASE);
}

/*
 * The program wants number fd, which is ours: ours moves (or, with no
 * descriptor free, is given up: the program's call wins).  Then wait for
 * the threads that may have read the old number: they finish with it
 * before it stops being ours.  A thread interrupted by this signal
 * handler cannot be waited for; its window is a few instructions.
 */
static void fd_evict(int fd)
{
	int saved_errno = errno;

	for (int i = 0; i < FD_SLOTS; i++) {
		if (!fd_slots[i] || __atomic_load_n(fd_slots[i], __ATOMIC_SEQ_CST) != fd)
			continue;
		__atomic_store_n(fd_slots[i], fd_move_up(fd), __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&fd_users, __ATOMIC_SEQ_CST) > fd_using)
			sched_yield();
	}
	errno = saved_errno;
}

static int fd_ebadf(void)
{
	errno = EBADF;
	return -1;
}

RT_EXPORT int close(int fd)
{
	if (unlikely(fd_guarded(fd)))
		return fd_ebadf();
	return sys_close(fd);
}

RT_EXPORT int dup2(int oldfd, int newfd)
{
	int ret;

	if (unlikely(fd_guarded(oldfd)))
		return fd_ebadf();
	if (likely(!fd_guarded(newfd)))
		return real_dup2 ? real_dup2(oldfd, newfd) : (int)syscall(SYS_dup2, oldfd, newfd);
	if (fcntl(oldfd, F_GETFD) < 0) /* EBADF: nothing to move ours for */
		return -1;
	move_lock();
	fd_evict(newfd);
	ret = real_dup2 ? real_dup2(oldfd, newfd) : (int)syscall(SYS_dup2, oldfd, newfd);
	move_unlock();
	return ret;
}

RT_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	int ret;

	/* bad flags and oldfd == newfd are EINVAL before any fd is looked
	 * at: the kernel says so without touching ours */
	if ((flags & ~O_CLOEXEC) || oldfd == newfd)
		return (int)syscall(SYS_dup3, oldfd, newfd, flags);
	if (unlikely(fd_guarded(oldfd)))
		return fd_ebadf();
	if (likely(!fd_guarded(newfd)))
		return (int)syscall(SYS_dup3, oldfd, newfd, flags);
	if (fcntl(oldfd, F_GETFD) < 0)
		return -1;
	move_lock();
	fd_evict(newfd);
	ret = (int)syscall(SYS_dup3, oldfd, newfd, flags);
	move_unlock();
	return ret;
}

/* ---- ranges ------------------------------------------------------------ */

/* The lowest of our fds in [lo, hi], or -1. */
static int guarded_in(unsigned lo, unsigned hi)
{
	int best = -1;

	for (int i = 0; i < FD_SLOTS; i++) {
		int fd = fd_slots[i] ? __atomic_load_n(fd_slots[i], __ATOMIC_RELAXED) : -1;

		if (fd >= 0 && (unsigned)fd >= lo && (unsigned)fd <= hi && (best < 0 || fd < best))
			best = fd;
	}
	return best;
}

/* close_range of a piece; a kernel without it (before 5.9) gets a loop,
 * up to the hard limit (the highest fd there can be), at most fs.nr_open's
 * default. */
#define FD_LOOP_MAX (1u << 20)
static int close_piece(unsigned lo, unsigned hi)
{
	struct rlimit rl;

	if (!syscall(SYS_close_range, lo, hi, 0))
		return 0;
	if (errno != ENOSYS)
		return -1;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_max > FD_LOOP_MAX)
		rl.rlim_max = FD_LOOP_MAX;
	if (hi >= rl.rlim_max)
		hi = rl.rlim_max ? (unsigned)rl.rlim_max - 1 : 0;
	for (unsigned fd = lo; fd <= hi; fd++)
		syscall(SYS_close, fd);
	return 0;
}

/* Close [lo, hi] but ours, piece by piece; the first error is returned. */
static int close_around(unsigned lo, unsigned hi)
{
	int ret = 0, saved_errno = errno, err = 0;

	for (;;) {
		int g = guarded_in(lo, hi);
		unsigned end = g < 0 ? hi : (unsigned)g - 1;

		if ((g < 0 || (unsigned)g > lo) && close_piece(lo, end) < 0 && !ret) {
			ret = -1;
			err = errno;
		}
		if (g < 0 || (unsigned)g == hi)
			break;
		lo = (unsigned)g + 1;
	}
	errno = ret ? err : saved_errno;
	return ret;
}

RT_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	/* invalid arguments get the kernel's EINVAL; CLOEXEC marks ours,
	 * which are close-on-exec already; none of ours in range: as is */
	if (first > last || (flags & ~CLOSE_RANGE_UNSHARE) || guarded_in(first, last) < 0)
		return (int)syscall(SYS_close_range, first, last, flags);
	/* UNSHARE: the descriptor table is unshared first, as the kernel
	 * does, and the pieces are closed in the process's own copy */
	if ((flags & CLOSE_RANGE_UNSHARE) && syscall(SYS_unshare, CLONE_FILES) < 0)
		return -1;
	return close_around(first, last);
}

RT_EXPORT void closefrom(int lowfd)
{
	close_around(lowfd < 0 ? 0 : (unsigned)lowfd, ~0U);
}
