/* SPDX-License-Identifier: MIT */
/*
 * live_buffers.c - the live tracefs's files about the buffers and the
 * graph's threshold, with the kernel's contents (kernel/trace/trace.c):
 *
 *   tracing_thresh        function_graph records only calls that lasted
 *                         at least this many microseconds (0: every one);
 *                         a write of a number sets it in every process
 *                         (as `utrace record --thresh`), else EINVAL
 *   buffer_size_kb        (and per_cpu/cpuN/buffer_size_kb) the size of
 *                         a buffer in KiB: the kernel's per CPU, utrace's
 *                         per thread.  A write of a number (not 0: EINVAL)
 *                         sizes the buffers threads make from now on
 *                         (rounded up to 16 KiB sub-buffers, 4 at least);
 *                         a buffer made keeps its size (a writing thread's
 *                         cannot be remapped under it).  A CPU has no
 *                         buffer of its own, so cpuN's is the same one.
 *   buffer_subbuf_size_kb the sub-buffer size of the buffers in KiB (16
 *                         at first), as the kernel's
 *                         (buffer_subbuf_size_write): a write of a number
 *                         of KiB takes the power of two of 4 KiB pages at
 *                         or above it, 1 to 128 pages, else EINVAL.  The
 *                         buffers made from then on have it, and each
 *                         made is replaced by one that has it when its
 *                         thread next starts a sub-buffer (the runtime's
 *                         rb_resize); as the kernel's resize discards
 *                         what the buffers held, trace (the top level's
 *                         and every instance's: they share the buffers)
 *                         starts over as after `echo > trace`
 *   tracing_cpumask       the CPUs whose records are written, the
 *                         kernel's "%*pb" (hex, 32-bit groups split by
 *                         commas); a write of such a mask leaves the
 *                         others' records unwritten from then on, in every
 *                         process (the control page, ring_buffer.c), else
 *                         EINVAL
 *   buffer_total_size_kb  buffer_size_kb times the buffers there are: the
 *                         kernel's per CPU, utrace's per thread, so the
 *                         threads that have one now
 *   per_cpu/cpuN/stats    tracing_stats_read's lines, from what the
 *                         recording holds of CPU N since the last clear of
 *                         trace (or of per_cpu/cpuN/trace): entries not
 *                         read yet (trace_pipe consumes up to a time),
 *                         overrun and commit overrun (0: a thread's full
 *                         buffer loses its records, counted as dropped),
 *                         bytes of the entries, the oldest one's time and
 *                         now (CLOCK_MONOTONIC, the trace's clock)
 *
 * The caller holds l->lock.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/rb_abi.h"
#include "lib/tracefs/live_internal.h"

int live_show_thresh(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	fprintf(out, "%llu\n", (unsigned long long)l->thresh_us);
	return 0;
}

long live_write_thresh(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	struct utrace_error err = {0};
	unsigned long long v;
	int ret;

	if (live_number(buf, n, &v) < 0)
		return -EINVAL;
	if ((ret = l->ops.set_thresh(l->ops.arg, v, &err)) < 0) {
		char text[32];

		snprintf(text, sizeof(text), "%llu", v);
		live_errlog_add(l, "tracing_thresh", text, err.msg, 0);
		return ret;
	}
	l->thresh_us = v;
	return (long)n;
}

int live_show_bufsize(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	long kb = l->ops.buffer_kb_set ? l->ops.buffer_kb_set(l->ops.arg, 0) : l->ops.buffer_kb;

	if (kb < 0)
		return (int)kb;
	fprintf(out, "%ld\n", kb);
	return 0;
}

long live_write_bufsize(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	unsigned long long v;
	long ret;

	if (!l->ops.buffer_kb_set)
		return -EPERM;
	if (live_number(buf, n, &v) < 0 || !v)
		return -EINVAL;
	ret = l->ops.buffer_kb_set(l->ops.arg, v);
	return ret < 0 ? ret : (long)n;
}

uint32_t live_subbuf_size(struct utrace_live *l)
{
	long size = l->ops.subbuf_size ? l->ops.subbuf_size(l->ops.arg, 0) : 0;

	return size > 0 && utrace_subbuf_size_ok((uint32_t)size) ? (uint32_t)size
								 : UTRACE_SUBBUF_SIZE;
}

int live_show_subbuf(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	fprintf(out, "%u\n", live_subbuf_size(l) / 1024);
	return 0;
}

/* The kernel's kstrtoul(s, 10): decimal digits after an optional '+',
 * one newline after them at most. */
static int kernel_decimal(const char *buf, size_t n, unsigned long long *v)
{
	size_t i = n && buf[0] == '+';

	if (n && buf[n - 1] == '\n')
		n--;
	if (i >= n)
		return -EINVAL;
	for (*v = 0; i < n; i++) {
		if (!isdigit((unsigned char)buf[i]) || *v > (ULLONG_MAX - 9) / 10)
			return -EINVAL;
		*v = *v * 10 + (unsigned long long)(buf[i] - '0');
	}
	return 0;
}

