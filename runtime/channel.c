/* SPDX-License-Identifier: MIT */
/*
 * channel.c - the runtime's connection to the recorder, and the
 * process-wide state that comes with it (struct rt_global rt).
 *
 *   traced process                               recorder (lib/record/)
 *   rt_connect:  HELLO {pid, ppid, exe}  ----->
 *                                        <-----  CONFIG + control page fd
 *   ftrace.c:    OBJECT, SITES ...       ----->
 *                                        <-----  which sites to patch
 *   ring_buffer.c: BUFFER + memfd        ----->  (mapped, drained)
 *   log.c:       NOTICE                  ----->  (saved in the file)
 *   init.c:      OWN {tid, tsc0, tsc1}   ----->  (saved: its own work's window)
 *
 * One SOCK_SEQPACKET socket per process: a message is one datagram, so a
 * reader never sees half of one, and descriptors travel with SCM_RIGHTS
 * (common/scm.h).  The socket is one of the descriptors fd_guard.c keeps
 * safe from the program.  This file sits below everything else in the
 * runtime that talks to the recorder: it calls nothing of theirs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/scm.h"
#include "runtime/rt.h"

struct rt_global rt = {.sock = -1};

/*
 * The connection is gone: closed by the program behind libc's back
 * (fd_guard.c sees every close made through it), or the recorder went.
 * Nothing new can be registered: rt.sock = -1 keeps new threads and
 * libraries untraced.  Threads that have a buffer go on writing into it;
 * the recorder still has it mapped.  The number is no longer ours, so it
 * is not closed.
 */
static void conn_lost(int fd)
{
	if (__atomic_compare_exchange_n(&rt.sock, &fd, -1, false, __ATOMIC_SEQ_CST,
					__ATOMIC_RELAXED))
		__atomic_add_fetch(&rt.conn_lost, 1, __ATOMIC_RELAXED);
}

static bool conn_error(long n)
{
	return n == -EBADF || n == -ENOTSOCK || n == -EPIPE || n == -ECONNRESET || n == -ENOTCONN;
}

/* The socket is used between rt_fd_use and rt_fd_done: a dup2 of the
 * program onto its number waits for that (fd_guard.c). */
/* MemorySanitizer's sendmsg checks that the bytes sent are initialised,
 * and knows nothing of what our uninstrumented code wrote: in an MSan
 * process they are marked initialised first (__msan_unpoison). */
static void msg_unpoison(const void *msg, uint32_t size)
{
	static void (*unpoison)(const volatile void *, size_t);
	static int looked;

	if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
		*(void **)&unpoison = dlsym(RTLD_DEFAULT, "__msan_unpoison");
		__atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
	}
	if (unpoison)
		unpoison(msg, size);
}

int rt_send(const void *msg, uint32_t size, int fd)
{
	int sock = rt_fd_use(&rt.sock);
	long n = -ENOTCONN;

	msg_unpoison(msg, size);
	if (sock >= 0)
		do
			n = utrace_scm_send(sock, msg, size, fd);
		while (n == -EINTR);
	rt_fd_done();
	if (n == (long)size)
		return 0;
	if (sock >= 0 && conn_error(n))
		conn_lost(sock);
	return sock < 0 ? -ENOTCONN : -EPIPE;
}

int rt_recv(void *buf, uint32_t size, int *fd)
{
	int got = -1, sock = rt_fd_use(&rt.sock);
	long n = -ENOTCONN;

	if (sock >= 0)
		do
			n = utrace_scm_recv(sock, buf, size, 0, &got);
		while (n == -EINTR);
	rt_fd_done();
	if (sock >= 0 && (!n || conn_error(n)))
		conn_lost(sock);
	if (fd)
		*fd = got;
	else if (got >= 0)
		close(got);
	if (n < (long)sizeof(struct utrace_msg))
		return -EPIPE;
	if (((struct utrace_msg *)buf)->size > (uint32_t)n)
		return -EPROTO;
	return (int)n;
}

