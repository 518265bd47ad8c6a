/* SPDX-License-Identifier: MIT */
/*
 * protobuf.c - protobuf's wire format, written directly
 * (lib/export/protobuf.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/export/protobuf.h"

void utrace_pb_reset(struct utrace_pb *b)
{
	b->len = 0;
	b->depth = 0;
	b->oom = false;
}

void utrace_pb_free(struct utrace_pb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void utrace_pb_raw(struct utrace_pb *b, const void *data, size_t len)
{
	if (b->oom)
		return;
	if (UTRACE_GROW(b->p, b->cap, b->len + len) < 0) {
		b->oom = true;
		return;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

void utrace_pb_varint(struct utrace_pb *b, uint64_t v)
{
	unsigned char tmp[10];

	utrace_pb_raw(b, tmp, (size_t)(utrace_pb_put_varint(tmp, v) - tmp));
}

void utrace_pb_uint(struct utrace_pb *b, unsigned field, uint64_t v)
{
	utrace_pb_varint(b, (uint64_t)field << 3 | UTRACE_PB_VARINT);
	utrace_pb_varint(b, v);
}

void utrace_pb_int(struct utrace_pb *b, unsigned field, int64_t v)
{
	utrace_pb_uint(b, field, (uint64_t)v);
}

void utrace_pb_bytes(struct utrace_pb *b, unsigned field, const void *data, size_t len)
{
	utrace_pb_varint(b, (uint64_t)field << 3 | UTRACE_PB_LEN);
	utrace_pb_varint(b, len);
	utrace_pb_raw(b, data, len);
}

void utrace_pb_str(struct utrace_pb *b, unsigned field, const char *s)
{
	utrace_pb_bytes(b, field, s, strlen(s));
}

void utrace_pb_begin(struct utrace_pb *b, unsigned field)
{
	static const unsigned char reserve[4];

	utrace_pb_varint(b, (uint64_t)field << 3 | UTRACE_PB_LEN);
	if (b->depth == UTRACE_PB_MAX_DEPTH) {
		b->oom = true; /* a caller's bug: never nested this deep */
		return;
	}
	b->open[b->depth++] = b->len;
	utrace_pb_raw(b, reserve, sizeof(reserve));
}

void utrace_pb_end(struct utrace_pb *b)
{
	size_t at, size;

	if (b->oom || !b->depth)
		return;
	at = b->open[--b->depth];
	size = b->len - at - 4;
	if (size >= 1u << 28) {
		b->oom = true;
		return;
	}
	b->p[at] = (unsigned char)(0x80 | (size & 0x7f));
	b->p[at + 1] = (unsigned char)(0x80 | ((size >> 7) & 0x7f));
	b->p[at + 2] = (unsigned char)(0x80 | ((size >> 14) & 0x7f));
	b->p[at + 3] = (unsigned char)((size >> 21) & 0x7f);
}
