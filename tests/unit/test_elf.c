/* SPDX-License-Identifier: MIT */
/*
 * test_elf.c - the ELF reader and call site extraction, on fixture
 * programs compiled at run time ($UTRACE_TEST_CC, default cc; clang too
 * when installed), and on corrupt files, which must give errors, not
 * faults.
 *
 * The key check: a fixture prints its own relocated call site section as
 * the runtime will read it (slot value - load bias, in slot order), and
 * utrace_elf_call_sites() must return exactly that list.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/proto.h"
#include "lib/elf/callsite.h"
#include "lib/elf/elf.h"
#include "lib/elf/symtab.h"
#include "tests/unit/check.h"
#include "tests/unit/elf_tools.h"

/* A program that prints its own call sites, relocated, minus the bias. */
static const char self_src[] = "#define _GNU_SOURCE\n"
			       "#include <link.h>\n"
			       "#include <stdio.h>\n"
			       "#include <stdint.h>\n"
			       "#ifdef MCOUNT\n"
			       "#define SEC(x) x##___mcount_loc\n"
			       "#else\n"
			       "#define SEC(x) x##___patchable_function_entries\n"
			       "#endif\n"
			       "extern const uint64_t SEC(__start)[] __attribute__((weak));\n"
			       "extern const uint64_t SEC(__stop)[] __attribute__((weak));\n"
			       "static int cb(struct dl_phdr_info *i, size_t s, void *d)\n"
			       "{ *(uintptr_t *)d = i->dlpi_addr; return 1; }\n"
			       "static int __attribute__((noinline)) foo(int x) { return x * 3; }\n"
			       "int bar(int y) { return foo(y) + 1; }\n"
			       "int main(void) {\n"
			       "  uintptr_t bias = 0;\n"
			       "  dl_iterate_phdr(cb, &bias);\n"
			       "  for (const uint64_t *p = SEC(__start); p < SEC(__stop); p++)\n"
			       "    printf(\"%lx\\n\", (unsigned long)(*p - bias));\n"
			       "  return bar(0) == 1 ? 0 : 1;\n"
			       "}\n";

/* Same from a shared library: lib_report() prints the library's sites. */
static const char lib_src[] =
    "#define _GNU_SOURCE\n"
    "#include <dlfcn.h>\n"
    "#include <stdio.h>\n"
    "#include <stdint.h>\n"
    "extern const uint64_t __start___patchable_function_entries[]\n"
    "  __attribute__((weak, visibility(\"hidden\")));\n"
    "extern const uint64_t __stop___patchable_function_entries[]\n"
    "  __attribute__((weak, visibility(\"hidden\")));\n"
    "int lib_a(int x) { return x + 1; }\n"
    "static int __attribute__((noinline)) lib_b(int x) { return x * 2; }\n"
    "int lib_c(int x) { return lib_b(x) + lib_a(x); }\n"
    "void lib_report(void) {\n"
    "  Dl_info info; dladdr((void *)lib_report, &info);\n"
    "  uintptr_t bias = (uintptr_t)info.dli_fbase;\n"
    "  for (const uint64_t *p = __start___patchable_function_entries;\n"
    "       p < __stop___patchable_function_entries; p++)\n"
    "    printf(\"%lx\\n\", (unsigned long)(*p - bias));\n"
    "}\n";

static const char libmain_src[] = "void lib_report(void);\n"
				  "int main(void) { lib_report(); return 0; }\n";

/* Reads the hex lines a fixture printed; returns the count. */
static size_t read_hex(const char *name, uint64_t *v, size_t max)
{
	FILE *f = fopen(check_path(name), "r");
	unsigned long x;
	size_t n = 0;

	if (!f)
		return 0;
	while (n < max && fscanf(f, "%lx", &x) == 1)
		v[n++] = x;
	fclose(f);
	return n;
}

/* Every site must fall at offset 0 (or 4, after endbr64) of a function;
 * returns how many of want[] (function names) were found. */
static int sites_in_functions(const char *file, const uint64_t *sites, size_t n,
			      const char *const *want)
{
	struct utrace_symtab *tab;
	struct utrace_error err;
	int found = 0, bad = 0;

	if (utrace_symtab_load(check_path(file), &tab, &err) < 0) {
		check(0, "%s: symtab: %s", file, err.msg);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t off = 99;
		const struct utrace_sym *s = utrace_symtab_lookup(tab, sites[i], &off);

		if (!s || (off != 0 && off != 4))
			bad++;
	}
	for (int w = 0; want[w]; w++) {
		for (size_t i = 0; i < n; i++) {
			const struct utrace_sym *s = utrace_symtab_lookup(tab, sites[i], NULL);

			if (s && !strcmp(s->name, want[w])) {
				found++;
				break;
			}
		}
	}
	check(bad == 0, "%s: every call site is at the start of a function", file);
	utrace_symtab_free(tab);
	return found;
}

