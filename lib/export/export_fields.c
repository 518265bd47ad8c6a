/* SPDX-License-Identifier: MIT */
/*
 * export_fields.c - an event's fields by name and value
 * (lib/export/export_fields.h).
 *
 * Design: the record of a tracepoint or kernel event is laid out by its
 * format (the kernel's format file text the recording saved), so each
 * format is parsed once, the first time an event of its id is seen
 * (lib/events/event_format.h), and kept in a small table by id.  A
 * field's offset counts the 8 bytes of common fields, which the
 * iterator's record data leaves out.  Strings are a char array (up to its
 * first NUL) or a __data_loc char[] (a u32 of length << 16 | offset).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/events/event_format.h"
#include "lib/export/export_fields.h"
#include "lib/export/protobuf.h"

#define COMMON_SIZE 8u

struct fmt_slot {
	int id;
	struct utrace_event_format *f; /* NULL: no format in the file */
};

struct utrace_event_fields {
	struct utrace_dat *d;
	struct fmt_slot *v;
	size_t nr, cap;
};

int utrace_event_fields_new(struct utrace_dat *d, struct utrace_event_fields **out,
			    struct utrace_error *err)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	(*out)->d = d;
	return 0;
}

void utrace_event_fields_free(struct utrace_event_fields *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nr; i++)
		utrace_event_format_free(f->v[i].f);
	free(f->v);
	free(f);
}

/* The parsed format of event id, NULL if none (*oom set when out of
 * memory). */
static const struct utrace_event_format *format_of(struct utrace_event_fields *f, int id, bool *oom)
{
	const char *system = NULL, *text;
	struct utrace_event_format *fmt = NULL;
	struct utrace_error err;

	for (size_t i = 0; i < f->nr; i++)
		if (f->v[i].id == id)
			return f->v[i].f;
	if (UTRACE_GROW(f->v, f->cap, f->nr + 1) < 0) {
		*oom = true;
		return NULL;
	}
	text = utrace_dat_event_format_by_id(f->d, id, &system);
	if (text && utrace_event_format_parse(system ? system : "", text, &fmt, &err) < 0)
		fmt = NULL;
	f->v[f->nr++] = (struct fmt_slot){id, fmt};
	return fmt;
}

static uint64_t get_uint(const unsigned char *p, uint32_t size)
{
	uint8_t b;
	uint16_t h;
	uint32_t w;
	uint64_t q = 0;

	switch (size) {
	case 1:
		memcpy(&b, p, 1);
		return b;
	case 2:
		memcpy(&h, p, 2);
		return h;
	case 4:
		memcpy(&w, p, 4);
		return w;
	default:
		memcpy(&q, p, 8);
		return q;
	}
}

/* fd's value in the record data[0..len); false if it has none. */
static bool field_value(const struct utrace_event_field *fd, const unsigned char *data,
			uint32_t len, struct utrace_field_value *v)
{
	uint32_t off = fd->offset - COMMON_SIZE;
	uint64_t u;

	if (fd->common || fd->offset < COMMON_SIZE || off > len || fd->size > len - off)
		return false;
	v->name = fd->base;
	switch (fd->kind) {
	case UTRACE_EF_INT:
		if (fd->size != 1 && fd->size != 2 && fd->size != 4 && fd->size != 8)
			return false;
		u = get_uint(data + off, fd->size);
		v->kind = fd->is_signed ? UTRACE_FV_INT : UTRACE_FV_UINT;
		v->u = u;
		v->i = fd->size == 8 ? (int64_t)u
				     : (int64_t)(u << (64 - 8 * fd->size)) >> (64 - 8 * fd->size);
		return true;
	case UTRACE_EF_CHARS:
		v->kind = UTRACE_FV_STR;
		v->s = (const char *)data + off;
		v->len = strnlen(v->s, fd->size);
		return true;
	case UTRACE_EF_STRING:
		u = get_uint(data + off, 4);
		if ((u & 0xffff) < COMMON_SIZE || (u & 0xffff) - COMMON_SIZE + (u >> 16) > len)
			return false;
		v->kind = UTRACE_FV_STR;
		v->s = (const char *)data + (u & 0xffff) - COMMON_SIZE;
		v->len = strnlen(v->s, u >> 16);
		return true;
	default:
		return false;
	}
}

/* Perfetto's TrackEvent.debug_annotations and DebugAnnotation's fields
 * (protos/perfetto/trace/track_event/debug_annotation.proto). */
enum { TE_DEBUG_ANNOTATIONS = 4, DA_UINT = 3, DA_INT = 4, DA_STRING = 6, DA_NAME = 10 };

static int put_annotation(void *arg, const struct utrace_field_value *v)
{
	struct utrace_pb *b = arg;

	utrace_pb_begin(b, TE_DEBUG_ANNOTATIONS);
	utrace_pb_str(b, DA_NAME, v->name);
	if (v->kind == UTRACE_FV_STR)
		utrace_pb_bytes(b, DA_STRING, v->s, v->len);
	else if (v->kind == UTRACE_FV_INT)
		utrace_pb_int(b, DA_INT, v->i);
	else
		utrace_pb_uint(b, DA_UINT, v->u);
	utrace_pb_end(b);
	return 0;
}

int utrace_event_fields_annotate(struct utrace_event_fields *f, const struct utrace_event *ev,
				 struct utrace_pb *b)
{
	return utrace_event_fields_each(f, ev, put_annotation, b);
}

int utrace_event_fields_each(struct utrace_event_fields *f, const struct utrace_event *ev,
			     int (*fn)(void *arg, const struct utrace_field_value *v), void *arg)
{
	bool oom = false;
	const struct utrace_event_format *fmt = format_of(f, (int)ev->id, &oom);
	int ret;

	if (!fmt)
		return oom ? -ENOMEM : 0;
	for (unsigned i = 0; i < fmt->nr_fields; i++) {
		struct utrace_field_value v = {0};

		if (field_value(&fmt->fields[i], (const unsigned char *)ev->data, ev->data_len,
				&v) &&
		    (ret = fn(arg, &v)) != 0)
			return ret;
	}
	return 0;
}
