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
#include <cpuid.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/scm.h"
#include "runtime/rt.h"

struct rt_global rt = {.sock = -1};
uint32_t utrace_xsave_size;
long rt_rseq_cpu;

/* glibc >= 2.35 exports where it put the thread's struct rseq. */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

static void rt_rseq_init(void)
{
	/* struct rseq { u32 cpu_id_start; u32 cpu_id; ... } */
	if (&__rseq_size && &__rseq_offset && __rseq_size >= 8)
		rt_rseq_cpu = (long)__rseq_offset + 4;
}

int rt_send(const void *msg, uint32_t size, int fd)
{
	long n;

	if (rt.sock < 0)
		return -ENOTCONN;
	do
		n = utrace_scm_send(rt.sock, msg, size, fd);
	while (n == -EINTR);
	return n == (long)size ? 0 : -EPIPE;
}

int rt_recv(void *buf, uint32_t size, int *fd)
{
	int got;
	long n;

	do
		n = utrace_scm_recv(rt.sock, buf, size, 0, &got);
	while (n == -EINTR);
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

static int rt_connect(const char *path, bool forked)
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
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -errno;
	}
	rt.sock = fd;

	memset(&hello.h, 0, sizeof(hello.h));
	n = readlink("/proc/self/exe", exe, 4095);
	exe[n > 0 ? n : 0] = 0;
	hello.h.hdr.type = UTRACE_MSG_HELLO;
	hello.h.hdr.size = (uint32_t)(sizeof(hello.h) + strlen(exe) + 1);
	hello.h.version = UTRACE_PROTO_VERSION;
	hello.h.flags = forked ? UTRACE_HELLO_FORKED : 0;
	hello.h.pid = getpid();
	hello.h.ppid = getppid();
	if (rt_send(&hello, hello.h.hdr.size, -1) < 0 ||
	    rt_recv(&cfg, sizeof(cfg), &ctl_fd) < (int)sizeof(cfg) ||
	    cfg.hdr.type != UTRACE_MSG_CONFIG || ctl_fd < 0)
		goto fail;
	if (!rt.ctl) {
		rt.ctl = mmap(NULL, sizeof(struct utrace_control), PROT_READ, MAP_SHARED, ctl_fd, 0);
		if (rt.ctl == MAP_FAILED) {
			rt.ctl = NULL;
			close(ctl_fd);
			goto fail;
		}
	}
	close(ctl_fd);
	rt.cfg = cfg;
	rt.tsc_thresh = cfg.thresh_ns ? (cfg.thresh_ns * cfg.tsc_per_us_q16 / 1000) >> 16 : 0;
	if (cfg.thresh_ns && !rt.tsc_thresh)
		rt.tsc_thresh = 1;
	rt.graph_fast = !rt.tsc_thresh && !cfg.max_depth && !(cfg.flags & UTRACE_CFG_GRAPH_FUNCS);
	return 0;
fail:
	close(fd);
	rt.sock = -1;
	return -EPROTO;
}

static void rt_atfork_child(void)
{
	const char *path = getenv(UTRACE_ENV_SOCK);

	if (rt.sock < 0)
		return;
	close(rt.sock);
	rt.sock = -1;
	rt.pid = getpid();
	rt_rb_forget(&rt_self);
	if (!path || rt_connect(path, true) < 0) {
		rt.enabled = 0;
		return;
	}
	rt_objects_resend();
}

static int rt_xsave_init(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return -ENOTSUP;
	__cpuid_count(0xd, 0, a, b, c, d);
	if (b < 576)
		return -ENOTSUP;
	utrace_xsave_size = b + 64; /* + room to align to 64 */
	return 0;
}

__attribute__((constructor(101))) static void rt_init(void)
{
	const char *path = getenv(UTRACE_ENV_SOCK);
	int saved_errno = errno;

	if (!path || !*path)
		goto out; /* dormant: not started by utrace record */
	rt.pid = getpid();
	rt_rseq_init();
	if (rt_connect(path, false) < 0)
		goto out; /* recorder gone: run untraced */
	if (rt_xsave_init() < 0) {
		rt_log("this CPU has no XSAVE; tracing is off");
		goto out;
	}
	if (rt_text_poke_init() < 0) {
		rt_log("membarrier() is not available: code cannot be patched safely; tracing is off");
		goto out;
	}
	rt.site_flags = mmap(NULL, 1u << 24, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (rt.site_flags == MAP_FAILED) {
		rt.site_flags = NULL;
		goto out;
	}
	pthread_atfork(NULL, NULL, rt_atfork_child);
	/* With the nop tracer the recorder selects no site: the objects are
	 * registered (for the record) and nothing is patched. */
	rt.enabled = 1;
	__utrace_marker_on = 1;
	rt_objects_scan();
out:
	errno = saved_errno;
}
