/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ftrace_filter.c - function selection (lib/events/ftrace_filter.h):
 * the set_ftrace_filter expressions "GLOB", "!GLOB", "GLOB:mod:MODGLOB",
 * their globs (lib/base/glob.h), and the names they are matched against
 * (a demangled C++ name is cut at its parameter list and return type).
 *
 * Input: lines.  Line i is added to list i % 4; then every line is also
 * a function name (and a module) that all lists select on, with a few
 * fixed C++ names.  A refused expression must say where (a column inside
 * it); a glob utrace_glob_check() accepts must match itself when it has
 * no wildcard.
 */
#include <errno.h>

#include "common/proto.h"
#include "lib/base/glob.h"
#include "lib/events/ftrace_filter.h"
#include "tests/fuzz/fuzz.h"

#define MAX_LINES 64

static const char *const names[] = {
    "main",
    "ns::Foo::bar(int) const",
    "void ns::tmpl<int, (anonymous namespace)::X>(int*)",
    "operator()(std::vector<int, std::allocator<int> > const&)",
    "(anonymous namespace)::f()::{lambda(int)#1}::operator()(int) const",
};

static void check_glob(const char *s)
{
	struct utrace_error err = {0};

	if (utrace_glob_check(s, &err) < 0) {
		if (err.column < 1 || (size_t)err.column > strlen(s) + 1)
			abort();
		return;
	}
	if (utrace_glob_is_literal(s) && !utrace_glob_match(s, s))
		abort();
	(void)utrace_glob_match_n(s, s, strlen(s) / 2);
}

static void select_all(const struct utrace_func_filter *f, char **line, unsigned n)
{
	uint32_t hits[MAX_LINES];
	size_t total = utrace_func_filter_total(f);

	if (total > MAX_LINES)
		abort();
	for (unsigned i = 0; i < n; i++) {
		memset(hits, 0, sizeof(hits));
		(void)utrace_func_filter_select_hits(f, line[i], line[i], line[(i + 1) % n], hits);
		(void)utrace_func_filter_select(f, line[i], NULL, NULL);
	}
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		(void)utrace_func_filter_select(f, names[i], "_ZN2ns3Foo3barEi", n ? line[0] : "a.so");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct utrace_func_filter *f = utrace_func_filter_new();
	char *text = fuzz_str(data, size), *line[MAX_LINES], *s, *save = NULL;
	unsigned n = 0;

	if (!f)
		abort();
	for (s = strtok_r(text, "\n", &save); s && n < MAX_LINES; s = strtok_r(NULL, "\n", &save))
		line[n++] = s;
	for (unsigned i = 0; i < n; i++) {
		struct utrace_error err = {0};

		check_glob(line[i]);
		if (utrace_func_filter_add(f, i % UTRACE_FILTER_LISTS, line[i], &err) < 0 &&
		    (err.column < 1 || (size_t)err.column > strlen(line[i]) + 1 || !err.msg[0]))
			abort();
	}
	select_all(f, line, n);
	for (size_t i = 0; i < utrace_func_filter_total(f); i++) {
		enum utrace_filter_list which;
		bool neg;

		if (!utrace_func_filter_expr(f, i, &which, &neg))
			abort();
	}
	utrace_func_filter_free(f);
	free(text);
	return 0;
}
