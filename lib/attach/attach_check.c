/* SPDX-License-Identifier: MIT */
/*
 * attach_check.c - whether a running process can be attached to, found
 * out from /proc before anything touches it, and where its libc's dlopen,
 * dlsym and pthread_create are.
 *
 * Each refusal is one line that says what stands in the way (the table
 * below); the order is that of the kernel's own checks as ptrace would
 * meet them (no such process, Yama, another tracer, dumpable), then what
 * would make the injected code fail (seccomp, the runtime file or the
 * socket not visible from the process's mount namespace, not x86-64, no
 * libc with dlopen).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/attach/attach.h"
#include "lib/base/proc_self.h"
#include "lib/elf/elf.h"

/* The refusals: name, then the message (its printf arguments follow). */
#define ATTACH_REFUSALS(X)                                                                         \
	X(NO_PROCESS, "-P %d: no such process")                                                    \
	X(YAMA_NEVER, "-P %d: ptrace is disabled on this machine "                                 \
		      "(/proc/sys/kernel/yama/ptrace_scope is 3)")                                 \
	X(YAMA_ADMIN, "-P %d: only a process with CAP_SYS_PTRACE may attach "                      \
		      "(/proc/sys/kernel/yama/ptrace_scope is 2); run utrace as root")             \
	X(YAMA_CHILD, "-P %d: only a descendant of utrace may be attached to "                     \
		      "(/proc/sys/kernel/yama/ptrace_scope is 1): run utrace as root, or "         \
		      "'echo 0 > /proc/sys/kernel/yama/ptrace_scope'")                             \
	X(TRACED, "-P %d: traced already by process %d (%s): only one tracer may attach")          \
	X(OTHER_USER, "-P %d: belongs to another user (uid %u); run utrace as that user or root")  \
	X(NOT_DUMPABLE, "-P %d: not dumpable (setuid or prctl(PR_SET_DUMPABLE, 0)): its "          \
			"memory cannot be read or patched without CAP_SYS_PTRACE")                 \
	X(SECCOMP, "-P %d: runs under a seccomp %s (Seccomp: %d in /proc/%d/status): the "         \
		   "system calls of the injected code could be refused or kill it")                \
	X(MOUNT_NS, "-P %d: %s is not the same file in the process's mount namespace "             \
		    "(/proc/%d/root%s): it cannot load or reach it")                               \
	X(NOT_X86_64, "-P %d: %s is not an x86-64 program")                                        \
	X(NO_LIBC, "-P %d: no libc with dlopen and pthread_create is loaded in it (%s)")

enum attach_refusal {
#define X(name, fmt) ATTACH_##name,
	ATTACH_REFUSALS(X)
#undef X
};

static const char *const attach_fmt[] = {
#define X(name, fmt) [ATTACH_##name] = fmt,
    ATTACH_REFUSALS(X)
#undef X
};

