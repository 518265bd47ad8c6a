/* SPDX-License-Identifier: MIT */
/*
 * init.c - start-up of libutrace.so and its conversation with the recorder.
 *
 * `utrace record` starts the program with LD_PRELOAD=libutrace.so and
 * UTRACE_SOCK=<socket path>.  Our constructor runs before every other
 * object's initializer: libutrace.so is linked -z initfirst (the
 * dynamic linker's DF_1_INITFIRST), so the constructors of the program's
 * libraries, which ld.so would otherwise run before a preloaded library's
 * (`ls`'s libselinux opens /proc/filesystems in one), are traced and
 * probed as bpftrace's kernel probes see them.  It runs before libc's own
 * initializer too, which sets environ from the envp every initializer is
 * given: rt_init sets it from there first, to the same value.  It connects, says HELLO, gets the CONFIG and the control page, then
 * registers every loaded object (ftrace.c), which patches the selected
 * call sites.  Without UTRACE_SOCK (a program linked with -lutrace and run
 * on its own, or a recorder that has gone) the runtime stays dormant:
 * every site keeps its NOP.
 *
 * fork(): the child forgets the parent's buffer first thing (the memfd
 * mapping is shared with the parent), then, once fork() returns, gets a
 * connection of its own.  clone() of a thread that shares its creator's
 * TLS: the creator's per-thread state is marked shared (ring_buffer.c).  exec(): the new
 * image starts over from its own constructor, traced as long as the
 * environment still carries LD_PRELOAD and UTRACE_SOCK.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "runtime/inproc_probe_internal.h"
#include "runtime/rt.h"

/* UTRACE_SOCK, copied at start: a fork child must not call getenv (bash
 * defines its own, traced) */
static char rt_sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static pid_t (*real_fork)(void);
static bool fork_pending; /* a fork child that has not registered yet */
static __thread bool in_fork; /* this thread is in our fork(): it finishes the child's start */
static __thread pid_t fork_ptid; /* who called our fork(): the child has its copy (HELLO) */
static int (*real_clone)(int (*)(void *), void *, int, void *, ...);

/*
 * A fork child, once fork() returns: a connection of its own, the
 * objects registered again, the live channel.  This may allocate: the
 * program's own fork handlers have run, so its allocator's lock is free
 * again.  Not sooner, at the child's first record say: that may be in
 * one of those handlers, the lock held.  A child forked otherwise (the
 * system call made directly) stays untraced.
 */
static void rt_fork_resume(void)
{
	int saved_errno = errno;
	uint32_t cpu;
	uint64_t tsc0 = rt_clock(&cpu);

	fork_pending = false;
	rt_self.state |= RT_TS_OWN; /* the child's start-up, as rt_init's */
	if (rt.attached) { /* its parent was attached to: it is not */
		rt_attach_forked();
	} else if (rt_connect(rt_sock_path, true, fork_ptid) < 0 || rt_synth_register() < 0 ||
		   rt_inproc_probe_events_register() < 0) {
		/* the synthetic events' ENABLEs follow CONFIG (common/proto.h) */
		rt.enabled = 0;
	} else {
		rt_objects_resend();
		rt_live_start();
		rt_own_send(UTRACE_OWN_FORK, tsc0);
	}
	rt_self.state &= ~RT_TS_OWN;
	errno = saved_errno;
}

/*
 * The first of the child's fork handlers (registered before the
 * program's): the child leaves its parent's buffers before anything else
 * can write a record into them, and calls nothing the program could
 * replace: getenv (bash's is its own and traced: it wrote the child's
 * records into the parent's buffer), malloc (an allocator that holds its
 * lock across fork frees it in its own child handler, which runs after
 * this one: a malloc here never returns).  Stores and system calls made
 * directly; the rest waits for rt_fork_resume.
 */
static void rt_atfork_child(void)
{
	rt_rb_forget(&rt_self);
	rt_rb_registry_forget();
	if (rt.sock < 0 && !rt.attached)
		return;
	rt.pid = (pid_t)rt_syscall3(SYS_getpid, 0, 0, 0);
	rt_fd_release(&rt.sock); /* the parent's: closed here, not in the parent */
	rt_live_forget();
	fork_pending = true;
	/* A fork our fork() did not see: the runtime was dlopen'ed by an
	 * attach, after the program's calls of fork were bound to libc's.
	 * Its code goes back now, as before (the child of an attached process
	 * is not traced); a preloaded runtime's child stays untraced. */
	if (!in_fork && rt.attached)
		rt_fork_resume();
	else if (!in_fork)
		fork_pending = false;
}

/* fork(): the child registers once every fork handler has run. */
__attribute__((visibility("default"))) pid_t fork(void)
{
	pid_t pid;

	if (!real_fork) /* before our constructor: another's constructor forks */
		real_fork = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
	in_fork = true;
	fork_ptid = (pid_t)rt_syscall3(SYS_gettid, 0, 0, 0);
	pid = real_fork();
	in_fork = false;
	if (pid == 0 && fork_pending)
		rt_fork_resume();
	return pid;
}

