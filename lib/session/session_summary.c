/* SPDX-License-Identifier: MIT */
/*
 * session_summary.c - what `utrace record` says when it ends
 * (lib/session/session_internal.h): what was saved and lost, per thread,
 * sample and kernel page, and what was asked for but matched nothing (a
 * program without call sites, a function filter or an -e without a
 * match), as trace-cmd and uftrace say it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/elf/libdeps.h"
#include "lib/session/session_internal.h"
#include "lib/elf/elf.h"
#include "lib/probes/func_patch.h"

enum utrace_preload utrace_program_preload(const char *prog)
{
	char *exe = utrace_program_path(prog);
	enum utrace_preload why = UTRACE_PRELOAD_OK;
	struct utrace_elf_section sec;
	struct utrace_elf *elf;
	struct stat st;

	if (!exe)
		return UTRACE_PRELOAD_OK; /* the command's start says why */
	if (utrace_elf_open(exe, &elf) == 0) {
		if (utrace_elf_find_section(elf, ".interp", &sec) < 0)
			why = UTRACE_PRELOAD_STATIC;
		utrace_elf_close(elf);
	}
	if (why == UTRACE_PRELOAD_STATIC && utrace_fpatch_runtime_of(exe) == UTRACE_FPATCH_RT_GO)
		why = UTRACE_PRELOAD_STATIC_GO;
	if (why == UTRACE_PRELOAD_OK && stat(exe, &st) == 0) {
		if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
			why = UTRACE_PRELOAD_SETUID;
		else if ((st.st_mode & S_ISGID) && st.st_gid != getegid())
			why = UTRACE_PRELOAD_SETGID;
	}
	free(exe);
	return why;
}

/*
 * No process of the recording ran the runtime, and the program is
 * statically linked: nothing could be preloaded into it (Go's default
 * build is one).  Say what does work: sampling, the kernel's uprobes
 * (entry probes only for Go: a uretprobe replaces return addresses, which
 * Go's runtime walks), and for Go a cgo build (only its C code is traced
 * in-process: lib/probes/func_patch_deny.c).  Or the program is set-user-ID
 * or set-group-ID to someone else: the dynamic loader runs it in
 * secure-execution mode (AT_SECURE), where it ignores LD_PRELOAD's paths,
 * so the program ran untraced.  False if it is neither.
 */
static bool session_say_no_preload(FILE *log, const char *prog)
{
	enum utrace_preload why = utrace_program_preload(prog);
	bool go = why == UTRACE_PRELOAD_STATIC_GO;
	char *exe;

	if (why == UTRACE_PRELOAD_OK || !(exe = utrace_program_path(prog)))
		return false;
	if (why == UTRACE_PRELOAD_SETUID || why == UTRACE_PRELOAD_SETGID)
		fprintf(log,
			"utrace record: %s is set-%s-ID: the dynamic loader runs it in secure "
			"mode, which does not preload utrace's runtime, so it ran untraced; what "
			"works: a copy without the set-ID bit, or the kernel's uprobes (as root: "
			"--probe 'p:EV %s:SYMBOL')\n",
			prog, why == UTRACE_PRELOAD_SETUID ? "user" : "group", exe);
	else
		fprintf(log,
			"utrace record: %s is statically linked%s: utrace's runtime cannot be "
			"preloaded into it, so none of its functions was traced; what works: "
			"sampling (utrace record -F 999 -- %s), the kernel's uprobes (as root: "
			"--probe 'p:EV %s:%s')%s\n",
			prog, go ? " (a Go program)" : "", prog, exe, go ? "main.main" : "SYMBOL",
			go ? "; built with cgo (CGO_ENABLED=1, -ldflags=-linkmode=external) it is "
			     "dynamically linked, and its C code is traced, not its Go code"
			   : ", or a dynamically linked build with the flags of `utrace cflags`");
	free(exe);
	return true;
}

/* A program with no call sites, and function patterns that matched no
 * function: the recording is not what was asked for; say so, as
 * trace-cmd and uftrace do. */
