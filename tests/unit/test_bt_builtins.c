/* SPDX-License-Identifier: MIT */
/*
 * test_bt_builtins.c - the builtins and functions of bpftrace that utrace
 * bt gained after its first suite runs (strcontains, ...), as whole
 * programs through utrace_bt_run: their output byte for byte against
 * bpftrace 0.17's for the same program (copied from `bpftrace -e PROG`).
 */
#include <dirent.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/bt/bt.h"
#include "lib/bt/bt_ast.h"
#include "tests/unit/check.h"

static int run_cmd(const char *src, char **argv, char **out, struct utrace_error *err)
{
	struct utrace_bt_opts o = {.text = src, .name = "stdin", .log = stderr, .argv = argv};
	size_t len = 0;
	int ret;

	o.out = open_memstream(out, &len);
	if (!o.out)
		return -1;
	ret = utrace_bt_run(&o, err);
	fclose(o.out);
	return ret;
}

static int run(const char *src, char **out, struct utrace_error *err)
{
	return run_cmd(src, NULL, out, err);
}

/* The node of cpu as sysfs links it, -1 if none. */
static int cpu_node(int cpu)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int node = -1;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	if (!(d = opendir(path)))
		return -1;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9')
			node = atoi(e->d_name + 4);
	closedir(d);
	return node;
}

static void test_builtins(void)
{
	struct utrace_error err = {0};
	struct passwd *pw = getpwuid(getuid());
	char *out = NULL, name[64] = "", file[] = "/tmp/utrace-bt-cpid-XXXXXX", cmd[128];
	int ret, node = -2, cpu = -2, cpid = -1, want = -2;
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	FILE *f;

	ret = run("i:ms:1 { printf(\"%s|%d|%d\\n\", username, numaid, cpu); exit(); }", &out, &err);
	check(ret == 0 && out && sscanf(out, "Attaching 1 probe...\n%63[^|]|%d|%d", name, &node,
					  &cpu) == 3 && pw && !strcmp(name, pw->pw_name) &&
		      node == cpu_node(cpu),
	      "username is the uid's name (%s), numaid the node of cpu: %s%s",
	      pw ? pw->pw_name : "?", out ? out : "", err.msg);
	free(out);
	out = NULL;
	/* the runtime the command is started with: build/libutrace.so, beside
	 * build/tests/ */
	if (!getenv("UTRACE_LIB")) {
		char exe[4096];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 32);

		if (n > 0) {
			exe[n] = 0;
			strcpy(strrchr(exe, '/'), "/../libutrace.so");
			setenv("UTRACE_LIB", exe, 1);
		}
	}
	close(mkstemp(file));
	snprintf(cmd, sizeof(cmd), "echo $$ > %s; sleep 1", file);
	ret = run_cmd("i:ms:500 { printf(\"%d\\n\", cpid); exit(); }", argv, &out, &err);
	f = fopen(file, "r");
	if (f && fscanf(f, "%d", &want) != 1)
		want = -3;
	if (f)
		fclose(f);
	unlink(file);
	check(ret == 0 && out && sscanf(out, "Attaching 1 probe...\n%d", &cpid) == 1 &&
		      cpid == want && cpid > 0,
	      "cpid is the pid of -c's command (%d): %s%s", want, out ? out : "", err.msg);
	free(out);
	out = NULL;
	ret = run("BEGIN { printf(\"%d\\n\", cpid); }", &out, &err);
	check(ret == 1 && !strcmp(err.msg, "stdin:1:24-28: ERROR: cpid cannot be used without "
					   "child command\nBEGIN { printf(\"%d\\n\", cpid); }\n"
					   "                       ~~~~"),
	      "cpid without -c: bpftrace's error: %s", err.msg);
	free(out);
}

/* join() of a uprobe's char ** (libc's execve's argv, read at the hit):
 * the strings up to the NULL, " " or the delimiter between, one line
 * each, as bpftrace's (a kernel event's char ** field: the kernel tier,
 * tests/kernel/bt_tracepoint.sh). */