/* Builds a variant of the self-reporting fixture and compares. */
static void self_variant(const char *label, const char *cc, const char *flags, unsigned want_kind,
			 int type)
{
	static const char *const funcs[] = {"foo", "bar", "main", NULL};
	char out[64], cmd[1024];
	uint64_t mem[64], *sites = NULL;
	struct utrace_elf *elf;
	struct utrace_error err = {0};
	size_t nmem, n = 0;
	unsigned kind = 99;
	int same;

	snprintf(out, sizeof(out), "self_%s", label);
	for (char *p = out; *p; p++)
		if (*p == ' ' || *p == '-')
			*p = '_';
	if (check_build(cc, out, NULL, self_src, flags) < 0) {
		check_skip(label, "compiler does not support these flags");
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s > %s.out", check_path(out), check_path(out));
	if (system(cmd) != 0) {
		check(0, "%s: fixture runs", label);
		return;
	}
	nmem = read_hex(strcat(strcpy(cmd, out), ".out"), mem, 64);
	if (utrace_elf_open(check_path(out), &elf) < 0) {
		check(0, "%s: utrace_elf_open", label);
		return;
	}
	check(utrace_elf_type(elf) == type, "%s: ELF type %d", label, type);
	check(utrace_elf_call_sites(elf, &sites, &n, &kind, NULL, &err) == 0, "%s: call sites read",
	      label);
	check(kind == want_kind, "%s: kind %u", label, want_kind);
	same = n == nmem && n >= 3;
	for (size_t i = 0; same && i < n; i++)
		same = sites[i] == mem[i];
	check(same, "%s: %zu sites match the relocated section in memory, in order (%zu)", label, n,
	      nmem);
	check(sites_in_functions(out, sites, n, funcs) == 3, "%s: sites of foo, bar, main", label);
	free(sites);
	utrace_elf_close(elf);
}

static void test_fixtures(void)
{
	const char *cc = check_cc();
	const char *pf = "-fpatchable-function-entry=5";
	char flags[256];

	snprintf(flags, sizeof(flags), "%s -fPIE -pie", pf);
	self_variant("cc pie", cc, flags, 0, ET_DYN);
	snprintf(flags, sizeof(flags), "%s -fno-pie -no-pie", pf);
	self_variant("cc no-pie", cc, flags, 0, ET_EXEC);
	snprintf(flags, sizeof(flags), "%s -fPIE -pie -Wl,-z,pack-relative-relocs", pf);
	self_variant("cc relr", cc, flags, 0, ET_DYN);
	snprintf(flags, sizeof(flags), "%s -fPIE -pie -fcf-protection", pf);
	self_variant("cc endbr", cc, flags, 0, ET_DYN);
	self_variant("cc mcount", cc,
		     "-DMCOUNT -pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie -no-pie",
		     UTRACE_OBJ_MCOUNT, ET_EXEC);
	if (check_have("clang")) {
		snprintf(flags, sizeof(flags), "%s -fPIE -pie", pf);
		self_variant("clang pie", "clang", flags, 0, ET_DYN);
		snprintf(flags, sizeof(flags), "%s -fPIE -pie -fuse-ld=lld", pf);
		self_variant("clang lld", "clang", flags, 0, ET_DYN);
	} else {
		check_skip("clang fixtures", "clang not installed");
	}
}

static void test_shared_lib(void)
{
	static const char *const funcs[] = {"lib_a", "lib_b", "lib_c", NULL};
	char flags[512];
	uint64_t mem[64], *sites = NULL;
	struct utrace_elf *elf;
	struct utrace_error err = {0};
	size_t nmem, n = 0;
	unsigned kind;
	int same;

	if (check_build(check_cc(), "libself.so", NULL, lib_src,
			"-shared -fPIC -fpatchable-function-entry=5 -ldl") < 0) {
		check(0, "shared library fixture builds");
		return;
	}
	snprintf(flags, sizeof(flags), "-L%s -lself -Wl,-rpath,%s -ldl", check_tmpdir(),
		 check_tmpdir());
	if (check_build(check_cc(), "libmain", NULL, libmain_src, flags) < 0 ||
	    system(strcat(strcat(strcpy(flags, check_path("libmain")), " > "),
			  check_path("libmain.out"))) != 0) {
		check(0, "shared library fixture runs");
		return;
	}
	nmem = read_hex("libmain.out", mem, 64);
	if (utrace_elf_open(check_path("libself.so"), &elf) < 0) {
		check(0, "shared library: open");
		return;
	}
	check(utrace_elf_type(elf) == ET_DYN, "shared library: ET_DYN");
	check(utrace_elf_call_sites(elf, &sites, &n, &kind, NULL, &err) == 0 && kind == 0,
	      "shared library: call sites read");
	same = n == nmem && n >= 3;
	for (size_t i = 0; same && i < n; i++)
		same = sites[i] == mem[i];
	check(same, "shared library: %zu sites match memory, in order", n);
	check(sites_in_functions("libself.so", sites, n, funcs) == 3,
	      "shared library: sites of lib_a, lib_b, lib_c");
	free(sites);
	utrace_elf_close(elf);

	/* An object file is not linked: call sites are refused. */
	if (check_build(check_cc(), "obj.o", NULL, lib_src,
			"-c -fPIC -fpatchable-function-entry=5") == 0 &&
	    utrace_elf_open(check_path("obj.o"), &elf) == 0) {
		int ret = utrace_elf_call_sites(elf, &sites, &n, &kind, NULL, &err);

		check(ret < 0 && strstr(err.msg, "obj.o"), "ET_REL: call sites refused (%s)",
		      err.msg);
		utrace_elf_close(elf);
	} else {
		check(0, "object file fixture builds");
	}
}

/* --libcall's imports: exactly the JUMP_SLOT relocations readelf lists,
 * in its order, named; with lazy binding each slot's file contents lead
 * into the PLT (the resolver entry the runtime must not take for a bound
 * target). */
struct imp_acc {
	char list[4096];
	uint64_t initial[64];
	size_t n;
};

static int imp_add(void *arg, const struct utrace_elf_import *imp)
{
	struct imp_acc *a = arg;
	size_t len = strlen(a->list);

	snprintf(a->list + len, sizeof(a->list) - len, "%llx %s\n", (unsigned long long)imp->slot,
		 imp->name);
	if (a->n < 64)
		a->initial[a->n] = imp->initial;
	a->n++;
	return 0;
}

static void imports_variant(const char *label, const char *flags)
{
	static const char src[] = "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
				  "int main(int c, char **v) { puts(v[0]); "
				  "return (int)strlen(v[0]) + abs(c) + atoi(\"1\"); }\n";
	char cmd[512], *want;
	static struct imp_acc a;
	struct utrace_elf_section plt;
	struct utrace_elf *elf;
	int in_plt = 1, ret;

	memset(&a, 0, sizeof(a));
	if (check_build(check_cc(), "imports", NULL, src, flags) < 0 ||
	    utrace_elf_open(check_path("imports"), &elf) < 0) {
		check(0, "imports %s: fixture builds and opens", label);
		return;
	}
	ret = utrace_elf_imports(elf, imp_add, &a);
	check(ret == (int)a.n && a.n >= 3, "imports %s: %d imports", label, ret);
	snprintf(cmd, sizeof(cmd),
		 "readelf -rW '%s' | awk '$3 ~ /JUMP_SLOT/ { sub(/^0+/, \"\", $1); "
		 "sub(/@.*/, \"\", $5); print $1, $5 }'",
		 check_path("imports"));
	want = run(cmd);
	check(want && !strcmp(want, a.list), "imports %s: readelf's JUMP_SLOTs, in order", label);
	if (want && strcmp(want, a.list))
		printf("#   got:\n%s#   readelf:\n%s", a.list, want);
	if (strstr(flags, "lazy") && utrace_elf_find_section(elf, ".plt", &plt) == 0) {
		for (size_t i = 0; i < a.n && i < 64; i++)
			in_plt &= a.initial[i] >= plt.vaddr && a.initial[i] < plt.vaddr + plt.size;
		check(in_plt, "imports %s: lazy slots lead into .plt", label);
	}
	free(want);
	utrace_elf_close(elf);
}

static void test_imports(void)
{
	imports_variant("pie lazy", "-fpie -pie -Wl,-z,lazy");
	imports_variant("pie now", "-fpie -pie -Wl,-z,now");
	imports_variant("no-pie lazy", "-fno-pie -no-pie -Wl,-z,lazy");
}

static int imp_count(void *arg, const struct utrace_elf_import *imp)
{
	*(volatile size_t *)arg += strlen(imp->name);
	return 0;
}

/* Runs every reader over an opened (possibly corrupt) file. */
static void exercise(struct utrace_elf *elf)
{
	struct utrace_elf_section sec;
	struct utrace_symtab *tab;
	struct utrace_error err;
	volatile size_t sink = 0;
	const char *name;
	uint64_t *sites;
	size_t n;
	unsigned kind;

	for (size_t i = 0; i < utrace_elf_section_count(elf); i++) {
		if (utrace_elf_section(elf, i, &sec, &name) < 0)
			continue;
		sink += strlen(name);
		if (utrace_elf_section_data(elf, &sec))
			sink++;
		if (sec.type == SHT_SYMTAB || sec.type == SHT_DYNSYM) {
			struct utrace_elf_sym sym;

			for (size_t s = 0; s < utrace_elf_sym_count(elf, &sec); s++)
				if (utrace_elf_sym(elf, &sec, s, &sym) == 0)
					sink += strlen(sym.name);
		}
		if (sec.type == SHT_RELA) {
			struct utrace_elf_rela r;

			for (size_t s = 0; s < utrace_elf_rela_count(elf, &sec); s++)
				if (utrace_elf_rela(elf, &sec, s, &r) == 0)
					sink += r.type;
		}
	}
	if (utrace_elf_call_sites(elf, &sites, &n, &kind, NULL, &err) == 0)
		free(sites);
	utrace_elf_imports(elf, imp_count, (void *)&sink);
	if (utrace_symtab_load_elf(elf, &tab, &err) == 0) {
		for (size_t i = 0; i < utrace_symtab_count(tab); i++)
			sink += strlen(utrace_symtab_get(tab, i)->name);
		utrace_symtab_lookup(tab, 0x1000, NULL);
		utrace_symtab_free(tab);
	}
	(void)sink;
}

/* Writes buf to a file and opens it; exercises it if it opened. */
static int try_open(const char *name, const void *buf, size_t len, struct utrace_elf **out)
{
	struct utrace_elf *elf = NULL;
	int ret;

	check_write_file(name, buf, len);
	ret = utrace_elf_open(check_path(name), &elf);
	if (ret == 0) {
		exercise(elf);
		if (out)
			*out = elf;
		else
			utrace_elf_close(elf);
	}
	return ret;
}

/* Section header of the section called name in an ELF image, or NULL. */
static Elf64_Shdr *shdr_of(unsigned char *img, const char *name)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + eh->e_shoff);
	const char *names = (const char *)img + sh[eh->e_shstrndx].sh_offset;

	for (int i = 0; i < eh->e_shnum; i++)
		if (!strcmp(names + sh[i].sh_name, name))
			return &sh[i];
	return NULL;
}

