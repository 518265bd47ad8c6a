/* SPDX-License-Identifier: MIT */
/*
 * inject.c - loading libutrace.so into a running process with ptrace, as
 * Frida does: one thread is stopped only long enough to map a bootstrap
 * and start a fresh thread, which then loads the runtime on its own.
 *
 *   PTRACE_SEIZE + PTRACE_INTERRUPT one thread, save its registers
 *   a `syscall` of its vDSO (or libc), single-stepped: mmap(8 KiB, RWX)
 *   write the bootstrap: code (page 0) and data (page 1)
 *   call pthread_create(&tid, NULL, boot_thread, boot) on the stopped
 *     thread's stack (below its red zone); it returns into an int3 of ours
 *   put back every register (the syscall it was in restarts as after any
 *     signal), PTRACE_DETACH
 *
 *   boot_thread: dlopen(runtime, RTLD_NOW); dlsym("__utrace_attach");
 *                __utrace_attach(sock) (runtime/init.c), which returns at
 *                detach; munmap(boot) as a tail call
 *
 * Nothing is written over the program's code: the syscall instruction is
 * one that is there already, and the only bytes written are those of our
 * own mapping.  A thread that a hijack could deadlock (stopped inside libc
 * or the dynamic loader outside a system call, maybe holding the malloc or
 * loader lock that pthread_create needs) is let go at once and another
 * taken, or the same again a millisecond later.  dlopen itself runs on the
 * fresh thread, which holds no lock, so at worst it waits for one.
 *
 * A thread in user code is preferred, for 20 ms: interrupting one that
 * sleeps in a system call may end it early (epoll_wait returns EINTR;
 * most calls restart).  A signal that arrives for the stopped thread
 * meanwhile is held back and delivered when it is let go.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/attach/attach.h"
#include "lib/attach/attach_ptrace.h"

#define BOOT_SIZE 0x2000u
#define BOOT_DATA 0x1000u     /* the data page */
#define BOOT_RET 0u	      /* int3: where pthread_create returns */
#define BOOT_THREAD 4u	      /* the new thread's start */
#define BOOT_D_DLOPEN 0x00u   /* data: dlopen's address */
#define BOOT_D_DLSYM 0x08u    /* dlsym's */
#define BOOT_D_MUNMAP 0x10u   /* munmap's */
#define BOOT_D_STATUS 0x18u   /* int: 1 running, or __utrace_attach's error, -1, -2 */
#define BOOT_D_TID 0x20u      /* pthread_t */
#define BOOT_D_SYM 0x40u      /* "__utrace_attach" */
#define BOOT_D_SOCK 0x200u    /* the socket's path */
#define BOOT_D_RUNTIME 0x400u /* the runtime's path */
#define HIJACK_TRIES 200      /* rounds over the threads, a millisecond apart */
#define HIJACK_USER_ROUNDS 20 /* the first ones: threads in user code only */

/*
 * The bootstrap's code (assembled from this, offsets from its start; D is
 * BOOT_DATA):
 *
 *   0:  int3 x4                        pthread_create returns here
 *   4:  push %rbx; mov %rdi,%rbx       boot_thread(boot)
 *       lea D+0x400(%rbx),%rdi; mov $2,%esi; call *D+0x00(%rbx)   dlopen(runtime, RTLD_NOW)
 *       test %rax,%rax; jz 1f
 *       mov %rax,%rdi; lea D+0x40(%rbx),%rsi; call *D+0x08(%rbx)  dlsym(h, "__utrace_attach")
 *       test %rax,%rax; jz 2f
 *       lea D+0x200(%rbx),%rdi; call *%rax                        __utrace_attach(sock)
 *       test %eax,%eax; jnz 3f
 *       mov %rbx,%rdi; mov $0x2000,%esi; mov D+0x10(%rbx),%rax
 *       pop %rbx; jmp *%rax            munmap(boot, 8 KiB), a tail call: it
 *                                      returns to start_thread, not here
 *   1:  mov $-1,%eax; jmp 3f           dlopen failed
 *   2:  mov $-2,%eax                   no __utrace_attach
 *   3:  mov %eax,D+0x18(%rbx)          the status, read by the tool (the
 *       xor %eax,%eax; pop %rbx; ret   mapping stays)
 *
 * The thread ends by returning from its start routine, so glibc frees its
 * stack; the runtime detached it (pthread_detach) and runs in it until
 * the recording detaches from the process (runtime/attach.c).
 */
