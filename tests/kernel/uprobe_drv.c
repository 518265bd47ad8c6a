/* SPDX-License-Identifier: MIT */
/*
 * uprobe_drv.c - drives lib/probes/uprobe.c and lib/probes/usdt.c against the real
 * kernel for tests/kernel/uprobes.sh; linked with libutrace-tool.a.
 *
 *   uprobe_drv parse DEF             the kernel line, or "error: MSG" and
 *                                    "column: N" (exit 1)
 *   uprobe_drv register DEF          registers and unregisters at once;
 *                                    prints "registered" or the error
 *   uprobe_drv run -o TRACE PROBE... -- CMD [ARG...]
 *                                    registers every PROBE, enables it in
 *                                    a new instance utrace-test-PID, runs
 *                                    CMD, copies the instance's trace to
 *                                    TRACE, then removes probes and
 *                                    instance.  PROBE is a definition or
 *                                    usdt:PATH:PROVIDER:NAME (every site)
 *   uprobe_drv stale                 utrace_uprobe_remove_stale()
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/kernel/kernel_tracefs.h"
#include "lib/probes/uprobe.h"
#include "lib/probes/usdt.h"

#define MAX_PROBES 64

static struct utrace_uprobe *probes[MAX_PROBES];
static unsigned nprobes;

static int die(const char *what, const struct utrace_error *err)
{
	fprintf(stderr, "uprobe_drv: %s: %s\n", what, err ? err->msg : strerror(errno));
	return 1;
}

/* usdt:PATH:PROVIDER:NAME -> every site of it, as one event. */
static int add_usdt(const char *spec, struct utrace_error *err)
{
	char *copy = strdup(spec + 5), *name = copy ? strrchr(copy, ':') : NULL, *prov = NULL;
	struct utrace_usdt_list *l = NULL;
	int ret;

	if (name && name != copy) {
		*name++ = 0;
		prov = strrchr(copy, ':');
	}
	if (!prov) {
		free(copy);
		return utrace_error_set(err, -EINVAL, "usdt:PATH:PROVIDER:NAME expected");
	}
	*prov++ = 0;
	ret = utrace_usdt_load(copy, &l, err);
	for (size_t i = 0; ret == 0 && i < utrace_usdt_count(l); i++) {
		const struct utrace_usdt_probe *s = utrace_usdt_get(l, i);

		if (strcmp(s->provider, prov) || strcmp(s->name, name) || nprobes == MAX_PROBES)
			continue;
		ret = utrace_usdt_to_uprobe(l, i, NULL, NULL, &probes[nprobes], err);
		if (ret == 0)
			nprobes++;
	}
	if (ret == 0 && !nprobes)
		ret = utrace_error_set(err, -ENOENT, "no USDT probe %s:%s", prov, name);
	utrace_usdt_free(l); /* the probes are copies */
	free(copy);
	return ret;
}

static int run(int argc, char **argv)
{
	const char *root = utrace_tracefs_root(), *out = NULL;
	char inst[PATH_MAX], path[PATH_MAX], line[1024];
	struct utrace_error err = {0};
	unsigned registered = 0;
	int i, status = 1, ret = 0;
	char *trace;
	pid_t pid;
	FILE *f;

	if (!root)
		return die("tracefs", NULL);
	for (i = 0; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strncmp(argv[i], "usdt:", 5)) {
			if (add_usdt(argv[i], &err) < 0)
				return die(argv[i], &err);
		} else if (nprobes < MAX_PROBES) {
			if (utrace_uprobe_parse(argv[i], &probes[nprobes], &err) < 0)
				return die(argv[i], &err);
			nprobes++;
		}
	}
	if (i == argc || !out)
		return die("usage: run -o TRACE PROBE... -- CMD", NULL);
	argv += i + 1;
	utrace_tracefs_path(inst, root, "instances/utrace-test-%d", (int)getpid());
	if (mkdir(inst, 0755) < 0)
		return die(inst, NULL);
	for (unsigned p = 0; p < nprobes && ret == 0; p++) {
		utrace_uprobe_kernel_line(probes[p], line, sizeof(line));
		printf("probe: %s\n", line);
		ret = utrace_uprobe_register(NULL, probes[p], &err);
		if (ret == 0)
			registered = p + 1;
	}
	for (unsigned p = 0; p < registered && ret == 0; p++)
		ret = utrace_tracefs_write(utrace_tracefs_path(path, inst, "events/%s/%s/enable",
							       utrace_uprobe_group(probes[p]),
							       utrace_uprobe_event(probes[p])),
					   "1", O_TRUNC);
	if (ret == 0) {
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			execvp(argv[0], argv);
			_exit(127);
		}
		while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		utrace_tracefs_write(utrace_tracefs_path(path, inst, "tracing_on"), "0", O_TRUNC);
		trace = utrace_tracefs_read(utrace_tracefs_path(path, inst, "trace"));
		f = fopen(out, "w");
		if (f && trace)
			fputs(trace, f);
		if (f)
			fclose(f);
		free(trace);
	} else if (err.msg[0]) {
		fprintf(stderr, "uprobe_drv: %s\n", err.msg);
	} else {
		fprintf(stderr, "uprobe_drv: enable: %s\n", strerror(-ret));
	}
	/* The events must be off in every instance before they can go. */
	utrace_tracefs_remove_instance(inst);
	for (unsigned p = 0; p < registered; p++) {
		if (p + 1 < registered &&
		    !strcmp(utrace_uprobe_event(probes[p]), utrace_uprobe_event(probes[p + 1])) &&
		    !strcmp(utrace_uprobe_group(probes[p]), utrace_uprobe_group(probes[p + 1])))
			continue; /* one event, several locations: removed once */
		if (utrace_uprobe_unregister(NULL, probes[p], &err) < 0) {
			fprintf(stderr, "uprobe_drv: %s\n", err.msg);
			ret = -1;
		}
	}
	for (unsigned p = 0; p < nprobes; p++)
		utrace_uprobe_free(probes[p]);
	if (ret < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	struct utrace_error err = {0};
	struct utrace_uprobe *p;
	char line[1024];
	int n;

	if (argc >= 3 && !strcmp(argv[1], "parse")) {
		if (utrace_uprobe_parse(argv[2], &p, &err) < 0) {
			printf("error: %s\ncolumn: %d\n", err.msg, err.column);
			return 1;
		}
		utrace_uprobe_kernel_line(p, line, sizeof(line));
		printf("%s\n", line);
		utrace_uprobe_free(p);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "register")) {
		if (utrace_uprobe_parse(argv[2], &p, &err) < 0)
			return die("parse", &err);
		if (utrace_uprobe_register(NULL, p, &err) < 0) {
			printf("error: %s\ncolumn: %d\n", err.msg, err.column);
			utrace_uprobe_free(p);
			return 1;
		}
		printf("registered\n");
		n = utrace_uprobe_unregister(NULL, p, &err);
		utrace_uprobe_free(p);
		return n < 0 ? die("unregister", &err) : 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return run(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "stale")) {
		n = utrace_uprobe_remove_stale(NULL, &err);
		if (n < 0)
			return die("stale", &err);
		printf("removed %d\n", n);
		return 0;
	}
	fprintf(stderr, "usage: uprobe_drv parse|register DEF | run -o TRACE PROBE... -- CMD | "
			"stale\n");
	return 2;
}
