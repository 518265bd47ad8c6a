/* SPDX-License-Identifier: MIT */
/*
 * log.c - how the runtime tells the user something, from anywhere: inside
 * a signal handler, inside malloc, between two instructions of the traced
 * program.  So: no allocation, no stdio, no locks, errno preserved.  The
 * text goes to the recorder over the runtime's connection (channel.c), as
 * a NOTICE that it prints and saves in the trace file; the program's
 * stderr stays its own.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "runtime/rt.h"

static size_t log_strlcpy(char *dst, const char *src, size_t cap)
{
	size_t n = 0;

	while (src[n] && n + 1 < cap) {
		dst[n] = src[n];
		n++;
	}
	dst[n] = 0;
	return n;
}

/*
 * A message said while no recorder is connected (a forked child between
 * fork and its own connection) waits here for the next one said while
 * connected; beyond LOG_PENDING, or if no connection comes, it is
 * dropped.  Slots are claimed once (a counter) and sent once (READY ->
 * SENT), so a signal handler saying something in the middle of either is
 * safe; a forked child inherits only what its parent could not send.
 */
#define LOG_PENDING 4
#define LOG_TEXT 200
enum { LOG_FREE, LOG_READY, LOG_SENT };
static struct {
	int state;
	char text[LOG_TEXT];
} log_pending[LOG_PENDING];
static unsigned log_claimed;

static void log_send(const char *msg)
{
	union {
		struct utrace_msg_notice hdr;
		char buf[sizeof(struct utrace_msg_notice) + LOG_TEXT];
	} notice;
	size_t len = log_strlcpy(notice.buf + sizeof(notice.hdr), msg, LOG_TEXT);

	notice.hdr.hdr.type = UTRACE_MSG_NOTICE;
	notice.hdr.hdr.size = (uint32_t)(sizeof(notice.hdr) + len + 1);
	notice.hdr.pid = getpid();
	notice.hdr.tid = gettid();
	rt_send(&notice, notice.hdr.hdr.size, -1);
}

static void log_keep(const char *msg)
{
	unsigned i = __atomic_fetch_add(&log_claimed, 1, __ATOMIC_RELAXED);

	if (i >= LOG_PENDING)
		return;
	log_strlcpy(log_pending[i].text, msg, LOG_TEXT);
	__atomic_store_n(&log_pending[i].state, LOG_READY, __ATOMIC_RELEASE);
}

static void log_flush(void)
{
	for (unsigned i = 0; i < LOG_PENDING; i++) {
		int ready = LOG_READY;

		if (__atomic_compare_exchange_n(&log_pending[i].state, &ready, LOG_SENT, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			log_send(log_pending[i].text);
	}
}

/*
 * What the runtime tells the user goes to the recorder, which prints it
 * and saves it in the trace file (a NOTICE): never to the program's own
 * descriptors, whose fd 2 may be its log, a socket or closed.
 */
void rt_notice(const char *msg)
{
	int saved_errno = errno;

	if (__atomic_load_n(&rt.sock, __ATOMIC_RELAXED) >= 0) {
		log_flush();
		log_send(msg);
	} else {
		log_keep(msg);
	}
	errno = saved_errno;
}

void rt_log(const char *msg)
{
	rt_notice(msg);
}

/* An internal fault: tracing switches itself off in this process, says so,
 * and the program goes on.  Hooked returns keep working (fgraph.c). */
void rt_disable(const char *why)
{
	char msg[200];
	size_t n;

	if (!__atomic_exchange_n(&rt.enabled, 0, __ATOMIC_RELAXED))
		return;
	n = log_strlcpy(msg, "tracing switched off: ", sizeof(msg));
	log_strlcpy(msg + n, why, sizeof(msg) - n);
	rt_log(msg);
}

/* The connection to the recorder is gone (channel.c): said once, if it
 * comes back (else the recorder, which saw it go, has said it).  What
 * the threads with a buffer write is still recorded; the recorder counts
 * the process as disconnected. */
void rt_conn_lost_say(void)
{
	static int said;

	if (!__atomic_load_n(&rt.conn_lost, __ATOMIC_RELAXED) ||
	    __atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	rt_log("lost the connection to utrace record (the program closed it?): threads, "
	       "libraries and processes it starts from now on are not traced");
}
