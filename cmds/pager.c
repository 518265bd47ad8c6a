/* SPDX-License-Identifier: MIT */
/*
 * pager.c - report and graph on a terminal go through a pager, as git's
 * and perf's long outputs do: $UTRACE_PAGER, else $PAGER, else "less",
 * with LESS=FRX unless the user set LESS (quit at once when the text fits
 * the screen, keep colours, do not clear the screen).  Not on a pipe or a
 * file, not with --no-pager, not when the pager is "" or "cat".
 *
 * The pager is a child reading our standard output (and standard error,
 * when that is the same terminal, so warnings stay in their place); at
 * exit we close both and wait for it, so the shell's prompt comes back
 * after the pager ends.  If the user quits it early, our next write gets
 * SIGPIPE and we end as `git log | less` does.
 *
 * --color is decided here too, on the terminal, before the pager takes
 * the output (a pipe then): auto means "standard output is a terminal".
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/base/error.h"

static pid_t pager_pid = -1;

/* atexit: the output closed, then the pager waited for (a Ctrl-C meant
 * for it must not kill us first) */
static void pager_wait(void)
{
	int st;

	if (pager_pid < 0)
		return;
	fflush(stdout);
	fflush(stderr);
	close(STDOUT_FILENO);
	close(STDERR_FILENO);
	signal(SIGINT, SIG_IGN);
	while (waitpid(pager_pid, &st, 0) < 0 && errno == EINTR)
		;
	pager_pid = -1;
}

static const char *pager_command(void)
{
	const char *p = getenv("UTRACE_PAGER");

	if (!p)
		p = getenv("PAGER");
	if (!p)
		p = "less";
	return !*p || !strcmp(p, "cat") ? NULL : p;
}

void utrace_pager_start(bool no_pager)
{
	const char *cmd = pager_command();
	int fd[2];

	if (no_pager || !cmd || !isatty(STDOUT_FILENO) || pager_pid >= 0)
		return;
	if (pipe(fd) < 0)
		return; /* no pager: the text goes to the terminal as it is */
	fflush(stdout);
	pager_pid = fork();
	if (pager_pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (pager_pid == 0) {
		dup2(fd[0], STDIN_FILENO);
		close(fd[0]);
		close(fd[1]);
		setenv("LESS", "FRX", 0);
		execlp("sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	dup2(fd[1], STDOUT_FILENO);
	if (isatty(STDERR_FILENO))
		dup2(fd[1], STDERR_FILENO);
	close(fd[0]);
	close(fd[1]);
	atexit(pager_wait);
}

int utrace_color_parse(const char *when, int *color, struct utrace_error *err)
{
	if (!when || !strcmp(when, "always"))
		*color = UTRACE_COLOR_ALWAYS;
	else if (!strcmp(when, "auto"))
		*color = UTRACE_COLOR_AUTO;
	else if (!strcmp(when, "never"))
		*color = UTRACE_COLOR_NEVER;
	else
		return utrace_error_set(err, -EINVAL, "--color=%s: auto, always or never", when);
	return 0;
}

bool utrace_color_on(int color)
{
	const char *term = getenv("TERM"), *no = getenv("NO_COLOR");

	if (color != UTRACE_COLOR_AUTO)
		return color == UTRACE_COLOR_ALWAYS;
	return isatty(STDOUT_FILENO) && !(no && *no) && !(term && !strcmp(term, "dumb"));
}
