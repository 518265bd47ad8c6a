/* SPDX-License-Identifier: MIT */
/*
 * recorder_poll.c - one turn of the recorder's loop (utrace_recorder_poll):
 * new connections accepted, each open connection's messages read and
 * handed to recorder_msg.c, a connection closed at its end or cut off when
 * it speaks nonsense, exited processes noticed (recorder_proc.c), and
 * every buffer drained (recorder_drain.c); and how long a poll may sleep
 * while sub-buffers keep coming.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/rb_abi.h"
#include "common/scm.h"
#include "lib/base/grow.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_live.h"
#include "lib/record/recorder_quiesce.h"
#include "lib/record/recorder_snap.h"

static void conn_close(struct utrace_recorder *r, struct rec_conn *c, struct utrace_error *err)
{
	rec_quiesce_end(c);
	rec_live_close(c);
	close(c->fd);
	c->fd = -1;
	c->open = false;
	rec_conn_drain(r, c, err);
}

/* The end of c's socket: its process exited or exec'd, or it closed the
 * socket and runs on (recorder_proc.c); then its buffers stay open. */
static int conn_eof(struct utrace_recorder *r, struct rec_conn *c, struct utrace_error *err)
{
	if (!rec_image_alive(r, c)) {
		rec_live_pids_exit(r, c->pid);
		conn_close(r, c, err);
		return 0;
	}
	rec_quiesce_end(c);
	rec_live_close(c);
	close(c->fd);
	c->fd = -1;
	c->open = false;
	return rec_conn_orphan(r, c, err);
}

static int conn_read(struct utrace_recorder *r, struct rec_conn *c, struct utrace_error *err)
{
	static uint8_t buf[UTRACE_MSG_MAX];
	const struct utrace_msg *hdr = (const void *)buf;
	int fd, ret;
	long n;

	n = utrace_scm_recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT, &fd);
	if (n == -EAGAIN || n == -EINTR)
		return 0;
	if (n <= 0)
		return conn_eof(r, c, err) < 0 ? err->code : 1;
	if ((size_t)n < sizeof(*hdr) || hdr->size != (uint32_t)n)
		ret = -EPROTO;
	else
		ret = rec_handle_msg(r, c, buf, (size_t)n, fd, err);
	if (fd >= 0)
		close(fd);
	if (ret < 0 && err->code != ret) {
		/* A process that speaks nonsense is cut off; the rest goes on. */
		if (r->o.notice)
			r->o.notice(r->o.notice_arg, c->pid,
				    "protocol error; this process is no longer recorded");
		conn_close(r, c, err);
		return 1;
	}
	return ret < 0 ? ret : 1;
}

