/* SPDX-License-Identifier: MIT */
/*
 * session_spawn.c - the command `utrace record` runs
 * (lib/session/session_internal.h): the command started held with
 * libutrace.so preloaded, kernel tracing and sampling started on its pid,
 * then its exec.
 *
 * Design: the child waits on a pipe before its exec (lib/base/spawn.h)
 * so that the kernel instance and the sampler are scoped to its pid
 * before it runs a single instruction of the command; it takes
 * LD_PRELOAD, UTRACE_SOCK and ASAN_OPTIONS from here, and gets back the signal
 * dispositions and mask utrace started with (lib/base/spawn.h), not the
 * recorder's.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/session/session_internal.h"
#include "lib/base/spawn.h"

/* What the child sets up before it waits to exec (utrace_spawn_held). */
struct session_child_env {
	const char *sock, *runtime;
	bool bind_now; /* --libcall: every GOT slot bound before the runtime hooks it */
};

/*
 * AddressSanitizer linked as a library (gcc's libasan) refuses to start
 * when another library is loaded before it ("ASan runtime does not come
 * first in initial library list"), and the preload is.  Preloading
 * libasan too would put ASan into every program the command runs;
 * instead ASan is told not to check the order, first in ASAN_OPTIONS so
 * that the user's own options, after it, win.  Our runtime defines none
 * of the functions ASan intercepts for memory, and forwards those it
 * shares with ASan (signals, longjmp, fork) to the next definition.
 */
static void session_child_asan_options(void)
{
	const char *old = getenv("ASAN_OPTIONS");
	char *opts;

	if (asprintf(&opts, "verify_asan_link_order=0%s%s", old && *old ? ":" : "",
		     old ? old : "") < 0)
		_exit(127);
	setenv("ASAN_OPTIONS", opts, 1);
}

static void session_child_setup(void *arg)
{
	const struct session_child_env *env = arg;
	const char *old = getenv("LD_PRELOAD");
	char *preload;

	if (asprintf(&preload, "%s%s%s", env->runtime, old && *old ? ":" : "", old ? old : "") < 0)
		_exit(127);
	setenv("LD_PRELOAD", preload, 1);
	session_child_asan_options();
	setenv("UTRACE_SOCK", env->sock, 1);
	if (env->bind_now)
		setenv("LD_BIND_NOW", "1", 1);
}

/* Starts the command held, starts kernel tracing and sampling on its
 * pid, lets it exec.  The pid; -1 (err) if the command could not start or
 * exec, -2 if kernel tracing or sampling could not start (k->err). */
pid_t session_spawn(char **argv, const char *sock, const char *runtime, bool bind_now,
		    struct session_kernel *k, struct utrace_error *err)
{
	struct session_child_env env = {.sock = sock, .runtime = runtime, .bind_now = bind_now};
	struct utrace_spawn s;
	int ret;

	ret = utrace_spawn_held(argv, session_child_setup, &env, &s, err);
	if (ret < 0) {
		utrace_error_set(err, ret, "cannot run '%s': %s", argv[0], strerror(-ret));
		return -1;
	}
	if ((k->kt && session_kernel_start(k, s.pid) < 0) ||
	    (k->sopts && utrace_sampler_open(s.pid, k->sopts, &k->sampler, &k->err) < 0)) {
		utrace_spawn_abandon(&s);
		return -2;
	}
	/* what the child does until it execs is ours (utrace_dat_own) */
	k->go_tsc = utrace_recorder_tsc();
	if (utrace_spawn_release(&s, err) < 0)
		return -1;
	return s.pid;
}

