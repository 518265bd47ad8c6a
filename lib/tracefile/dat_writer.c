/* SPDX-License-Identifier: MIT */
/*
 * dat_writer.c - buffered appender of utrace.dat records.
 *
 * Design: one 1 MiB buffer; a record is copied into it piece by piece and
 * the buffer is written out with write() whenever it fills, so a record of
 * any size needs no second allocation.  write() is retried on EINTR and on
 * short writes.  The first failure is sticky: the file is then cut short at
 * an unknown point, and appending more records after the hole would only
 * produce a file that lies about its contents.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/rb_abi.h"
#include "lib/base/private_file.h"
#include "lib/tracefile/dat_writer.h"

#define DAT_WRITER_BUF (1u << 20)

struct utrace_dat_writer {
	int fd;
	int failed; /* negative errno of the first failure, 0 if none */
	char *path;
	uint64_t bytes; /* file size once everything buffered is written */
	uint64_t on_disk; /* bytes written out: the file's size after a failure */
	bool ended;	/* the END record is written */
	size_t used;
	char buf[DAT_WRITER_BUF];
};

static int writer_fail(struct utrace_dat_writer *w, int code, struct utrace_error *err,
		       const char *what)
{
	if (!w->failed)
		w->failed = code;
	return utrace_error_set(err, code, "%s: %s: %s (the file ends after %llu bytes)", w->path,
				what, strerror(-code), (unsigned long long)w->on_disk);
}

static int writer_flush(struct utrace_dat_writer *w, struct utrace_error *err)
{
	size_t done = 0;

	if (w->failed)
		return utrace_error_set(err, w->failed, "%s: an earlier write failed: %s", w->path,
					strerror(-w->failed));
	while (done < w->used) {
		ssize_t n = write(w->fd, w->buf + done, w->used - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return writer_fail(w, -errno, err, "write");
		}
		if (n == 0)
			return writer_fail(w, -EIO, err, "write returned 0");
		done += (size_t)n;
		w->on_disk += (uint64_t)n;
	}
	w->used = 0;
	return 0;
}

static int writer_append(struct utrace_dat_writer *w, const void *data, size_t len,
			 struct utrace_error *err)
{
	const char *p = data;

	while (len) {
		size_t room = sizeof(w->buf) - w->used;
		size_t n = len < room ? len : room;

		memcpy(w->buf + w->used, p, n);
		w->used += n;
		w->bytes += n;
		p += n;
		len -= n;
		if (w->used == sizeof(w->buf)) {
			int ret = writer_flush(w, err);

			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

int utrace_dat_writer_open(const char *path, struct utrace_dat_writer **out,
			   struct utrace_error *err)
{
	struct utrace_dat_header hdr;
	struct utrace_dat_writer *w;
	int ret;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", path);
	w->path = strdup(path);
	if (!w->path) {
		free(w);
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", path);
	}
	w->fd = utrace_create_private(path, 0); /* 0600: a trace is private */
	if (w->fd < 0) {
		ret = utrace_error_set(err, -errno, "%s: cannot create: %s", path, strerror(errno));
		free(w->path);
		free(w);
		return ret;
	}

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, UTRACE_DAT_MAGIC, sizeof(hdr.magic));
	hdr.size = sizeof(hdr);
	hdr.version = UTRACE_DAT_VERSION;
	hdr.subbuf_size = UTRACE_SUBBUF_MAX; /* the largest a page may be */
	ret = writer_append(w, &hdr, sizeof(hdr), err);
	if (ret < 0) {
		close(w->fd);
		free(w->path);
		free(w);
		return ret;
	}
	*out = w;
	return 0;
}

int utrace_dat_write(struct utrace_dat_writer *w, enum utrace_dat_type type,
		     const struct iovec *iov, int iovcnt, struct utrace_error *err)
{
	static const char zeroes[8];
	struct utrace_dat_rec rec;
	uint64_t len = 0;
	int ret;

	if (w->failed)
		return utrace_error_set(err, w->failed, "%s: an earlier write failed: %s", w->path,
					strerror(-w->failed));
	if (iovcnt < 0)
		return utrace_error_set(err, -EINVAL, "%s: record type %d: negative iovcnt",
					w->path, (int)type);
	for (int i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	if (len > UINT32_MAX - 8)
		return utrace_error_set(err, -EFBIG, "%s: record type %d: %llu bytes is too large",
					w->path, (int)type, (unsigned long long)len);

	rec.type = type;
	rec.len = (uint32_t)len;
	ret = writer_append(w, &rec, sizeof(rec), err);
	for (int i = 0; ret == 0 && i < iovcnt; i++)
		ret = writer_append(w, iov[i].iov_base, iov[i].iov_len, err);
	if (ret == 0 && (len & 7))
		ret = writer_append(w, zeroes, 8 - (len & 7), err);
	return ret;
}

int utrace_dat_writer_copy(struct utrace_dat_writer *w, const char *src, uint64_t from,
			   uint64_t len, struct utrace_error *err)
{
	int fd = open(src, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return utrace_error_set(err, -errno, "%s: %s", src, strerror(errno));
	while (len && ret == 0) {
		size_t want = len < sizeof(w->buf) - w->used ? (size_t)len : sizeof(w->buf) - w->used;
		ssize_t n = pread(fd, w->buf + w->used, want, (off_t)from);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = utrace_error_set(err, n < 0 ? -errno : -EIO, "%s: read: %s", src,
					       n < 0 ? strerror(errno) : "the file is shorter");
			break;
		}
		w->used += (size_t)n;
		w->bytes += (uint64_t)n;
		from += (uint64_t)n;
		len -= (uint64_t)n;
		if (w->used == sizeof(w->buf))
			ret = writer_flush(w, err);
	}
	close(fd);
	return ret;
}

int utrace_dat_writer_flush(struct utrace_dat_writer *w, struct utrace_error *err)
{
	return writer_flush(w, err);
}

int utrace_dat_writer_end(struct utrace_dat_writer *w, struct utrace_error *err)
{
	int ret;

	if (w->ended)
		return 0;
	ret = utrace_dat_write(w, UTRACE_DAT_END, NULL, 0, err);
	if (ret == 0)
		ret = writer_flush(w, err);
	w->ended = ret == 0;
	return ret;
}

int utrace_dat_writer_close(struct utrace_dat_writer *w, struct utrace_error *err)
{
	int ret;

	if (!w)
		return 0;
	ret = utrace_dat_writer_end(w, err);
	if (close(w->fd) < 0 && ret == 0)
		ret = utrace_error_set(err, -errno, "%s: close: %s", w->path, strerror(errno));
	free(w->path);
	free(w);
	return ret;
}

int utrace_dat_writer_failed(const struct utrace_dat_writer *w)
{
	return w->failed;
}

uint64_t utrace_dat_writer_bytes(const struct utrace_dat_writer *w)
{
	return w->bytes;
}
