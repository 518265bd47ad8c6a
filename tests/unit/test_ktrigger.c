/* SPDX-License-Identifier: MIT */
/*
 * test_ktrigger.c - which triggers the kernel has, read from an event's
 * trigger file (lib/kernel/kernel_trigger.c): a kernel built without one
 * (this kernel lacks hist and snapshot; one without stacktrace is
 * simulated here by its text) makes -R on a kernel event an error.
 */
#include "lib/kernel/kernel_trace.h"
#include "tests/unit/check.h"

static const char here[] = "# Available triggers:\n"
			   "# traceon traceoff stacktrace enable_event disable_event\n";
static const char full[] = "# Available triggers:\n"
			   "# traceon traceoff snapshot stacktrace enable_event disable_event "
			   "enable_hist disable_hist hist\n";
static const char without[] = "# Available triggers:\n"
			      "# traceon traceoff enable_event disable_event\n";
static const char armed[] = "stacktrace:count=2 if prev_pid == 0\n";

int main(void)
{
	check(utrace_ktrace_trigger_available(here, "stacktrace"),
	      "this kernel's list: stacktrace is there");
	check(!utrace_ktrace_trigger_available(here, "snapshot") &&
	          !utrace_ktrace_trigger_available(here, "hist"),
	      "this kernel's list: no snapshot, no hist");
	check(utrace_ktrace_trigger_available(full, "hist") &&
	          utrace_ktrace_trigger_available(full, "snapshot") &&
	          !utrace_ktrace_trigger_available(full, "enable"),
	      "a full list: hist and snapshot; a word's prefix is not a trigger");
	check(!utrace_ktrace_trigger_available(without, "stacktrace"),
	      "a kernel without the stacktrace trigger: not available");
	check(!utrace_ktrace_trigger_available(armed, "stacktrace") &&
	          !utrace_ktrace_trigger_available(NULL, "stacktrace") &&
	          !utrace_ktrace_trigger_available("# Available triggers:", "stacktrace"),
	      "a file with triggers set (no list), none, or cut short: not available");
	return check_done();
}
