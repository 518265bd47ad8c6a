/* SPDX-License-Identifier: MIT */
/*
 * test_usdt.c - USDT notes (lib/probes/usdt.h): sites, prelink correction, file
 * offsets of probe and semaphore, the translation of every kind of
 * argument operand to uprobe fetchargs, the operands a uprobe cannot
 * fetch, and a program built with <sys/sdt.h> checked against readelf -n
 * (skipped when systemtap-sdt-dev is not installed).  Expected addresses
 * come from nm and readelf, never written in.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/uprobe.h"
#include "lib/probes/usdt.h"
#include "tests/unit/check.h"
#include "tests/unit/elf_tools.h"

/* A stapsdt note written by hand, as <sys/sdt.h> writes it, so that the
 * argument strings are exactly the ones under test. */
/* clang-format off */
#define NOTE(n, pc, base, sema, prov, name, args)                                                  \
	"\t.pushsection .note.stapsdt,\\\"\\\",@note\\n\t.balign 4\\n"                             \
	"\t.4byte 2" n "f-1" n "f, 4" n "f-3" n "f, 3\\n"                                          \
	"1" n ":\t.asciz \\\"stapsdt\\\"\\n"                                                       \
	"2" n ":\t.balign 4\\n"                                                                    \
	"3" n ":\t.8byte " pc "\\n\t.8byte " base "\\n\t.8byte " sema "\\n"                        \
	"\t.asciz \\\"" prov "\\\"\\n\t.asciz \\\"" name "\\\"\\n\t.asciz \\\"" args "\\\"\\n"     \
	"4" n ":\t.balign 4\\n\t.popsection\\n"

#define SITE(fn, label)                                                                            \
	"\t.text\\n\t.globl " fn "\\n\t.type " fn ",@function\\n" fn ":\\n" label ":\tnop\\n\tret\\n"

#define ALL_ARGS                                                                                   \
	"-4@%edi 8@%rsi -4@-12(%rbp) 8@$5 2@%ax 1@%ah -8@%r9 4@%r10d 8@cc(%rip) 8@(%rax) -2@$-3 "  \
	"1@%sil 4@cc+4(%rip) 8@0x10(%rip) -8@cc"

/* base + index * scale + displacement, as gcc writes them */
#define INDEX_ARGS "-4@-8(%rbp,%rcx,4) 8@(%rax,%rdx,8) -2@(,%rdx,2) 1@-88(%rsp,%r10,1) 8@%rdi 4@0x10(%r8,%rax)"

static const char notes_src[] =
    "unsigned short sema1 __attribute__((section(\".probes\")));\n"
    "long cc = 3;\n"
    "__asm__(\n"
    "\"" SITE("site1", "990") "\"\n"
    "\"" NOTE("0", "990b", "_.stapsdt.base", "sema1", "prov", "all", ALL_ARGS) "\"\n"
    /* written before a "prelink" moved the file by 0x100 */
    "\"" SITE("site2", "991") "\"\n"
    "\"" NOTE("1", "991b-0x100", "_.stapsdt.base-0x100", "0", "prov", "moved", "8@%rdi") "\"\n"
    "\"" SITE("site3", "992") "\"\n"
    "\"" NOTE("2", "992b", "_.stapsdt.base", "0", "prov", "index", "8@0x10(%rbx,%rcx,8)") "\"\n"
    "\"" NOTE("7", "992b", "_.stapsdt.base", "0", "prov", "indexes", INDEX_ARGS) "\"\n"
    "\"" NOTE("8", "992b", "_.stapsdt.base", "0", "prov", "badscale", "8@(%rax,%rdx,3)") "\"\n"
    "\"" NOTE("9", "992b", "_.stapsdt.base", "0", "prov", "spindex", "8@(%rax,%rsp,8)") "\"\n"
    "\"" NOTE("3", "992b", "_.stapsdt.base", "0", "prov", "fp", "8f@%xmm0") "\"\n"
    "\"" NOTE("5", "992b", "_.stapsdt.base", "0", "prov", "seg", "8@%fs:0x28") "\"\n"
    "\"" NOTE("6", "992b", "_.stapsdt.base", "0", "prov", "noargs", "") "\"\n"
    "\"\t.pushsection .stapsdt.base,\\\"aG\\\",@progbits,.stapsdt.base,comdat\\n"
    "\t.weak _.stapsdt.base\\n\t.hidden _.stapsdt.base\\n"
    "_.stapsdt.base:\t.space 1\\n\t.size _.stapsdt.base, 1\\n\t.popsection\\n\"\n"
    ");\n"
    "int main(void) { return sema1 + (int)cc; }\n";
/* clang-format on */