static void test_join(void)
{
	struct utrace_error err = {0};
	char *out = NULL, *argv[] = {"/bin/sh", "-c", "/bin/true a bc", NULL};
	int ret = run_cmd("uprobe:/lib/x86_64-linux-gnu/libc.so.6:execve { join(arg1); "
			  "join(arg1, \"--\"); printf(\"%s|%s\\n\", str(*(uint64 *)(arg1 + 16)), "
			  "str(*(uint64 *)(arg1 + 16) + 1)); }",
			  argv, &out, &err);

	check(ret == 0 && out &&
		      !strcmp(out, "Attaching 1 probe...\n/bin/true a bc\n/bin/true--a--bc\nbc|c\n\n\n"),
	      "join() of execve's argv, str() of argv[2]: %s%s", out ? out : "", err.msg);
	free(out);
	out = NULL;
	ret = run("BEGIN { join(\"a\"); }", &out, &err);
	check(ret == 1 && !strcmp(err.msg, "stdin:1:9-18: ERROR: () only supports int or pointer "
					   "arguments (string provided)\nBEGIN { join(\"a\"); }\n"
					   "        ~~~~~~~~~"),
	      "join() of a string: bpftrace's error: %s", err.msg);
	free(out);
}

static const struct {
	const char *src, *want;
} golden[] = {
    /* strcontains(): "" is in every string; a scratch string too */
    {"BEGIN { printf(\"%d %d %d %d\\n\", strcontains(\"abc\", \"a\"), strcontains(\"abc\", "
     "\"bc\"), strcontains(\"abc\", \"x\"), strcontains(\"\", \"\")); $s = \"xyabab\"; "
     "printf(\"%d %d\\n\", strcontains($s, \"bab\"), strcontains($s, \"abb\")); exit(); }",
     "Attaching 1 probe...\n1 1 0 1\n1 0\n\n\n"},
    /* pton() in ntop(): the family's reading of pton's bytes, as bpftrace's
     * (ntop(2, pton("::1")) reads the first four of sixteen) */
    {"BEGIN { printf(\"%s|%s|%s|%s\\n\", ntop(2, pton(\"127.0.0.1\")), ntop(10, pton(\"::1\")), "
     "ntop(pton(\"fe80::1:2\")), ntop(2, pton(\"::1\"))); exit(); }",
     "Attaching 1 probe...\n127.0.0.1|::1|fe80::1:2|0.0.0.0\n\n\n"},
    /* while loops, nested; bpftrace's basic while loop */
    {"BEGIN { $a = 0; while ($a <= 100) { @=avg($a++) } exit(); }",
     "Attaching 1 probe...\n\n\n@: 50\n\n"},
    {"BEGIN { $i = 0; $n = 0; while ($i < 3) { $j = 0; while ($j < 4) { $n++; $j++; } $i++; } "
     "printf(\"%d\\n\", $n); exit(); }",
     "Attaching 1 probe...\n12\n\n\n"},
    /* a loop that does not end stops at the step budget, as an action that
     * faulted (bpftrace's verifier refuses it before the run): the next
     * probe runs */
    {"BEGIN { while (1) { } printf(\"never\\n\"); } BEGIN { printf(\"next\\n\"); exit(); }",
     "Attaching 2 probes...\nnext\n\n\n"},
};

/* --include FILE and -I DIR: the macros of a header and of what it
 * includes ("x" beside it), #undef, a value expanded again; strerror() of
 * errno.h's EPERM as bpftrace prints it. */
static void test_include(void)
{
	char dir[] = "/tmp/utrace-bt-inc-XXXXXX", path[64], *dirs[1] = {dir}, *incs[1] = {"a.h"};
	static const char *const files[][2] = {
	    {"a.h", "#ifndef A_H\n#define A_H\n#include \"b.h\"\n#define A (B + \\\n 1) /* a */\n"
		    "#define Z 7\n#undef Z\n#define F(x) x\n#endif\n"},
	    {"b.h", "#define B TWO * 20 + 1\n#define TWO 2\n#define SELF SELF\n"},
	};
	struct utrace_error err = {0};
	struct utrace_bt_opts o = {.name = "stdin", .log = stderr, .includes = incs, .nincludes = 1,
				   .include_dirs = dirs, .ninclude_dirs = 1};
	char *out = NULL;
	size_t len = 0;
	int ret = -1;

	if (!mkdtemp(dir))
		return;
	for (size_t i = 0; i < 2; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i][0]);
		if ((f = fopen(path, "w"))) {
			fputs(files[i][1], f);
			fclose(f);
		}
	}
	o.text = "#include <errno.h>\nBEGIN { $SELF = 1; printf(\"%d %d %s\\n\", A, $SELF, "
		 "strerror(EPERM)); print(strerror(ENOENT)); exit(); }";
	if ((o.out = open_memstream(&out, &len))) {
		ret = utrace_bt_run(&o, &err);
		fclose(o.out);
	}
	check(ret == 0 && out && !strcmp(out, "Attaching 1 probe...\n42 1 Operation not permitted\n"
					      "No such file or directory\n\n\n"),
	      "--include, -I: the header's macros: %s%s", out ? out : "", err.msg);
	free(out);
	out = NULL;
	o.text = "BEGIN { print(Z); }";
	if ((o.out = open_memstream(&out, &len))) {
		ret = utrace_bt_run(&o, &err);
		fclose(o.out);
	}
	check(ret == 1 && strstr(err.msg, "Unknown identifier: 'Z'"), "#undef: %s", err.msg);
	free(out);
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i][0]);
		unlink(path);
	}
	rmdir(dir);
}

