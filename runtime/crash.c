/* SPDX-License-Identifier: MIT */
/*
 * crash.c - record --dump-on-crash: a crash signal leaves a record where
 * the thread died, the kernel's ftrace_dump_on_oops for user programs.
 *
 * The kernel dumps its ring buffer from the oops handler.  Here the
 * buffers are shared memory the recorder keeps after the process is gone,
 * so the runtime only has to say where and why the thread died: a
 * UEXT_SIGNAL record (the signal, si_code, the faulting address, the
 * interrupted instruction) in the crashing thread's buffer, written by a
 * handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT (a sanitizer's
 * abort too).  The recorder prints the last calls once the file is whole
 * (lib/report/crash_dump.c).
 *
 * The handler chains, never replaces: trap_guard.c keeps the program's
 * own dispositions (sigaction and signal interposed) and
 * rt_sig_forward() then runs the program's handler, or takes the default
 * action so that the core and the exit status are as untraced.  Nothing
 * of this is on a traced call's path; without the option no handler is
 * installed at all.
 *
 * Under record --tracefs the option is a file, options/dump-on-crash,
 * turned on and off while the program runs: the handlers are installed
 * at the start of every process the recording starts (UTRACE_CFG_LIVE),
 * and the record is written only while the control page's dump_on_crash
 * word is 1 (the recorder sets it from the file, and to 1 with
 * --dump-on-crash).  With the word 0 the handler only forwards, so the
 * program sees what it would untraced.  An attached process (-P) gets no
 * handlers: its dispositions were set before the runtime came.
 *
 * A crash signal the program blocked or that cannot
 * be delivered (a stack overflow with no alternate stack) kills without
 * any handler: the recorder then knows only the exit status.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#include "common/record.h"
#include "runtime/rt.h"

static const int crash_sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

static void crash_handler(int sig, siginfo_t *si, void *uc_)
{
	const ucontext_t *uc = uc_;
	struct urec_signal rec;
	int saved_errno = errno;

	if ((sig == SIGSEGV || sig == SIGBUS) && si->si_code > 0 && rt_fetch_fault_fixup(uc_))
		return; /* a probe's read, resumed at its fixup: not the program's */
	if (!rt.ctl || !__atomic_load_n(&rt.ctl->dump_on_crash, __ATOMIC_RELAXED)) {
		rt_sig_forward(sig, si, uc_); /* options/dump-on-crash is 0 */
		return;
	}
	memset(&rec, 0, sizeof(rec));
	rec.code = si->si_code;
	if (si->si_code > 0)
		rec.addr = (uint64_t)(uintptr_t)si->si_addr; /* a fault's */
	else
		rec.sender = si->si_pid;
	rec.ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	rt_signal_write((uint32_t)sig, &rec);
	errno = saved_errno;
	rt_sig_forward(sig, si, uc_);
}

void rt_crash_install(void)
{
	if (!(rt.cfg.flags & UTRACE_CFG_DUMP_ON_CRASH) &&
	    (!(rt.cfg.flags & UTRACE_CFG_LIVE) || rt.attached))
		return;
	for (size_t i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		rt_sig_guard_install(crash_sigs[i], crash_handler);
}
