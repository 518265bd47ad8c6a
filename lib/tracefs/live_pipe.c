/* SPDX-License-Identifier: MIT */
/*
 * live_pipe.c - trace_pipe: the recording read once, as it grows.
 *
 * The kernel's trace_pipe consumes: a record read by one reader is gone
 * for every other.  Here the records stay in the file; what is consumed
 * is a time, the pipe's ns: a fetch asks the recording for the events after it
 * (ops->print_trace, the trace file's text without its header) and moves
 * it to the last one printed.  The text is shared: each read takes whole
 * lines of it, so two readers split the records between them.  What is
 * fetched is consumed: trace no longer shows it (live_files.c show_trace),
 * as the kernel's trace no longer holds what trace_pipe read, though its
 * lines may still wait here for the next read (the kernel keeps at most
 * a page of such text; this, what one fetch found).  With
 * nothing new a read waits, polling every POLL_MS with l->lock let go,
 * until there is something, it is interrupted, or the filesystem goes.
 *
 * utrace_live_drain, before the recording ends, hands the readers what
 * is left (utrace stream prints everything the program did).
 *
 * A fetch holds every record committed before it (the recorder saves
 * the part of each sub-buffer being written: recorder_drain.c); a record
 * a thread commits after a fetch that found a later one of another
 * thread is older than that time and is not shown (the kernel's per-CPU
 * pages have the same race with a reader).
 *
 * per_cpu/cpuN/trace_pipe is a pipe of its own over CPU N's events: what
 * it consumes is not consumed for trace_pipe, nor the other way round
 * (the kernel's are one buffer read two ways).
 */
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fuse.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/tracefs/live_internal.h"

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

static uint64_t max_ns(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* New text of p (of cpu, -1: every CPU) after what it consumed; 0 if
 * none yet. */
static int pipe_fetch(struct utrace_live *l, struct live_pipe *p, int cpu)
{
	struct utrace_error err = {0};
	uint64_t last = 0, since = max_ns(p->ns, l->clear_ns);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int ret;

	if (!out)
		return -ENOMEM;
	if (cpu >= 0) /* cleared on its own */
		since = max_ns(since, l->cpu_clear_ns[cpu]);
	ret = l->ops.print_trace(l->ops.arg, out, live_current_tracer(l), l->options, since + 1,
				 cpu, &last, &err);
	fclose(out);
	if (ret < 0 || !last) {
		free(text);
		return ret < 0 ? ret : 0;
	}
	strip_header(text, &len);
	p->ns = last;
	free(p->text);
	p->text = text;
	p->len = len;
	p->off = 0;
	return 0;
}

/* Whole lines of what is fetched, at most size bytes (at least one line,
 * cut if it alone is longer). */
static long pipe_take(struct live_pipe *p, char *buf, size_t size)
{
	const char *t = p->text + p->off;
	size_t left = p->len - p->off, n = 0;

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
	p->off += n;
	return (long)n;
}

uint64_t live_pipe_read_ns(const struct utrace_live *l, int cpu)
{
	return cpu < 0 ? l->pipe.ns : max_ns(l->pipe.ns, l->cpu_pipes[cpu].ns);
}

long live_pipe_read(struct utrace_live *l, int cpu, char *buf, size_t size, bool nonblock)
{
	struct live_pipe *p = cpu < 0 ? &l->pipe : &l->cpu_pipes[cpu];
	int ret;

	for (;;) {
		if (p->off < p->len)
			return pipe_take(p, buf, size);
		if ((ret = pipe_fetch(l, p, cpu)) < 0)
			return ret;
		if (p->off < p->len)
			continue;
		if (nonblock)
			return -EAGAIN;
		if (live_top(l)->stopping)
			return 0;
		if (fuse_interrupted())
			return -EINTR;
		pthread_mutex_unlock(&live_top(l)->lock);
		usleep(POLL_MS * 1000);
		pthread_mutex_lock(&live_top(l)->lock);
	}
}

int utrace_live_drain(struct utrace_live *l, int timeout_ms)
{
	bool left = false;

	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		pthread_mutex_lock(&live_top(l)->lock);
		/* fetch for the readers: nothing new and nothing untaken is
		 * the end */
		if (l->pipe_used && l->pipe.off == l->pipe.len && pipe_fetch(l, &l->pipe, -1) < 0)
			l->pipe_used = false;
		left = l->pipe_used && l->pipe.off < l->pipe.len;
		pthread_mutex_unlock(&live_top(l)->lock);
		if (!left)
			return 0;
		usleep(10 * 1000);
	}
	return -ETIMEDOUT;
}
