/* SPDX-License-Identifier: MIT */
/*
 * bt_hitinfo.c - what the tool adds to a hit that the hit's record does
 * not hold: the NUMA node of the CPU it ran on (numaid) and the name of
 * a uid (username).  Both are read in the tool, where the hits are
 * replayed and BEGIN, END and interval run: numaid from the CPU's node
 * link in sysfs (/sys/devices/system/cpu/cpuN/nodeM, the kernel's
 * cpu_to_node(), which bpf_get_numa_node_id() gives bpftrace), username
 * from /etc/passwd as bpftrace's resolve_uid reads it (no NSS: "" for a
 * uid it does not list), and strerror()'s text of an errno.  A probe the tool runs itself (BEGIN, END,
 * interval) has the tool's builtins, its CPU and node from getcpu().
 */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/bt/bt_run_internal.h"

#define NODE_CPUS 1024 /* CPUs whose node is kept once read */

int64_t bt_cpu_node(unsigned cpu)
{
	static int nodes[NODE_CPUS]; /* node + 1; 0: not read yet */
	char path[64];
	struct dirent *e;
	DIR *d;
	int node = 0;

	if (cpu < NODE_CPUS && nodes[cpu])
		return nodes[cpu] - 1;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u", cpu);
	d = opendir(path);
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9') {
			node = atoi(e->d_name + 4);
			break;
		}
	if (d)
		closedir(d);
	if (cpu < NODE_CPUS)
		nodes[cpu] = node + 1;
	return node;
}

void bt_hit_tool(const struct bt_run *r, struct utrace_bt_hit *hit)
{
	unsigned cpu, node;

	hit->builtin[UTRACE_BB_PID] = getpid();
	hit->builtin[UTRACE_BB_TID] = getpid();
	hit->builtin[UTRACE_BB_UID] = getuid();
	hit->builtin[UTRACE_BB_GID] = getgid();
	hit->builtin[UTRACE_BB_CPID] = r->cpid;
	if (getcpu(&cpu, &node) == 0) {
		hit->builtin[UTRACE_BB_CPU] = cpu;
		hit->builtin[UTRACE_BB_NUMAID] = node;
	}
}

static void username(int64_t uid, char *out)
{
	char line[512], want[24];
	FILE *f = fopen("/etc/passwd", "re");

	out[0] = 0;
	if (!f)
		return;
	snprintf(want, sizeof(want), "%lld", (long long)uid);
	while (fgets(line, sizeof(line), f)) {
		char *name = line, *c = strchr(line, ':'), *u = c ? strchr(c + 1, ':') : NULL;
		size_t n;

		if (!u)
			continue;
		n = strcspn(u + 1, ":\n");
		if (n == strlen(want) && !strncmp(u + 1, want, n)) {
			*c = 0;
			snprintf(out, UTRACE_BT_STRLEN, "%.63s", name);
			break;
		}
	}
	fclose(f);
}

void bt_name_cb(void *arg, unsigned what, int64_t v, char *out)
{
	(void)arg;
	if (what == UTRACE_BN_USER)
		username(v, out);
	else /* bpftrace prints strerror()'s text in its own process too */
		snprintf(out, UTRACE_BT_STRLEN, "%s", strerror((int)v));
}
