/* SPDX-License-Identifier: MIT */
/*
 * private_file.c - trace files made 0600 (private_file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/base/private_file.h"

int utrace_create_private(const char *path, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | flags, 0600);
	struct stat st;

	if (fd < 0)
		return -1;
	/* O_CREAT's mode applies to a new file only: an old utrace.dat
	 * 0644 would keep its mode.  Devices, fifos and others' files are
	 * left as they are. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    (st.st_mode & 077) && fchmod(fd, st.st_mode & 0700) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
