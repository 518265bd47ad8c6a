/* SPDX-License-Identifier: MIT */
/*
 * test_symtab.c - function symbol tables: alias collapsing, sizes,
 * lookup, C++ demangling, the .dynsym fallback, and naming call sites.
 * Fixtures are compiled at run time ($UTRACE_TEST_CC / $UTRACE_TEST_CXX,
 * default cc / c++).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/callsite.h"
#include "lib/elf/elf.h"
#include "lib/elf/symtab.h"
#include "tests/unit/check.h"

static const struct utrace_sym *by_name(const struct utrace_symtab *tab, const char *name)
{
	for (size_t i = 0; i < utrace_symtab_count(tab); i++)
		if (!strcmp(utrace_symtab_get(tab, i)->name, name))
			return utrace_symtab_get(tab, i);
	return NULL;
}

static const char c_src[] =
    "#include <stdio.h>\n"
    "int real_fn(int x) { return x + 1; }\n"
    "int alias_global(int x) __attribute__((alias(\"real_fn\")));\n"
    "int alias_w(int x) __attribute__((weak, alias(\"real_fn\")));\n"
    "static int __attribute__((noinline, used)) loc_fn(int x) { return x * 7; }\n"
    "int wk(int x) __attribute__((weak, alias(\"loc_fn\")));\n"
    "static int __attribute__((noinline, used)) only_loc(int x) { return x - 3; }\n"
    "__asm__(\".text\\n.globl nosize\\n.type nosize,@function\\nnosize:\\n"
    "\\tret\\n\\tnop\\n\\tnop\\n\\tnop\\n\");\n"
    "int main(int c, char **v) { printf(\"%d\\n\", real_fn(c) + loc_fn(c)); return 0; }\n";

static void test_c(void)
{
	const struct utrace_sym *s, *real, *wk, *nosize;
	struct utrace_symtab *tab;
	struct utrace_error err = {0};
	uint64_t off = 0;
	int sorted = 1;

	if (check_build(check_cc(), "c_prog", "c_prog.c", c_src, "") < 0 ||
	    utrace_symtab_load(check_path("c_prog"), &tab, &err) < 0) {
		check(0, "C fixture builds and loads: %s", err.msg);
		return;
	}
	check(utrace_symtab_count(tab) > 3, "C: %zu function symbols", utrace_symtab_count(tab));
	for (size_t i = 1; i < utrace_symtab_count(tab); i++)
		if (utrace_symtab_get(tab, i - 1)->vaddr >= utrace_symtab_get(tab, i)->vaddr)
			sorted = 0;
	check(sorted, "C: sorted by address, one symbol per address");
	check(utrace_symtab_get(tab, utrace_symtab_count(tab)) == NULL, "C: get past the end");
	real = by_name(tab, "real_fn");
	check(real && real->size > 0 && !strcmp(real->raw, "real_fn"),
	      "C: GLOBAL real_fn beats the WEAK alias_w and the longer alias_global");
	check(!by_name(tab, "alias_global") && !by_name(tab, "alias_w"), "C: aliases collapsed");
	wk = by_name(tab, "wk");
	check(wk && !by_name(tab, "loc_fn"), "C: WEAK wk beats LOCAL loc_fn");
	check(!by_name(tab, "printf") && !by_name(tab, "puts"), "C: undefined symbols dropped");
	s = by_name(tab, "only_loc");
	check(real && real->type == 'T' && wk && wk->type == 'W' && s && s->type == 't',
	      "C: kallsyms types: GLOBAL T, WEAK W, LOCAL t (%c %c %c)", real ? real->type : '-',
	      wk ? wk->type : '-', s ? s->type : '-');
	check(by_name(tab, "main") != NULL, "C: main present");
	if (real) {
		s = utrace_symtab_lookup(tab, real->vaddr, &off);
		check(s == real && off == 0, "C: lookup of real_fn's address");
		s = utrace_symtab_lookup(tab, real->vaddr + real->size - 1, &off);
		check(s == real && off == real->size - 1, "C: lookup of real_fn's last byte");
	}
	nosize = by_name(tab, "nosize");
	check(nosize && nosize->size == 0, "C: symbol without .size has size 0");
	if (nosize) {
		s = utrace_symtab_lookup(tab, nosize->vaddr + 2, &off);
		check(s == nosize && off == 2, "C: a size-0 symbol covers up to the next one");
	}
	check(utrace_symtab_lookup(tab, 0, NULL) == NULL, "C: lookup of address 0 finds nothing");
	utrace_symtab_free(tab);
}

static const char cxx_src[] =
    "namespace ns { struct Foo { int bar(int x) const; }; }\n"
    "int ns::Foo::bar(int x) const { return x + 1; }\n"
    "template <class T> __attribute__((noinline)) T twice(T x) { return x + x; }\n"
    "int main(int c, char **) { ns::Foo f; return f.bar(c) + twice<long>(c); }\n";

static void test_cxx(void)
{
	const struct utrace_sym *s;
	struct utrace_symtab *tab;
	struct utrace_error err = {0};

	if (check_build(check_cxx(), "cxx_prog", "cxx_prog.cc", cxx_src, "") < 0) {
		check_skip("C++ fixtures", "no C++ compiler");
		return;
	}
	if (utrace_symtab_load(check_path("cxx_prog"), &tab, &err) < 0) {
		check(0, "C++: load: %s", err.msg);
		return;
	}
	s = by_name(tab, "ns::Foo::bar(int) const");
	check(s && !strcmp(s->raw, "_ZNK2ns3Foo3barEi"), "C++: demangled name and raw name kept");
	s = by_name(tab, "long twice<long>(long)");
	check(s && !strncmp(s->raw, "_Z5twiceIlE", 11), "C++: template instance demangled");
	s = by_name(tab, "main");
	check(s && s->name == s->raw, "C++: a C name is its raw name");
	utrace_symtab_free(tab);
}

static const char lib_src[] =
    "int lib_a(int x) { return x + 1; }\n"
    "static int __attribute__((noinline)) lib_b(int x) { return x * 2; }\n"
    "int lib_c(int x) { return lib_b(x) + lib_a(x); }\n";

static void test_dynsym(void)
{
	struct utrace_symtab *tab;
	struct utrace_error err = {0};
	struct utrace_elf *elf;
	struct utrace_elf_section sec;

	if (check_build(check_cc(), "libstripped.so", "lib.c", lib_src, "-shared -fPIC -s") < 0 ||
	    utrace_symtab_load(check_path("libstripped.so"), &tab, &err) < 0) {
		check(0, "stripped library builds and loads: %s", err.msg);
		return;
	}
	if (utrace_elf_open(check_path("libstripped.so"), &elf) == 0) {
		check(utrace_elf_find_section(elf, ".symtab", &sec) == -ENOENT,
		      "stripped library has no .symtab");
		utrace_elf_close(elf);
	}
	check(by_name(tab, "lib_a") && by_name(tab, "lib_c"),
	      "stripped: exported functions from .dynsym");
	check(!by_name(tab, "lib_b"), "stripped: static function not in .dynsym");
	utrace_symtab_free(tab);
}

/* Each call site must name its function at offset 0, or 4 after endbr64. */
static void sites_named(const char *label, const char *cc, const char *flags)
{
	struct utrace_symtab *tab = NULL;
	struct utrace_error err = {0};
	struct utrace_elf *elf;
	uint64_t *sites = NULL;
	char out[64];
	size_t n = 0, named = 0;
	unsigned kind;

	snprintf(out, sizeof(out), "sites_%s", label);
	for (char *p = out; *p; p++)
		if (*p == ' ')
			*p = '_';
	if (check_build(cc, out, "c_prog.c", c_src, flags) < 0) {
		check_skip(label, "compiler does not support the flags");
		return;
	}
	if (utrace_elf_open(check_path(out), &elf) < 0) {
		check(0, "%s: open", label);
		return;
	}
	if (utrace_elf_call_sites(elf, &sites, &n, &kind, NULL, &err) == 0 &&
	    utrace_symtab_load_elf(elf, &tab, &err) == 0) {
		for (size_t i = 0; i < n; i++) {
			uint64_t off = 99;
			const struct utrace_sym *s = utrace_symtab_lookup(tab, sites[i], &off);

			if (s && (off == 0 || off == 4))
				named++;
		}
	}
	check(n >= 3 && named == n, "%s: %zu of %zu call sites name their function (%s)", label,
	      named, n, err.msg);
	free(sites);
	utrace_symtab_free(tab);
	utrace_elf_close(elf);
}

int main(void)
{
	if (check_tmpdir_init("symtab") < 0) {
		printf("not ok - mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_c();
	test_cxx();
	test_dynsym();
	sites_named("cc", check_cc(), "-fpatchable-function-entry=5");
	sites_named("cc endbr", check_cc(), "-fpatchable-function-entry=5 -fcf-protection=full");
	sites_named("clang endbr", "clang", "-fpatchable-function-entry=5 -fcf-protection=full");
	{
		struct utrace_symtab *tab = NULL;
		struct utrace_error err = {0};
		int ret = utrace_symtab_load(check_path("missing"), &tab, &err);

		check(ret == -ENOENT && !tab && strstr(err.msg, "missing"),
		      "missing file: -ENOENT, message names it (%s)", err.msg);
	}
	check_tmpdir_cleanup();
	return check_done();
}
