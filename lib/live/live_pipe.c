/* SPDX-License-Identifier: MIT */
/*
 * live_pipe.c - trace_pipe: the recording read once, as it grows.
 *
 * The kernel's trace_pipe consumes: a record read by one reader is gone
 * for every other.  Here the records stay in the file; what is consumed
 * is a time, pipe_ns: a fetch asks the recording for the events after it
 * (ops->print_trace, the trace file's text without its header) and moves
 * it to the last one printed.  The text is shared: each read takes whole
 * lines of it, so two readers split the records between them.  With
 * nothing new a read waits, polling every POLL_MS with l->lock let go,
 * until there is something, it is interrupted, or the filesystem goes.
 *
 * utrace_live_drain, before the recording ends, hands the readers what
 * is left (utrace stream prints everything the program did).
 *
 * A thread's records reach the file a sub-buffer at a time; records of
 * a sub-buffer saved after a later one of another thread was read are
 * older than pipe_ns and are not shown (the kernel's per-CPU pages have
 * the same race with a reader, the other way round).
 */
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fuse.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/live/live_int.h"

#define POLL_MS 50

/* Drops the header lines ('#') of the trace file's text. */
static void strip_header(char *t, size_t *len)
{
	size_t o = 0;

	for (size_t i = 0; i < *len;) {
		char *nl = memchr(t + i, '\n', *len - i);
		size_t n = nl ? (size_t)(nl - (t + i)) + 1 : *len - i;

		if (t[i] != '#') {
			memmove(t + o, t + i, n);
			o += n;
		}
		i += n;
	}
	*len = o;
}

/* New text after pipe_ns into pipe_text; 0 if none yet. */
static int pipe_fetch(struct utrace_live *l)
{
	struct utrace_error err = {0};
	uint64_t last = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int ret;

	if (!out)
		return -ENOMEM;
	ret = l->ops.print_trace(l->ops.arg, out, live_tracer_name(l->tracer), l->options,
				 (l->pipe_ns > l->clear_ns ? l->pipe_ns : l->clear_ns) + 1, -1,
				 &last, &err);
	fclose(out);
	if (ret < 0 || !last) {
		free(text);
		return ret < 0 ? ret : 0;
	}
	strip_header(text, &len);
	l->pipe_ns = last;
	free(l->pipe_text);
	l->pipe_text = text;
	l->pipe_len = len;
	l->pipe_off = 0;
	return 0;
}

/* Whole lines of what is fetched, at most size bytes (at least one line,
 * cut if it alone is longer). */
static long pipe_take(struct utrace_live *l, char *buf, size_t size)
{
	const char *t = l->pipe_text + l->pipe_off;
	size_t left = l->pipe_len - l->pipe_off, n = 0;

	while (n < left) {
		const char *nl = memchr(t + n, '\n', left - n);
		size_t line = nl ? (size_t)(nl - (t + n)) + 1 : left - n;

		if (n + line > size)
			break;
		n += line;
	}
	if (!n)
		n = size < left ? size : left;
	memcpy(buf, t, n);
	l->pipe_off += n;
	return (long)n;
}

long live_pipe_read(struct utrace_live *l, char *buf, size_t size, bool nonblock)
{
	int ret;

	for (;;) {
		if (l->pipe_off < l->pipe_len)
			return pipe_take(l, buf, size);
		if ((ret = pipe_fetch(l)) < 0)
			return ret;
		if (l->pipe_off < l->pipe_len)
			continue;
		if (nonblock)
			return -EAGAIN;
		if (l->stopping)
			return 0;
		if (fuse_interrupted())
			return -EINTR;
		pthread_mutex_unlock(&l->lock);
		usleep(POLL_MS * 1000);
		pthread_mutex_lock(&l->lock);
	}
}

int utrace_live_drain(struct utrace_live *l, int timeout_ms)
{
	bool left = false;

	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		pthread_mutex_lock(&l->lock);
		/* fetch for the readers: nothing new and nothing untaken is
		 * the end */
		if (l->pipe_used && l->pipe_off == l->pipe_len && pipe_fetch(l) < 0)
			l->pipe_used = false;
		left = l->pipe_used && l->pipe_off < l->pipe_len;
		pthread_mutex_unlock(&l->lock);
		if (!left)
			return 0;
		usleep(10 * 1000);
	}
	return -ETIMEDOUT;
}
