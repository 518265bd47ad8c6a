/* SPDX-License-Identifier: MIT */
/*
 * recorder_conn.c - sending to a traced process: the lowest part of the
 * recorder, used by the parts that answer it (recorder_msg.c) and that
 * hand it hist triggers (recorder_hist.c).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "common/scm.h"
#include "lib/record/recorder_internal.h"

int rec_conn_send(struct rec_conn *c, const void *msg, size_t len, int fd)
{
	/* The process waits for this answer; a full socket only means it is
	 * slow, so block (the fd is non-blocking: poll for room). */
	for (;;) {
		long n = utrace_scm_send(c->fd, msg, len, fd);
		struct pollfd p = {c->fd, POLLOUT, 0};

		if (n == (long)len)
			return 0;
		if (n == -EAGAIN || n == -EINTR) {
			poll(&p, 1, 100);
			continue;
		}
		return -EPIPE;
	}
}

int rec_conn_send_with(struct rec_conn *c, void *hdr, size_t hlen, const void *payload,
		       size_t plen, int fd)
{
	uint8_t *m = malloc(hlen + plen);
	int ret;

	if (!m)
		return -ENOMEM;
	((struct utrace_msg *)hdr)->size = (uint32_t)(hlen + plen);
	memcpy(m, hdr, hlen);
	if (plen)
		memcpy(m + hlen, payload, plen);
	ret = rec_conn_send(c, m, hlen + plen, fd);
	free(m);
	return ret;
}
