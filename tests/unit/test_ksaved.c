/* SPDX-License-Identifier: MIT */
/*
 * test_ksaved.c - the kernel's saved_cmdlines as lib/kernel/kernel_saved.c
 * reads them for the recording's tasks and utrace bt's tracepoint hits:
 * the "PID COMM" lines made a table that names the threads gone by pid,
 * whatever order the kernel lists them in; names with blanks, the 15
 * characters a comm has, lines that are not entries, a pid listed twice,
 * a table read again, saved_tgids' numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kernel/kernel_saved.h"
#include "tests/unit/check.h"

static int name_is(const struct utrace_ksaved *cl, int pid, const char *want)
{
	const char *got = utrace_ksaved_find(cl, pid);

	return want ? got && !strcmp(got, want) : !got;
}

int main(void)
{
	struct utrace_ksaved cl = {0};
	char *big;
	size_t len = 0;

	check(!utrace_ksaved_find(&cl, 1), "an empty table names nothing");
	check(utrace_ksaved_parse(
		  &cl, "4242 syscall\n17 kworker/0:1\n99 Web Content\n"
		       "x bad\n\n 5 blank\n123456789 a-very-long-thread-name\n17 again\n"
		       "99999999999 too-big\n-3 negative\n7 systemd") == 0,
	      "saved_cmdlines parsed");
	check(cl.n == 5, "its 5 entries, the lines that are not one left out (%zu)", cl.n);
	check(name_is(&cl, 4242, "syscall") && name_is(&cl, 17, "kworker/0:1") &&
		  name_is(&cl, 7, "systemd"),
	      "each pid's name, whatever the order, the last line without its newline");
	check(name_is(&cl, 99, "Web Content"), "a name with a blank");
	check(name_is(&cl, 17, "kworker/0:1"), "a pid listed twice: its first line");
	check(name_is(&cl, 123456789, "a-very-long-thr"), "a name cut to a comm's 15 bytes");
	check(name_is(&cl, 4243, NULL) && name_is(&cl, 0, NULL) && name_is(&cl, 5, NULL),
	      "a pid not listed (nor one after a blank): none");

	/* as large as the kernel's 6552 entries when saved_cmdlines_size was raised */
	big = malloc(6552 * 32);
	for (int pid = 6552; big && pid >= 1; pid--)
		len += (size_t)sprintf(big + len, "%d t%d\n", pid * 3, pid);
	check(big && utrace_ksaved_parse(&cl, big) == 0, "a table read again");
	check(cl.n == 6552, "holds the new text only (%zu entries)", cl.n);
	check(name_is(&cl, 3, "t1") && name_is(&cl, 6552 * 3, "t6552") &&
		  name_is(&cl, 3000, "t1000") && name_is(&cl, 4243, NULL),
	      "the first, the last and one between of 6552, by pid");
	free(big);
	check(utrace_ksaved_parse(&cl, "12 12\n13 7\n") == 0 && name_is(&cl, 13, "7") &&
		  name_is(&cl, 12, "12") && cl.n == 2,
	      "saved_tgids' lines: a tgid by pid");
	utrace_ksaved_free(&cl);
	check(cl.n == 0 && !cl.v && !utrace_ksaved_find(&cl, 3), "freed: empty");
	return check_done();
}