static const unsigned char boot_code[] = {
    0xcc, 0xcc, 0xcc, 0xcc, 0x53, 0x48, 0x89, 0xfb, 0x48, 0x8d, 0xbb, 0x00, 0x14, 0x00, 0x00,
    0xbe, 0x02, 0x00, 0x00, 0x00, 0xff, 0x93, 0x00, 0x10, 0x00, 0x00, 0x48, 0x85, 0xc0, 0x74,
    0x34, 0x48, 0x89, 0xc7, 0x48, 0x8d, 0xb3, 0x40, 0x10, 0x00, 0x00, 0xff, 0x93, 0x08, 0x10,
    0x00, 0x00, 0x48, 0x85, 0xc0, 0x74, 0x26, 0x48, 0x8d, 0xbb, 0x00, 0x12, 0x00, 0x00, 0xff,
    0xd0, 0x85, 0xc0, 0x75, 0x1e, 0x48, 0x89, 0xdf, 0xbe, 0x00, 0x20, 0x00, 0x00, 0x48, 0x8b,
    0x83, 0x10, 0x10, 0x00, 0x00, 0x5b, 0xff, 0xe0, 0xb8, 0xff, 0xff, 0xff, 0xff, 0xeb, 0x05,
    0xb8, 0xfe, 0xff, 0xff, 0xff, 0x89, 0x83, 0x18, 0x10, 0x00, 0x00, 0x31, 0xc0, 0x5b, 0xc3};

/* A `syscall` (0f 05) of the vDSO or of libc's code. */
static uint64_t find_syscall(const struct utrace_attach_target *t)
{
	uint64_t ranges[2][2] = {{t->vdso_lo, t->vdso_hi}, {t->libc_text_lo, t->libc_text_hi}};
	static unsigned char buf[1 << 16];

	for (int r = 0; r < 2; r++)
		for (uint64_t a = ranges[r][0]; a < ranges[r][1]; a += sizeof(buf) - 1) {
			size_t len =
			    ranges[r][1] - a < sizeof(buf) ? ranges[r][1] - a : sizeof(buf);

			if (attach_mem_rw(t->pid, a, buf, len, false) < 0)
				break;
			for (size_t i = 0; i + 1 < len; i++)
				if (buf[i] == 0x0f && buf[i + 1] == 0x05)
					return a + i;
		}
	return 0;
}

/* Whether the stopped thread may run our calls: in a system call, or
 * outside libc and the loader. */
static bool hijack_safe(const struct utrace_attach_target *t, const struct user_regs_struct *r)
{
	if ((long long)r->orig_rax >= 0)
		return true;
	for (unsigned i = 0; i < t->nunsafe; i++)
		if (r->rip >= t->unsafe[i].lo && r->rip < t->unsafe[i].hi)
			return false;
	return true;
}

/* Seizes and stops tid; 1 if it is stopped where it may be used, 0 if
 * not (let go again), <0 if it cannot be seized. */
static int stop_thread(const struct utrace_attach_target *t, struct stopped *s, int tid)
{
	int ret = attach_stop(s, tid);

	if (ret < 0)
		return ret;
	if (hijack_safe(t, &s->saved))
		return 1;
	attach_release(s, 0);
	return 0;
}

/* The registers of a call of fn(a0..a3) that returns to ret, on the
 * thread's stack below its red zone. */
