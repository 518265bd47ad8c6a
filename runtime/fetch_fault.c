/* SPDX-License-Identifier: MIT */
/*
 * fetch_fault.c - a fault in a probe's memory read is not the program's.
 *
 * Memory reads of fetch-args (common/fetch_prog.h) and of the runtime's
 * own stack scans (inproc_probe_opt.c) go through utrace_fetch_load
 * (arch/x86_64/inproc_probe.S), whose loads lie between utrace_safe_load_begin
 * and _end (the probe stubs' own, utrace_jit_load<N>, between
 * utrace_jit_load_begin and _end).  The SIGSEGV/SIGBUS handler here recognises them by the
 * faulting instruction and resumes at the fixup, which returns -1 (the
 * kernel's exception tables do the same for copy_from_user): no system
 * call per read, and a bad pointer gives "(fault)", never a crash.  Every
 * other fault goes to the program's handler, or gets the default action.
 */
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#include "runtime/rt.h"

extern const char utrace_safe_load_begin[] RT_HIDDEN, utrace_safe_load_end[] RT_HIDDEN,
    utrace_safe_load_fixup[] RT_HIDDEN;
/* the probe stubs' loads (inproc_probe_jit.c) */
extern const char utrace_jit_load_begin[] RT_HIDDEN, utrace_jit_load_end[] RT_HIDDEN,
    utrace_jit_load_fixup[] RT_HIDDEN;

static struct sigaction ff_old_segv, ff_old_bus;
static bool ff_installed;

/* If the fault of context uc is in a probe's read: resumed at its fixup
 * (true).  crash.c's handler, which sees every fault first when it is
 * installed, asks here too, so those are never the program's signals. */
bool rt_fetch_fault_fixup(void *uc_)
{
	ucontext_t *uc = uc_;
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];

	if (ip >= (uintptr_t)utrace_safe_load_begin && ip < (uintptr_t)utrace_safe_load_end)
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)utrace_safe_load_fixup;
	else if (ip >= (uintptr_t)utrace_jit_load_begin && ip < (uintptr_t)utrace_jit_load_end)
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)utrace_jit_load_fixup;
	else
		return false;
	return true;
}

static void ff_fault(int sig, siginfo_t *si, void *uc_)
{
	struct sigaction *old = sig == SIGSEGV ? &ff_old_segv : &ff_old_bus;

	if (rt_fetch_fault_fixup(uc_))
		return;
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction) {
			old->sa_sigaction(sig, si, uc_);
			return;
		}
	} else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
		return;
	}
	/* the default action: it happens when the instruction runs again */
	sigaction(sig, old, NULL);
}

/* Once, before the first utrace_fetch_load (objects lock held). */
void rt_fetch_fault_install(void)
{
	struct sigaction sa;

	if (ff_installed)
		return;
	ff_installed = true;
	/* record --dump-on-crash: crash.c's handler (trap_guard.c) does the
	 * fixup; one installed here would be taken for the program's */
	if (rt_sig_guarded(SIGSEGV))
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = ff_fault;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &ff_old_segv);
	sigaction(SIGBUS, &sa, &ff_old_bus);
}
