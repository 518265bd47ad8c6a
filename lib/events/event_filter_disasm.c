/* SPDX-License-Identifier: MIT */
/*
 * event_filter_disasm.c - a compiled event filter as text, one
 * instruction a line (utrace_filter_disasm, for tests and --verbose):
 * only reads a program of common/filter_prog.h, so it lives apart from
 * the compiler in event_filter.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/filter_prog.h"
#include "lib/events/event_filter.h"

/* Listing output: appends like snprintf, counting what did not fit. */
struct out {
	char *buf;
	size_t size, len;
};

static void __attribute__((format(printf, 2, 3))) put(struct out *o, const char *fmt, ...)
{
	size_t room = o->len < o->size ? o->size - o->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void put_target(struct out *o, uint16_t t)
{
	if (t == UTRACE_FILTER_KEEP)
		put(o, "keep");
	else if (t == UTRACE_FILTER_DROP)
		put(o, "drop");
	else
		put(o, "%u", t);
}

static void put_string(struct out *o, const uint8_t *s, uint32_t n)
{
	uint32_t i;

	put(o, "\"");
	for (i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\')
			put(o, "\\%c", s[i]);
		else if (s[i] >= 0x20 && s[i] < 0x7f)
			put(o, "%c", s[i]);
		else
			put(o, "\\x%02x", s[i]);
	}
	put(o, "\"");
}

int utrace_filter_disasm(const void *prog, uint32_t len, char *buf, size_t size)
{
	static const char *const names[UTRACE_FOP_MAX] = {
	    [UTRACE_FOP_EQ] = "==",
	    [UTRACE_FOP_NE] = "!=",
	    [UTRACE_FOP_LT] = "<",
	    [UTRACE_FOP_LE] = "<=",
	    [UTRACE_FOP_GT] = ">",
	    [UTRACE_FOP_GE] = ">=",
	    [UTRACE_FOP_BAND] = "&",
	    [UTRACE_FOP_STR_EQ] = "==",
	    [UTRACE_FOP_STR_PREFIX] = "prefix",
	    [UTRACE_FOP_STR_SUFFIX] = "suffix",
	    [UTRACE_FOP_STR_SUBSTR] = "contains",
	    [UTRACE_FOP_STR_GLOB] = "glob",
	};
	const struct utrace_filter_hdr *h = prog;
	const struct utrace_filter_insn *in;
	struct out o = {buf, size, 0};
	uint32_t i;

	if (buf && size)
		buf[0] = '\0';
	if (utrace_filter_check(prog, len) < 0)
		return -EINVAL;
	in = (const struct utrace_filter_insn *)(h + 1);
	for (i = 0; i < h->nr_insns; i++, in++) {
		bool sign = in->flags & UTRACE_FF_SIGNED;

		put(&o, "%4u: ", i);
		if (in->op <= UTRACE_FOP_BAND) {
			put(&o, "%c%u @%u %s ", sign ? 's' : 'u', in->size * 8, in->off,
			    names[in->op]);
			if (in->op == UTRACE_FOP_BAND)
				put(&o, "0x%llx", (unsigned long long)in->imm);
			else if (sign)
				put(&o, "%lld", (long long)in->imm);
			else
				put(&o, "%llu", (unsigned long long)in->imm);
		} else {
			if (in->flags & UTRACE_FF_LOC)
				put(&o, "__data_loc char[] @%u %s ", in->off, names[in->op]);
			else
				put(&o, "char[%u] @%u %s ", in->size, in->off, names[in->op]);
			put_string(&o, (const uint8_t *)prog + in->str_off, in->str_len);
		}
		put(&o, " ? ");
		put_target(&o, in->jt);
		put(&o, " : ");
		put_target(&o, in->jf);
		put(&o, "\n");
	}
	return (int)o.len;
}