#define refuse(err, code, which, ...)                                                              \
	utrace_error_set(err, code, attach_fmt[ATTACH_##which], __VA_ARGS__)

/* The value of key in /proc/PID/status ("" if absent). */
static void status_field(int pid, const char *key, char *out, size_t len)
{
	char path[64], line[512];
	size_t klen = strlen(key);
	FILE *f;

	out[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			char *v = line + klen + 1;

			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = 0;
			snprintf(out, len, "%s", v);
			break;
		}
	fclose(f);
}

static long status_num(int pid, const char *key)
{
	char v[256];

	status_field(pid, key, v, sizeof(v));
	return v[0] ? strtol(v, NULL, 10) : -1;
}

static bool self_has_cap_sys_ptrace(void)
{
	char v[64];

	status_field(getpid(), "CapEff", v, sizeof(v));
	return (strtoull(v, NULL, 16) >> 19) & 1; /* CAP_SYS_PTRACE */
}

static bool is_descendant(int pid)
{
	for (int p = pid, n = 0; p > 1 && n < 4096; n++) {
		if (p == getpid())
			return true;
		p = (int)status_num(p, "PPid");
	}
	return false;
}

/* Yama's ptrace_scope (Documentation/admin-guide/LSM/Yama.rst). */
static int check_yama(int id, struct utrace_error *err)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
	int scope = 0;

	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	if (scope >= 3)
		return refuse(err, -EPERM, YAMA_NEVER, id);
	if (scope == 2 && !self_has_cap_sys_ptrace())
		return refuse(err, -EPERM, YAMA_ADMIN, id);
	if (scope == 1 && !self_has_cap_sys_ptrace() && !is_descendant(id))
		return refuse(err, -EPERM, YAMA_CHILD, id);
	return 0;
}

/* Another tracer, another user, not dumpable: what PTRACE_SEIZE would
 * refuse.  The files of /proc/PID are owned by root when the process is
 * not dumpable (task_dump_owner; the folder itself may keep its owner). */
static int check_access(struct utrace_attach_target *t, int id, struct utrace_error *err)
{
	char v[256], path[64], comm[64] = "?";
	unsigned ruid, euid, suid, fsuid;
	struct stat st;
	long tracer = status_num(t->tid, "TracerPid");

	if (tracer <= 0)
		tracer = status_num(t->pid, "TracerPid");
	if (tracer > 0) {
		status_field((int)tracer, "Name", comm, sizeof(comm));
		return refuse(err, -EPERM, TRACED, id, (int)tracer, comm);
	}
	status_field(t->pid, "Uid", v, sizeof(v));
	if (sscanf(v, "%u %u %u %u", &ruid, &euid, &suid, &fsuid) != 4)
		return refuse(err, -ESRCH, NO_PROCESS, id);
	snprintf(path, sizeof(path), "/proc/%d/status", t->pid);
	if (stat(path, &st) < 0)
		return refuse(err, -ESRCH, NO_PROCESS, id);
	if (self_has_cap_sys_ptrace())
		return 0;
	if (ruid != geteuid() || euid != geteuid() || suid != geteuid())
		return refuse(err, -EPERM, OTHER_USER, id, euid);
	if (st.st_uid != euid)
		return refuse(err, -EPERM, NOT_DUMPABLE, id);
	return 0;
}

static int check_seccomp(const struct utrace_attach_target *t, int id, struct utrace_error *err)
{
	long mode = status_num(t->pid, "Seccomp");

	if (mode > 0)
		return refuse(err, -EPERM, SECCOMP, id, mode == 1 ? "strict mode" : "filter",
			      (int)mode, t->pid);
	return 0;
}

/* path must be the same file (device and inode) seen from the process. */
static int check_same_file(const struct utrace_attach_target *t, int id, const char *path,
			   struct utrace_error *err)
{
	char there[PATH_MAX + 64];
	struct stat a, b;

	snprintf(there, sizeof(there), "/proc/%d/root%s", t->pid, path);
	if (stat(path, &a) < 0 || stat(there, &b) < 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino)
		return refuse(err, -EPERM, MOUNT_NS, id, path, t->pid, path);
	return 0;
}

/* The runtime, and the directory of the socket (it is made later). */
static int check_mount_ns(const struct utrace_attach_target *t, int id, const char *runtime,
			  const char *sock, struct utrace_error *err)
{
	char dir[PATH_MAX], *slash;

	if (check_same_file(t, id, runtime, err) < 0)
		return err->code;
	snprintf(dir, sizeof(dir), "%s", sock);
	if ((slash = strrchr(dir, '/')) && slash != dir)
		*slash = 0;
	return check_same_file(t, id, dir, err);
}

static int check_machine(const struct utrace_attach_target *t, int id, struct utrace_error *err)
{
	char exe[64], name[PATH_MAX];
	struct utrace_elf *elf;
	int machine;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", t->pid);
	if (utrace_proc_exe(t->pid, name, sizeof(name)) < 0)
		name[0] = 0;
	if (utrace_elf_open(exe, &elf) < 0)
		return refuse(err, -EPERM, NOT_X86_64, id, name[0] ? name : exe);
	machine = utrace_elf_machine(elf);
	utrace_elf_close(elf);
	return machine == EM_X86_64 ? 0 : refuse(err, -EPERM, NOT_X86_64, id, name);
}

/* One line of /proc/PID/maps. */
struct map_line {
	uint64_t lo, hi, off;
	char perms[8];
	char path[PATH_MAX];
};

static bool map_parse(const char *line, struct map_line *m)
{
	unsigned long long lo, hi, off;
	int pos = 0;

	m->path[0] = 0;
	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi, m->perms, &off, &pos) < 4)
		return false;
	m->lo = lo;
	m->hi = hi;
	m->off = off;
	line += pos;
	line += strspn(line, " ");
	snprintf(m->path, sizeof(m->path), "%s", line);
	m->path[strcspn(m->path, "\n")] = 0;
	return true;
}

