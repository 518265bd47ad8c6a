/* SPDX-License-Identifier: MIT */
/*
 * test_filter.c - glob matching and ftrace filter semantics.
 */
#include <stdio.h>
#include <string.h>

#include "common/proto.h"
#include "lib/events/ftrace_filter.h"
#include "lib/base/glob.h"
#include "tests/unit/check.h"

static void glob_case(const char *pat, const char *s, int want)
{
	check(utrace_glob_match(pat, s) == want, "glob '%s' %s '%s'", pat,
	      want ? "matches" : "does not match", s);
}

static void test_glob(void)
{
	struct utrace_error err;
	char longa[200];

	glob_case("foo", "foo", 1);
	glob_case("foo", "fo", 0);
	glob_case("fo", "foo", 0);
	glob_case("f*", "foo", 1);
	glob_case("*o", "foo", 1);
	glob_case("*", "", 1);
	glob_case("*", "anything", 1);
	glob_case("*oo*", "xfoox", 1);
	glob_case("?oo", "foo", 1);
	glob_case("?oo", "oo", 0);
	glob_case("[a-c]x", "bx", 1);
	glob_case("[a-c]x", "dx", 0);
	glob_case("[!a-c]x", "dx", 1);
	glob_case("[^a-c]x", "ax", 0);
	glob_case("[]]", "]", 1);
	glob_case("[!]]", "]", 0);
	glob_case("[a-]", "-", 1);
	glob_case("\\*", "*", 1);
	glob_case("\\*", "a", 0);
	glob_case("a*b*c", "aXbYc", 1);
	glob_case("a*b*c", "aXbYcZ", 0);
	glob_case("a*b", "abXb", 1);
	glob_case("a*b", "abXbc", 0);
	glob_case("ns::*::bar", "ns::Foo::bar", 1);
	memset(longa, 'a', sizeof(longa) - 1);
	longa[sizeof(longa) - 1] = '\0';
	glob_case("*a*a*a*a*a*a*a*b", longa, 0);
	check(utrace_glob_match_n("foo*", "foobar", 3) && !utrace_glob_match_n("foo", "foobar", 2),
	      "glob_match_n uses only len bytes");

	check(utrace_glob_check("a[bc]*", &err) == 0, "glob_check accepts a[bc]*");
	check(utrace_glob_check("", &err) < 0 && err.column == 1, "glob_check: empty, column 1");
	check(utrace_glob_check("foo[ab", &err) < 0 && err.column == 4,
	      "glob_check: unbalanced '[' at column 4 (%s)", err.msg);
	check(utrace_glob_check("ab\\", &err) < 0 && err.column == 3,
	      "glob_check: trailing backslash at column 3");
	check(utrace_glob_is_literal("main") && !utrace_glob_is_literal("ma*"), "glob_is_literal");
}

static unsigned sel(const struct utrace_func_filter *f, const char *name, const char *raw,
		    const char *mod)
{
	return utrace_func_filter_select(f, name, raw, mod);
}

static struct utrace_func_filter *mk(const char *const *exprs, const enum utrace_filter_list *which)
{
	struct utrace_func_filter *f = utrace_func_filter_new();
	struct utrace_error err;

	for (int i = 0; f && exprs[i]; i++)
		if (utrace_func_filter_add(f, which[i], exprs[i], &err) < 0)
			check(0, "add '%s': %s", exprs[i], err.msg);
	return f;
}

