/* SPDX-License-Identifier: MIT */
/*
 * test_proto_hello.c - a runtime of another protocol version (an old
 * libutrace.so, another install's) is refused at its hello with a notice
 * that names both versions and its pid (lib/record/recorder_msg.c), and
 * nothing of it is taken; a hello too short to hold a version is refused
 * too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "lib/record/recorder.h"
#include "lib/record/recorder_internal.h"
#include "tests/unit/check.h"

static char said[256];
static int said_pid;

static void notice(void *arg, int pid, const char *text)
{
	(void)arg;
	said_pid = pid;
	snprintf(said, sizeof(said), "%s", text);
}

int main(void)
{
	struct utrace_recorder *r = calloc(1, sizeof(*r));
	struct rec_conn *c = calloc(1, sizeof(*c));
	struct utrace_msg_hello h = {{sizeof(h), UTRACE_MSG_HELLO}, UTRACE_PROTO_VERSION - 1, 0,
				     4242, 1, 0, 0};
	struct utrace_error err = {0};
	char want[128];
	int ret;

	if (!r || !c)
		return 1;
	r->o.notice = notice;
	ret = rec_handle_msg(r, c, &h, sizeof(h), -1, &err);
	snprintf(want, sizeof(want), "speaks protocol %u, this utrace %u",
		 UTRACE_PROTO_VERSION - 1, UTRACE_PROTO_VERSION);
	check(ret == -EPROTO && strstr(said, want) && said_pid == 4242,
	      "an older runtime's hello: -EPROTO, a notice naming both versions (%d, pid %d: %s)",
	      ret, said_pid, said);
	check(c->pid == 0 && !err.code, "nothing of it taken, the recording not failed (%d)",
	      err.code);
	said[0] = 0;
	ret = rec_handle_msg(r, c, &h, sizeof(struct utrace_msg) + 2, -1, &err);
	check(ret == -EPROTO && !said[0], "a hello too short for its version: -EPROTO (%d)", ret);
	free(c);
	free(r);
	return check_done();
}