static void session_warn_unmatched(struct utrace_session *s, const struct utrace_recorder_stats *st)
{
	static const char *const opt[] = {"-l", "-n", "-g", "--graph-notrace"};
	const struct utrace_session_opts *o = s->o;
	FILE *log = o->log;
	enum utrace_filter_list which;
	const char *expr;
	bool neg;

	if (o->rec.tracer == UTRACE_TRACER_NOP)
		return;
	if (!st->sites) {
		if (!st->images && o->argv &&
		    session_say_no_preload(log, o->argv[0]))
			return;
		fprintf(log,
			"utrace record: %s has no call sites: %s; build it with "
			"the flags of `utrace cflags` (cc $(utrace cflags) ...)\n",
			o->argv[0],
			o->rec.libcall ? "only its library calls were traced"
				       : "no function was traced");
		return;
	}
	for (size_t i = 0;
	     o->filter && (expr = utrace_func_filter_expr(o->filter, i, &which, &neg)); i++) {
		if (neg || utrace_recorder_filter_hits(s->r, i))
			continue;
		if (o->unmatched)
			o->unmatched[i] = true;
		else
			fprintf(log,
				"utrace record: %s '%s' matched no function of the traced programs "
				"(utrace list -f shows them)\n",
				opt[which], expr);
	}
}

/* What was saved, what was lost, what matched nothing. */
void session_summary(struct utrace_session *s, const struct utrace_recorder_stats *st)
{
	const struct utrace_recorder_opts *ro = &s->o->rec;
	FILE *log = s->o->log;
	int bpid, btid;
	char comm[16];
	uint64_t recs, lost;

	if (!s->o->quiet)
		fprintf(log,
			"utrace record: %llu records (%llu lost) from %u threads of %u processes "
			"saved to %s (%llu bytes)\n",
			(unsigned long long)st->records, (unsigned long long)st->lost, st->buffers,
			st->images, ro->output, (unsigned long long)st->file_bytes);
	if (!s->o->quiet && st->fpatch_reused)
		fprintf(log,
			"utrace record: %u object%s without call sites planned once each; %u more "
			"process%s used a plan made already\n",
			st->fpatch_plans, st->fpatch_plans == 1 ? "" : "s", st->fpatch_reused,
			st->fpatch_reused == 1 ? "" : "es");
	for (uint32_t i = 0;
	     utrace_recorder_buffer_stats(s->r, i, &bpid, &btid, comm, &recs, &lost); i++)
		if (lost)
			fprintf(log, "utrace record:   %s-%d (pid %d): %llu records lost\n", comm,
				btid, bpid, (unsigned long long)lost);
	session_warn_unmatched(s, st);
	for (unsigned i = 0; i < s->nuspecs; i++)
		if (!s->uspecs[i].matched)
			fprintf(log, "utrace record: -e %s: no such event in the traced programs\n",
				s->uspecs[i].pattern);
	if (s->k.sampler) {
		uint64_t samples, lost, offcpu;

		utrace_sampler_stats(s->k.sampler, &samples, &lost, &offcpu);
		fprintf(log, "utrace record: %llu samples at %u Hz (%llu lost)\n",
			(unsigned long long)samples, s->o->sample.freq, (unsigned long long)lost);
		if (s->o->sample.off_cpu)
			fprintf(log, "utrace record: %llu off-CPU samples\n",
				(unsigned long long)offcpu);
	}
	if (s->k.kt) {
		uint64_t pages, missed;
		const char *note;

		utrace_ktrace_stats(s->k.kt, &pages, &missed);
		if (!s->o->quiet || missed) /* a warning when events were lost */
			fprintf(log, "utrace record: %llu kernel pages (%llu with events lost)\n",
				(unsigned long long)pages, (unsigned long long)missed);
		note = utrace_ktrace_follow_note(s->k.kt);
		if (note) /* what the kernel could not follow */
			fprintf(log, "utrace record: %s\n", note);
	}
	if (st->disconnected)
		fprintf(log,
			"utrace record: %u process%s closed utrace's connection while running: "
			"what %s threads wrote is saved; threads, libraries and processes %s "
			"started afterwards were not traced\n",
			st->disconnected, st->disconnected == 1 ? "" : "es",
			st->disconnected == 1 ? "its" : "their",
			st->disconnected == 1 ? "it" : "they");
	if (st->waits)
		fprintf(log,
			"utrace record: buffers were full %llu times: the threads waited %.3f s "
			"for the recorder (--drop would have lost records instead)\n",
			(unsigned long long)st->waits, st->wait_ns / 1e9);
	if (st->overrun && ro->overwrite)
		fprintf(log,
			"utrace record: overwrite mode kept the newest records; %llu older "
			"records were overwritten\n",
			(unsigned long long)st->overrun);
}

void session_say_killed(const struct utrace_session *s)
{
	FILE *log = s->o->log;
	int sig;

	if (!WIFSIGNALED(s->status) || (s->step_killed && WTERMSIG(s->status) == SIGTERM) ||
	    s->o->own_command)
		return;
	sig = WTERMSIG(s->status);
	fprintf(log, "utrace record: %s was killed by signal %d (%s)%s\n", s->o->argv[0], sig,
		strsignal(sig), WCOREDUMP(s->status) ? ", core dumped" : "");
}