/* uprobe:libNAME: the first x86-64 libc6 entry of an ld.so.cache whose
 * name starts with libNAME.so (a cache written here: its format is
 * glibc's 1.1, entries of flags, name and path offsets, os, hwcap). */
static void test_which_so(void)
{
	static const struct {
		int32_t flags;
		const char *name, *path;
	} libs[] = {
	    {0x0303, "libcrypt.so.1", "/l64/libcrypt.so.1"},
	    {0x0003, "libc.so.6", "/l32/libc.so.6"}, /* i386: not this arch */
	    {0x0303, "libc.so.6", "/l64/libc.so.6"},
	    {0x0303, "libc.so.5", "/l64/libc.so.5"},
	};
	char path[] = "/tmp/utrace-bt-ldcache-XXXXXX", *got;
	uint8_t head[48] = "glibc-ld.so.cache1.1", ent[4][24];
	char strs[256];
	uint32_t nlibs = 4, off = (uint32_t)(sizeof(head) + sizeof(ent)), n = 0;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f)
		return;
	memcpy(head + 20, &nlibs, 4);
	memset(ent, 0, sizeof(ent));
	for (unsigned i = 0; i < 4; i++) {
		uint32_t key = off + n, value;

		n += (uint32_t)snprintf(strs + n, sizeof(strs) - n, "%s", libs[i].name) + 1;
		value = off + n;
		n += (uint32_t)snprintf(strs + n, sizeof(strs) - n, "%s", libs[i].path) + 1;
		memcpy(ent[i], &libs[i].flags, 4);
		memcpy(ent[i] + 4, &key, 4);
		memcpy(ent[i] + 8, &value, 4);
	}
	fwrite(head, 1, sizeof(head), f);
	fwrite(ent, 1, sizeof(ent), f);
	fwrite(strs, 1, n, f);
	fclose(f);
	got = bt_which_so("c", path);
	check(got && !strcmp(got, "/l64/libc.so.6"), "libc: the x86-64 libc.so.6, got %s",
	      got ? got : "none");
	free(got);
	got = bt_which_so("crypt", path);
	check(got && !strcmp(got, "/l64/libcrypt.so.1"), "libcrypt, got %s", got ? got : "none");
	free(got);
	got = bt_which_so("nosuch", path);
	check(!got, "libnosuch: none, got %s", got ? got : "none");
	free(got);
	unlink(path);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		struct utrace_error err = {0};
		char *out = NULL;
		int ret = run(golden[i].src, &out, &err);

		check(ret == 0 && out && !strcmp(out, golden[i].want), "%s\nwant:\n%sgot:\n%s%s",
		      golden[i].src, golden[i].want, out ? out : "", err.msg);
		free(out);
	}
	test_builtins();
	test_join();
	{
		struct utrace_error err = {0};
		char *out = NULL;
		int ret = run("BEGIN { printf(\"%s\\n\", ntop(pton(\"1.2.3\"))); }", &out, &err);

		check(ret == 1 && strstr(err.msg, "ERROR: pton() expects a valid IPv4/IPv6 address, "
						  "got 1.2.3"),
		      "pton() of no address: bpftrace's error: %s", err.msg);
		free(out);
	}
	test_include();
	test_which_so();
	return check_done();
}
