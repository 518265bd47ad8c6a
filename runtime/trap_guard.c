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
 * A guarded signal the program ignores is not ignored any more in a
 * program it execs: the kernel keeps only a SIG_IGN across exec, and
 * ours is a handler, which it resets to SIG_DFL.
 *
 * The handler reads the program's disposition with no lock: two copies,
 * the current one named by an index stored with release order after the
 * other copy is written.
 *
 * The crash signals are guarded the same way (rt_sig_guard_install) by
 * two users.  In-process probes (fetch_fault.c) guard SIGSEGV and SIGBUS
 * once the first probe is installed: a probe's load that faults resumes
 * at its fixup, so the program's handler must never replace ours.
 * record --dump-on-crash (crash.c) guards SIGSEGV, SIGBUS, SIGILL, SIGFPE
 * and SIGABRT from the start; its handler does fetch_fault.c's fixup too,
 * and fetch_fault.c installs none then.  Either handler gives every
 * signal that is not a probe's fault (after recording it, for crash.c's)
 * to rt_sig_forward: the program's handler (the signal blocked in it
 * unless SA_NODEFER, as the kernel does), or the default action: a fault
 * returns to its instruction with SIG_DFL installed, which faults again,
 * so the core holds the fault's own siginfo and registers; a sent signal
 * is raised again.  A fault the program ignores kills, as the kernel
 * forces it.  The masks are not touched for them: a crash signal the
 * program blocked kills with no handler, as untraced (and so does a
 * probe's fault in a thread that blocks SIGSEGV: a limit).
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "runtime/rt.h"

typedef int (*tg_mask_fn)(int, const sigset_t *, sigset_t *);
typedef int (*tg_action_fn)(int, const struct sigaction *, struct sigaction *);

static tg_action_fn tg_real_action;
static tg_mask_fn tg_real_procmask, tg_real_sigmask;
static sighandler_t (*tg_real_signal)(int, sighandler_t);

/* One guarded signal: ours (once installed) and the program's disposition. */
struct tg_slot {
	int sig;
	void (*handler)(int, siginfo_t *, void *);
	struct sigaction prog[2];
	int cur;
};

/* SIGTRAP first (the int3s); the crash signals with --dump-on-crash
 * (crash.c), SIGSEGV and SIGBUS for in-process probes (fetch_fault.c) */
static struct tg_slot tg_slots[] = {{.sig = SIGTRAP}, {.sig = SIGSEGV}, {.sig = SIGBUS},
				    {.sig = SIGILL},  {.sig = SIGFPE},  {.sig = SIGABRT}};
#define tg_trap (&tg_slots[0])

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

/* The slot of sig if ours is installed for it, else NULL. */
static struct tg_slot *tg_guarded(int sig)
{
	for (size_t i = 0; i < sizeof(tg_slots) / sizeof(tg_slots[0]); i++)
		if (tg_slots[i].sig == sig)
			return __atomic_load_n(&tg_slots[i].handler, __ATOMIC_ACQUIRE) ? &tg_slots[i]
											 : NULL;
	return NULL;
}

bool rt_sig_guarded(int sig)
{
	return tg_guarded(sig) != NULL;
}

static const struct sigaction *tg_prog_now(const struct tg_slot *s)
{
	return &s->prog[__atomic_load_n(&s->cur, __ATOMIC_ACQUIRE)];
}

static void tg_prog_set(struct tg_slot *s, const struct sigaction *sa)
{
	int next = !__atomic_load_n(&s->cur, __ATOMIC_RELAXED);

	s->prog[next] = *sa;
	__atomic_store_n(&s->cur, next, __ATOMIC_RELEASE);
}

static bool tg_prog_default(const struct sigaction *p)
{
	return (p->sa_flags & SA_SIGINFO) ? !p->sa_sigaction : p->sa_handler == SIG_DFL;
}

/* Ours, with the program's SA_ONSTACK.  A crash signal the program does
 * not handle is taken on the alternate stack if there is one: a stack
 * overflow then still reaches crash.c, and nothing of the program runs. */
static int tg_install_ours(struct tg_slot *s)
{
	const struct sigaction *p = tg_prog_now(s);
	struct sigaction sa;
	int onstack = p->sa_flags & SA_ONSTACK;

	if (s != tg_trap && (tg_prog_default(p) || p->sa_handler == SIG_IGN))
		onstack = SA_ONSTACK;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = s->handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER | onstack;
	sigemptyset(&sa.sa_mask);
	return tg_real_action(s->sig, &sa, NULL);
}

void rt_sig_guard_install(int sig, void (*handler)(int, siginfo_t *, void *))
{
	struct tg_slot *s = NULL;
	struct sigaction cur;

	tg_resolve();
	for (size_t i = 0; i < sizeof(tg_slots) / sizeof(tg_slots[0]); i++)
		if (tg_slots[i].sig == sig)
			s = &tg_slots[i];
	if (!s || !tg_real_action || tg_real_action(sig, NULL, &cur) < 0)
		return;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == handler)
		return; /* installed */
	if (!s->handler)
		tg_prog_set(s, &cur); /* what the program had before us */
	__atomic_store_n(&s->handler, handler, __ATOMIC_RELEASE);
	tg_install_ours(s);
}