static int setup_call(struct stopped *s, uint64_t fn, const uint64_t a[4], uint64_t ret)
{
	struct user_regs_struct r = s->saved;

	r.rsp = ((s->saved.rsp - 256) & ~(uint64_t)15) - 8; /* as after a call */
	if (attach_mem_rw(s->tid, r.rsp, &ret, sizeof(ret), true) < 0)
		return -EFAULT;
	r.rip = fn;
	r.rdi = a[0];
	r.rsi = a[1];
	r.rdx = a[2];
	r.rcx = a[3];
	r.rax = 0;
	r.orig_rax = (unsigned long long)-1; /* no syscall restart on our registers */
	return ptrace(PTRACE_SETREGS, s->tid, NULL, &r) < 0 ? -errno : 0;
}

/* mmap(NULL, BOOT_SIZE, RWX, PRIVATE|ANONYMOUS) by the stopped thread. */
static int remote_mmap(struct stopped *s, uint64_t sys, uint64_t *out)
{
	struct user_regs_struct r = s->saved;
	int ret;

	r.rip = sys;
	r.rax = 9; /* __NR_mmap */
	r.rdi = 0;
	r.rsi = BOOT_SIZE;
	r.rdx = 7;    /* PROT_READ | PROT_WRITE | PROT_EXEC */
	r.r10 = 0x22; /* MAP_PRIVATE | MAP_ANONYMOUS */
	r.r8 = (unsigned long long)-1;
	r.r9 = 0;
	r.orig_rax = (unsigned long long)-1;
	if (ptrace(PTRACE_SETREGS, s->tid, NULL, &r) < 0)
		return -errno;
	if ((ret = attach_run_until(s, PTRACE_SINGLESTEP, sys + 2, &r)) < 0)
		return ret;
	if (r.rax > (unsigned long long)-4096)
		return (int)r.rax;
	*out = r.rax;
	return 0;
}

/* The bootstrap's two pages, filled for the target. */
static int boot_image(const struct utrace_attach_target *t, const char *runtime, const char *sock,
		      unsigned char *img)
{
	int32_t status = 1;

	if (strlen(sock) >= BOOT_D_RUNTIME - BOOT_D_SOCK ||
	    strlen(runtime) >= BOOT_SIZE - BOOT_DATA - BOOT_D_RUNTIME)
		return -ENAMETOOLONG;
	memset(img, 0, BOOT_SIZE);
	memcpy(img, boot_code, sizeof(boot_code));
	memcpy(img + BOOT_DATA + BOOT_D_DLOPEN, &t->dlopen, 8);
	memcpy(img + BOOT_DATA + BOOT_D_DLSYM, &t->dlsym, 8);
	memcpy(img + BOOT_DATA + BOOT_D_MUNMAP, &t->munmap, 8);
	memcpy(img + BOOT_DATA + BOOT_D_STATUS, &status, 4);
	strcpy((char *)img + BOOT_DATA + BOOT_D_SYM, "__utrace_attach");
	strcpy((char *)img + BOOT_DATA + BOOT_D_SOCK, sock);
	strcpy((char *)img + BOOT_DATA + BOOT_D_RUNTIME, runtime);
	return 0;
}

/* The stopped thread maps the bootstrap and starts its thread. */
static int hijack(const struct utrace_attach_target *t, struct stopped *s, const char *runtime,
		  const char *sock, uint64_t *boot, struct utrace_error *err)
{
	static unsigned char img[BOOT_SIZE];
	uint64_t sys = find_syscall(t), base = 0, args[4];
	struct user_regs_struct r;
	int ret;

	if (!sys)
		return utrace_error_set(err, -ENOEXEC,
					"-P %d: no syscall instruction found in its "
					"vDSO or libc",
					t->tid);
	if ((ret = boot_image(t, runtime, sock, img)) < 0)
		return utrace_error_set(
		    err, ret, "-P %d: the runtime's or the socket's path is too long", t->tid);
	if ((ret = remote_mmap(s, sys, &base)) < 0)
		return utrace_error_set(err, ret, "-P %d: mmap in the process failed: %s", t->tid,
					strerror(-ret));
	if ((ret = attach_mem_rw(t->pid, base, img, BOOT_SIZE, true)) < 0)
		return utrace_error_set(err, ret, "-P %d: cannot write its memory: %s", t->tid,
					strerror(-ret));
	args[0] = base + BOOT_DATA + BOOT_D_TID;
	args[1] = 0;
	args[2] = base + BOOT_THREAD;
	args[3] = base;
	if ((ret = setup_call(s, t->pthread_create, args, base + BOOT_RET)) < 0 ||
	    (ret = attach_run_until(s, PTRACE_CONT, base + BOOT_RET + 1, &r)) < 0)
		return utrace_error_set(err, ret,
					"-P %d: the call of pthread_create did not come back: %s",
					t->tid, strerror(-ret));
	if (r.rax)
		return utrace_error_set(err, -(int)r.rax, "-P %d: pthread_create failed in it: %s",
					t->tid, strerror((int)r.rax));
	*boot = base;
	return 0;
}

