/* SPDX-License-Identifier: MIT */
/*
 * protobuf.h - writing protobuf's wire format directly, for the Perfetto
 * and pprof exports (no protobuf library: the format is a handful of
 * rules, and both files are streams of small messages).
 *
 * A field is a varint tag (field << 3 | wire type) followed by a varint
 * (integers, enums, bools) or by a varint length and that many bytes
 * (strings, nested messages, packed repeated integers).  A nested
 * message's length is not known when it starts, so utrace_pb_begin()
 * reserves four bytes and utrace_pb_end() back-fills them with a
 * "redundant" varint (0x80|b0, 0x80|b1, 0x80|b2, b3), which every decoder
 * accepts, as Perfetto's own protozero writer does: nothing is copied
 * twice.  Lengths are therefore limited to 2^28 - 1 bytes.
 */
#ifndef UTRACE_LIB_EXPORT_PROTOBUF_H
#define UTRACE_LIB_EXPORT_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UTRACE_PB_MAX_DEPTH 8

enum { UTRACE_PB_VARINT = 0, UTRACE_PB_LEN = 2 };

/* A message being built in a growing buffer; oom says it ran out of
 * memory (or nested too deep, or grew past 2^28): then it is to be
 * dropped, every call after that does nothing. */
struct utrace_pb {
	unsigned char *p;
	size_t len, cap;
	size_t open[UTRACE_PB_MAX_DEPTH];
	int depth;
	bool oom;
};

/* Empties b, keeping its memory. */
void utrace_pb_reset(struct utrace_pb *b);
void utrace_pb_free(struct utrace_pb *b);
void utrace_pb_raw(struct utrace_pb *b, const void *data, size_t len);
void utrace_pb_varint(struct utrace_pb *b, uint64_t v);
void utrace_pb_uint(struct utrace_pb *b, unsigned field, uint64_t v);
/* int32/int64 fields: a negative value is a 10-byte varint */
void utrace_pb_int(struct utrace_pb *b, unsigned field, int64_t v);
void utrace_pb_bytes(struct utrace_pb *b, unsigned field, const void *data, size_t len);
void utrace_pb_str(struct utrace_pb *b, unsigned field, const char *s);
/* A nested message, or a packed repeated field (then utrace_pb_varint
 * for each element), between begin and end. */
void utrace_pb_begin(struct utrace_pb *b, unsigned field);
void utrace_pb_end(struct utrace_pb *b);

/* v as a varint at o; returns the byte after it (at most 10 written). */
static inline unsigned char *utrace_pb_put_varint(unsigned char *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*o++ = (unsigned char)v;
	return o;
}

#endif
