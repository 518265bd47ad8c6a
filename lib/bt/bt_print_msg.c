/* SPDX-License-Identifier: MIT */
/*
 * bt_print_msg.c - what bpftrace 0.17 prints besides values and maps:
 * printf(), time(), cat(), system() and join() output, "Attaching N
 * probes...", "Lost N events" (src/output.cpp: TextOutput/JsonOutput::
 * message, attached_probes, lost_events), and its json string escaping,
 * which the map printer shares.  In json each is one line, the text
 * escaped as bpftrace escapes it, quirks included (see bt_json_escape).
 */
#include <errno.h>
#include <inttypes.h>

#include "lib/bt/bt_print_internal.h"

/* json_escape: a byte >= 0x80 is a negative char there, so it is <=
 * '\x1f' and comes out as \uffffffXX (bpftrace's json of "é" is
 * "\uffffffc3\uffffffa9"). */
void bt_json_escape(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		signed char c = s[i];

		if (c == '"')
			fputs("\\\"", out);
		else if (c == '\\')
			fputs("\\\\", out);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\r')
			fputs("\\r", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c <= '\x1f')
			fprintf(out, "\\u%04x", (unsigned)(int)c);
		else
			fputc(c, out);
	}
}

static int status(FILE *out)
{
	return ferror(out) ? -(errno ? errno : EIO) : 0;
}

int utrace_bt_message_print(FILE *out, enum utrace_bt_message type, const char *msg, size_t len,
			    enum utrace_bt_format fmt)
{
	static const char *const names[] = {
		[UTRACE_BT_MSG_PRINTF] = "printf", [UTRACE_BT_MSG_TIME] = "time",
		[UTRACE_BT_MSG_CAT] = "cat",	   [UTRACE_BT_MSG_SYSCALL] = "syscall",
		[UTRACE_BT_MSG_JOIN] = "join",
	};

	if (fmt == UTRACE_BT_JSON) {
		fprintf(out, "{\"type\": \"%s\", \"data\": \"", names[type]);
		bt_json_escape(out, msg, len);
		fputs("\"}\n", out);
	} else {
		fwrite(msg, 1, len, out);
		if (type == UTRACE_BT_MSG_JOIN) /* the only message with nl */
			fputc('\n', out);
	}
	return status(out);
}

int utrace_bt_attached_print(FILE *out, uint64_t nprobes, enum utrace_bt_format fmt)
{
	if (fmt == UTRACE_BT_JSON)
		fprintf(out, "{\"type\": \"attached_probes\", \"data\": {\"probes\": %" PRIu64 "}}\n",
			nprobes);
	else
		fprintf(out, "Attaching %" PRIu64 " probe%s...\n", nprobes, nprobes == 1 ? "" : "s");
	return status(out);
}

int utrace_bt_lost_print(FILE *out, uint64_t lost, enum utrace_bt_format fmt)
{
	if (fmt == UTRACE_BT_JSON)
		fprintf(out, "{\"type\": \"lost_events\", \"data\": {\"events\": %" PRIu64 "}}\n", lost);
	else
		fprintf(out, "Lost %" PRIu64 " events\n", lost);
	return status(out);
}