static const char sdt_src[] =
    "#define _SDT_HAS_SEMAPHORES 1\n"
    "#include <sys/sdt.h>\n"
    "#include <stdlib.h>\n"
    "unsigned short app_work_semaphore __attribute__((section(\".probes\")));\n"
    "unsigned short app_plain_semaphore __attribute__((section(\".probes\")));\n"
    "int glob = 11;\n"
    "static inline __attribute__((always_inline)) void work(int a, long b) { DTRACE_PROBE3(app, "
    "work, a, b, glob); }\n"
    "int main(int argc, char **argv)\n"
    "{ int x = argc > 1 ? atoi(argv[1]) : 1; work(x, 2L * x); work(x + 1, 7);\n"
    "  DTRACE_PROBE(app, plain); return 0; }\n";

static const struct utrace_usdt_probe *find(const struct utrace_usdt_list *l, const char *name,
					    size_t *idx)
{
	for (size_t i = 0; i < utrace_usdt_count(l); i++) {
		if (!strcmp(utrace_usdt_get(l, i)->name, name)) {
			*idx = i;
			return utrace_usdt_get(l, i);
		}
	}
	return NULL;
}

static void test_notes(void)
{
	const char *path = check_path("notes");
	struct utrace_error err = {0};
	const struct utrace_usdt_probe *s;
	struct utrace_usdt_list *l;
	struct utrace_uprobe *p;
	uint64_t site1 = nm_addr(path, "site1"), cc = nm_addr(path, "cc"), d;
	char buf[1024], expect[1024], line[2048];
	size_t i = 0;
	int n;

	if (utrace_usdt_load(path, &l, &err) < 0) {
		check(0, "notes: load: %s", err.msg);
		return;
	}
	check(utrace_usdt_count(l) == 9, "notes: 9 sites (%zu)", utrace_usdt_count(l));
	check(!strcmp(utrace_usdt_path(l), path), "notes: the absolute path");
	s = find(l, "all", &i);
	if (!s) {
		check(0, "notes: prov:all found");
		utrace_usdt_free(l);
		return;
	}
	check(!strcmp(s->provider, "prov") && !strcmp(s->args, ALL_ARGS),
	      "prov:all: provider and argument spec");
	check(s->pc == site1 && s->offset == readelf_offset(path, site1),
	      "prov:all: pc 0x%" PRIx64 " at file offset 0x%" PRIx64 " (nm, readelf)", s->pc,
	      s->offset);
	check(s->semaphore == nm_addr(path, "sema1") &&
		  s->sem_offset == readelf_offset(path, s->semaphore) && s->sem_offset,
	      "prov:all: semaphore 0x%" PRIx64 " at file offset 0x%" PRIx64, s->semaphore,
	      s->sem_offset);
	check(s->sem_offset != s->semaphore, "the semaphore's offset is not its address here");

	d = s->pc - s->offset;
	snprintf(expect, sizeof(expect),
		 "arg1=%%di:s32 arg2=%%si:u64 arg3=-12(%%bp):s32 arg4=\\5:u64 arg5=%%ax:u16 "
		 "arg6=%%ax:b8@8/16 arg7=%%r9:s64 arg8=%%r10:u32 arg9=@+0x%" PRIx64 ":u64 "
		 "arg10=+0(%%ax):u64 arg11=\\-3:s16 arg12=%%si:u8 arg13=@+0x%" PRIx64 ":u32 "
		 "arg14=@+0x%" PRIx64 ":u64 arg15=@+0x%" PRIx64 ":s64",
		 cc - d, cc + 4 - d, site1 + 1 + 0x10 - d, cc - d);
	n = utrace_usdt_fetchargs(l, i, buf, sizeof(buf), &err);
	check(n == (int)strlen(expect) && !strcmp(buf, expect),
	      "prov:all: fetchargs '%s' (got '%s'%s)", expect, n < 0 ? "" : buf,
	      n < 0 ? err.msg : "");
	check(utrace_usdt_fetchargs(l, i, buf, 10, &err) == n && strlen(buf) == 9,
	      "fetchargs: truncated, returns the length it needs");

	if (utrace_usdt_to_uprobe(l, i, NULL, NULL, &p, &err) < 0) {
		check(0, "prov:all: uprobe: %s", err.msg);
	} else {
		char want[2048];

		utrace_uprobe_kernel_line(p, line, sizeof(line));
		snprintf(want, sizeof(want), "p:utrace_usdt/all %s:0x%" PRIx64 "(0x%" PRIx64 ") %s",
			 path, s->offset, s->sem_offset, expect);
		check(!strcmp(line, want), "prov:all: uprobe '%s' (got '%s')", want, line);
		check(utrace_uprobe_ref_ctr_offset(p) == s->sem_offset, "ref_ctr_offset");
		utrace_uprobe_free(p);
	}
	if (utrace_usdt_to_uprobe(l, i, "utrace_77", "ev", &p, &err) == 0) {
		check(!strcmp(utrace_uprobe_group(p), "utrace_77") &&
			  !strcmp(utrace_uprobe_event(p), "ev"),
		      "to_uprobe: group and event given");
		utrace_uprobe_free(p);
	} else {
		check(0, "to_uprobe with names: %s", err.msg);
	}
	check(utrace_usdt_to_uprobe(l, i, "bad-group", NULL, &p, &err) == -EINVAL &&
		  !strcmp(err.msg, "prov:all: Group name must follow the same rules as C "
				   "identifiers: 'bad-group'"),
	      "to_uprobe: a bad group name: %s", err.msg);

	s = find(l, "moved", &i);
	check(s && s->pc == nm_addr(path, "site2") && s->offset == readelf_offset(path, s->pc),
	      "prov:moved: pc corrected by .stapsdt.base (prelink)");
	check(s && !s->semaphore && !s->sem_offset, "prov:moved: no semaphore");

	static const struct {
		const char *name, *why;
	} bad[] = {{"index", "an index register, which a kernel uprobe cannot fetch"},
		   {"fp", "not an integer argument"},
		   {"seg", "a segment cannot be fetched"}};
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
		s = find(l, bad[b].name, &i);
		n = s ? utrace_usdt_fetchargs(l, i, buf, sizeof(buf), &err) : 0;
		check(n == -EINVAL && strstr(err.msg, bad[b].why) && strstr(err.msg, "argument 1"),
		      "prov:%s: %s", bad[b].name, err.msg);
		check(s && utrace_usdt_to_uprobe(l, i, NULL, NULL, &p, &err) == -EINVAL,
		      "prov:%s: no uprobe", bad[b].name);
	}
	/* in-process: an index register is fetched; the rest as the kernel's */
	s = find(l, "all", &i);
	n = s ? utrace_usdt_fetchargs_in_process(l, i, buf, sizeof(buf), &err) : -1;
	check(n == (int)strlen(expect) && !strcmp(buf, expect),
	      "prov:all: in-process fetchargs are the kernel's (got '%s')", n < 0 ? err.msg : buf);
	s = find(l, "index", &i);
	n = s ? utrace_usdt_fetchargs_in_process(l, i, buf, sizeof(buf), &err) : -1;
	check(n > 0 && !strcmp(buf, "arg1=+16(%bx,%cx,8):u64"), "prov:index in-process: %s",
	      n < 0 ? err.msg : buf);
	s = find(l, "indexes", &i);
	n = s ? utrace_usdt_fetchargs_in_process(l, i, buf, sizeof(buf), &err) : -1;
	check(n > 0 && !strcmp(buf, "arg1=-8(%bp,%cx,4):s32 arg2=+0(%ax,%dx,8):u64 "
				    "arg3=+0(,%dx,2):s16 arg4=-88(%sp,%r10,1):u8 arg5=%di:u64 "
				    "arg6=+16(%r8,%ax,1):u32"),
	      "prov:indexes in-process: %s", n < 0 ? err.msg : buf);
	check(s && utrace_usdt_fetchargs(l, i, buf, sizeof(buf), &err) == -EINVAL &&
		  strstr(err.msg, "argument 1 '-4@-8(%rbp,%rcx,4)': an index register, which a "
				  "kernel uprobe cannot fetch"),
	      "prov:indexes for the kernel: %s", err.msg);
	s = find(l, "badscale", &i);
	check(s && utrace_usdt_fetchargs_in_process(l, i, buf, sizeof(buf), &err) == -EINVAL &&
		  strstr(err.msg, "bad scale"),
	      "prov:badscale: %s", err.msg);
	s = find(l, "spindex", &i);
	check(s && utrace_usdt_fetchargs_in_process(l, i, buf, sizeof(buf), &err) == -EINVAL &&
		  strstr(err.msg, "bad index register"),
	      "prov:spindex: %s", err.msg);

	s = find(l, "noargs", &i);
	check(s && utrace_usdt_fetchargs(l, i, buf, sizeof(buf), &err) == 0 && !buf[0],
	      "prov:noargs: no fetchargs");
	check(!utrace_usdt_get(l, utrace_usdt_count(l)) &&
		  utrace_usdt_fetchargs(l, 99, buf, sizeof(buf), &err) == -EINVAL,
	      "out of range");
	utrace_usdt_free(l);
}

