/* SPDX-License-Identifier: MIT */
/*
 * exit_like.c - ending as the command that utrace ran ended, shared by
 * utrace record and utrace stat, so that a shell sees no difference.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "cmds/cmds.h"

int utrace_exit_like(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit no_core = {0, 0};
		sigset_t set;

		fflush(NULL);
		setrlimit(RLIMIT_CORE, &no_core); /* the command dumped its own core */
		signal(sig, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(sig);
		return 128 + sig;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
