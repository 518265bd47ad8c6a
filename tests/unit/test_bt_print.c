/* SPDX-License-Identifier: MIT */
/*
 * test_bt_print.c - lib/bt/bt_print.c against bpftrace 0.17 itself: each
 * case builds the maps that tests/unit/bt_print/NAME.bt fills, in another
 * order than bpftrace prints them, prints them as that program does
 * (its print() calls, then bpftrace's "\n\n" and every map at exit), and
 * compares byte for byte with NAME.txt and NAME.json, bpftrace's own
 * output of NAME.bt (tests/unit/bt_print/regen.sh writes them).  "Lost N
 * events", which no BEGIN program makes bpftrace print, is checked
 * against the text of bpftrace's src/output.cpp.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_print.h"
#include "tests/unit/check.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define I(v) {.kind = UTRACE_BT_INT, .i = (v)}
#define S(v) {.kind = UTRACE_BT_STR, .s = (v)}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int c;

	if (!f || !mem) {
		if (f)
			fclose(f);
		if (mem)
			fclose(mem);
		free(buf);
		return NULL;
	}
	while ((c = fgetc(f)) != EOF)
		fputc(c, mem);
	fclose(f);
	fclose(mem);
	return buf;
}

/* Compares got with the golden NAME.EXT of tests/unit/bt_print. */
static void check_golden(const char *got, const char *name, const char *ext)
{
	char path[256];
	char *want;

	snprintf(path, sizeof(path), "tests/unit/bt_print/%s.%s", name, ext);
	want = slurp(path);
	if (!want) {
		check(0, "%s: read %s", name, path);
		return;
	}
	if (strcmp(got, want)) {
		const char *a = got, *b = want;

		while (*a && *a == *b)
			a++, b++;
		while (a > got && a[-1] != '\n')
			a--, b--;
		check(0, "%s.%s: differs from bpftrace at\n  got:  '%.*s'\n  want: '%.*s'", name,
		      ext, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
	} else {
		check(1, "%s.%s: byte for byte bpftrace's", name, ext);
	}
	free(want);
}

/* What the program prints before exit: print(map, top, div), print(value)
 * or, when text is set, a message (printf, time, cat, system). */
struct step {
	const struct utrace_bt_map *map; /* NULL: a value or a message */
	size_t top;
	uint64_t div;
	struct utrace_bt_scalar value;
	const char *text;
	enum utrace_bt_message type;
};

static int run_step(FILE *out, const struct step *s, enum utrace_bt_format fmt)
{
	if (s->map)
		return utrace_bt_map_print(out, s->map, s->top, s->div, fmt);
	if (s->text)
		return utrace_bt_message_print(out, s->type, s->text, strlen(s->text), fmt);
	return utrace_bt_value_print(out, &s->value, fmt);
}

static void run_case(const char *name, uint64_t nprobes, const struct step *steps, size_t nsteps,
		     const struct utrace_bt_map *maps, size_t nmaps)
{
	for (enum utrace_bt_format fmt = UTRACE_BT_TEXT; fmt <= UTRACE_BT_JSON; fmt++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);
		int ret = utrace_bt_attached_print(out, nprobes, fmt);

		for (size_t i = 0; i < nsteps && !ret; i++)
			ret = run_step(out, &steps[i], fmt);
		fputs("\n\n", out); /* bpftrace's, before the maps at exit */
		if (!ret)
			ret = utrace_bt_maps_print(out, maps, nmaps, fmt);
		fclose(out);
		check(ret == 0, "%s: prints return 0 (%d)", name, ret);
		check_golden(buf, name, fmt == UTRACE_BT_JSON ? "json" : "txt");
		free(buf);
	}
}

#include "tests/unit/bt_print/maps.h"
#include "tests/unit/bt_print/hist.h"
#include "tests/unit/bt_print/stacks.h"
#include "tests/unit/bt_print/messages.h"

int main(void)
{
	test_maps();
	test_hist();
	test_stacks();
	test_messages();
	test_lost();
	return check_done();
}
