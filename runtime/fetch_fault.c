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
 * call per read, and a bad pointer gives "(fault)", never a crash.
 *
 * The program may set its own SIGSEGV or SIGBUS disposition at any time,
 * after ours is installed too: a plain sigaction here would be replaced,
 * and the next probe's fault would reach the program's handler (or kill
 * it) for a load it never made.  So the handler is installed through
 * trap_guard.c's guard (rt_sig_guard_install), as crash.c's: sigaction and
 * signal for the two signals are interposed, the program's disposition is
 * recorded there and ours stays.  Every fault that is not a probe's, and
 * every SIGSEGV or SIGBUS sent with kill, goes to rt_sig_forward: the
 * program's handler with its mask and flags, SA_SIGINFO or not, or the
 * default action, which for a fault is the instruction faulting again
 * with SIG_DFL, so the core and the exit status are as untraced.  With
 * record --dump-on-crash, crash.c's handler holds the guard and asks
 * rt_fetch_fault_fixup first; none is installed here.
 *
 * Limits (docs/utrace-record.md), besides trap_guard.c's: a thread that
 * blocks SIGSEGV or SIGBUS when a probe's load faults dies, as the kernel
 * forces a fault's signal it cannot deliver; the guard leaves the masks
 * of the crash signals alone.
 */
#include <signal.h>
#include <ucontext.h>

#include "runtime/rt.h"

extern const char utrace_safe_load_begin[] RT_HIDDEN, utrace_safe_load_end[] RT_HIDDEN,
    utrace_safe_load_fixup[] RT_HIDDEN;
/* the probe stubs' loads (inproc_probe_jit.c) */
extern const char utrace_jit_load_begin[] RT_HIDDEN, utrace_jit_load_end[] RT_HIDDEN,
    utrace_jit_load_fixup[] RT_HIDDEN;

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

/* A probe's load resumes at its fixup; the rest is the program's. */
static void ff_fault(int sig, siginfo_t *si, void *uc_)
{
	if (si->si_code > 0 && rt_fetch_fault_fixup(uc_))
		return;
	rt_sig_forward(sig, si, uc_);
}

/* Once, before the first utrace_fetch_load (objects lock held). */
void rt_fetch_fault_install(void)
{
	if (ff_installed)
		return;
	ff_installed = true;
	/* record --dump-on-crash: crash.c's handler (trap_guard.c) does the
	 * fixup; ours would replace it */
	if (rt_sig_guarded(SIGSEGV))
		return;
	rt_sig_guard_install(SIGSEGV, ff_fault);
	rt_sig_guard_install(SIGBUS, ff_fault);
}
