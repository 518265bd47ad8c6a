/* SPDX-License-Identifier: MIT */
/*
 * session_opts.c - the options of a recording (lib/session/session.h):
 * record's defaults, what parsing allocated freed, and the defaults and
 * checks that span options once they are all parsed (the command line's
 * words: the messages name the options as utrace record spells them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/elf/libdeps.h"
#include "lib/elf/sanitizer.h"
#include "lib/hist/hist.h"
#include "lib/sample/ksyms.h"
#include "lib/session/session.h"
#include "lib/tracefile/dat_format.h"

int utrace_session_opts_init(struct utrace_session_opts *o)
{
	*o = (struct utrace_session_opts){
	    .rec =
		{
		    .output = UTRACE_DAT_DEFAULT,
		    .tracer = UTRACE_TRACER_FUNCTION_GRAPH,
		    .buffer_kb = UTRACE_SESSION_BUFFER_KB,
		},
	    .filter = utrace_func_filter_new(),
	    /* decided with -F (utrace_session_opts_finish) */
	    .sample = {.user_only = true},
	    .libcall = -1, /* decided with the program (utrace_session_opts_finish) */
	    .log = stderr,
	};
	return o->filter ? 0 : -ENOMEM;
}

void utrace_session_opts_free(struct utrace_session_opts *o)
{
	utrace_func_filter_free(o->filter);
	for (unsigned i = 0; i < o->nspecs; i++) {
		utrace_trigger_free_spec(&o->specs[i]);
		free(o->specs[i].triggers);
	}
	free(o->specs);
	free(o->probe_defs);
	free(o->synth_defs);
	free(o->pids);
}

/*
 * --libcall is the default for every program, as uftrace hooks the PLT by
 * default: usleep(), snprintf() explain where a program's time went.  But
 * not for a program a sanitizer's runtime is linked into (clang's
 * -fsanitize=...): that runtime calls libc through the program's PLT too,
 * from its own threads and before anything is set up, where a hooked call
 * crashes it (TSan's background thread).  A program that cannot be read
 * has none here; running it says why.
 */
static bool session_libcall_default(const char *name)
{
	char *exe = utrace_program_path(name);
	bool inside = exe && utrace_sanitizer_find(exe, NULL);

	free(exe);
	return !inside;
}

int utrace_session_opts_finish(struct utrace_session_opts *o, struct utrace_error *err)
{
	bool command = o->argv && o->argv[0];

	if (o->npids && command)
		return utrace_error_set(
		    err, -EINVAL, "-P and a command: attach to processes or run one, not both");
	/* its handlers would stay in a process the detach leaves */
	if (o->dump_calls && o->npids)
		return utrace_error_set(err, -EINVAL,
					"--dump-on-crash goes with a command, not -P (the crash "
					"handlers cannot stay behind in a process utrace detaches "
					"from)");
	if (o->duration > 0 && !o->npids)
		return utrace_error_set(
		    err, -EINVAL, "--duration goes with -P (a command is recorded until it ends)");
	if (!command && !o->npids)
		return utrace_error_set(err, -EINVAL,
					"no command to run (usage: utrace record [OPTIONS] -- "
					"COMMAND, or -P PID)");
	if (o->npids)
		o->argv = NULL;
	/* the samples' file layout and names come with the sampling */
	if (o->sample.off_cpu && !o->sample.freq)
		return utrace_error_set(err, -EINVAL, "--off-cpu goes with -F HZ");
	if ((o->sample.callchain || o->sample.stack_size) && !o->sample.freq)
		return utrace_error_set(err, -EINVAL,
					"--call-graph (and -g before another option or --) goes "
					"with -F HZ: it samples call chains; -g GLOB graphs "
					"only below GLOB");
	if (o->sample_event && !o->sample.freq)
		return utrace_error_set(err, -EINVAL, "-e %s goes with -F HZ", o->sample_event);
	/* as perf: the kernel's addresses too where this user may see them,
	 * else user space only (perf's :u) */
	if (o->sample.freq && !o->sample_event)
		o->sample.user_only = !utrace_ksyms_allowed();
	if (o->libcall < 0) {
		char exe[64];

		snprintf(exe, sizeof(exe), "/proc/%d/exe", o->npids ? o->pids[0] : 0);
		o->libcall = session_libcall_default(o->npids ? exe : o->argv[0]);
	}
	o->rec.libcall = o->libcall && o->rec.tracer != UTRACE_TRACER_NOP;
	return 0;
}
