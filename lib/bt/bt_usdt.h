/* SPDX-License-Identifier: MIT */
/*
 * bt_usdt.h - usdt probes of utrace bt (bt_usdt.c; the attach point is
 * parsed in bt_attach.c): its sites (one per location of each matching note), their kernel
 * uprobes and their arguments in a record, and -l's usdt lines.
 */
#ifndef UTRACE_LIB_BT_USDT_H
#define UTRACE_LIB_BT_USDT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/bt/bt_ast.h"

struct bt_run;
struct bt_site;
struct utrace_event;
struct utrace_event_format;
struct utrace_bt_hit;

/* Each location of each note of the files bin names (see bt_usdt.c)
 * that probe ("PROVIDER:NAME" globs) matches; pid: -p's, argv: the
 * command's.  0 or -errno; *out malloc'ed (bt_usdt_sites_free). */
struct bt_usdt_site {
	char *probe; /* "BIN:PROVIDER:NAME", BIN as shown */
	char *shown; /* BIN as the probe names it */
	char *file;  /* absolute */
	unsigned note;
};
int bt_usdt_find(const char *bin, const char *probe, int pid, char *const *argv,
		 struct bt_usdt_site **out, size_t *n);
void bt_usdt_sites_free(struct bt_usdt_site *v, size_t n);
/* The kernel uprobe of site k ("p:utrace/btpK PATH:0xOFF(0xSEM) arg1=...
 * sN=+0(...):string comm=$comm"), or, for an argument a kernel uprobe
 * cannot fetch, with -c or -p, its in-process probe ("p:bt/pK
 * MODULE:FUNC+OFF arg1=-8(%bp,%cx,4):s32 ...", *inproc set); malloc'ed;
 * NULL with r->err. */
char *bt_usdt_def(struct bt_run *r, const struct bt_site *s, unsigned k, bool *inproc);
/* The hit's arg0..arg5 from the record's arg1..arg6 (sized, signed as
 * the note says). */
void bt_usdt_args(const struct utrace_event_format *f, const struct utrace_event *ev,
		  struct utrace_bt_hit *hit);
/* fn for each file bin names (as a usdt probe's BIN: a glob, with pid
 * "" or a glob over the files the process maps), as shown and absolute;
 * 0, fn's first error, or -errno. */
int bt_usdt_each_file(const char *bin, int pid,
		      int (*fn)(void *arg, const char *shown, const char *path), void *arg);
/* -l: the usdt probes of the files pattern's BIN names (pid: also those
 * its process has mapped) matching PROVIDER:NAME, bpftrace's lines. */
int bt_usdt_list(const char *bin, const char *probe, int pid, FILE *out);

#endif
