/* SPDX-License-Identifier: MIT */
/*
 * kprog.c - the traced program of the ftracetest tier (run.sh): its
 * functions and static tracepoints carry the kernel's names and field
 * layouts (events/ev_*.h, defined in events/*.c, Linux v6.12) that the kernel's ftrace selftests
 * probe, filter and trigger on, so the cases run unchanged against
 * `utrace record --tracefs`.  Every millisecond, until the file argv[1]
 * exists, it calls each function once and fires each tracepoint once.
 * eventfs_create_dir gets "test" (kprobe_args_char.tc reads its first
 * argument as the name of the kernel's new events folder); do_sys_open
 * and do_sys_openat2 open "/dev/null" (kprobe_args_user.tc's `echo >
 * /dev/null`).  test_for_valid_rec is static and reads one field of its
 * argument: GCC's IPA-SRA passes that field instead and names the clone
 * test_for_valid_rec.isra.0, as it does in the kernel's ftrace.c
 * (kprobe_eventname.tc probes a function with such a suffix).  The
 * functions and tracepoints that add_remove_btfarg.tc reads by name take
 * the kernel's parameters (events/kstructs.h): kfree's object, vfs_read's
 * struct file *file, getname_flags' struct filename, kmem_cache_alloc's
 * struct kmem_cache *s, sched_wakeup's struct task_struct *p; kprog is
 * built with -g, its DWARF standing for the kernel's BTF.
 */
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include "ev_kmem.h"
#include "ev_raw_syscalls.h"
#include "ev_sched.h"
#include "ev_signal.h"
#include "ev_syscalls.h"
#include "ev_timer.h"
#include "kstructs.h"

volatile long sink;
/* a dentry is kernel memory: an address user-memory reads fault on
 * (kprobe_args_user.tc reads vfs_symlink's with ustring, wants (fault)) */
#define KERNEL_DENTRY ((void *)0xffff888000001000UL)
#define KFN(ret, name, ...) __attribute__((noinline)) ret name(__VA_ARGS__)

KFN(long, kernel_clone, void *args) { sink += (long)args; return sink; }
KFN(void, schedule, void) { sink++; }
KFN(void, do_exit, long code) { sink += code; } /* the kernel's name; returns here */
KFN(void, scheduler_tick, void) { sink++; }
KFN(long, vfs_read, struct file *file, char *buf, size_t count, long *pos)
{
	sink += (long)file + (long)buf + (long)count + (pos ? *pos : 0);
	return (long)count;
}
KFN(int, vfs_open, const void *path, void *file) { sink += (long)path + (long)file; return 0; }
KFN(int, vfs_symlink, void *idmap, void *dir, void *dentry, const char *old)
{
	sink += (long)idmap + (long)dir + (long)dentry + old[0];
	return 0;
}
KFN(void, dput, void *dentry) { sink += (long)dentry; }
KFN(void, kfree, const void *object) { sink += (long)object; }
/* the kernel's: the user's path name copied into a struct filename */
KFN(struct filename *, getname_flags, const char *filename, int flags)
{
	static struct filename fn;

	fn.name = filename;
	fn.uptr = filename;
	fn.refcnt = 1;
	sink += flags;
	return &fn;
}
KFN(void *, kmem_cache_alloc, void *cache, unsigned flags) { sink += flags; return cache; }
KFN(void, kmem_cache_free, void *cache, void *p) { sink += (long)cache + (long)p; }
KFN(int, do_execve, const char *filename, void *argv, void *envp)
{
	sink += filename[0] + (long)argv + (long)envp;
	return 0;
}
KFN(long, do_sys_open, int dfd, const char *filename, int flags, unsigned short mode)
{
	sink += dfd + filename[0] + flags + mode;
	return 3;
}
KFN(long, do_sys_openat2, int dfd, const char *filename, void *how)
{
	sink += dfd + filename[0] + (long)how;
	return 3;
}
KFN(void *, inet_csk_accept, void *sk, int flags) { sink += flags; return sk; }
KFN(long, proc_reg_write, void *file, const char *buf, size_t count, long *ppos)
{
	sink += (long)file + buf[0] + (long)ppos;
	return (long)count;
}
KFN(void *, eventfs_create_dir, const char *name, void *parent, void *entries, int size, void *data)
{
	sink += name[0] + (long)parent + (long)entries + size + (long)data;
	return parent;
}
KFN(void *, tracefs_create_dir, const char *name, void *parent) { sink += name[0]; return parent; }
/* lock functions: the globs of func_set_ftrace_file.tc and func-filter-glob.tc */
KFN(void, _raw_spin_lock, void *lock) { sink += (long)lock; }
KFN(int, _raw_spin_trylock, void *lock) { sink += (long)lock; return 1; }
KFN(void, _raw_spin_unlock, void *lock) { sink -= (long)lock; }
KFN(void, mutex_lock, void *lock) { sink += (long)lock; }
KFN(int, mutex_trylock, void *lock) { sink += (long)lock; return 1; }
KFN(void, mutex_unlock, void *lock) { sink -= (long)lock; }
KFN(void, console_unlock, void) { sink++; }
KFN(long, sys_getpid, void) { return ++sink; } /* func-filter-glob.tc's [Ss]y[Ss]_* */
struct dyn_ftrace {
	unsigned long ip, flags;
};
static KFN(int, test_for_valid_rec, struct dyn_ftrace *rec)
{
	sink += (long)rec->ip;
	return rec->ip != 0;
}

