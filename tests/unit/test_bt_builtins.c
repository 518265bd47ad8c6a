/* SPDX-License-Identifier: MIT */
/*
 * test_bt_builtins.c - the builtins and functions of bpftrace that utrace
 * bt gained after its first suite runs (strcontains, ...), as whole
 * programs through utrace_bt_run: their output byte for byte against
 * bpftrace 0.17's for the same program (copied from `bpftrace -e PROG`).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt.h"
#include "tests/unit/check.h"

static int run(const char *src, char **out, struct utrace_error *err)
{
	struct utrace_bt_opts o = {.text = src, .name = "stdin", .log = stderr};
	size_t len = 0;
	int ret;

	o.out = open_memstream(out, &len);
	if (!o.out)
		return -1;
	ret = utrace_bt_run(&o, err);
	fclose(o.out);
	return ret;
}

static const struct {
	const char *src, *want;
} golden[] = {
    /* strcontains(): "" is in every string; a scratch string too */
    {"BEGIN { printf(\"%d %d %d %d\\n\", strcontains(\"abc\", \"a\"), strcontains(\"abc\", "
     "\"bc\"), strcontains(\"abc\", \"x\"), strcontains(\"\", \"\")); $s = \"xyabab\"; "
     "printf(\"%d %d\\n\", strcontains($s, \"bab\"), strcontains($s, \"abb\")); exit(); }",
     "Attaching 1 probe...\n1 1 0 1\n1 0\n\n\n"},
};

int main(void)
{
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		struct utrace_error err = {0};
		char *out = NULL;
		int ret = run(golden[i].src, &out, &err);

		check(ret == 0 && out && !strcmp(out, golden[i].want), "%s\nwant:\n%sgot:\n%s%s",
		      golden[i].src, golden[i].want, out ? out : "", err.msg);
		free(out);
	}
	return check_done();
}
