/* SPDX-License-Identifier: MIT */
/*
 * init.c - start-up of libutrace.so and its conversation with the recorder.
 *
 * `utrace record` starts the program with LD_PRELOAD=libutrace.so and
 * UTRACE_SOCK=<socket path>.  Our constructor runs before the program's:
 * it connects, says HELLO, gets the CONFIG and the control page, then
 * registers every loaded object (ftrace.c), which patches the selected
 * call sites.  Without UTRACE_SOCK (a program linked with -lutrace and run
 * on its own, or a recorder that has gone) the runtime stays dormant:
 * every site keeps its NOP.
 *
 * fork(): the child gets a connection of its own and forgets the parent's
 * buffer (the memfd mapping is shared with the parent).  exec(): the new
 * image starts over from its own constructor, traced as long as the
 * environment still carries LD_PRELOAD and UTRACE_SOCK.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/rt.h"

static void rt_atfork_child(void)
{
	const char *path = getenv(UTRACE_ENV_SOCK);

	if (rt.sock < 0 && !rt.attached)
		return;
	if (rt.sock >= 0)
		rt_fd_release(&rt.sock); /* the parent's: closed here, not in the parent */
	rt_live_forget();
	rt.pid = getpid();
	rt_rb_forget(&rt_self);
	rt_rb_registry_forget();
	if (rt.attached) { /* its parent was attached to: it is not */
		rt_attach_forked();
		return;
	}
	/* the synthetic events' ENABLEs follow CONFIG (common/proto.h) */
	if (!path || rt_connect(path, true) < 0 || (rt_synth_register() < 0 || rt_kprobe_events_register() < 0)) {
		rt.enabled = 0;
		return;
	}
	rt_objects_resend();
	rt_live_start();
}

/* What the first start of this process image does once. */
static int rt_start_once(void)
{
	static bool done;

	if (done)
		return 0;
	if (rt_xsave_init() < 0) {
		rt_log("this CPU has no XSAVE; tracing is off");
		return -1;
	}
	if (rt_text_poke_init() < 0) {
		rt_log("membarrier() is not available: code cannot be patched safely; tracing is off");
		return -1;
	}
	rt.site_flags = mmap(NULL, 1u << 24, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (rt.site_flags == MAP_FAILED) {
		rt.site_flags = NULL;
		return -1;
	}
	pthread_atfork(NULL, NULL, rt_atfork_child);
	done = true;
	return 0;
}

/* Connect to the recorder at path, register, patch: 0 if tracing. */
static int rt_start(const char *path)
{
	rt.pid = getpid();
	rt_rseq_init();
	if (rt_connect(path, false) < 0 || (rt_synth_register() < 0 || rt_kprobe_events_register() < 0))
		return -1; /* recorder gone: run untraced */
	if (rt_start_once() < 0)
		return -1;
	/* With the nop tracer the recorder selects no site: the objects are
	 * registered (for the record) and nothing is patched. */
	rt.enabled = 1;
	__utrace_marker_on = 1;
	rt_plt_init();
	rt_objects_scan();
	rt_live_start();
	return rt.enabled ? 0 : -1;
}

__attribute__((constructor(101))) static void rt_init(void)
{
	const char *path = getenv(UTRACE_ENV_SOCK);
	int saved_errno = errno;

	if (path && *path) /* else dormant: not started by utrace record */
		rt_start(path);
	errno = saved_errno;
}

/*
 * The entry of an attach (attach.c), on a thread of its own that the
 * tool's bootstrap started in the running process: register with the
 * recorder at sock, trace until it asks to detach, put the process back.
 * Returns 0 then (the bootstrap unmaps itself and the thread ends), or
 * -EBUSY (traced already) or -EPROTO if the attach could not start.
 */
__attribute__((visibility("default"))) int __utrace_attach(const char *sock)
{
	sigset_t all;
	int ret;

	/* the program's handlers never run here; but this thread may run the
	 * program's traced code (its own malloc, as bash has), whose int3s and
	 * faults must reach our handlers: a blocked synchronous signal kills */
	sigfillset(&all);
	sigdelset(&all, SIGTRAP);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGFPE);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	rt_self.state |= RT_TS_DEAD; /* the program's code it runs is not its own: untraced */
	if ((ret = rt_attach_begin()) < 0)
		return ret;
	if (rt_start(sock) < 0) {
		rt_attach_undo();
		rt_attach_end();
		return -EPROTO;
	}
	pthread_detach(pthread_self()); /* its stack freed when it returns */
	rt_notice("attached");		/* utrace record times the attach by it */
	rt_attach_serve();
	return 0;
}