/* A child made by clone() without CLONE_VM (a fork that runs no fork
 * handlers): it leaves its parent's buffers before it runs fn, as a fork
 * child does, and stays untraced (the program's allocator may be locked:
 * no handler of its released it).  start is the creator's copy, on the
 * creator's stack as it was when the child got its own memory. */
struct clone_start {
	int (*fn)(void *);
	void *arg;
};

static int clone_child(void *start)
{
	struct clone_start s = *(struct clone_start *)start;

	rt_atfork_child();
	fork_pending = false;
	return s.fn(s.arg);
}

/*
 * clone() with CLONE_VM and without CLONE_SETTLS: the new thread runs on
 * the caller's TLS block, where the tracers find their per-thread state;
 * two writers of one buffer tear each other's records.  The block is
 * marked shared (ring_buffer.c): its owner, the caller, goes on being
 * traced, the new thread is not.  A CLONE_VFORK child has left when
 * clone returns: the block is the caller's alone again.
 */
__attribute__((visibility("default"))) int clone(int (*fn)(void *), void *stack, int flags,
						 void *arg, ...)
{
	bool share = (flags & CLONE_VM) && !(flags & CLONE_SETTLS), was = false;
	struct clone_start start = {fn, arg};
	static bool said;
	void *ptid, *tls, *ctid;
	va_list ap;
	int ret;

	va_start(ap, arg); /* read whatever flags says: glibc's clone does too */
	ptid = va_arg(ap, void *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, void *);
	va_end(ap);
	if (!real_clone)
		real_clone = (int (*)(int (*)(void *), void *, int, void *, ...))dlsym(RTLD_NEXT,
										     "clone");
	if (share) {
		was = rt_rb_share();
		if (!was && rt.enabled && !__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
			rt_log("a thread made by clone() without CLONE_SETTLS shares its creator's TLS: "
			       "it is not traced");
	}
	if (!(flags & CLONE_VM) && fn) {
		fn = clone_child;
		arg = &start;
	}
	ret = real_clone(fn, stack, flags, arg, ptid, tls, ctid);
	if (share && (ret < 0 || (flags & CLONE_VFORK))) {
		int saved_errno = errno;

		rt_rb_unshare(was);
		errno = saved_errno;
	}
	return ret;
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
	rt.stack_sites = mmap(NULL, 1u << 24, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (rt.stack_sites == MAP_FAILED) {
		rt.stack_sites = NULL;
		return -1;
	}
	pthread_atfork(NULL, NULL, rt_atfork_child);
	done = true;
	return 0;
}

/* Connect to the recorder at path, register, patch: 0 if tracing. */
static int rt_start(const char *path)
{
	rt_ev_fetch_ready = rt_ipp_install_handlers; /* an event probe's loads */
	rt.pid = getpid();
	rt_rseq_init();
	if (rt_connect(path, false, 0) < 0 ||
	    (rt_synth_register() < 0 || rt_inproc_probe_events_register() < 0))
		return -1; /* recorder gone: run untraced */
	/* attached: our interposers bound where a preload would have them,
	 * before anything is traced (said to the recorder if they cannot be) */
	if (rt.attached && rt_late_bind() < 0)
		return -1;
	if (rt_start_once() < 0)
		return -1;
	/* With the nop tracer the recorder selects no site: the objects are
	 * registered (for the record) and nothing is patched. */
	rt.enabled = 1;
	__utrace_marker_on = 1;
	rt_crash_install();
	rt_plt_init();
	rt_objects_scan();
	if (!rt.attached) /* a callback left behind at the detach: not ours to set */
		rt_sanitizer_hook();
	rt_live_start();
	return rt.enabled ? 0 : -1;
}

__attribute__((constructor(101))) static void rt_init(int argc, char **argv, char **envp)
{
	uint32_t cpu;
	uint64_t tsc0 = rt_clock(&cpu); /* the start of our own work (OWN) */
	const char *path;
	int saved_errno = errno;

	(void)argc, (void)argv;
	if (!environ && envp) /* before libc's initializer (-z initfirst) */
		environ = envp;
	rt_sanitizer_early();
	path = getenv(UTRACE_ENV_SOCK);

	rt_self.state |= RT_TS_OWN; /* our start-up's library calls are not the program's */
	real_fork = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
	real_clone = (int (*)(int (*)(void *), void *, int, void *, ...))dlsym(RTLD_NEXT, "clone");
	if (path && *path && strlen(path) < sizeof(rt_sock_path)) {
		/* else dormant: not started by utrace record */
		strcpy(rt_sock_path, path);
		rt_start(path);
		rt_own_send(UTRACE_OWN_START, tsc0); /* nothing if not connected */
	}
	rt_self.state &= ~RT_TS_OWN;
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
	/* the program's code it runs is not its own: untraced */
	rt_self.state |= RT_TS_DEAD | RT_TS_OWN;
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
