/* SPDX-License-Identifier: MIT */
/*
 * trap_guard.c - SIGTRAP kept for the runtime's int3s, the program's own
 * SIGTRAP semantics kept as they were.
 *
 * The runtime's int3s (text_poke.c's batches, inproc_probes.c's probes,
 * func_patch.c's entries that take an int3 for good) need its SIGTRAP
 * handler installed and SIGTRAP deliverable on every thread.  The kernel
 * sends an int3's SIGTRAP with force_sig: if the thread blocks SIGTRAP or
 * it is ignored, the disposition is reset to the default and the process
 * dies with a core.  Programs block every signal in worker threads
 * (sigfillset + pthread_sigmask) and install handlers of their own at any
 * time, so, once text_poke.c installs the handler (rt_trap_guard_install):
 *
 *   - sigaction and signal for SIGTRAP are interposed: the program's
 *     disposition is recorded here, and returned as the old one, instead
 *     of being installed; ours stays.  Our handler passes every trap that
 *     is not ours to it (rt_trap_forward) as the kernel would have: its
 *     sa_mask blocked around the call, SA_SIGINFO or not, SA_RESETHAND
 *     honoured, SIG_IGN dropped, SIG_DFL killing the process with SIGTRAP.
 *     Ours runs on the alternate signal stack when the program's asked
 *     for it (SA_ONSTACK mirrored), so a handler that checks it is on its
 *     sigaltstack still is;
 *   - sigprocmask, pthread_sigmask and the sa_mask of every other
 *     handler never block SIGTRAP: SIG_BLOCK and SIG_SETMASK get it taken
 *     out of their set.
 *
 * Limits (docs/utrace-record.md): a SIGTRAP the program sends itself
 * (kill, raise) while it believes SIGTRAP blocked is delivered at once,
 * not held pending; a mask read back never holds SIGTRAP; the other ways
 * to set a disposition or a mask (sigset, sighold, bsd_signal,
 * sysv_signal, signalfd, raw system calls) go around this file.  Two
 * threads setting SIGTRAP's disposition at the same instant: one wins.
 *
 * The handler reads the program's disposition with no lock: two copies,
 * the current one named by an index stored with release order after the
 * other copy is written.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "runtime/rt.h"

typedef int (*tg_mask_fn)(int, const sigset_t *, sigset_t *);
typedef int (*tg_action_fn)(int, const struct sigaction *, struct sigaction *);

static tg_action_fn tg_real_action;
static tg_mask_fn tg_real_procmask, tg_real_sigmask;
static sighandler_t (*tg_real_signal)(int, sighandler_t);
static void (*tg_handler)(int, siginfo_t *, void *); /* ours, once installed */
static struct sigaction tg_prog[2];		     /* the program's SIGTRAP disposition */
static int tg_cur;

__attribute__((constructor(101))) static void tg_resolve(void)
{
	if (tg_real_action)
		return;
	tg_real_procmask = (tg_mask_fn)dlsym(RTLD_NEXT, "sigprocmask");
	tg_real_sigmask = (tg_mask_fn)dlsym(RTLD_NEXT, "pthread_sigmask");
	tg_real_signal = (sighandler_t(*)(int, sighandler_t))dlsym(RTLD_NEXT, "signal");
	__atomic_store_n(&tg_real_action, (tg_action_fn)dlsym(RTLD_NEXT, "sigaction"),
			 __ATOMIC_RELEASE);
}

static const struct sigaction *tg_prog_now(void)
{
	return &tg_prog[__atomic_load_n(&tg_cur, __ATOMIC_ACQUIRE)];
}

static void tg_prog_set(const struct sigaction *sa)
{
	int next = !__atomic_load_n(&tg_cur, __ATOMIC_RELAXED);

	tg_prog[next] = *sa;
	__atomic_store_n(&tg_cur, next, __ATOMIC_RELEASE);
}

