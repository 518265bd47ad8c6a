/* SPDX-License-Identifier: MIT */
/*
 * dat_writer.h - appends records to a utrace.dat file (lib/tracefile/dat_format.h).
 *
 * The recorder writes as it goes, so a recorder that is killed leaves a
 * readable prefix: every record is complete once it leaves the buffer.
 * Records are buffered (1 MiB) and written with write(); nothing is
 * fsync'ed.  After a failed write the writer stays failed: every later call
 * returns the same error.
 */
#ifndef UTRACE_LIB_DAT_WRITER_H
#define UTRACE_LIB_DAT_WRITER_H

#include <stdint.h>
#include <sys/uio.h>

#include "lib/tracefile/dat_format.h"
#include "lib/base/error.h"

struct utrace_dat_writer;

/* Creates (or truncates) path and writes the file header, with
 * subbuf_size = UTRACE_SUBBUF_MAX: the largest sub-buffer a page of the
 * file may hold (each buffer's is its own: buffer_subbuf_size_kb). */
int utrace_dat_writer_open(const char *path, struct utrace_dat_writer **out,
			   struct utrace_error *err);

/* Appends one record whose payload is the concatenation of iov[0..iovcnt),
 * padded with zeroes to a multiple of 8 bytes. */
int utrace_dat_write(struct utrace_dat_writer *w, enum utrace_dat_type type,
		     const struct iovec *iov, int iovcnt, struct utrace_error *err);

/* Appends bytes [from, from + len) of the file src as they are: the
 * records another writer wrote (utrace extract copies the recording's
 * records so far into a file of its own, lib/record/recorder_extract.c). */
int utrace_dat_writer_copy(struct utrace_dat_writer *w, const char *src, uint64_t from,
			   uint64_t len, struct utrace_error *err);
/* Writes out what is buffered. */
int utrace_dat_writer_flush(struct utrace_dat_writer *w, struct utrace_error *err);

/* Appends the END record and flushes: the file is complete and
 * utrace_dat_writer_bytes() is its size.  Once only; nothing may be
 * written after it. */
int utrace_dat_writer_end(struct utrace_dat_writer *w, struct utrace_error *err);

/* Appends an END record (unless utrace_dat_writer_end did), flushes,
 * closes the file and frees w (always, even when it fails). */
int utrace_dat_writer_close(struct utrace_dat_writer *w, struct utrace_error *err);

/* The negative errno of the first write that failed (every later one
 * fails with it: the file ends there), 0 if none has. */
int utrace_dat_writer_failed(const struct utrace_dat_writer *w);

/* Bytes of the file so far, buffered bytes included. */
uint64_t utrace_dat_writer_bytes(const struct utrace_dat_writer *w);

#endif
