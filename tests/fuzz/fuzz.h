/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what every libFuzzer harness of tests/fuzz/ shares: the input
 * as a NUL-terminated string, as a file a reader opens by path, and a
 * sink for printed output.
 *
 * Header-only, like tests/unit/check.h: a harness is one .c file linked
 * with the library objects built for fuzzing (make fuzz-bins).  A harness
 * aborts only when a property that must hold for every input fails, so
 * that libFuzzer records the input as a crash.
 */
#ifndef UTRACE_TESTS_FUZZ_H
#define UTRACE_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A malloc'ed copy of data[0..size) with a NUL after it: exactly size + 1
 * bytes, so that ASan sees a parser read past the end. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/*
 * The input as a file, by path: one memfd, rewritten for each input and
 * named /proc/self/fd/N, so that readers that open() or mmap() a path
 * read it without a write to disk.
 */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;
	size_t done = 0;

	if (fd < 0) {
		fd = memfd_create("utrace-fuzz", 0);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0)
		abort();
	while (done < size) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	return path;
}

/* Where printed output goes: it is produced (and so read by ASan) but
 * not kept. */
static inline FILE *fuzz_sink(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

/* Splits data at its first NUL byte: the text before it, and *rest /
 * *rest_len the bytes after (none if there is no NUL). */
static inline char *fuzz_split(const uint8_t *data, size_t size, const uint8_t **rest,
			       size_t *rest_len)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t n = nul ? (size_t)(nul - data) : size;

	*rest = nul ? nul + 1 : data + size;
	*rest_len = nul ? size - n - 1 : 0;
	return fuzz_str(data, n);
}

/* The kernel's format text of the event the filter and trigger harnesses
 * compile for (fuzz_filter.c, fuzz_trigger.c). */
#define FUZZ_SAMPLE_FORMAT \
    "name: sample\n" \
    "ID: 42\n" \
    "format:\n" \
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
    "\n" \
    "\tfield:int count;\toffset:8;\tsize:4;\tsigned:1;\n" \
    "\tfield:short delta;\toffset:12;\tsize:2;\tsigned:1;\n" \
    "\tfield:unsigned char level;\toffset:14;\tsize:1;\tsigned:0;\n" \
    "\tfield:char ch;\toffset:15;\tsize:1;\tsigned:1;\n" \
    "\tfield:unsigned long len;\toffset:16;\tsize:8;\tsigned:0;\n" \
    "\tfield:char comm[16];\toffset:24;\tsize:16;\tsigned:1;\n" \
    "\tfield:__data_loc char[] word;\toffset:40;\tsize:4;\tsigned:0;\n" \
    "\tfield:__data_loc int[] vals;\toffset:44;\tsize:4;\tsigned:0;\n" \
    "\tfield:long long big;\toffset:48;\tsize:8;\tsigned:1;\n" \
    "\tfield:int arr[2];\toffset:56;\tsize:8;\tsigned:1;\n" \
    "\tfield:unsigned int flags32;\toffset:64;\tsize:4;\tsigned:0;\n" \
    "\n" \
    "print fmt: \"count=%d\", REC->count\n"

#endif
