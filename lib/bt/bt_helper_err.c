/* SPDX-License-Identifier: MIT */
/*
 * bt_helper_err.c - bpftrace's -k and -kk: a warning each time a map
 * helper fails at a hit (-k: delete() of a key the map does not hold;
 * -kk also: a read of one), at the call's place in the program:
 *
 *   stdin:1:22-34: WARNING: Failed to map_delete_elem: No such file or directory (-2)
 *   i:ms:100 { @[1] = 1; delete(@[2]); exit(); }
 *                        ~~~~~~~~~~~~
 *
 * on the output (stdout, or -o's file, as bpftrace's), or with -f json
 * {"type": "helper_error", "helper": ...,
 * "retcode": -2, "line": 1, "col": 22} on the output.  The compiler
 * makes each place's text once (its record id); the record only names it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_run_internal.h"

char *bt_helper_err_text(const struct bt_program *p, struct bt_loc loc, enum bt_helper helper)
{
	/* bpftrace's helper names and the codes their failures give */
	static const struct {
		const char *name;
		int ret;
	} h[] = {
	    [BT_HELPER_MAP_LOOKUP] = {"map_lookup_elem", 0},
	    [BT_HELPER_MAP_DELETE] = {"map_delete_elem", -ENOENT},
	    [BT_HELPER_PROBE_READ] = {"probe_read", -EFAULT},
	    [BT_HELPER_PROBE_READ_USER] = {"probe_read_user", -EFAULT},
	    [BT_HELPER_PROBE_READ_STR] = {"probe_read_str", -EFAULT},
	    [BT_HELPER_PROBE_READ_USER_STR] = {"probe_read_user_str", -EFAULT},
	};
	char diag[512], what[128], *out = NULL;
	int ret = h[helper].ret;

	/* TextOutput::helper_error: the code as is, or its strerror */
	if (ret < 0)
		snprintf(what, sizeof(what), "Failed to %s: %s (%d)", h[helper].name,
			 strerror(-ret), ret);
	else
		snprintf(what, sizeof(what), "Failed to %s: %d", h[helper].name, ret);
	bt_diag_text(diag, sizeof(diag), p, loc, "WARNING", what);
	if (asprintf(&out, "%s\t%d\t%u\t%u\t%s", h[helper].name, ret, loc.line, loc.col, diag) < 0)
		return NULL;
	return out;
}

int bt_helper_err_print(struct bt_run *r, const char *text)
{
	char helper[32];
	int ret;
	unsigned line, col, n = 0;

	if (sscanf(text, "%31[^\t]\t%d\t%u\t%u\t%n", helper, &ret, &line, &col, &n) != 4 || !n)
		return -EINVAL;
	if (r->fmt == UTRACE_BT_JSON)
		fprintf(r->out,
			"{\"type\": \"helper_error\", \"helper\": \"%s\", \"retcode\": %d, "
			"\"line\": %u, \"col\": %u}\n",
			helper, ret, line, col);
	else /* bpftrace's LOG(WARNING, loc, out_): the output, not stderr */
		fprintf(r->out, "%s\n", text + n);
	return 0;
}