/* Copies the pristine image, runs stmt to corrupt it, and expects an
 * error from open (want_open < 0) or from call sites. */
#define CORRUPT(label, stmt, want_open)                                                            \
	do {                                                                                       \
		unsigned char *img = malloc(len);                                                  \
		Elf64_Ehdr *eh = (Elf64_Ehdr *)img;                                                \
		struct utrace_elf *e = NULL;                                                       \
		int r;                                                                             \
		memcpy(img, orig, len);                                                            \
		(void)eh;                                                                          \
		stmt;                                                                              \
		r = try_open("corrupt", img, len, &e);                                             \
		check((want_open) ? r == (want_open) : r == 0, "corrupt: %s (open returns %d)",    \
		      label, r);                                                                   \
		if (e) {                                                                           \
			uint64_t *s = NULL;                                                        \
			size_t ns;                                                                 \
			unsigned k;                                                                \
			struct utrace_error er = {0};                                              \
			int cr = utrace_elf_call_sites(e, &s, &ns, &k, NULL, &er);                       \
			if (expect_site_err)                                                       \
				check(cr < 0 && er.msg[0], "corrupt: %s: call sites: %s", label,   \
				      er.msg);                                                     \
			free(s);                                                                   \
			utrace_elf_close(e);                                                       \
		}                                                                                  \
		free(img);                                                                         \
	} while (0)

