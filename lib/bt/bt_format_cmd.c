/* SPDX-License-Identifier: MIT */
/*
 * bt_format_cmd.c - cat() and system() records, done where bpftrace does
 * them: in the tool, when the record is printed, not at the hit (the
 * traced program must not open files or start commands on bpftrace's
 * behalf).  The path or command is printf's text of the format with the
 * record's values (bt_format.c); cat() prints at most BPFTRACE_CAT_BYTES_MAX bytes of
 * the file (10240 by default), system() the command's standard output
 * (its standard error stays the tool's); both as bpftrace's "cat" and
 * "syscall" messages.  system() only exists under --unsafe (the checker).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_run_internal.h"

#define BT_CAT_BYTES_MAX 10240

static size_t cat_bytes_max(void)
{
	const char *env = getenv("BPFTRACE_CAT_BYTES_MAX");
	char *end;
	unsigned long long v;

	if (!env || !*env)
		return BT_CAT_BYTES_MAX;
	v = strtoull(env, &end, 10);
	return *end ? BT_CAT_BYTES_MAX : (size_t)v;
}

/* Up to max bytes of f into m. */
static void copy_bytes(FILE *f, FILE *m, size_t max)
{
	char buf[4096];
	size_t done = 0, n;

	while (done < max) {
		n = fread(buf, 1, max - done < sizeof(buf) ? max - done : sizeof(buf), f);
		if (!n)
			break;
		fwrite(buf, 1, n, m);
		done += n;
	}
}

/* The file's bytes (cat) or the command's output into m: 0; 1 for a
 * file that cannot be opened (bpftrace's error said on the log, the run
 * goes on); -errno when no command can be started. */
static int run_one(struct bt_run *r, bool cat, const char *what, FILE *m)
{
	FILE *f = cat ? fopen(what, "r") : popen(what, "r");

	if (!f) {
		int e = errno ? errno : ENOMEM;

		if (!cat)
			return -e;
		fprintf(r->o->log, "ERROR: failed to open file '%s': %s\n", what, strerror(e));
		return 1;
	}
	copy_bytes(f, m, cat ? cat_bytes_max() : (size_t)-1);
	if (cat)
		fclose(f);
	else
		pclose(f);
	return 0;
}

int bt_format_cat_system(struct bt_run *r, bool cat, const char *what)
{
	char *out = NULL;
	size_t olen = 0;
	FILE *m = open_memstream(&out, &olen);
	int ret;

	if (!m)
		return -ENOMEM;
	fflush(r->out); /* the command's output after what came before it */
	ret = run_one(r, cat, what, m);
	fclose(m);
	if (!ret)
		ret = utrace_bt_message_print(r->out, cat ? UTRACE_BT_MSG_CAT : UTRACE_BT_MSG_SYSCALL,
					      out, olen, r->fmt);
	free(out);
	return ret > 0 ? 0 : ret;
}
