/* SPDX-License-Identifier: MIT */
/*
 * spawn.c - a command forked and held before its exec (see spawn.h).
 *
 * Two close-on-exec pipes: "go", which the child reads before execvp()
 * (end of file: the parent gave up, the child _exit(127)s), and "err",
 * where the child writes execvp()'s errno if it fails; the exec itself
 * closes the write end, so end of file there means the command runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/base/spawn.h"

/* What utrace started with (utrace_spawn_save_signals): process-wide
 * state, like the dispositions themselves. */
static struct {
	bool saved;
	sigset_t ignored, mask;
} spawn_sig;

void utrace_spawn_save_signals(void)
{
	struct sigaction old;

	sigemptyset(&spawn_sig.ignored);
	for (int sig = 1; sig < NSIG; sig++)
		if (!sigaction(sig, NULL, &old) && old.sa_handler == SIG_IGN)
			sigaddset(&spawn_sig.ignored, sig);
	sigprocmask(SIG_SETMASK, NULL, &spawn_sig.mask);
	spawn_sig.saved = true;
}

bool utrace_spawn_signal_ignored(int sig)
{
	return spawn_sig.saved && sigismember(&spawn_sig.ignored, sig) == 1;
}

void utrace_spawn_restore_signals(void)
{
	if (!spawn_sig.saved)
		return;
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa = {.sa_handler = SIG_DFL};

		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (sigismember(&spawn_sig.ignored, sig) == 1)
			sa.sa_handler = SIG_IGN;
		/* libc's own signals refuse (EINVAL): exec resets them anyway */
		sigaction(sig, &sa, NULL);
	}
	sigprocmask(SIG_SETMASK, &spawn_sig.mask, NULL);
}

/*
 * The file execvp() would run for name, looked up in $PATH before the
 * fork (into buf; NULL: leave it to execvp): after the go the child makes one
 * execve, not one per folder of $PATH, so that its system calls after
 * the go are the command's (utrace_dat_own: the recorder's child is
 * utrace's until the go).  A file execve() refuses still goes to
 * execvp(), which knows what to do with it.
 */
static const char *spawn_lookup(const char *name, char *buf, size_t size)
{
	const char *p = getenv("PATH"), *end;

	if (strchr(name, '/') || !p || !*name)
		return NULL;
	for (; *p; p = *end ? end + 1 : end) {
		int n;

		end = strchrnul(p, ':');
		n = snprintf(buf, size, "%.*s%s%s", (int)(end - p), p, end == p ? "" : "/", name);
		if (n > 0 && (size_t)n < size && access(buf, X_OK) == 0)
			return buf;
	}
	return NULL;
}

/* The child: set up, say it is ready (ready_fd), wait for the go byte,
 * then become the command. */
static void __attribute__((noreturn))
spawn_child(char *const argv[], const char *file, void (*in_child)(void *), void *arg, int go_fd,
	    int err_fd, int ready_fd)
{
	ssize_t n;
	char c;
	int e;

	if (in_child)
		in_child(arg);
	utrace_spawn_restore_signals();
	if (write(ready_fd, "r", 1) < 0) /* the parent gone: the go read says */
		_exit(127);
	close(ready_fd);
	while ((n = read(go_fd, &c, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		_exit(127); /* the parent gave up */
	if (file)
		execv(file, argv);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static void spawn_reap(struct utrace_spawn *s)
{
	if (s->pid <= 0)
		return;
	while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
		;
	s->pid = -1;
}

static void spawn_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Until the child has set itself up (its read of the ready pipe: a byte,
 * or end of file if it died first): what it does up to the go is then
 * done, and what follows the go is its exec.  The recorder counts the
 * child's system calls up to the go as utrace's own (utrace_dat_own);
 * without this wait a child slow to start (under load) did some of them,
 * 60 sigaction calls, after the go. */
static void spawn_wait_ready(int fd)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	close(fd);
}

int utrace_spawn_held(char *const argv[], void (*in_child)(void *), void *arg,
		      struct utrace_spawn *s, struct utrace_error *err)
{
	int go[2], ex[2], rd[2], ret;
	char buf[PATH_MAX];
	const char *file; /* looked up here: the child of a threaded recorder
			   * keeps to async-signal-safe calls until its exec */

	*s = (struct utrace_spawn){.pid = -1, .go_fd = -1, .err_fd = -1};
	if (!argv || !argv[0])
		return utrace_error_set(err, -EINVAL, "no command to run");
	s->name = argv[0];
	file = spawn_lookup(argv[0], buf, sizeof(buf));
	if (pipe2(go, O_CLOEXEC) < 0)
		return utrace_error_set(err, -errno, "pipe: %s", strerror(errno));
	if (pipe2(ex, O_CLOEXEC) < 0) {
		ret = utrace_error_set(err, -errno, "pipe: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		return ret;
	}
	if (pipe2(rd, O_CLOEXEC) < 0) {
		ret = utrace_error_set(err, -errno, "pipe: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return ret;
	}
	s->pid = fork();
	if (s->pid < 0) {
		ret = utrace_error_set(err, -errno, "fork: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		close(rd[0]);
		close(rd[1]);
		s->pid = -1;
		return ret;
	}
	if (s->pid == 0) {
		close(go[1]);
		close(ex[0]);
		close(rd[0]);
		spawn_child(argv, file, in_child, arg, go[0], ex[1], rd[1]);
	}
	close(go[0]);
	close(ex[1]);
	close(rd[1]);
	spawn_wait_ready(rd[0]);
	s->go_fd = go[1];
	s->err_fd = ex[0];
	return 0;
}

int utrace_spawn_go(struct utrace_spawn *s, struct utrace_error *err)
{
	int ret = 0;

	if (write(s->go_fd, "x", 1) != 1)
		ret = utrace_error_set(err, -errno, "cannot start '%s': %s", s->name,
				       strerror(errno));
	spawn_close(&s->go_fd);
	return ret;
}

int utrace_spawn_exec_result(struct utrace_spawn *s, struct utrace_error *err)
{
	ssize_t n;
	int e = 0;

	while ((n = read(s->err_fd, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	spawn_close(&s->err_fd);
	if (n != (ssize_t)sizeof(e))
		return 0;
	return utrace_error_set(err, -e, "cannot run '%s': %s", s->name, strerror(e));
}

int utrace_spawn_release(struct utrace_spawn *s, struct utrace_error *err)
{
	struct utrace_error ignored;
	int ret;

	/* if the child is already gone, its wait status says how it ended */
	utrace_spawn_go(s, &ignored);
	ret = utrace_spawn_exec_result(s, err);
	if (ret < 0)
		spawn_reap(s);
	return ret;
}

void utrace_spawn_abandon(struct utrace_spawn *s)
{
	spawn_close(&s->go_fd); /* the child reads end of file and exits */
	spawn_close(&s->err_fd);
	spawn_reap(s);
}