static void test_corrupt(void)
{
	static const char text[] = "#!/bin/sh\necho this is not an ELF file at all, really.\n"
				   "padding padding padding padding padding padding\n";
	struct utrace_elf *elf = NULL;
	unsigned char *orig;
	int expect_site_err = 0;
	const char *iters_env = getenv("UTRACE_FUZZ_ITERS");
	int iters = iters_env ? atoi(iters_env) : 2000;
	unsigned seed = 12345;
	size_t len;

	if (check_build(check_cc(), "victim", NULL, self_src,
			"-fpatchable-function-entry=5 -fPIE -pie") < 0 ||
	    !(orig = check_slurp(check_path("victim"), &len))) {
		check(0, "corrupt: victim fixture builds");
		return;
	}
	check(try_open("empty", "", 0, NULL) == -ENOEXEC, "corrupt: empty file");
	check(try_open("short", orig, 10, NULL) == -ENOEXEC, "corrupt: 10-byte file");
	check(try_open("text", text, sizeof(text) - 1, NULL) == -ENOEXEC, "corrupt: text file");
	check(try_open("trunc200", orig, 200, NULL) == -ENOEXEC, "corrupt: truncated to 200 bytes");
	check(try_open("trunchalf", orig, len / 2, NULL) == -ENOEXEC, "corrupt: truncated to half");
	check(try_open("trunc1", orig, len - 1, NULL) == -ENOEXEC,
	      "corrupt: truncated by one byte (section headers are last)");
	check(utrace_elf_open(check_tmpdir(), &elf) == -EISDIR, "a directory: -EISDIR");
	check(utrace_elf_open(check_path("does-not-exist"), &elf) == -ENOENT && !elf,
	      "missing file: -ENOENT");

	CORRUPT("32-bit class", img[EI_CLASS] = ELFCLASS32, -ENOEXEC);
	CORRUPT("big-endian", img[EI_DATA] = ELFDATA2MSB, -ENOEXEC);
	CORRUPT("e_shoff past the end", eh->e_shoff = len + 64, -ENOEXEC);
	CORRUPT("e_shoff overflows", eh->e_shoff = ~0ull - 8, -ENOEXEC);
	CORRUPT("e_shnum too large", eh->e_shnum = 0xffff, -ENOEXEC);
	CORRUPT("e_shentsize too small", eh->e_shentsize = 10, -ENOEXEC);
	CORRUPT("extended e_shnum huge",
		(eh->e_shnum = 0, ((Elf64_Shdr *)(img + eh->e_shoff))->sh_size = 1ull << 40),
		-ENOEXEC);
	CORRUPT("e_shstrndx out of range", eh->e_shstrndx = 9999, 0);
	CORRUPT("no section headers", (eh->e_shoff = 0, eh->e_shnum = 0), 0);
	expect_site_err = 1;
	CORRUPT("call site section offset past the end",
		shdr_of(img, "__patchable_function_entries")->sh_offset = ~0ull - 4, 0);
	CORRUPT("call site section size past the end",
		shdr_of(img, "__patchable_function_entries")->sh_size = 1ull << 50, 0);
	CORRUPT("call site section size not a multiple of 8",
		shdr_of(img, "__patchable_function_entries")->sh_size = 13, 0);
	expect_site_err = 0;
	CORRUPT(".symtab linked to a bogus string table", shdr_of(img, ".symtab")->sh_link = 9999,
		0);
	CORRUPT(".symtab offset past the end", shdr_of(img, ".symtab")->sh_offset = len, 0);
	CORRUPT(".strtab size overflows", shdr_of(img, ".strtab")->sh_size = ~0ull, 0);
	CORRUPT(".rela.dyn offset past the end", shdr_of(img, ".rela.dyn")->sh_offset = ~0ull, 0);
	CORRUPT(".rela.dyn linked to a bogus symtab", shdr_of(img, ".rela.dyn")->sh_link = 7777, 0);
	CORRUPT(".shstrtab size huge", shdr_of(img, ".shstrtab")->sh_size = ~0ull, 0);

	/* Random damage to the headers: must never fault (ASan watches). */
	for (int iter = 0; iter < iters; iter++) {
		unsigned char *img = malloc(len);
		Elf64_Ehdr *eh = (Elf64_Ehdr *)orig;
		int nbytes;

		memcpy(img, orig, len);
		seed = seed * 1103515245u + 12345u;
		nbytes = 1 + (int)((seed >> 16) % 8);
		for (int b = 0; b < nbytes; b++) {
			size_t at;

			seed = seed * 1103515245u + 12345u;
			switch ((seed >> 16) % 3) {
			case 0: /* the ELF header */
				at = (seed >> 18) % sizeof(Elf64_Ehdr);
				break;
			case 1: /* the section headers */
				at = (size_t)eh->e_shoff +
				     (seed >> 18) % ((size_t)eh->e_shnum * sizeof(Elf64_Shdr));
				break;
			default: /* anywhere: symbols, relocations, strings */
				at = (seed >> 18) % len;
				break;
			}
			seed = seed * 1103515245u + 12345u;
			img[at % len] = (seed & 0x30000) ? (unsigned char)(seed >> 20) : 0xff;
		}
		try_open("fuzz", img, len, NULL);
		free(img);
	}
	check(1, "corrupt: %d randomly damaged files read without a fault", iters);
	free(orig);
}