/* buffer_subbuf_size_write: KiB in 4 KiB pages, rounded up to a power of
 * two of pages, 1 to 128 of them (0 and more than 512 KiB: EINVAL).  The
 * same size again changes nothing, as the kernel's. */
long live_write_subbuf(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	uint32_t size = UTRACE_SUBBUF_MIN;
	unsigned long long kb;
	long ret;

	if (!l->ops.subbuf_size)
		return -EPERM;
	if (kernel_decimal(buf, n, &kb) < 0 || !kb || kb > UTRACE_SUBBUF_MAX / 1024)
		return -EINVAL;
	while (size < kb * 1024)
		size <<= 1;
	if (size == live_subbuf_size(l))
		return (long)n;
	if ((ret = l->ops.subbuf_size(l->ops.arg, size)) < 0)
		return ret;
	live_trace_clear_all(l);
	return (long)n;
}

/* The mask of the CPUs (bit N: CPU N): the first 64 as the control page
 * has them, those past 64 always on. */
int live_show_cpumask(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	int ngroups = (l->ncpu + 31) / 32;

	for (int g = ngroups - 1; g >= 0; g--) {
		int bits = l->ncpu - g * 32 < 32 ? l->ncpu - g * 32 : 32;
		uint32_t m = bits == 32 ? UINT32_MAX : (1u << bits) - 1;

		if (g < 2)
			m &= ~(uint32_t)(l->cpu_off >> (g * 32));
		fprintf(out, g == ngroups - 1 ? "%x" : ",%08x", m);
	}
	fputc('\n', out);
	return 0;
}

/* The kernel's bitmap_parse: hex digits, commas between 32-bit groups
 * ignored; a bit of a CPU past the last is EINVAL. */
static int cpumask_parse(struct utrace_live *l, const char *s, uint64_t *on)
{
	uint64_t m = 0;
	int nbits = 0;

	for (; *s; s++) {
		int d;

		if (*s == ',')
			continue;
		if (!isxdigit((unsigned char)*s))
			return -EINVAL;
		d = isdigit((unsigned char)*s) ? *s - '0' : tolower((unsigned char)*s) - 'a' + 10;
		if (m >> 60) /* past 64 bits (zeros may lead) */
			return -EINVAL;
		m = m << 4 | (uint64_t)d;
		nbits += 4;
	}
	if (!nbits || (l->ncpu < 64 && m >> l->ncpu))
		return -EINVAL;
	*on = m;
	return 0;
}

long live_write_cpumask(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	char *s = live_strip(buf, n);
	uint64_t on;
	int ret;

	if (!s)
		return -ENOMEM;
	ret = l->ops.cpu_off ? cpumask_parse(l, s, &on) : -EPERM;
	free(s);
	if (ret < 0)
		return ret;
	l->cpu_off = ~on;
	if (l->ncpu < 64)
		l->cpu_off &= (1ull << l->ncpu) - 1;
	l->ops.cpu_off(l->ops.arg, l->cpu_off);
	return (long)n;
}

int live_show_total_kb(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	fprintf(out, "%llu\n",
		(unsigned long long)l->ops.buffer_kb * l->ops.nr_buffers(l->ops.arg));
	return 0;
}

/* A time as the kernel's "%5llu.%06lu" of microseconds. */
static void print_ts(FILE *out, const char *name, uint64_t ns)
{
	fprintf(out, "%s: %5llu.%06llu\n", name, (unsigned long long)(ns / 1000000000u),
		(unsigned long long)(ns / 1000 % 1000000));
}

int live_show_cpu_stats(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct utrace_live_stats st = {0};
	struct utrace_error err = {0};
	uint64_t since = l->clear_ns;
	struct timespec now;
	int ret;

	if (l->cpu_clear_ns[h->cpu] > since)
		since = l->cpu_clear_ns[h->cpu];
	ret = l->ops.cpu_stats(l->ops.arg, h->cpu, since, live_pipe_read_ns(l, h->cpu), &st, &err);
	if (ret < 0)
		return ret;
	clock_gettime(CLOCK_MONOTONIC, &now);
	fprintf(out, "entries: %llu\noverrun: %llu\ncommit overrun: 0\nbytes: %llu\n",
		(unsigned long long)st.entries, (unsigned long long)st.overrun,
		(unsigned long long)st.bytes);
	print_ts(out, "oldest event ts", st.oldest_ns);
	print_ts(out, "now ts", (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec);
	fprintf(out, "dropped events: %llu\nread events: %llu\n", (unsigned long long)st.dropped,
		(unsigned long long)st.read);
	return 0;
}
