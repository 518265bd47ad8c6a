/* SPDX-License-Identifier: MIT */
/*
 * scm.h - one message over the control socket, with a file descriptor
 * attached (SCM_RIGHTS) or not.  Shared by the runtime and the recorder.
 * Touches no vector register unless a descriptor is attached, so the
 * runtime may send notices from inside a trampoline.
 */
#ifndef UTRACE_COMMON_SCM_H
#define UTRACE_COMMON_SCM_H

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

union utrace_scm_fd {
	struct cmsghdr h;
	char buf[CMSG_SPACE(sizeof(int))];
};

/* Bytes sent, or -errno.  Never raises SIGPIPE. */
static inline long utrace_scm_send(int sock, const void *msg, size_t len, int fd)
{
	struct iovec iov = {.iov_base = (void *)msg, .iov_len = len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	union utrace_scm_fd c;
	long n;

	if (fd >= 0) {
		memset(&c, 0, sizeof(c));
		mh.msg_control = c.buf;
		mh.msg_controllen = sizeof(c.buf);
		c.h.cmsg_level = SOL_SOCKET;
		c.h.cmsg_type = SCM_RIGHTS;
		c.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&c.h), &fd, sizeof(int));
	}
	n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	return n < 0 ? -errno : n;
}

/* Bytes received (0 at end of file), or -errno.  *fd gets the attached
 * descriptor (close-on-exec) or -1. */
static inline long utrace_scm_recv(int sock, void *buf, size_t len, int flags, int *fd)
{
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	union utrace_scm_fd c;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf,
			    .msg_controllen = sizeof(c.buf)};
	long n = recvmsg(sock, &mh, flags | MSG_CMSG_CLOEXEC);

	*fd = -1;
	if (n < 0)
		return -errno;
	for (struct cmsghdr *ch = CMSG_FIRSTHDR(&mh); ch; ch = CMSG_NXTHDR(&mh, ch))
		if (ch->cmsg_level == SOL_SOCKET && ch->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(ch), sizeof(int));
	return n;
}

#endif
