/* SPDX-License-Identifier: MIT */
/*
 * test_ktrigger.c - which triggers the kernel has, read from an event's
 * trigger file (lib/kernel/kernel_trigger.c): a kernel built without one
 * (this kernel lacks hist and snapshot; one without stacktrace is
 * simulated here by its text) makes -R on a kernel event an error; and
 * the kallsyms lines a recording saves to name its kernel stacks.
 */
#include <errno.h>

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

/* The kallsyms lines a recording saves for the frames of its stacks. */
static void test_kallsyms(void)
{
	static const char text[] = "ffffffff81000000 T _stext\n"
				   "ffffffff81002000 d some_data\n"
				   "ffffffff81001800 T schedule\n"
				   "ffffffff81001000 t __schedule\n"
				   "ffffffff81003000 T io_schedule\n"
				   "ffffffffc0001000 t mod_wait\t[mymod]\n"
				   "ffffffffc0002000 t mod_end\t[mymod]\n";
	const uint64_t addrs[] = {0xffffffff81001234ull, 0xffffffff81001810ull,
				  0xffffffffc0001010ull};
	const char *path = check_path("kallsyms");
	struct utrace_error err;
	size_t len = 0;
	char *out;
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
	out = utrace_ktrace_kallsyms(path, addrs, 3, &len, &err);
	check(out && len == strlen(out) &&
		  !strcmp(out, "ffffffff81001000 t __schedule\n"
			       "ffffffff81001800 T schedule\n"
			       "ffffffff81003000 T io_schedule\n"
			       "ffffffffc0001000 t mod_wait\t[mymod]\n"
			       "ffffffffc0002000 t mod_end\t[mymod]\n"),
	      "kallsyms: the code symbols holding the frames and the next ones, by address");
	free(out);
	out = utrace_ktrace_kallsyms(check_path("none"), addrs, 3, &len, &err);
	check(!out && err.code == -ENOENT, "kallsyms: a missing file is an error (%d)", err.code);
}

int main(void)
{
	if (check_tmpdir_init("ktrigger") < 0) {
		perror("mkdtemp");
		return 2;
	}
	test_kallsyms();
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
	check_tmpdir_cleanup();
	return check_done();
}
