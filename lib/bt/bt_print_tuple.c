/* SPDX-License-Identifier: MIT */
/*
 * bt_print_tuple.c - a tuple value (common/bt_tuple.h's form) as bpftrace
 * prints it: text `(1, 2, string, (4, 5))`, json `[1,2,"string",[4,5]]`
 * (strings escaped as bpftrace's json, a timestamp's text bare); a struct or an array in it
 * (lib/bt/bt_record.c) as bpftrace prints them: `[1,2,3]`, text
 * `{ .a = 1, .b = 2 }` (in a key `{.a=1,.b=2}`), json `{ "a": 1 }`.  A
 * tuple cut at the string length has what is open closed.
 */
#include <string.h>

#include "common/bt_prog.h"
#include "lib/bt/bt_print_internal.h"

/* The container each open marker starts, and how each writes itself in
 * mode m (0 a text value, 1 json, 2 a text key): open, separator, close;
 * a struct's member name before its value. */
static const char *const marks[3][3][3] = {
    /* tuple */ {{"(", ", ", ")"}, {"[", ",", "]"}, {"(", ", ", ")"}},
    /* array */ {{"[", ",", "]"}, {"[", ",", "]"}, {"[", ",", "]"}},
    /* struct */ {{"{ ", ", ", " }"}, {"{ ", ", ", " }"}, {"{", ",", "}"}},
};

static int container(char c)
{
	return c == UTRACE_BT_T_AOPEN ? 1 : c == UTRACE_BT_T_SOPEN ? 2 : 0;
}

void bt_tuple_print_as(FILE *out, const char *t, int mode)
{
	int stack[32], depth = 0;

	while (*t) {
		const char *e;
		int k = depth ? stack[depth - 1] : 0;

		if (utrace_bt_tuple_opens(*t)) {
			if (depth < 32)
				stack[depth++] = container(*t);
			fputs(marks[container(*t)][mode][0], out);
			t++;
			continue;
		}
		if (*t == UTRACE_BT_T_CLOSE || *t == UTRACE_BT_T_SEP) {
			fputs(marks[k][mode][*t == UTRACE_BT_T_SEP ? 1 : 2], out);
			depth -= *t == UTRACE_BT_T_CLOSE && depth;
			t++;
			continue;
		}
		e = t + strcspn(t, "\001\002\004\005\006\037");
		if (*e == UTRACE_BT_T_NAME) { /* a struct's member: .m = , "m": */
			fprintf(out, mode == 1 ? "\"%.*s\": " : mode == 2 ? ".%.*s=" : ".%.*s = ",
				(int)(e - t), t);
			t = e + 1;
			continue;
		}
		if (*t == UTRACE_BT_T_STR && mode == 1) {
			fputc('"', out);
			bt_json_escape(out, t + 1, (size_t)(e - t - 1));
			fputc('"', out);
		} else {
			t += *t == UTRACE_BT_T_STR || *t == UTRACE_BT_T_BARE;
			fwrite(t, 1, (size_t)(e - t), out);
		}
		t = e;
	}
	while (depth > 0)
		fputs(marks[stack[--depth]][mode][2], out);
}

void bt_tuple_print(FILE *out, const char *t, bool json)
{
	bt_tuple_print_as(out, t, json);
}
