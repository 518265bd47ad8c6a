/* SPDX-License-Identifier: MIT */
/*
 * lib/events - what can be traced and how it is chosen: the
 * tracepoint formats of a program (this file), event filters compiled to
 * common/filter_prog.h programs (event_filter.h), event selection
 * (event_select.h), function selection as tracefs' set_ftrace_filter
 * files (ftrace_filter.h), the kernel's ftrace event formats
 * (ftrace_formats.h).  May use: lib/base, lib/elf.
 *
 * event_format.h - the static tracepoints a program defines, read from the
 * __utrace_events section of its ELF file (include/utrace/tracepoint.h),
 * with the kernel's format text for each.
 */
#ifndef UTRACE_LIB_EVENT_FORMAT_H
#define UTRACE_LIB_EVENT_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/base/error.h"

enum utrace_event_field_kind {
	UTRACE_EF_INT,	    /* a signed or unsigned integer of size 1, 2, 4 or 8 */
	UTRACE_EF_CHARS,    /* char name[N]: a string in a fixed array */
	UTRACE_EF_STRING,   /* __data_loc char[]: (len << 16 | offset) */
	UTRACE_EF_DYNARRAY, /* __data_loc TYPE[] */
	UTRACE_EF_OTHER,    /* an array of non-char, or a struct: not filterable */
};

struct utrace_event_field {
	const char *type; /* as in the format file: "int", "char", "__data_loc char[]" */
	const char *name; /* "count", "comm[16]" */
	const char *base; /* the name without [N]: what a filter names */
	uint32_t offset;  /* from the start of the record, common fields included */
	uint32_t size;
	bool is_signed;
	bool common; /* common_type, common_flags, common_preempt_count, common_pid */
	enum utrace_event_field_kind kind;
};

/* The kernel's common fields, the first four of every event's format: an
 * initializer for the start of a struct utrace_event_field array. */
#define UTRACE_EVENT_COMMON_FIELDS                                                         \
	{"unsigned short", "common_type", "common_type", 0, 2, false, true, UTRACE_EF_INT}, \
	{"unsigned char", "common_flags", "common_flags", 2, 1, false, true, UTRACE_EF_INT}, \
	{"unsigned char", "common_preempt_count", "common_preempt_count", 3, 1, false,     \
	 true, UTRACE_EF_INT},                                                              \
	{"int", "common_pid", "common_pid", 4, 4, true, true, UTRACE_EF_INT}

struct utrace_event_format {
	const char *system;
	const char *name;
	uint32_t rec_size;
	unsigned nr_fields; /* the 4 common fields first */
	const struct utrace_event_field *fields;
	const char *print_fmt; /* "\"fmt\", REC->a, ..." */
};

struct utrace_event_list;

/* Reads every event of an ELF file.  A file without the section gives an
 * empty list.  A malformed section is an error naming the file. */
int utrace_event_list_load(const char *path, struct utrace_event_list **out,
			   struct utrace_error *err);
void utrace_event_list_free(struct utrace_event_list *l);
unsigned utrace_event_list_count(const struct utrace_event_list *l);
const struct utrace_event_format *utrace_event_list_get(const struct utrace_event_list *l,
							unsigned i);
const struct utrace_event_format *utrace_event_list_find(const struct utrace_event_list *l,
							 const char *system, const char *name);

/*
 * The kernel's format file for an event with that id:
 *   name: NAME\nID: N\nformat:\n\tfield:unsigned short common_type;\toffset:0;...
 *   \n\tfield:...\n\nprint fmt: "...", REC->...\n
 * malloc'ed, or NULL when out of memory.
 */
char *utrace_event_format_text(const struct utrace_event_format *f, int id);

/* Parses such a text back (from a trace file); *out is freed with
 * utrace_event_format_free. */
int utrace_event_format_parse(const char *system, const char *text,
			      struct utrace_event_format **out, struct utrace_error *err);
void utrace_event_format_free(struct utrace_event_format *f);
/* The ID: line of a parsed text; -1 if it had none, and for an event
 * loaded from an ELF file (ids are given when recording). */
int utrace_event_format_id(const struct utrace_event_format *f);

/* A field by the name a filter uses (base name, or a common field). */
const struct utrace_event_field *utrace_event_field_find(const struct utrace_event_format *f,
							 const char *name);

#endif