static void test_select(void)
{
	const unsigned T = UTRACE_SITE_TRACE, G = UTRACE_SITE_GRAPH_ROOT,
		       GN = UTRACE_SITE_GRAPH_NOTRACE;
	struct utrace_func_filter *f;

	f = utrace_func_filter_new();
	check(sel(f, "foo", "foo", NULL) == T, "empty filter traces everything");
	utrace_func_filter_free(f);

	f = mk((const char *const[]){"foo*", "!foobar", NULL},
	       (const enum utrace_filter_list[]){UTRACE_FILTER, UTRACE_FILTER});
	check(sel(f, "foo", "foo", NULL) == T, "filter foo* selects foo");
	check(sel(f, "bar", "bar", NULL) == 0, "filter foo* drops bar");
	check(sel(f, "foobar", "foobar", NULL) == 0, "!foobar removes foobar");
	check(utrace_func_filter_count(f, UTRACE_FILTER) == 2 &&
		  utrace_func_filter_count(f, UTRACE_NOTRACE) == 0,
	      "filter_count");
	utrace_func_filter_free(f);

	f = mk((const char *const[]){"!secret", NULL},
	       (const enum utrace_filter_list[]){UTRACE_FILTER});
	check(sel(f, "foo", NULL, NULL) == T && sel(f, "secret", NULL, NULL) == 0,
	      "only a ! pattern: everything but it");
	utrace_func_filter_free(f);

	f = mk((const char *const[]){"*lock*", "!spin_lock", "main", "*alloc*", NULL},
	       (const enum utrace_filter_list[]){UTRACE_NOTRACE, UTRACE_NOTRACE, UTRACE_GRAPH,
						 UTRACE_GRAPH_NOTRACE});
	check(sel(f, "mutex_lock", NULL, NULL) == 0, "notrace *lock* drops mutex_lock");
	check(sel(f, "spin_lock", NULL, NULL) == T, "!spin_lock in notrace keeps spin_lock");
	check(sel(f, "main", NULL, NULL) == (T | G), "graph main: TRACE|GRAPH_ROOT");
	check(sel(f, "xmalloc", NULL, NULL) == (T | GN), "graph_notrace *alloc*");
	check(sel(f, "other", NULL, NULL) == T, "unmatched function: TRACE only");
	utrace_func_filter_free(f);

	f = mk((const char *const[]){"lib_*:mod:libfoo.so*", NULL},
	       (const enum utrace_filter_list[]){UTRACE_FILTER});
	check(sel(f, "lib_a", NULL, "/usr/lib/libfoo.so.1") == T, ":mod: matches path basename");
	check(sel(f, "lib_a", NULL, "libbar.so") == 0, ":mod: other module");
	check(sel(f, "lib_a", NULL, NULL) == 0, ":mod: never matches without a module");
	check(sel(f, "main", NULL, "/usr/lib/libfoo.so.1") == 0, ":mod: glob still applies");
	utrace_func_filter_free(f);

	f = mk((const char *const[]){":mod:prog", NULL},
	       (const enum utrace_filter_list[]){UTRACE_FILTER});
	check(sel(f, "anything", NULL, "/bin/prog") == T && sel(f, "x", NULL, "/lib/libc.so") == 0,
	      "empty glob before :mod: means *");
	utrace_func_filter_free(f);

	f = mk((const char *const[]){"ns::Foo::bar", "_ZN2ns3Foo3bazEv", "twice<long>",
				     "ns::mod::f", "helper", NULL},
	       (const enum utrace_filter_list[]){UTRACE_FILTER, UTRACE_FILTER, UTRACE_FILTER,
						 UTRACE_FILTER, UTRACE_FILTER});
	check(sel(f, "ns::Foo::bar(int) const", "_ZNK2ns3Foo3barEi", NULL) == T,
	      "C++ name without parameter list and qualifier matches");
	check(sel(f, "ns::Foo::baz()", "_ZN2ns3Foo3bazEv", NULL) == T, "raw mangled name matches");
	check(sel(f, "long twice<long>(long)", "_Z5twiceIlET_S0_", NULL) == T,
	      "template without return type matches");
	check(sel(f, "int twice<int>(int)", "_Z5twiceIiET_S0_", NULL) == 0,
	      "other template instance does not");
	check(sel(f, "ns::mod::f()", "_ZN2ns3mod1fEv", "x") == T, "'ns::mod::f' is not a :mod:");
	check(sel(f, "helper(int) [clone .constprop.0]", "_Z6helperi.constprop.0", NULL) == T,
	      "gcc clone suffix is stripped");
	check(sel(f, "ns::Foo::bar2(int)", NULL, NULL) == 0, "no prefix match without *");
	check(sel(f, NULL, "helper", NULL) == T, "NULL demangled name uses raw");
	utrace_func_filter_free(f);
}

static void bad(const char *expr, int column)
{
	struct utrace_func_filter *f = utrace_func_filter_new();
	struct utrace_error err = {0};
	int ret = utrace_func_filter_add(f, UTRACE_FILTER, expr, &err);

	check(ret < 0 && err.column == column && err.msg[0] && !strchr(err.msg, '\n'),
	      "bad expression '%s': error at column %d (got %d: %s)", expr, column, err.column,
	      err.msg);
	check(utrace_func_filter_count(f, UTRACE_FILTER) == 0, "bad expression '%s' not added",
	      expr);
	utrace_func_filter_free(f);
}

static void test_errors(void)
{
	bad("", 1);
	bad("!", 2);
	bad("foo[", 4);
	bad("!foo[", 5);
	bad("x:mod:", 7);
	bad("x:mod:[a", 7);
	bad("[:mod:x", 1);
	bad("ok:mod:lib[", 11);
}

int main(void)
{
	test_glob();
	test_select();
	test_errors();
	return check_done();
}
