/* SPDX-License-Identifier: MIT */
/*
 * <utrace/define_trace.h> - included at the end of an events header.  In
 * the one file that defines CREATE_TRACE_POINTS it reads the events header
 * three more times (TRACE_HEADER_MULTI_READ), each time with TRACE_EVENT
 * and the field macros meaning something else, as the kernel's
 * include/trace/define_trace.h and trace_events.h do:
 *
 *   stage 1  struct trace_event_raw_<class>: the record, common fields first
 *   stage 2  the __utrace_events entries (layout and print fmt) and the keys
 *   stage 3  the functions that fill a record and hand it to the runtime
 *
 * The events header names itself with TRACE_INCLUDE_FILE (default: the
 * value of TRACE_SYSTEM) and TRACE_INCLUDE_PATH (default: the compiler's
 * include path), as in the kernel.
 */
#ifdef CREATE_TRACE_POINTS

#undef CREATE_TRACE_POINTS /* the re-reads below must not recurse */

#define __utrace_inc_str(x) #x
#define __utrace_inc_xstr(x) __utrace_inc_str(x)
#ifndef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE TRACE_SYSTEM
#define __utrace_undef_include_file
#endif
#ifdef TRACE_INCLUDE_PATH
#define __utrace_include_name __utrace_inc_xstr(TRACE_INCLUDE_PATH/TRACE_INCLUDE_FILE.h)
#else
#define __utrace_include_name __utrace_inc_xstr(TRACE_INCLUDE_FILE.h)
#endif

#define TRACE_HEADER_MULTI_READ

#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef TRACE_EVENT
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)                                  \
	__UTRACE_TRACE_EVENT(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign), \
			     PARAMS(print))

/* ---- stage 1: the record layout -------------------------------------- */
#define __field(type, item) type item;
#define __field_ext(type, item, filter) type item;
#define __array(type, item, len) type item[len];
#define __string(item, src) uint32_t __data_loc_##item;
#define __dynamic_array(type, item, len) uint32_t __data_loc_##item;
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                          \
	struct trace_event_raw_##name {                                                         \
		struct utrace_trace_entry ent;                                                  \
		tstruct char __data[];                                                          \
	};
#define DEFINE_EVENT(template, name, proto, args)

#include __utrace_include_name

#include <utrace/define_trace_reset.h>

/* ---- stage 2: the descriptions and the keys -------------------------- */
#define __utrace_rec(cls) struct trace_event_raw_##cls
#define __utrace_fsize(cls, item) sizeof(((__utrace_rec(cls) *)0)->item)
#define __field(type, item) struct utrace_field_fmt item;
#define __field_ext(type, item, filter) struct utrace_field_fmt item;
#define __array(type, item, len) struct utrace_field_fmt item;
#define __string(item, src) struct utrace_field_fmt item;
#define __dynamic_array(type, item, len) struct utrace_field_fmt item;
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                          \
	struct __utrace_fields_##name {                                                         \
		tstruct                                                                         \
	};
#define DEFINE_EVENT(template, name, proto, args)

#include __utrace_include_name

#include <utrace/define_trace_reset.h>
#undef TP_printk

/* In the print fmt, __entry reads REC and the helpers stay as written,
 * as in the kernel's format files. */
#define __entry REC
#define __get_str(field) __get_str(field)
#define __get_dynamic_array(field) __get_dynamic_array(field)
#define __print_flags(flag, delim, ...) __print_flags(flag, delim, __VA_ARGS__)
#define __print_symbolic(value, ...) __print_symbolic(value, __VA_ARGS__)
#define TP_printk(fmt, ...) "\"" fmt "\", " __utrace_stringify(__VA_ARGS__)

#define __utrace_ffmt(ty, nm, sz, al, sgn, knd)                                                  \
	{ty, nm, (uint32_t)(sz), (uint32_t)(al), (uint8_t)(sgn), (uint8_t)(knd), {0}},
#define __field(type, item)                                                                     \
	__utrace_ffmt(#type, #item, sizeof(type), __alignof__(type), __utrace_is_signed(type),  \
		      UTRACE_FIELD_PLAIN)
#define __field_ext(type, item, filter) __field(type, item)
#define __array(type, item, len)                                                                \
	__utrace_ffmt(#type, #item "[" __utrace_stringify(len) "]", sizeof(type[len]),           \
		      __alignof__(type), __utrace_is_signed(type), UTRACE_FIELD_PLAIN)
