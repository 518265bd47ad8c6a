/* SPDX-License-Identifier: MIT */
/*
 * bt_strftime.c - bpftrace's strftime(FMT, NS): NS (nanoseconds of the
 * clock nsecs reads, CLOCK_MONOTONIC here, boot time in bpftrace) as the
 * wall-clock time C's strftime(3) formats, with bpftrace's %f
 * (microseconds, 6 digits).  FMT must be a literal.  The text is made in
 * the tool (bytecode STRFTIME calls the context's strftime): the traced
 * program has no libc to call at a hit, so the in-process path refuses
 * the instruction and such a probe's hits are replayed.
 *
 * bpftrace 0.17 types the value `timestamp`, not a string: it prints
 * (printf's %s, print(), a map's value or key, a tuple's element) but
 * `strftime(...) == "x"`, str(), strncmp(), `!`, a ternary's branch, a
 * variable or a map that held a string are semantic errors.  Here it is a
 * string whose C type says timestamp (bt_types.h), kept by variables
 * and maps as they keep a field's C type.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/bt/bt_check.h"
#include "lib/bt/bt_run_internal.h"
#include "lib/bt/bt_types.h"

int bt_check_strftime(struct bt_checker *ck, struct bt_node *n)
{
	int ret;

	for (unsigned i = 0; i < 2; i++)
		if ((ret = ck->expr(ck, n->args[i])) < 0)
			return ret;
	if (n->args[0]->kind != BT_N_STR)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_PRINTF_FIRST, n->str,
				n->args[0]->type == BT_T_INT ? "integer" : "string");
	if (n->args[1]->type != BT_T_INT)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_INT_ARG, n->str);
	n->type = BT_T_STR;
	n->size = UTRACE_BT_STRLEN;
	if (!(n->ctype = bt_ctype_timestamp(ck->p)))
		return utrace_error_set(ck->err, -ENOMEM, "out of memory");
	return 0;
}

/* bpftrace 0.17 takes a ternary's type from its first branch: a
 * timestamp there is unsupported, one in the second differs from it. */
int bt_ternary_timestamp(struct bt_checker *ck, const struct bt_node *n)
{
	if (bt_is_timestamp(ck->p, n->b->ctype))
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_TERNARY_UNSUP, "timestamp");
	if (bt_is_timestamp(ck->p, n->c->ctype))
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_TERNARY_TYPE,
				n->b->type == BT_T_STR ? "string" : "integer", "timestamp");
	return 0;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* fmt with each %f replaced by the microseconds (%% kept). */
static void micros(const char *fmt, long us, char *out, size_t room)
{
	size_t n = 0;

	for (const char *s = fmt; *s && n + 8 < room; s++) {
		if (s[0] == '%' && s[1] == 'f') {
			n += (size_t)snprintf(out + n, room - n, "%06ld", us);
			s++;
		} else if (s[0] == '%' && s[1] == '%') {
			out[n++] = *s++;
			out[n++] = *s;
		} else {
			out[n++] = *s;
		}
	}
	out[n] = 0;
}

int bt_strftime_cb(void *arg, uint32_t fmt, int64_t ns, char *dst)
{
	struct bt_run *r = arg;
	int64_t wall = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC) + ns;
	time_t secs = (time_t)(wall / 1000000000);
	char f[256];
	struct tm tm;

	dst[0] = 0;
	if (fmt >= r->fmts.n || !localtime_r(&secs, &tm))
		return -1;
	micros(r->fmts.fmts[fmt], (long)(wall % 1000000000 / 1000), f, sizeof(f));
	if (!strftime(dst, UTRACE_BT_STRLEN, f, &tm))
		dst[0] = 0;
	return 0;
}