static void test_basics(void)
{
	struct utrace_elf_section sec;
	struct utrace_elf *elf;
	uint64_t size;

	if (check_build(check_cc(), "basic", NULL, self_src, "-fpatchable-function-entry=5") < 0 ||
	    utrace_elf_open(check_path("basic"), &elf) < 0) {
		check(0, "basic fixture builds and opens");
		return;
	}
	size = utrace_elf_size(elf);
	check(utrace_elf_find_section(elf, ".text", &sec) == 0 && sec.size > 0 &&
		  sec.type == SHT_PROGBITS && (sec.flags & SHF_EXECINSTR),
	      "find_section .text");
	check(utrace_elf_find_section(elf, ".no-such-section", &sec) == -ENOENT,
	      "find_section of a missing name: -ENOENT");
	check(utrace_elf_data(elf, 0, size) != NULL, "data: whole file in bounds");
	check(utrace_elf_data(elf, 1, size) == NULL, "data: one byte past the end is NULL");
	check(utrace_elf_data(elf, ~0ull, 2) == NULL, "data: offset overflow is NULL");
	check(utrace_elf_data(elf, 2, ~0ull) == NULL, "data: size overflow is NULL");
	check(utrace_elf_machine(elf) == EM_X86_64 || utrace_elf_machine(elf) == EM_AARCH64,
	      "machine");
	check(!strcmp(utrace_elf_path(elf), check_path("basic")), "path kept");
	utrace_elf_close(elf);
}

