/* SPDX-License-Identifier: MIT */
/*
 * bt_info.c - `utrace bt --info`: bpftrace's report of what the machine
 * supports (its BPFfeature::report), with utrace bt's mechanism in the
 * place of each of bpftrace's.  utrace bt loads no BPF: a map type or
 * helper that utrace bt has in its own way says yes and what serves it;
 * what needs the kernel is asked of the kernel (tracefs, uprobe_events,
 * perf_event_open of a software event), as bpftrace asks it by loading
 * a program.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/bt/bt.h"
#include "lib/kernel/kernel_tracefs.h"

static const char *yes(bool f)
{
	return f ? "yes" : "no";
}

/* Whether tracefs has file (events, uprobe_events) under its root. */
static bool tracefs_has(const char *root, const char *file)
{
	char path[4096];

	return root && access(utrace_tracefs_path(path, root, "%s", file), F_OK) == 0;
}

/* Whether this process may open a software perf event (profile:). */
static bool perf_software(void)
{
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .config = PERF_COUNT_SW_CPU_CLOCK, .disabled = 1};
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

void utrace_bt_info(FILE *out)
{
	const char *root = utrace_tracefs_root();
	bool events = tracefs_has(root, "events"), uprobes = tracefs_has(root, "uprobe_events");

	fprintf(out, "Kernel helpers\n"
		     "  probe_read_user: yes (the traced program's memory, read in it)\n"
		     "  probe_read_user_str: yes (str(), in the traced program)\n"
		     "  probe_read_kernel: no (a user program's probe cannot read the kernel)\n"
		     "  send_signal: no\n"
		     "  override_return: no\n\n");
	fprintf(out, "Kernel features\n"
		     "  btf: no (DWARF of the traced binary instead)\n"
		     "  kernel uprobes: %s (tracefs uprobe_events: processes utrace did not "
		     "start)\n\n",
		yes(uprobes));
	fprintf(out, "Map types\n"
		     "  hash: yes (the tool's maps)\n"
		     "  percpu hash: yes (per-thread maps in the traced program, merged when "
		     "printed)\n"
		     "  array: yes (count() without keys)\n"
		     "  stack_trace: yes (ustack, unwound in the traced program)\n"
		     "  perf_event_array: yes (the ring buffer of printf's records)\n\n");
	fprintf(out, "Probe types\n"
		     "  kprobe: no (no kprobes: utrace traces user programs)\n"
		     "  uprobe: yes (in-process probes in the processes utrace runs or attaches)\n"
		     "  tracepoint: %s (tracefs events)\n"
		     "  perf_event: %s (perf_event_open of a software event)\n"
		     "  kfunc: no\n",
		yes(events), yes(perf_software()));
}