static int accept_conns(struct utrace_recorder *r)
{
	for (;;) {
		int fd = accept4(r->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct rec_conn *c;

		if (fd < 0)
			return errno == EAGAIN ? 0 : -errno;
		c = calloc(1, sizeof(*c));
		if (!c || UTRACE_GROW(r->conns, r->cap_conns, r->nr_conns + 1) < 0) {
			free(c);
			close(fd);
			return -ENOMEM;
		}
		c->fd = fd;
		c->pidfd = -1;
		c->live_fd = -1;
		c->image = r->nr_conns;
		c->open = true;
		r->conns[r->nr_conns++] = c;
		r->ever_connected = true;
	}
}

/* While sub-buffers keep coming into a buffer that could fill soon
 * (rec_drain), poll again at short intervals */
#define RECENT_NS 10000000ull /* for 10 ms after the last one came */
#define SHORT_POLL_NS 50000L  /* every 50 us: 64 KB at 1.3 GB/s */

/*
 * How long the next poll may sleep.  Sub-buffers came in since the last
 * poll into a buffer that could fill before long: more are likely on the
 * way, and a producer may be waiting for room (no-loss mode), so only
 * look at the sockets.  Some came in recently: a
 * producer with a small buffer fills it in less than the caller's
 * timeout (64 KB in 65 us at 1 GB/s) and would wait for most of it, so
 * sleep briefly.  Quiet for a while: the caller's timeout (NULL: none).
 */
static struct timespec *poll_timeout(struct utrace_recorder *r, int timeout_ms, struct timespec *ts)
{
	uint64_t now = rec_now_ns();
	bool busy = r->busy;

	r->busy = false;
	if (busy) {
		r->last_busy_ns = now;
		*ts = (struct timespec){0, 0};
	} else if (now - r->last_busy_ns < RECENT_NS &&
		   (timeout_ms < 0 || timeout_ms * 1000000L > SHORT_POLL_NS)) {
		*ts = (struct timespec){0, SHORT_POLL_NS};
	} else if (timeout_ms >= 0) {
		*ts = (struct timespec){timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
	} else {
		return NULL;
	}
	return ts;
}

/* The poll set: the listening socket, every open connection (slots 1 to
 * *pids), then every process watched for its exit (recorder_proc.c) up
 * to *n; one slot per connection and per process, however many processes
 * there are.  -ENOMEM. */
static int poll_set(struct utrace_recorder *r, unsigned *n, unsigned *pids)
{
	struct pollfd *pfd;
	struct rec_conn **who;
	unsigned k = 0;

	if (UTRACE_GROW(r->pfd, r->cap_pfd, 2 * (size_t)r->nr_conns + 1) < 0 ||
	    UTRACE_GROW(r->who, r->cap_who, 2 * (size_t)r->nr_conns + 1) < 0)
		return -ENOMEM;
	pfd = r->pfd;
	who = r->who;
	pfd[k].fd = r->listen_fd;
	pfd[k++].events = POLLIN;
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		if (!r->conns[i]->open)
			continue;
		who[k] = r->conns[i];
		pfd[k].fd = r->conns[i]->fd;
		pfd[k++].events = POLLIN;
	}
	*pids = k;
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		if (r->conns[i]->pidfd < 0)
			continue;
		who[k] = r->conns[i];
		pfd[k].fd = r->conns[i]->pidfd;
		pfd[k++].events = POLLIN;
	}
	*n = k;
	return 0;
}

/* What the poll found ready in the set of poll_set: new connections,
 * processes that exited, messages. */
static int poll_ready(struct utrace_recorder *r, unsigned n, unsigned pids,
		      struct utrace_error *err)
{
	struct pollfd *pfd = r->pfd;
	struct rec_conn **who = r->who;
	int ret;

	if (pfd[0].revents && accept_conns(r) < 0)
		return utrace_error_set(err, -errno, "accept: %s", strerror(errno));
	for (unsigned i = pids; i < n; i++)
		if (pfd[i].revents && rec_conn_exited(r, who[i], err) < 0)
			return err->code;
	for (unsigned i = 1; i < pids; i++) {
		/* a burst of messages (a process registering its objects)
		 * is read in one go */
		for (int k = 0; k < 64 && pfd[i].revents && who[i]->open; k++) {
			ret = conn_read(r, who[i], err);
			if (ret < 0)
				return ret;
			if (!ret)
				break;
		}
	}
	return 0;
}

/* Every buffer not done yet: what it committed, all of it once closed. */
static int drain_all(struct utrace_recorder *r, struct utrace_error *err)
{
	for (uint32_t i = 0; i < r->nr_bufs; i++) {
		struct rec_buffer *b = r->bufs[i];
		bool closed;
		int ret;

		if (b->done)
			continue;
		closed = __atomic_load_n(&b->meta->state, __ATOMIC_ACQUIRE) == UTRACE_RB_CLOSED;
		ret = rec_drain(r, b, closed, err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int utrace_recorder_poll(struct utrace_recorder *r, int timeout_ms, struct utrace_error *err)
{
	struct timespec ts;
	unsigned n, pids;
	int ret;

	if (poll_set(r, &n, &pids) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	ret = ppoll(r->pfd, n, poll_timeout(r, timeout_ms, &ts), NULL);
	if (ret < 0 && errno != EINTR)
		return utrace_error_set(err, -errno, "poll: %s", strerror(errno));
	if (ret > 0 && (ret = poll_ready(r, n, pids, err)) < 0)
		return ret;
	/* before the drain: a buffer that is finished now is still mapped */
	ret = rec_snap_poll(r, err);
	if (ret < 0)
		return ret;
	return drain_all(r, err);
}
