/* SPDX-License-Identifier: MIT */
/*
 * lib/bt - bpftrace's language on utrace's probes (`utrace bt`): the
 * program's parser and checker, its compiler into the runtime's bytecode,
 * the run (probes in the traced processes, kernel events in the recorder,
 * per-thread maps merged when printed) and bpftrace's output formats
 * (bt_print.h).  May use: every layer below.
 */
#ifndef UTRACE_LIB_BT_H
#define UTRACE_LIB_BT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/base/error.h"
#include "lib/bt/bt_print.h"

/* `utrace bt`'s command line (cmds/bt.c), as bpftrace's. */
struct utrace_bt_opts {
	const char *text; /* the program: -e's text or the script's */
	const char *name; /* "stdin" for -e, else the script's path */
	char **argv;	  /* -c CMD / -- CMD: the command, NULL-terminated; NULL if none */
	int pid;	  /* -p PID, 0 if none */
	char *const *params; /* the words after the program: $1, $2 ... */
	unsigned nparams;
	enum utrace_bt_format fmt; /* -f */
	bool verbose;		   /* -v: say which mechanism serves each probe */
	bool dump;		   /* -d: print the compiled programs, run nothing */
	bool unsafe;		   /* --unsafe */
	unsigned helper_check;	   /* -k 1, -kk 2: warn when a map helper fails */
	bool quiet;		   /* -q: no "Attaching N probes..." */
	bool usdt_file_activation; /* usdt probes attach to the processes running their file */
	char *const *includes;	   /* --include FILE: headers included first */
	unsigned nincludes;
	char *const *include_dirs; /* -I DIR: folders searched first for headers */
	unsigned ninclude_dirs;
	FILE *out;		   /* -o FILE, else stdout */
	FILE *term;		   /* stdout: bpftrace's "\n\n" before the maps at exit goes
				    * there, -o or not (NULL: out) */
	FILE *log;		   /* stderr: -v's lines, warnings */
};

/*
 * Parses, checks, resolves and compiles the program, then runs it: BEGIN,
 * the probes until the command ends (or exit(), or Ctrl-C), END, the maps
 * printed.  Returns the exit status (0; 1 for a run that failed; the
 * command's own status is not bt's, as in bpftrace) with err filled when
 * not 0: err->msg is then what to print (a program's error is bpftrace's
 * three lines).
 */
int utrace_bt_run(const struct utrace_bt_opts *o, struct utrace_error *err);
/* -l [PATTERN]: the probes a program could use, bpftrace's lines
 * ("uprobe:/path:func"); PATTERN a glob over them; verbose (-lv): each
 * function's parameters after it, through DWARF.  0 or <0 with err. */
int utrace_bt_list(const char *pattern, bool verbose, FILE *out, struct utrace_error *err);
/* The same, with -p PID: usdt:'s BIN "" or a glob names the files the
 * process has mapped; no PATTERN: every probe of the process. */
int utrace_bt_list_pid(const char *pattern, int pid, bool verbose, FILE *out,
		       struct utrace_error *err);

/* --info: bpftrace's report of the kernel's BPF support (map types,
 * probe types, helpers), each line what serves it in utrace bt or what
 * the kernel offers (tracefs events, uprobe_events, perf events). */
void utrace_bt_info(FILE *out);

#endif