static bool is_libc(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return !strcmp(b, "libc.so.6") || (!strncmp(b, "libc-2.", 7) && strstr(b, ".so"));
}

static bool is_loader(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && !strncmp(b + 1, "ld-linux", 8);
}

static void add_unsafe(struct utrace_attach_target *t, const struct map_line *m)
{
	if (t->nunsafe < UTRACE_ATTACH_UNSAFE_MAX)
		t->unsafe[t->nunsafe++] = (struct utrace_attach_range){m->lo, m->hi};
}

/* The libc's path and load base (its mapping of offset 0), the vDSO, the
 * code of libc and the loader. */
static int scan_maps(struct utrace_attach_target *t, char *libc, uint64_t *base)
{
	char path[64], line[PATH_MAX + 128];
	struct map_line m;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", t->pid);
	if (!(f = fopen(path, "r")))
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!map_parse(line, &m))
			continue;
		if (!strcmp(m.path, "[vdso]")) {
			t->vdso_lo = m.lo;
			t->vdso_hi = m.hi;
		}
		if (is_libc(m.path) && !libc[0] && !m.off) {
			snprintf(libc, PATH_MAX, "%s", m.path);
			*base = m.lo;
		}
		if ((is_libc(m.path) || is_loader(m.path)) && m.perms[2] == 'x')
			add_unsafe(t, &m);
		if (is_libc(m.path) && m.perms[2] == 'x' && !t->libc_text_lo) {
			t->libc_text_lo = m.lo;
			t->libc_text_hi = m.hi;
		}
	}
	fclose(f);
	return 0;
}

/* dlopen, dlsym and pthread_create from the libc file's .dynsym. */
static int libc_symbols(struct utrace_attach_target *t, const char *libc, uint64_t base)
{
	static const char *const names[] = {"dlopen", "dlsym", "pthread_create", "munmap"};
	uint64_t *out[] = {&t->dlopen, &t->dlsym, &t->pthread_create, &t->munmap};
	struct utrace_elf_section dynsym;
	struct utrace_elf_sym sym;
	struct utrace_elf *elf;
	size_t n;

	if (utrace_elf_open(libc, &elf) < 0)
		return -ENOENT;
	if (utrace_elf_type(elf) != ET_DYN ||
	    utrace_elf_find_section(elf, ".dynsym", &dynsym) < 0) {
		utrace_elf_close(elf);
		return -ENOENT;
	}
	n = utrace_elf_sym_count(elf, &dynsym);
	for (size_t i = 0; i < n; i++) {
		if (utrace_elf_sym(elf, &dynsym, i, &sym) < 0 || !sym.shndx || sym.type != STT_FUNC)
			continue;
		for (unsigned k = 0; k < 4; k++)
			if (!*out[k] && !strcmp(sym.name, names[k]))
				*out[k] = base + sym.value;
	}
	utrace_elf_close(elf);
	return t->dlopen && t->dlsym && t->pthread_create && t->munmap ? 0 : -ENOENT;
}

static int check_libc(struct utrace_attach_target *t, int id, struct utrace_error *err)
{
	char libc[PATH_MAX] = "";
	uint64_t base = 0;

	if (scan_maps(t, libc, &base) < 0)
		return refuse(err, -ESRCH, NO_PROCESS, id);
	if (!libc[0])
		return refuse(err, -EPERM, NO_LIBC, id, "statically linked, or no glibc");
	if (libc_symbols(t, libc, base) < 0)
		return refuse(err, -EPERM, NO_LIBC, id, libc);
	return 0;
}

int utrace_attach_check(int id, const char *runtime, const char *sock,
			struct utrace_attach_target *t, struct utrace_error *err)
{
	char path[64];
	struct stat st;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "/proc/%d", id);
	if (id <= 0 || stat(path, &st) < 0 || (t->pid = (int)status_num(id, "Tgid")) <= 0)
		return refuse(err, -ESRCH, NO_PROCESS, id);
	t->tid = id;
	status_field(t->pid, "Name", t->comm, sizeof(t->comm));
	if (check_yama(id, err) < 0 || check_access(t, id, err) < 0 ||
	    check_seccomp(t, id, err) < 0 || check_mount_ns(t, id, runtime, sock, err) < 0 ||
	    check_machine(t, id, err) < 0 || check_libc(t, id, err) < 0)
		return err->code;
	return 0;
}
