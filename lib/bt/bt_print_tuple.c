/* SPDX-License-Identifier: MIT */
/*
 * bt_print_tuple.c - a tuple value (common/bt_tuple.h's form) as bpftrace
 * prints it: text `(1, 2, string, (4, 5))`, json `[1,2,"string",[4,5]]`
 * (strings escaped as bpftrace's json).  A tuple cut at the string
 * length has what is open closed.
 */
#include <string.h>

#include "common/bt_prog.h"
#include "lib/bt/bt_print_internal.h"

void bt_tuple_print(FILE *out, const char *t, bool json)
{
	int depth = 0;

	while (*t) {
		const char *e;

		switch (*t) {
		case UTRACE_BT_T_OPEN:
			fputc(json ? '[' : '(', out);
			depth++;
			t++;
			continue;
		case UTRACE_BT_T_CLOSE:
			fputc(json ? ']' : ')', out);
			depth--;
			t++;
			continue;
		case UTRACE_BT_T_SEP:
			fputs(json ? "," : ", ", out);
			t++;
			continue;
		default:
			break;
		}
		e = t + strcspn(t, "\001\002\037");
		if (*t == UTRACE_BT_T_STR && json) {
			fputc('"', out);
			bt_json_escape(out, t + 1, (size_t)(e - t - 1));
			fputc('"', out);
		} else {
			t += *t == UTRACE_BT_T_STR;
			fwrite(t, 1, (size_t)(e - t), out);
		}
		t = e;
	}
	for (; depth > 0; depth--)
		fputc(json ? ']' : ')', out);
}