/* The separate debug file by build id: libc's where libc6-dbg installed
 * it (found, opened, its .symtab there; the debug file has none of its
 * own), none for an object without one. */
static void test_debug_file(void)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	struct utrace_elf *elf, *dbg = NULL, *self;
	struct utrace_elf_section sec;
	char want[256], got[256];
	uint8_t id[64];
	int len, k;

	if (utrace_elf_open("/proc/self/exe", &self) == 0) {
		check(utrace_elf_debug_path(self, got, sizeof(got)) == -ENOENT &&
			      utrace_elf_open_debug(self, &dbg) == -ENOENT && !dbg,
		      "debug file: none for the test itself");
		utrace_elf_close(self);
	}
	if (utrace_elf_open(libc, &elf) < 0) {
		check_skip("debug file of libc", "no /lib/x86_64-linux-gnu/libc.so.6");
		return;
	}
	len = utrace_elf_build_id(elf, id, sizeof(id));
	k = snprintf(want, sizeof(want), "/usr/lib/debug/.build-id/%02x/", len > 0 ? id[0] : 0);
	for (int i = 1; i < len; i++)
		k += snprintf(want + k, sizeof(want) - (size_t)k, "%02x", id[i]);
	snprintf(want + k, sizeof(want) - (size_t)k, ".debug");
	if (len < 2 || access(want, R_OK) != 0) {
		check_skip("debug file of libc", "libc6-dbg is not installed");
		utrace_elf_close(elf);
		return;
	}
	check(utrace_elf_debug_path(elf, got, sizeof(got)) == 0 && !strcmp(got, want),
	      "debug file: libc's by its build id (%s)", want);
	check(utrace_elf_debug_path(elf, got, 64) == -ENOENT, "debug file: no room, none");
	check(utrace_elf_open_debug(elf, &dbg) == 0 && dbg &&
		      utrace_elf_find_section(dbg, ".symtab", &sec) == 0,
	      "debug file: opened, its .symtab there");
	if (dbg) {
		check(utrace_elf_debug_path(dbg, got, sizeof(got)) == -ENOENT,
		      "debug file: the debug file's own is none");
		utrace_elf_close(dbg);
	}
	utrace_elf_close(elf);
}

int main(void)
{
	if (check_tmpdir_init("elf") < 0) {
		printf("not ok - mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_basics();
	test_fixtures();
	test_shared_lib();
	test_imports();
	test_corrupt();
	test_debug_file();
	check_tmpdir_cleanup();
	return check_done();
}
