/* SPDX-License-Identifier: MIT */
/*
 * kernel_tracefs.c - the tracefs files utrace reads and writes (lib/kernel/kernel_tracefs.h):
 * where tracefs is (mounted at /sys/kernel/tracing if it is nowhere), a
 * file read whole, a value written in one write() as the kernel wants it
 * (O_TRUNC replaces a list, O_APPEND adds to it), an instance removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/base/grow.h"
#include "lib/kernel/kernel_tracefs.h"

const char *utrace_tracefs_root(void)
{
	static char root[256];
	char line[1024], mnt[256], type[32];
	FILE *f;

	if (root[0])
		return root;
	f = fopen("/proc/mounts", "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %255s %31s", mnt, type) != 2 || strcmp(type, "tracefs"))
			continue;
		if (!root[0] || !strcmp(mnt, "/sys/kernel/tracing"))
			snprintf(root, sizeof(root), "%s", mnt);
	}
	if (f)
		fclose(f);
	if (!root[0] && !mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
		strcpy(root, "/sys/kernel/tracing");
	return root[0] ? root : NULL;
}

int utrace_tracefs_write(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	size_t len = strlen(text);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : (size_t)n == len ? 0 : -EIO;
}

char *utrace_tracefs_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 0;
	char *buf = NULL;
	ssize_t r;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (UTRACE_GROW(buf, cap, len + 4096) < 0)
			break;
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0) {
				buf[len] = 0;
				close(fd);
				return buf;
			}
			break;
		}
		len += (size_t)r;
	}
	r = errno;
	free(buf);
	close(fd);
	errno = (int)r;
	return NULL;
}

const char *utrace_tracefs_path(char *buf, const char *dir, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(buf, PATH_MAX, "%s/", dir);

	if (n < 0 || n >= PATH_MAX)
		return buf; /* cut short: no such file */
	va_start(ap, fmt);
	vsnprintf(buf + n, PATH_MAX - (size_t)n, fmt, ap);
	va_end(ap);
	return buf;
}

bool utrace_tracefs_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int utrace_tracefs_remove_instance(const char *dir)
{
	char path[PATH_MAX];

	utrace_tracefs_write(utrace_tracefs_path(path, dir, "tracing_on"), "0", O_TRUNC);
	utrace_tracefs_write(utrace_tracefs_path(path, dir, "events/enable"), "0", O_TRUNC);
	for (int i = 0; i < 50; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		usleep(10000);
	}
	return -EBUSY;
}

/* The kernel's words for a refused filter or trigger: the last error_log
 * entry ("[ts] LOCATION: error: MESSAGE", "  Command: TEXT", "   ^"). */
int utrace_tracefs_error_log(const char *dir, const char *system, const char *name, int code,
			     struct utrace_error *err)
{
	char path[PATH_MAX],
	    *log = utrace_tracefs_read(utrace_tracefs_path(path, dir, "error_log"));
	char *entry = NULL, *p, *cmd, *caret;
	int column = 0;

	for (p = log; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (*p == '[')
			entry = p;
	if (!entry) {
		free(log);
		return utrace_error_set(err, code, "%s:%s: the kernel refuses it: %s", system, name,
					strerror(-code));
	}
	p = strchr(entry, ']');
	p = p ? p + 1 + strspn(p + 1, " ") : entry;
	cmd = strchr(p, '\n');
	if (cmd) {
		*cmd++ = 0;
		caret = strchr(cmd, '\n');
		if (caret && (caret = strchr(caret + 1, '^'))) {
			char *text = strstr(cmd, "Command: ");
			char *bol = caret;

			while (bol > cmd && bol[-1] != '\n')
				bol--;
			if (text)
				column = (int)((caret - bol) - (text + 9 - cmd)) + 1;
		}
	}
	utrace_error_set(err, code, "%s:%s: %s", system, name, p);
	err->column = column > 0 ? column : 1;
	free(log);
	return code;
}