/* Ours, with the program's SA_ONSTACK. */
static int tg_install_ours(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = tg_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER | (tg_prog_now()->sa_flags & SA_ONSTACK);
	sigemptyset(&sa.sa_mask);
	return tg_real_action(SIGTRAP, &sa, NULL);
}

void rt_trap_guard_install(void (*handler)(int, siginfo_t *, void *))
{
	struct sigaction cur;

	tg_resolve();
	if (!tg_real_action || tg_real_action(SIGTRAP, NULL, &cur) < 0)
		return;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == handler)
		return; /* installed */
	if (!tg_handler)
		tg_prog_set(&cur); /* what the program had before us */
	tg_handler = handler;
	tg_install_ours();
}

/* The program's own handling of a SIGTRAP that is not ours. */
void rt_trap_forward(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *p = tg_prog_now();
	struct sigaction dfl;
	sigset_t mask, old;

	if (!(p->sa_flags & SA_SIGINFO) && p->sa_handler == SIG_IGN)
		return;
	if ((p->sa_flags & SA_SIGINFO) ? !p->sa_sigaction : p->sa_handler == SIG_DFL) {
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		tg_real_action(SIGTRAP, &dfl, NULL);
		raise(SIGTRAP); /* unblocked (SA_NODEFER): dies here */
		return;
	}
	mask = p->sa_mask;
	sigdelset(&mask, SIGTRAP);
	tg_real_sigmask(SIG_BLOCK, &mask, &old);
	if (p->sa_flags & SA_SIGINFO)
		p->sa_sigaction(sig, si, uc);
	else
		p->sa_handler(sig);
	tg_real_sigmask(SIG_SETMASK, &old, NULL);
	if (p->sa_flags & SA_RESETHAND) {
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		tg_prog_set(&dfl);
	}
}

__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act,
						     struct sigaction *old)
{
	struct sigaction copy;

	tg_resolve();
	if (!tg_real_action) {
		errno = ENOSYS;
		return -1;
	}
	if (!tg_handler)
		return tg_real_action(sig, act, old);
	if (sig == SIGTRAP) {
		if (act)
			copy = *act; /* act and old may be the same */
		if (old)
			*old = *tg_prog_now();
		if (act) {
			tg_prog_set(&copy);
			tg_install_ours(); /* SA_ONSTACK as the program's */
		}
		return 0;
	}
	if (act && sigismember(&act->sa_mask, SIGTRAP)) {
		copy = *act;
		sigdelset(&copy.sa_mask, SIGTRAP);
		act = &copy;
	}
	return tg_real_action(sig, act, old);
}

/* glibc's signal() calls its own sigaction inside libc, which ours does
 * not see: for SIGTRAP, once ours is installed, its BSD semantics here
 * (SA_RESTART, the signal blocked in its handler); else libc's. */
__attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t h)
{
	struct sigaction sa, old;

	tg_resolve();
	if (sig != SIGTRAP || !tg_handler) {
		if (tg_real_signal)
			return tg_real_signal(sig, h);
		errno = ENOSYS;
		return SIG_ERR;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

static int tg_mask(tg_mask_fn real, int how, const sigset_t *set, sigset_t *old)
{
	sigset_t s;

	if (!real)
		return ENOSYS;
	if (tg_handler && set && how != SIG_UNBLOCK && sigismember(set, SIGTRAP)) {
		s = *set;
		sigdelset(&s, SIGTRAP);
		set = &s;
	}
	return real(how, set, old);
}

__attribute__((visibility("default"))) int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int ret;

	tg_resolve();
	ret = tg_mask(tg_real_procmask, how, set, old);
	if (ret == ENOSYS && !tg_real_procmask) {
		errno = ENOSYS;
		return -1;
	}
	return ret;
}

__attribute__((visibility("default"))) int pthread_sigmask(int how, const sigset_t *set,
							   sigset_t *old)
{
	tg_resolve();
	return tg_mask(tg_real_sigmask, how, set, old);
}