/* The candidates: the thread given first, then the others of the process. */
static int list_threads(const struct utrace_attach_target *t, int *tids, int max)
{
	char path[64];
	struct dirent *d;
	int n = 0;
	DIR *dir;

	tids[n++] = t->tid;
	snprintf(path, sizeof(path), "/proc/%d/task", t->pid);
	if (!(dir = opendir(path)))
		return n;
	while ((d = readdir(dir)) && n < max) {
		int tid = atoi(d->d_name);

		if (tid > 0 && tid != t->tid)
			tids[n++] = tid;
	}
	closedir(dir);
	return n;
}

/* Whether tid sleeps in a system call (/proc/PID/task/TID/syscall starts
 * with its number; "running" or -1 when it is in user code).  Stopping it
 * would end some calls early (epoll_wait returns EINTR), so the first
 * rounds look for a thread in user code only. */
static bool in_syscall(int pid, int tid)
{
	char path[96], buf[32] = "";
	FILE *f;
	long nr;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
	if (!(f = fopen(path, "r")))
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return sscanf(buf, "%ld", &nr) == 1 && nr >= 0;
}

int utrace_attach_inject(const struct utrace_attach_target *t, const char *runtime,
			 const char *sock, uint64_t *boot, struct utrace_error *err)
{
	struct stopped s;
	int tids[64], n = list_threads(t, tids, 64), ret;

	for (int round = 0; round < HIJACK_TRIES; round++, attach_sleep_us(1000))
		for (int i = 0; i < n; i++) {
			if (round < HIJACK_USER_ROUNDS && in_syscall(t->pid, tids[i]))
				continue;
			ret = stop_thread(t, &s, tids[i]);
			if (ret == -EPERM)
				return utrace_error_set(err, ret, "-P %d: ptrace: %s", t->tid,
							strerror(-ret));
			if (ret <= 0)
				continue;
			ret = hijack(t, &s, runtime, sock, boot, err);
			if (attach_release(&s, 1) < 0 && ret >= 0)
				ret = utrace_error_set(err, -ESRCH,
						       "-P %d: its thread %d could not be "
						       "let go",
						       t->tid, s.tid);
			return ret;
		}
	return utrace_error_set(err, -EAGAIN,
				"-P %d: no thread stopped outside libc and the "
				"loader in %d tries",
				t->tid, HIJACK_TRIES);
}

int utrace_attach_status(const struct utrace_attach_target *t, uint64_t boot,
			 struct utrace_error *err)
{
	int32_t st;

	if (attach_mem_rw(t->pid, boot + BOOT_DATA + BOOT_D_STATUS, &st, sizeof(st), false) < 0)
		return utrace_error_set(err, -ESRCH, "-P %d: the process has gone", t->tid);
	if (st == 1)
		return 1;
	if (st == -1)
		return utrace_error_set(err, -ENOENT, "-P %d: dlopen of the runtime failed in it",
					t->tid);
	if (st == -2)
		return utrace_error_set(err, -ENOENT, "-P %d: the runtime has no __utrace_attach",
					t->tid);
	if (st == -EBUSY)
		return utrace_error_set(err, st,
					"-P %d: traced by utrace already (started by "
					"utrace record, or attached)",
					t->tid);
	return utrace_error_set(err, st, "-P %d: the runtime could not register with the recorder",
				t->tid);
}
