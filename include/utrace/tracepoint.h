/* SPDX-License-Identifier: MIT */
/*
 * <utrace/tracepoint.h> - static tracepoints for user programs, as the
 * kernel's TRACE_EVENT() makes them (include/linux/tracepoint.h).
 *
 * The guide is utrace-tracepoints(7) (docs/utrace-tracepoints.md); a
 * complete example is examples/demo_events.h in the source tree, installed
 * as PREFIX/share/utrace/examples/demo_events.h.
 *
 * An events header lists events with
 * TRACE_EVENT / DECLARE_EVENT_CLASS + DEFINE_EVENT and ends by including
 * <utrace/define_trace.h>.  Every file that includes the header gets the
 * inline trace_<name>() functions; the one file that defines
 * CREATE_TRACE_POINTS first gets, by reading the header again with other
 * macro definitions (TRACE_HEADER_MULTI_READ), the record layouts, the
 * format descriptions and the functions that fill the records.
 *
 * A call site costs one 5-byte NOP while the event is off: a jump label
 * (asm goto), listed in the section __utrace_jump_table, that the runtime
 * patches into a jump to the recording path when the event is enabled.
 * A program built with tracepoints runs normally without utrace: nothing
 * is ever patched and nothing links against libutrace.
 *
 * ABI (shared with libutrace.so and utrace list -e; every struct starts
 * with its size):
 *   __utrace_events       per event, a self-contained description: names,
 *                         fields (type, name, offset, size, signedness) and
 *                         print fmt; only integers and char arrays, so the
 *                         tool reads it straight from the file.
 *   __utrace_event_keys   per event, its key: state the runtime sets.
 *   __utrace_jump_table   per call site: {code, target, key}.
 */
#ifndef UTRACE_TRACEPOINT_H
#define UTRACE_TRACEPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <utrace/compiler.h>

/* Signedness of a field's type, as a constant expression (for a pointer,
 * the C form is not one in C++: clang++ would then fill the description
 * at run time, outside its section). */
#ifdef __cplusplus
#include <type_traits>
#define __utrace_is_signed(type) (std::is_signed<type>::value)
#else
#define __utrace_is_signed(type) (((type)(-1)) < (type)1)
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define UTRACE_EVENT_ABI 1
#define UTRACE_NAME_MAX 64
#define UTRACE_FIELD_TYPE_MAX 48

/* The kernel's common fields, at the start of every record. */
struct utrace_trace_entry {
	unsigned short common_type;
	unsigned char common_flags;
	unsigned char common_preempt_count;
	int common_pid;
};

enum utrace_field_kind {
	UTRACE_FIELD_PLAIN = 0,	 /* __field, __array */
	UTRACE_FIELD_DATA_LOC = 1, /* __string, __dynamic_array: u32 (len << 16 | offset) */
};

/*
 * One field.  Like the kernel's struct trace_event_fields, it gives size
 * and alignment, not the offset: a reader lays the fields out in order
 * after the common fields, each at the next multiple of its alignment,
 * which is exactly what the C compiler did with the record struct.
 */
struct utrace_field_fmt {
	char type[UTRACE_FIELD_TYPE_MAX]; /* "int", "char", "__data_loc char[]" */
	char name[UTRACE_NAME_MAX];	   /* "id", "comm[16]" */
	uint32_t size;
	uint32_t align;
	uint8_t is_signed;
	uint8_t kind; /* enum utrace_field_kind */
	uint8_t reserved[6];
};

/*
 * Entries of the __utrace_events section, one after the other (each padded
 * to 8 bytes; a reader walks them by size).  An EVENT names its CLASS
 * (DECLARE_EVENT_CLASS; TRACE_EVENT makes a class of the same name); a
 * CLASS holds the record layout and the print fmt, as the kernel's format
 * file shows them:
 *   field:<type> <name>;	offset:<offset>;	size:<size>;	signed:<is_signed>;
 */
enum utrace_fmt_kind {
	UTRACE_FMT_CLASS = 1,
	UTRACE_FMT_EVENT = 2,
};

struct utrace_fmt_class {
	uint32_t size; /* whole entry: fields and print fmt included */
	uint32_t kind; /* UTRACE_FMT_CLASS */
	uint32_t abi;  /* UTRACE_EVENT_ABI */
	uint32_t nr_fields;
	uint32_t rec_size; /* sizeof the record, common fields included, without dynamic data */
	uint32_t reserved;
	char name[UTRACE_NAME_MAX];
	/* struct utrace_field_fmt fields[nr_fields]; char print_fmt[]; */
};

