/* SPDX-License-Identifier: MIT */
/*
 * recorder_conn.c - sending to a traced process: the lowest part of the
 * recorder, used by the parts that answer it (recorder_msg.c) and that
 * hand it hist triggers (recorder_hist.c), and the live channel's end
 * (recorder_live.c, recorder_liveev.c).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/scm.h"
#include "lib/record/recorder_internal.h"

/* A process that does not answer a live change within this is let go. */

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

bool rec_live_gone(int ret)
{
	return ret == -EPIPE || ret == -ECONNRESET || ret == -ENOTCONN || ret == -EBADF;
}

void rec_live_close(struct rec_conn *c)
{
	if (c->live_fd >= 0)
		close(c->live_fd);
	c->live_fd = -1;
}

int rec_live_answer(int fd, void *msg, size_t size, uint32_t type)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int got = -1;
	long n;

	if (poll(&p, 1, REC_LIVE_WAIT_MS) <= 0)
		return -ETIMEDOUT;
	n = utrace_scm_recv(fd, msg, size, MSG_DONTWAIT, &got);
	if (got >= 0)
		close(got);
	if (n != (long)size || ((struct utrace_msg *)msg)->type != type)
		return n < 0 ? (int)n : -EPROTO;
	return 0;
}

int rec_live_wait(int fd)
{
	struct utrace_msg_live_done d;
	int ret = rec_live_answer(fd, &d, sizeof(d), UTRACE_MSG_LIVE_DONE);

	return ret < 0 ? ret : d.status;
}

int rec_live_done(struct rec_conn *c, struct rec_conn *ch, int ret)
{
	struct utrace_msg_live_done d = {{sizeof(d), UTRACE_MSG_LIVE_DONE}, 0, 0};

	if (ret >= 0)
		ret = rec_conn_send(ch, &d, sizeof(d), -1);
	if (ret >= 0)
		ret = rec_live_wait(c->live_fd);
	if (ret < 0)
		rec_live_close(c);
	return ret;
}
