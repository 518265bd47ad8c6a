/* SPDX-License-Identifier: MIT */
/*
 * log.c - how the runtime tells the user something, from anywhere: inside
 * a signal handler, inside malloc, between two instructions of the traced
 * program.  So: no allocation, no stdio, no locks, errno preserved.  The
 * text goes to stderr with write(2) and, when connected, to the recorder
 * (which saves it in the trace file as a NOTICE).
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

static size_t log_utoa(char *dst, unsigned long v)
{
	char tmp[24];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		dst[i] = tmp[n - 1 - i];
	return n;
}

/* The notice to the recorder alone: the program's stderr stays its own. */
void rt_notice(const char *msg)
{
	int saved_errno = errno;
	union {
		struct utrace_msg_notice hdr;
		char buf[sizeof(struct utrace_msg_notice) + 200];
	} notice;
	char *text = notice.buf + sizeof(notice.hdr);

	if (rt.sock >= 0) {
		size_t len = log_strlcpy(text, msg, 200);

		notice.hdr.hdr.type = UTRACE_MSG_NOTICE;
		notice.hdr.hdr.size = (uint32_t)(sizeof(notice.hdr) + len + 1);
		notice.hdr.pid = getpid();
		notice.hdr.tid = gettid();
		rt_send(&notice, notice.hdr.hdr.size, -1);
	}
	errno = saved_errno;
}

void rt_log(const char *msg)
{
	int saved_errno = errno;
	char line[256];
	size_t n = 0;

	n += log_strlcpy(line + n, "utrace[", sizeof(line) - n);
	n += log_utoa(line + n, (unsigned long)getpid());
	n += log_strlcpy(line + n, "]: ", sizeof(line) - n);
	n += log_strlcpy(line + n, msg, sizeof(line) - n - 1);
	line[n++] = '\n';
	if (!rt.attached && write(STDERR_FILENO, line, n) < 0) {
		/* nothing more we can do */
	}
	rt_notice(msg);
	errno = saved_errno;
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

/* The connection to the recorder is gone (channel.c): said once.  What
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