/* one of the kernel's static functions of one name (kprog_text.c has the
 * other): kprobe_non_uniq_symbol.tc */
__attribute__((noinline, used)) static long name_show(void *dev, char *buf)
{
	return buf[0] - (long)dev;
}
/* rcu functions: the glob of fgraph-multi.tc's second instance */
KFN(void, rcu_note_context_switch, bool preempt) { sink += preempt; }
KFN(void, call_rcu, void *head, void *func) { sink += (long)head + (long)func; }

static void kernel_functions(int n)
{
	char buf[64] = "";
	long pos = n;
	struct dyn_ftrace recs[2] = {{(unsigned long)n, 0}, {(unsigned long)buf, 1}};

	kernel_clone(&n);
	schedule();
	do_exit(0);
	scheduler_tick();
	vfs_read((struct file *)buf, buf, sizeof(buf), &pos);
	vfs_open("/etc/passwd", buf);
	vfs_symlink(NULL, buf, KERNEL_DENTRY, "/tmp/link");
	dput(buf);
	kfree(buf);
	getname_flags("/etc/hostname", 0);
	kmem_cache_free(buf, kmem_cache_alloc(buf, 0xcc0));
	do_execve("/bin/true", NULL, NULL);
	do_sys_open(-100, "/dev/null", 0, 0);
	do_sys_openat2(-100, "/dev/null", NULL);
	inet_csk_accept(buf, 0);
	proc_reg_write(buf, "1", 1, &pos);
	eventfs_create_dir("test", buf, NULL, 0, NULL);
	tracefs_create_dir("test", buf);
	_raw_spin_lock(buf);
	if (_raw_spin_trylock(buf))
		_raw_spin_unlock(buf);
	_raw_spin_unlock(buf);
	mutex_lock(buf);
	if (mutex_trylock(buf))
		mutex_unlock(buf);
	mutex_unlock(buf);
	console_unlock();
	sys_getpid();
	test_for_valid_rec(&recs[0]);
	test_for_valid_rec(&recs[1]);
	rcu_note_context_switch(false);
	call_rcu(buf, NULL);
}

/* the kernel's sched_switch fires in __schedule(): a stack it keeps
 * (inter-event/trigger-synthetic-event-stack.tc) shows "=> __schedule" */
KFN(void, __schedule, pid_t pid)
{
	trace_sched_switch("kprog", pid, 120, 1, "swapper/0", 0, 120);
	trace_sched_switch("swapper/0", 0, 120, 0, "kprog", pid, 120);
}

static void kernel_events(int n, pid_t pid)
{
	unsigned long args[6] = {257, (unsigned long)-100, 0, 0, 0, 0};
	char obj[32];
	struct task_struct task = {.prio = 120, .cpu = (unsigned)n % 2, .pid = pid, .tgid = pid,
				   .comm = "kprog"};
	struct kmem_cache cache = {.flags = n % 2 ? SLAB_ACCOUNT : 0, .size = 32 + n % 64,
				   .object_size = 32, .name = "kprog_cache"};

	/* the task on a run queue of its own: its group_node links to itself */
	task.se.group_node.next = task.se.group_node.prev = &task.se.group_node;
	trace_sched_waking(&task);
	trace_sched_wakeup(&task);
	__schedule(pid);
	trace_sched_process_fork("kprog", pid, "kprog", pid + 1 + n % 7);
	trace_sched_process_exec("/bin/true", pid, pid);
	trace_sched_process_exit("kprog", pid, 120);
	trace_kmalloc((unsigned long)kernel_events, obj, 32 + n % 64, 64 + n % 64, 0xcc0, 0);
	trace_kmem_cache_alloc((unsigned long)kernel_events, obj, &cache, 0xcc0, 0);
	trace_kfree((unsigned long)kernel_events, obj);
	trace_kmem_cache_free((unsigned long)kernel_events, obj, "dentry");
	trace_signal_generate(SIGCHLD, 0, 0, "kprog", pid, 1, 0);
	trace_sys_enter(257, args);
	trace_sys_exit(257, 3);
	trace_sys_enter_openat(257, -100, "/etc/hostname", 0, 0);
	trace_sys_exit_openat(257, 3);
	trace_sys_enter_chdir(80, "/");
	trace_timer_cancel(obj);
}

/*
 * With KPROG_FIFO set (run.sh, as root), kprog runs SCHED_FIFO: a case
 * times its window for the kernel, which runs kernel_clone inside the
 * shell's fork, and kprog stands for that kernel only if it runs every
 * millisecond whatever the machine's load (it sleeps the rest: a real-time
 * task of a few microseconds a millisecond).  Best effort: without the
 * right, it runs as before.
 */
static void kprog_realtime(void)
{
	struct sched_param sp = {.sched_priority = 1};

	if (getenv("KPROG_FIFO"))
		(void)sched_setscheduler(0, SCHED_FIFO, &sp);
}

int main(int argc, char **argv)
{
	pid_t pid = getpid();

	kprog_realtime();
	for (int n = 0; argc > 1 && access(argv[1], F_OK); n++) {
		kernel_functions(n);
		kernel_events(n, pid);
		usleep(1000);
	}
	return 0;
}