/* readelf -n of one site: "PROV NAME LOC SEM ARGS" lines. */
static int readelf_notes(const char *path, char lines[][512], int max)
{
	char cmd[512], *out, *line, *save = NULL, prov[128] = "", name[128] = "";
	unsigned long long loc = 0, base, sem = 0;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	out = run(cmd);
	for (line = out ? strtok_r(out, "\n", &save) : NULL; line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " ");
		if (sscanf(line, "Provider: %127s", prov) == 1)
			continue;
		if (sscanf(line, "Name: %127s", name) == 1)
			continue;
		if (sscanf(line, "Location: 0x%llx, Base: 0x%llx, Semaphore: 0x%llx", &loc, &base,
			   &sem) == 3)
			continue;
		if (!strncmp(line, "Arguments:", 10)) {
			const char *a = line + 10 + strspn(line + 10, " ");

			snprintf(lines[n++], 512, "%s %s %llx %llx %s", prov, name, loc, sem, a);
		}
	}
	free(out);
	return n;
}

static void test_sdt(void)
{
	const char *path = check_path("sdtprog");
	struct utrace_error err = {0};
	struct utrace_usdt_list *l;
	char want[8][512];
	int n, same = 1, works = 0;
	struct utrace_uprobe *first = NULL;

	if (check_build(check_cc(), "sdtprog", NULL, sdt_src, "-O0") < 0) {
		check_skip("USDT program built with <sys/sdt.h>",
			   "no <sys/sdt.h> (apt-get install systemtap-sdt-dev)");
		return;
	}
	if (utrace_usdt_load(path, &l, &err) < 0) {
		check(0, "sdt: load: %s", err.msg);
		return;
	}
	n = readelf_notes(path, want, 8);
	check(n == 3 && utrace_usdt_count(l) == (size_t)n, "sdt: %d sites as readelf -n says", n);
	for (int i = 0; i < n && (size_t)i < utrace_usdt_count(l); i++) {
		const struct utrace_usdt_probe *s = utrace_usdt_get(l, (size_t)i);
		char got[512];

		snprintf(got, sizeof(got), "%s %s %" PRIx64 " %" PRIx64 " %s", s->provider, s->name,
			 s->pc, s->semaphore, s->args);
		check(!strcmp(got, want[i]), "sdt: site %d '%s' (got '%s')", i, want[i], got);
	}
	/* Both sites of app:work: one event, so same names and types. */
	for (size_t i = 0; i < utrace_usdt_count(l); i++) {
		const struct utrace_usdt_probe *s = utrace_usdt_get(l, i);
		struct utrace_uprobe *p;

		if (strcmp(s->name, "work"))
			continue;
		check(s->semaphore == nm_addr(path, "app_work_semaphore") &&
			  s->sem_offset == readelf_offset(path, s->semaphore),
		      "sdt: app:work's semaphore at file offset 0x%" PRIx64, s->sem_offset);
		if (utrace_usdt_to_uprobe(l, i, NULL, NULL, &p, &err) < 0) {
			check(0, "sdt: app:work: %s", err.msg);
			continue;
		}
		works++;
		if (!first) {
			first = p;
			continue;
		}
		for (unsigned a = 0; a < utrace_uprobe_nargs(p); a++)
			same &=
			    utrace_uprobe_nargs(p) == utrace_uprobe_nargs(first) &&
			    !strcmp(utrace_uprobe_arg_name(p, a),
				    utrace_uprobe_arg_name(first, a)) &&
			    !strcmp(utrace_uprobe_arg_type(p, a), utrace_uprobe_arg_type(first, a));
		utrace_uprobe_free(p);
	}
	check(works == 2 && same && first && utrace_uprobe_nargs(first) == 3,
	      "sdt: two sites of app:work with the same three arguments");
	utrace_uprobe_free(first);
	utrace_usdt_free(l);
}

