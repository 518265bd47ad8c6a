/* SPDX-License-Identifier: MIT */
/*
 * test_proc_self.c - lib/base/proc_self.h: this program counts as utrace
 * (its own file), a copy of it reached through a link named otherwise
 * counts too (the link's file is ours), another program and a gone pid
 * do not; a process's program file and paths as it sees them.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/base/proc_self.h"
#include "check.h"

/* A child that execs path (argv[0] name) and sleeps until killed, its
 * exec done on return: the pipe's write end is close-on-exec, so its
 * read sees the end of file once the exec has happened (or the child
 * has failed and exited). */
static pid_t spawn_sleeper(const char *path, const char *name)
{
	int fds[2];
	char c;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		execl(path, name, "1000", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (read(fds[0], &c, 1) < 0 && errno == EINTR)
		;
	close(fds[0]);
	return pid;
}

static void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* A link named name, in dir, to target; the link's path into out. */
static int link_as(const char *dir, const char *name, const char *target, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", dir, name);
	return symlink(target, out);
}

/* utrace_proc_exe, utrace_same_file, utrace_proc_path in our own mount
 * namespace (another one's: tests/kernel/bt_mountns.sh). */
static void test_paths(const char *self)
{
	char buf[4200], small[4], root[64];
	int me = (int)getpid();

	check(utrace_proc_exe(getpid(), buf, sizeof(buf)) == (int)strlen(self) && !strcmp(buf, self),
	      "utrace_proc_exe: /proc/PID/exe's link (%s)", buf);
	check(utrace_proc_exe(getpid(), small, sizeof(small)) == -ENAMETOOLONG,
	      "utrace_proc_exe: a buffer too small is an error, not a cut path");
	check(utrace_same_file(self, "/proc/self/exe") && !utrace_same_file(self, "/bin/sh") &&
		  !utrace_same_file(self, "/nonexistent"),
	      "utrace_same_file: by device and inode");
	check(utrace_proc_path(getpid(), self, buf, sizeof(buf)) > 0 && !strcmp(buf, self),
	      "utrace_proc_path: the same file here: the path itself (%s)", buf);
	check(utrace_proc_path(getpid(), "rel/x", buf, sizeof(buf)) > 0 && !strcmp(buf, "rel/x"),
	      "utrace_proc_path: a relative path as it is");
	snprintf(root, sizeof(root), "/proc/%d/root/bin/sh", me);
	check(utrace_proc_path(getpid(), root, buf, sizeof(buf)) > 0 && !strcmp(buf, root),
	      "utrace_proc_path: a /proc/PID/root path as it is");
	check(utrace_proc_path(getpid(), "/nonexistent/x", buf, sizeof(buf)) > 0 &&
		  !strcmp(buf, "/nonexistent/x"),
	      "utrace_proc_path: not the process's either: the path itself");
	check(utrace_proc_path(getpid(), self, small, sizeof(small)) == -ENAMETOOLONG,
	      "utrace_proc_path: a buffer too small is an error");
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/test_proc_self.XXXXXX", self[4096], path[4200];
	ssize_t n;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "1000")) /* a sleeper, run as our own file */
		return pause();
	check(utrace_proc_is_utrace(getpid()) == 1, "this process: its file is ours");
	pid = spawn_sleeper("/bin/sleep", "sleep");
	check(utrace_proc_is_utrace(pid) == 0, "sleep is not utrace");
	reap(pid);
	if ((pid = fork()) == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	check(utrace_proc_is_utrace(pid) == 0, "a pid that ended is not utrace");
	if (!mkdtemp(dir) || (n = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
		return check_done();
	self[n] = 0;
	/* utrace bt as bpftrace's tests run it: our file through a link */
	if (link_as(dir, "bpftrace", self, path, sizeof(path)) == 0) {
		pid = spawn_sleeper(path, "bpftrace");
		check(utrace_proc_is_utrace(pid) == 1, "our file run through a link named bpftrace");
		reap(pid);
		unlink(path);
	}
	/* another build or an installed copy: a file named utrace (exe
	 * names the file, not a link to it) */
	snprintf(path, sizeof(path), "cp /bin/sleep %s/utrace", dir);
	if (system(path) == 0) {
		snprintf(path, sizeof(path), "%s/utrace", dir);
		pid = spawn_sleeper(path, "utrace");
		check(utrace_proc_is_utrace(pid) == 1, "a program file named utrace");
		reap(pid);
		unlink(path);
	}
	rmdir(dir);
	test_paths(self);
	return check_done();
}
