/* SPDX-License-Identifier: MIT */
/*
 * kshark.c FILE - loads a trace.dat the way KernelShark does (libkshark,
 * KernelShark's own data library, no window) and prints one line per
 * entry: time, pid, event name and the info column KernelShark shows.
 * tests/diff/kshark.sh compares that with trace-cmd report and with
 * utrace's own report.  A row KernelShark could not name prints "?".
 */
#include <stdio.h>
#include <stdlib.h>

#include "libkshark.h"

static const char *or_q(const char *s)
{
	return s && *s ? s : "?";
}

int main(int argc, char **argv)
{
	struct kshark_context *ctx = NULL;
	struct kshark_entry **rows = NULL;
	ssize_t n;
	int sd;

	if (argc != 2 || !kshark_instance(&ctx)) {
		fprintf(stderr, "usage: kshark FILE\n");
		return 2;
	}
	if ((sd = kshark_open(ctx, argv[1])) < 0) {
		fprintf(stderr, "kshark: %s: cannot open\n", argv[1]);
		return 1;
	}
	n = kshark_load_entries(ctx, sd, &rows);
	if (n < 0) {
		fprintf(stderr, "kshark: %s: cannot load the entries\n", argv[1]);
		return 1;
	}
	for (ssize_t i = 0; i < n; i++) {
		char *name = kshark_get_event_name(rows[i]);
		char *info = kshark_get_info(rows[i]);

		printf("%lld %d %d %s %s\n", (long long)rows[i]->ts, rows[i]->pid,
		       rows[i]->event_id, or_q(name), or_q(info));
		free(name);
		free(info);
		free(rows[i]);
	}
	free(rows);
	kshark_close(ctx, sd);
	kshark_free(ctx);
	return 0;
}