int rt_connect(const char *path, bool forked, pid_t ptid)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	union {
		struct utrace_msg_hello h;
		char buf[sizeof(struct utrace_msg_hello) + 4096];
	} hello;
	char *exe = hello.buf + sizeof(hello.h);
	struct utrace_msg_config cfg;
	ssize_t n;
	int fd, ctl_fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* high, out of the program's way, and guarded from its closes */
	rt.sock = fd;
	rt_fd_guard(&rt.sock);
	fd = rt.sock;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;

		rt_fd_release(&rt.sock);
		return -err;
	}

	memset(&hello.h, 0, sizeof(hello.h));
	n = readlink("/proc/self/exe", exe, 4095);
	exe[n > 0 ? n : 0] = 0;
	hello.h.hdr.type = UTRACE_MSG_HELLO;
	hello.h.hdr.size = (uint32_t)(sizeof(hello.h) + strlen(exe) + 1);
	hello.h.version = UTRACE_PROTO_VERSION;
	hello.h.flags = forked ? UTRACE_HELLO_FORKED : 0;
	hello.h.pid = getpid();
	hello.h.ppid = getppid();
	hello.h.ptid = forked ? ptid : 0;
	if (rt_send(&hello, hello.h.hdr.size, -1) < 0 ||
	    rt_recv(&cfg, sizeof(cfg), &ctl_fd) < (int)sizeof(cfg) ||
	    cfg.hdr.type != UTRACE_MSG_CONFIG || ctl_fd < 0)
		goto fail;
	{
		/* writable: trigger commands change the shared state.  Attached
		 * again (attach.c): the new recording's page takes the old one's
		 * place, so a thread still reading rt.ctl never faults. */
		void *ctl = mmap(rt.ctl, sizeof(struct utrace_control), PROT_READ | PROT_WRITE,
				 MAP_SHARED | (rt.ctl ? MAP_FIXED : 0), ctl_fd, 0);

		if (ctl == MAP_FAILED) {
			close(ctl_fd);
			goto fail;
		}
		rt.ctl = ctl;
	}
	close(ctl_fd);
	rt.cfg = cfg;
	rt.tsc_thresh = cfg.thresh_ns ? (cfg.thresh_ns * cfg.tsc_per_us_q16 / 1000) >> 16 : 0;
	if (cfg.thresh_ns && !rt.tsc_thresh)
		rt.tsc_thresh = 1;
	if (cfg.tsc_per_us_q16)
		rt.tsc_ns_mult = ((1000ull << 32) << 16) / cfg.tsc_per_us_q16;
	rt.graph_fast = !rt.tsc_thresh && !cfg.max_depth &&
			!(cfg.flags & (UTRACE_CFG_GRAPH_FUNCS | UTRACE_CFG_GRAPH_RETVAL |
				       UTRACE_CFG_GRAPH_RETADDR));
	return 0;
fail:
	rt.sock = fd; /* a failed rt_recv may have let go of it already */
	rt_fd_release(&rt.sock);
	return -EPROTO;
}

/*
 * OWN: the kernel events of this thread between tsc0 and now were the
 * runtime's own work (kind: enum utrace_own_kind), not the program's.
 * The end is read just before the send: the send's own system call comes
 * after it (docs/utrace-record.md, KERNEL EVENTS); a thread of the
 * runtime's own (UTRACE_OWN_THREAD) is its whole life.  errno is kept.
 */
void rt_own_send(uint32_t kind, uint64_t tsc0)
{
	struct utrace_msg_own m = {{sizeof(m), UTRACE_MSG_OWN}, 0, kind, tsc0, 0};
	int saved_errno = errno;
	uint32_t cpu;

	m.tid = (int32_t)rt_syscall3(SYS_gettid, 0, 0, 0);
	m.tsc1 = kind == UTRACE_OWN_THREAD ? UINT64_MAX : rt_clock(&cpu);
	rt_send(&m, sizeof(m), -1);
	errno = saved_errno;
}