void rt_trap_guard_install(void (*handler)(int, siginfo_t *, void *))
{
	rt_sig_guard_install(SIGTRAP, handler);
}

/* The default action, as the kernel takes it: SIGTRAP and a sent crash
 * signal raised again with the default disposition (unblocked:
 * SA_NODEFER, so it acts here); a fault returns, and its instruction
 * faults again with the default disposition, so the core holds the
 * fault's own siginfo. */
static void tg_default(struct tg_slot *s, const siginfo_t *si)
{
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	tg_real_action(s->sig, &dfl, NULL);
	if (s == tg_trap || si->si_code <= 0)
		raise(s->sig);
}

/* The program's own handling of a signal that is not ours: its sa_mask
 * (and the signal itself without SA_NODEFER, but SIGTRAP) blocked around
 * the call, SA_SIGINFO or not, SA_RESETHAND honoured, SIG_IGN dropped
 * (but a fault: the kernel forces those), SIG_DFL the default action. */
void rt_sig_forward(int sig, siginfo_t *si, void *uc)
{
	struct tg_slot *s = tg_guarded(sig);
	struct sigaction p, dfl;
	sigset_t mask, old;

	if (!s)
		return;
	p = *tg_prog_now(s);
	if (!(p.sa_flags & SA_SIGINFO) && p.sa_handler == SIG_IGN) {
		if (s != tg_trap && si->si_code > 0)
			tg_default(s, si);
		return;
	}
	if (tg_prog_default(&p)) {
		tg_default(s, si);
		return;
	}
	if (p.sa_flags & SA_RESETHAND) { /* the kernel resets before the call */
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		tg_prog_set(s, &dfl);
		if (s != tg_trap)
			tg_install_ours(s);
	}
	mask = p.sa_mask;
	if (s != tg_trap && !(p.sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	sigdelset(&mask, SIGTRAP);
	tg_real_sigmask(SIG_BLOCK, &mask, &old);
	if (p.sa_flags & SA_SIGINFO)
		p.sa_sigaction(sig, si, uc);
	else
		p.sa_handler(sig);
	tg_real_sigmask(SIG_SETMASK, &old, NULL);
}

void rt_trap_forward(int sig, siginfo_t *si, void *uc)
{
	rt_sig_forward(sig, si, uc);
}

/* sigaction for signal() too: a call of the exported name from here
 * binds to libc's when we are dlopen'ed (record -P), not to ours. */
static int tg_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction copy;
	struct tg_slot *s;

	tg_resolve();
	if (!tg_real_action) {
		errno = ENOSYS;
		return -1;
	}
	if ((s = tg_guarded(sig))) {
		if (act)
			copy = *act; /* act and old may be the same */
		if (old)
			*old = *tg_prog_now(s);
		if (act) {
			tg_prog_set(s, &copy);
			tg_install_ours(s); /* SA_ONSTACK as the program's */
		}
		return 0;
	}
	if (!tg_guarded(SIGTRAP))
		return tg_real_action(sig, act, old);
	if (act && sigismember(&act->sa_mask, SIGTRAP)) {
		copy = *act;
		sigdelset(&copy.sa_mask, SIGTRAP);
		act = &copy;
	}
	return tg_real_action(sig, act, old);
}

__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act,
						     struct sigaction *old)
{
	return tg_sigaction(sig, act, old);
}

/* glibc's signal() calls its own sigaction inside libc, which ours does
 * not see: for a guarded signal, once ours is installed, its BSD semantics
 * here (SA_RESTART, the signal blocked in its handler); else libc's. */
__attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t h)
{
	struct sigaction sa, old;

	tg_resolve();
	if (!tg_guarded(sig)) {
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
	if (tg_sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

static int tg_mask(tg_mask_fn real, int how, const sigset_t *set, sigset_t *old)
{
	sigset_t s;

	if (!real)
		return ENOSYS;
	if (tg_guarded(SIGTRAP) && set && how != SIG_UNBLOCK && sigismember(set, SIGTRAP)) {
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