static void test_files(void)
{
	struct utrace_error err = {0};
	struct utrace_usdt_list *l = NULL;

	check(check_build(check_cc(), "plain", NULL, "int main(void) { return 0; }\n", "") == 0 &&
		  utrace_usdt_load(check_path("plain"), &l, &err) == 0 && utrace_usdt_count(l) == 0,
	      "a program without notes: no sites");
	utrace_usdt_free(l);
	check(utrace_usdt_load(check_path("plain.c"), &l, &err) == -ENOEXEC && !l &&
		  strstr(err.msg, "plain.c"),
	      "not ELF: %s", err.msg);
	check(utrace_usdt_load(check_path("none"), &l, &err) == -ENOENT && !l, "no file: %s",
	      err.msg);
}

int main(void)
{
	if (!check_have("nm") || !check_have("readelf")) {
		check_skip("USDT notes", "nm or readelf (binutils) missing");
		return 0;
	}
	if (check_tmpdir_init("usdt") < 0 ||
	    check_build(check_cc(), "notes", NULL, notes_src, "-fPIE -pie") < 0) {
		check(0, "fixture builds in %s", check_tmpdir());
		check_tmpdir_cleanup();
		return check_done();
	}
	test_notes();
	test_sdt();
	test_files();
	check_tmpdir_cleanup();
	return check_done();
}