#define __string(item, src)                                                                     \
	__utrace_ffmt("__data_loc char[]", #item, 4, 4, 0, UTRACE_FIELD_DATA_LOC)
#define __dynamic_array(type, item, len)                                                        \
	__utrace_ffmt("__data_loc " #type "[]", #item, 4, 4, __utrace_is_signed(type),          \
		      UTRACE_FIELD_DATA_LOC)

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                          \
	static const struct __utrace_class_##name {                                            \
		struct utrace_fmt_class hdr;                                                    \
		struct __utrace_fields_##name fields;                                           \
		char print_fmt[sizeof(print)];                                                  \
	} __utrace_class_fmt_##name                                                            \
		__attribute__((aligned(8), used, section("__utrace_events"))) = {              \
		{sizeof(struct __utrace_class_##name), UTRACE_FMT_CLASS, UTRACE_EVENT_ABI,      \
		 sizeof(struct __utrace_fields_##name) / sizeof(struct utrace_field_fmt),       \
		 sizeof(struct trace_event_raw_##name), 0, #name},                              \
		{tstruct},                                                                      \
		print,                                                                          \
	};

#define DEFINE_EVENT(template, name, proto, args)                                               \
	static const struct utrace_fmt_event __utrace_event_fmt_##name                          \
		__attribute__((aligned(8), used, section("__utrace_events"))) = {sizeof(struct utrace_fmt_event), UTRACE_FMT_EVENT,  \
					     UTRACE_EVENT_ABI, 0, __utrace_inc_xstr(TRACE_SYSTEM), \
					     #name, #template};                                 \
	struct utrace_event_key __utrace_key_##name                                             \
		__attribute__((aligned(8), used, section("__utrace_event_keys"))) = {sizeof(struct utrace_event_key), -1, 0, 0,               \
				       &__utrace_event_fmt_##name, 0, 0};

#include __utrace_include_name

#include <utrace/define_trace_reset.h>
#undef TP_printk
#undef __entry
#undef __get_str
#undef __get_dynamic_array
#undef __print_flags
#undef __print_symbolic
#define TP_printk(fmt, ...) fmt, ##__VA_ARGS__

/* ---- stage 3: filling a record --------------------------------------- */
/* Sizes of the dynamic fields first (the kernel's data_offsets), then the
 * record on the stack, then the runtime copies it into the thread's ring
 * buffer. */
#define __field(type, item)
#define __field_ext(type, item, filter)
#define __array(type, item, len)
#define __utrace_dl(item, bytes)                                                                \
	__tmp.__data_loc_##item =                                                               \
		(uint32_t)(offsetof(__utrace_rec_t, __data) + __dsize) | (uint32_t)(bytes) << 16; \
	__dsize += (uint32_t)(bytes);
#define __string(item, src) __utrace_dl(item, strlen((src) ? (const char *)(src) : "(null)") + 1)
#define __dynamic_array(type, item, len) __utrace_dl(item, sizeof(type) * (len))

#define __get_str(field) ((char *)__entry + (__entry->__data_loc_##field & 0xffff))
#define __get_dynamic_array(field)                                                              \
	((void *)((char *)__entry + (__entry->__data_loc_##field & 0xffff)))
#define __assign_str(dst, src) strcpy(__get_str(dst), (src) ? (const char *)(src) : "(null)")

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                          \
	static void __attribute__((noinline)) __utrace_notrace                                  \
	__utrace_class_do_##name(struct utrace_event_key *__key, proto)                         \
	{                                                                                       \
		typedef struct trace_event_raw_##name __utrace_rec_t;                           \
		__utrace_rec_t __tmp;                                                           \
		uint32_t __dsize = 0;                                                           \
		memset(&__tmp, 0, sizeof(__tmp));                                               \
		tstruct;                                                                        \
		{                                                                               \
			uint32_t __len = (uint32_t)offsetof(__utrace_rec_t, __data) + __dsize;  \
			uint64_t __buf[(__len + sizeof(__tmp) + 7) / 8];                        \
			__utrace_rec_t *__entry = (__utrace_rec_t *)__buf;                      \
			memcpy(__entry, &__tmp, sizeof(__tmp));                                 \
			{                                                                       \
				assign;                                                         \
			}                                                                       \
			if (__key->write)                                                       \
				__key->write(__key, __entry, __len);                            \
		}                                                                               \
	}
#define DEFINE_EVENT(template, name, proto, args)                                               \
	__utrace_notrace __utrace_called void __utrace_do_##name(proto)                         \
	{                                                                                       \
		__utrace_class_do_##template(&__utrace_key_##name, args);                       \
	}

#include __utrace_include_name

#include <utrace/define_trace_reset.h>
#undef __get_str
#undef __get_dynamic_array
#undef __assign_str

/* Back to declarations, for any later include of an events header. */
#undef TRACE_HEADER_MULTI_READ
#include <utrace/tracepoint_decl.h>
#ifdef __utrace_undef_include_file
#undef TRACE_INCLUDE_FILE
#undef __utrace_undef_include_file
#endif
#undef __utrace_include_name
#define CREATE_TRACE_POINTS

#endif /* CREATE_TRACE_POINTS */