struct utrace_fmt_event {
	uint32_t size; /* sizeof(struct utrace_fmt_event) */
	uint32_t kind; /* UTRACE_FMT_EVENT */
	uint32_t abi;
	uint32_t reserved;
	char system[UTRACE_NAME_MAX];
	char name[UTRACE_NAME_MAX];
	char class_name[UTRACE_NAME_MAX];
};

struct utrace_event_key;
typedef void (*utrace_event_write_fn)(struct utrace_event_key *key, const void *rec,
				      uint32_t len);

struct utrace_event_key {
	uint32_t size;	  /* sizeof(struct utrace_event_key) */
	int32_t id;	  /* event id in the trace (common_type); set by the runtime */
	volatile int enabled;
	uint32_t reserved;
	const struct utrace_fmt_event *fmt;
	/* Set by the runtime before it enables the event. */
	utrace_event_write_fn write;
	const void *filter; /* compiled filter, run by write() */
};

/*
 * The jump label of event NAME.  Off: a 5-byte NOP falls through past the
 * if; on: the runtime writes `jmp l_yes` over it.  The key is named in the
 * assembly (global variables are not mangled in C++), not passed as an
 * operand: an address is not an immediate in PIE C++ for clang.
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(UTRACE_NO_ASM_GOTO)
#define __UTRACE_JUMP_LABEL(name)                                                               \
	static inline __attribute__((always_inline)) __utrace_notrace int                       \
	__utrace_on_##name(void)                                                                \
	{                                                                                       \
		__asm__ goto("1: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"                         \
			     ".pushsection __utrace_jump_table, \"aw\"\n\t"                      \
			     ".balign 8\n\t"                                                     \
			     ".quad 1b, %l[l_yes], __utrace_key_" #name "\n\t"                   \
			     ".popsection\n\t"                                                   \
			     :                                                                  \
			     :                                                                  \
			     :                                                                  \
			     : l_yes);                                                          \
		return 0;                                                                       \
	l_yes:                                                                                  \
		return 1;                                                                       \
	}
#else
#define __UTRACE_JUMP_LABEL(name)                                                               \
	static inline __utrace_notrace int __utrace_on_##name(void)                             \
	{                                                                                       \
		return __builtin_expect(__utrace_key_##name.enabled, 0);                        \
	}
#endif

/* What every includer of an events header gets for one event. */
#define __UTRACE_DECLARE_EVENT(name, proto, args)                                               \
	extern struct utrace_event_key __utrace_key_##name;                                     \
	void __utrace_do_##name(proto);                                                         \
	__UTRACE_JUMP_LABEL(name)                                                               \
	static inline __attribute__((always_inline)) __utrace_notrace void trace_##name(proto)  \
	{                                                                                       \
		if (__utrace_on_##name())                                                       \
			__utrace_do_##name(args);                                               \
	}                                                                                       \
	static inline __utrace_notrace int trace_##name##_enabled(void)                         \
	{                                                                                       \
		return __utrace_key_##name.enabled;                                             \
	}

/* TRACE_EVENT is a class with one event of the same name, in every stage. */
#define __UTRACE_TRACE_EVENT(name, proto, args, tstruct, assign, print)                         \
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign), \
			    PARAMS(print))                                                      \
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))

/* Helpers used by the generated code. */
#define __utrace_stringify_1(...) #__VA_ARGS__
#define __utrace_stringify(...) __utrace_stringify_1(__VA_ARGS__)

#define TP_PROTO(...) __VA_ARGS__
#define TP_ARGS(...) __VA_ARGS__
#define TP_STRUCT__entry(...) __VA_ARGS__
#define TP_fast_assign(...) __VA_ARGS__
#define TP_printk(fmt, ...) fmt, ##__VA_ARGS__
#define TP_CONDITION(...) __VA_ARGS__

/* First read: declare the keys and the trace_<name>() inline functions. */
#define PARAMS(...) __VA_ARGS__
#include <utrace/tracepoint_decl.h>

#ifdef __cplusplus
}
#endif

#endif /* UTRACE_TRACEPOINT_H */
