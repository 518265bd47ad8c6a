/* SPDX-License-Identifier: MIT */
/*
 * test_event_format.c - static tracepoint descriptions (lib/events/event_format*.c)
 * read from programs compiled at run time, the kernel's format text, and
 * its parser on the kernel's own format files.
 *
 * The fixture is an events header with TRACE_EVENT, DECLARE_EVENT_CLASS +
 * 2 DEFINE_EVENT and fields of every kind, built as C with gcc and clang
 * and as C++ with g++ and clang++.  Run with "layout", the fixture prints
 * the offsetof, sizeof and signedness of every field of its own record
 * structs, so the expected layout is the compiler's, not written here.
 * Corrupt copies of its section must give errors, never faults.
 */
#include <errno.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "include/utrace/tracepoint.h"
#include "lib/elf/elf.h"
#include "lib/events/event_format.h"
#include "tests/unit/check.h"

static const char events_h[] =
    "#undef TRACE_SYSTEM\n"
    "#define TRACE_SYSTEM tev\n"
    "#if !defined(TEV_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)\n"
    "#define TEV_EVENTS_H\n"
    "#include <utrace/tracepoint.h>\n"
    "TRACE_EVENT(tev_word,\n"
    "	TP_PROTO(const char *word, int count),\n"
    "	TP_ARGS(word, count),\n"
    "	TP_STRUCT__entry(__string(word, word) __field(int, count)),\n"
    "	TP_fast_assign(__assign_str(word, word); __entry->count = count;),\n"
    "	TP_printk(\"word=%s count=%d\", __get_str(word), __entry->count));\n"
    "TRACE_EVENT(tev_ints,\n"
    "	TP_PROTO(long long v, const int *vals, int n),\n"
    "	TP_ARGS(v, vals, n),\n"
    "	TP_STRUCT__entry(\n"
    "		__field(signed char, s8) __field(short, s16)\n"
    "		__field(unsigned char, u8) __field(long long, s64)\n"
    "		__field(unsigned short, u16) __field(int, s32)\n"
    "		__field(unsigned int, u32) __field(unsigned long long, u64)\n"
    "		__field(unsigned long, ul) __field(long, sl) __field(char, c)\n"
    "		__array(char, comm, 16) __dynamic_array(int, vals, n)),\n"
    "	TP_fast_assign(__entry->s8 = (signed char)v; __entry->s16 = (short)v;\n"
    "		__entry->u8 = (unsigned char)v; __entry->s64 = v;\n"
    "		__entry->u16 = (unsigned short)v; __entry->s32 = (int)v;\n"
    "		__entry->u32 = (unsigned int)v; __entry->u64 = (unsigned long long)v;\n"
    "		__entry->ul = (unsigned long)v; __entry->sl = (long)v; __entry->c = 'c';\n"
    "		memcpy(__entry->comm, \"comm\", 5);\n"
    "		memcpy(__get_dynamic_array(vals), vals, sizeof(int) * (size_t)n);),\n"
    "	TP_printk(\"s8=%d u64=%llu comm=%s\", __entry->s8, __entry->u64, __entry->comm));\n"
    "DECLARE_EVENT_CLASS(tev_class,\n"
    "	TP_PROTO(const char *path, unsigned long id, unsigned char flag),\n"
    "	TP_ARGS(path, id, flag),\n"
    "	TP_STRUCT__entry(__field(unsigned char, flag) __array(char, comm, 16)\n"
    "		__field(unsigned long, id) __string(path, path)),\n"
    "	TP_fast_assign(__entry->flag = flag; memcpy(__entry->comm, \"class\", 6);\n"
    "		__entry->id = id; __assign_str(path, path);),\n"
    "	TP_printk(\"path=%s id=%lu\", __get_str(path), __entry->id));\n"
    "DEFINE_EVENT(tev_class, tev_open,\n"
    "	TP_PROTO(const char *path, unsigned long id, unsigned char flag),\n"
    "	TP_ARGS(path, id, flag));\n"
    "DEFINE_EVENT(tev_class, tev_close,\n"
    "	TP_PROTO(const char *path, unsigned long id, unsigned char flag),\n"
    "	TP_ARGS(path, id, flag));\n"
    "#endif\n"
    "#undef TRACE_INCLUDE_PATH\n"
    "#undef TRACE_INCLUDE_FILE\n"
    "#define TRACE_INCLUDE_FILE tev_events\n"
    "#include <utrace/define_trace.h>\n";

/* "layout": one line "CLASS FIELD OFFSET SIZE SIGNED" a field, "rec
 * CLASS SIZE" a record; else fires every event (all off: a plain run). */
static const char prog_src[] =
    "#define CREATE_TRACE_POINTS\n"
    "#include \"tev_events.h\"\n"
    "#include <stdio.h>\n"
    "#define R(c) struct trace_event_raw_##c\n"
    "#define L(c, item, m, sgn) printf(#c \" \" #item \" %zu %zu %d\\n\", \\\n"
    "	offsetof(R(c), m), sizeof(((R(c) *)0)->m), (int)(sgn))\n"
    "#define F(c, t, item) L(c, item, item, __utrace_is_signed(t))\n"
    "#define S(c, item) L(c, item, __data_loc_##item, 0)\n"
    "#define D(c, t, item) L(c, item, __data_loc_##item, __utrace_is_signed(t))\n"
    "#define REC(c) printf(\"rec \" #c \" %zu\\n\", sizeof(R(c)))\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "	int v[2] = {1, 2};\n"
    "	(void)argv;\n"
    "	if (argc < 2) {\n"
    "		trace_tev_word(\"w\", 1);\n"
    "		trace_tev_ints(-1, v, 2);\n"
    "		trace_tev_open(\"/p\", 1, 2);\n"
    "		trace_tev_close(\"/p\", 1, 2);\n"
    "		return 0;\n"
    "	}\n"
    "	S(tev_word, word); F(tev_word, int, count); REC(tev_word);\n"
    "	F(tev_ints, signed char, s8); F(tev_ints, short, s16);\n"
    "	F(tev_ints, unsigned char, u8); F(tev_ints, long long, s64);\n"
    "	F(tev_ints, unsigned short, u16); F(tev_ints, int, s32);\n"
    "	F(tev_ints, unsigned int, u32); F(tev_ints, unsigned long long, u64);\n"
    "	F(tev_ints, unsigned long, ul); F(tev_ints, long, sl); F(tev_ints, char, c);\n"
    "	F(tev_ints, char, comm); D(tev_ints, int, vals); REC(tev_ints);\n"
    "	F(tev_class, unsigned char, flag); F(tev_class, char, comm);\n"
    "	F(tev_class, unsigned long, id); S(tev_class, path); REC(tev_class);\n"
    "	return 0;\n"
    "}\n";

/* The kernel's text for tev_word, as events/tev/tev_word/format would be. */
static const char golden_word[] =
    "name: tev_word\n"
    "ID: 7\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:__data_loc char[] word;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:int count;\toffset:12;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"word=%s count=%d\", __get_str(word), REC->count\n";

static const char *const event_names[] = {"tev_close", "tev_ints", "tev_open", "tev_word"};

static const char *class_of(const char *event)
{
	return !strcmp(event, "tev_open") || !strcmp(event, "tev_close") ? "tev_class" : event;
}

static int same_field(const struct utrace_event_field *a, const struct utrace_event_field *b)
{
	return !strcmp(a->type, b->type) && !strcmp(a->name, b->name) &&
	       !strcmp(a->base, b->base) && a->offset == b->offset && a->size == b->size &&
	       a->is_signed == b->is_signed && a->common == b->common && a->kind == b->kind;
}

/* text -> parse -> same format -> same text. */
static int round_trip(const struct utrace_event_format *f, int id, char *why, size_t len)
{
	struct utrace_error err = {0};
	struct utrace_event_format *p;
	char *text = utrace_event_format_text(f, id), *again;
	int ok = 1;

	if (!text || utrace_event_format_parse(f->system, text, &p, &err) < 0) {
		snprintf(why, len, "%s", text ? err.msg : "out of memory");
		free(text);
		return 0;
	}
	ok = !strcmp(p->name, f->name) && !strcmp(p->system, f->system) &&
	     !strcmp(p->print_fmt, f->print_fmt) && p->nr_fields == f->nr_fields &&
	     utrace_event_format_id(p) == id;
	for (unsigned i = 0; ok && i < f->nr_fields; i++)
		ok = same_field(&p->fields[i], &f->fields[i]);
	again = utrace_event_format_text(p, utrace_event_format_id(p));
	if (ok && (!again || strcmp(again, text)))
		ok = 0;
	if (!ok)
		snprintf(why, len, "parsed back differently");
	free(again);
	free(text);
	utrace_event_format_free(p);
	return ok;
}

/* Compares the list with the fixture's own "layout" output. */
static void check_layout(const char *label, const char *bin, const struct utrace_event_list *l)
{
	char cmd[600], cls[64], item[64];
	unsigned lines[4] = {0}, bad = 0, recs = 0;
	size_t off, size;
	int sgn;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' layout", check_path(bin));
	p = popen(cmd, "r");
	if (!p) {
		check(0, "%s: run %s layout", label, bin);
		return;
	}
	while (fscanf(p, "%63s %63s %zu", cls, item, &off) == 3) {
		if (!strcmp(cls, "rec")) { /* "rec CLASS SIZE" */
			recs++;
			for (unsigned e = 0; e < 4; e++) {
				const struct utrace_event_format *f =
				    utrace_event_list_find(l, "tev", event_names[e]);

				if (!strcmp(class_of(event_names[e]), item) &&
				    (!f || f->rec_size != off)) {
					printf("# %s: %s rec_size %u, sizeof %zu\n", label,
					       event_names[e], f ? f->rec_size : 0, off);
					bad++;
				}
			}
			continue;
		}
		if (fscanf(p, "%zu %d", &size, &sgn) != 2)
			break;
		for (unsigned e = 0; e < 4; e++) {
			const struct utrace_event_format *f =
			    utrace_event_list_find(l, "tev", event_names[e]);
			const struct utrace_event_field *fd;

			if (strcmp(class_of(event_names[e]), cls))
				continue;
			lines[e]++;
			fd = f ? utrace_event_field_find(f, item) : NULL;
			if (!fd || fd->offset != off || fd->size != size ||
			    fd->is_signed != !!sgn) {
				printf("# %s: %s.%s: offset %u size %u signed %d, compiler %zu %zu "
				       "%d\n",
				       label, event_names[e], item, fd ? fd->offset : 0,
				       fd ? fd->size : 0, fd ? fd->is_signed : -1, off, size, sgn);
				bad++;
			}
		}
	}
	pclose(p);
	for (unsigned e = 0; e < 4; e++) {
		const struct utrace_event_format *f =
		    utrace_event_list_find(l, "tev", event_names[e]);

		if (!f || f->nr_fields != 4 + lines[e]) {
			printf("# %s: %s has %u fields, the compiler's record %u + 4\n", label,
			       event_names[e], f ? f->nr_fields : 0, lines[e]);
			bad++;
		}
	}
	check(!bad && recs == 3 && lines[1] == 13, "%s: offsets, sizes, signedness = compiler's",
	      label);
}

static void check_kinds(const char *label, const struct utrace_event_list *l)
{
	static const struct {
		const char *event, *field;
		enum utrace_event_field_kind kind;
	} want[] = {
	    {"tev_word", "word", UTRACE_EF_STRING},   {"tev_word", "count", UTRACE_EF_INT},
	    {"tev_ints", "s8", UTRACE_EF_INT},	      {"tev_ints", "u64", UTRACE_EF_INT},
	    {"tev_ints", "ul", UTRACE_EF_INT},	      {"tev_ints", "comm", UTRACE_EF_CHARS},
	    {"tev_ints", "vals", UTRACE_EF_DYNARRAY}, {"tev_open", "path", UTRACE_EF_STRING},
	    {"tev_close", "comm", UTRACE_EF_CHARS},   {"tev_open", "common_pid", UTRACE_EF_INT},
	};
	unsigned bad = 0;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct utrace_event_format *f =
		    utrace_event_list_find(l, "tev", want[i].event);
		const struct utrace_event_field *fd =
		    f ? utrace_event_field_find(f, want[i].field) : 0;

		if (!fd || fd->kind != want[i].kind) {
			printf("# %s: %s.%s kind %d, want %d\n", label, want[i].event,
			       want[i].field, fd ? (int)fd->kind : -1, (int)want[i].kind);
			bad++;
		}
	}
	check(!bad, "%s: field kinds (INT, CHARS, STRING, DYNARRAY)", label);
}

static void check_common(const char *label, const struct utrace_event_format *f)
{
	static const struct utrace_event_field common[4] = {
	    UTRACE_EVENT_COMMON_FIELDS,
	};
	int ok = f && f->nr_fields > 4 && !f->fields[4].common;

	for (unsigned i = 0; ok && i < 4; i++)
		ok = same_field(&f->fields[i], &common[i]);
	check(ok, "%s: the 4 common fields first", label);
}

/* Builds the fixture with cc (as C, or C++ if cxx) and checks it all;
 * a shared library (flags) cannot run: no layout check. */
static void test_build(const char *label, const char *cc, int cxx, const char *flags, int run)
{
	char inc[600], srcname[64], bin[64], why[600];
	struct utrace_error err = {0};
	struct utrace_event_list *l = NULL;
	unsigned n;
	int ok;

	snprintf(bin, sizeof(bin), "prog-%s", label);
	snprintf(srcname, sizeof(srcname), "prog-%s.%s", label, cxx ? "cc" : "c");
	if (!check_have(cc)) {
		check_skip(label, "compiler not installed");
		return;
	}
	if (!getcwd(why, sizeof(why)))
		why[0] = '\0';
	snprintf(inc, sizeof(inc), "-Wall -Wextra -Werror -I'%s/include' -I. %s", why, flags);
	if (check_build(cc, bin, srcname, prog_src, inc) < 0) {
		check(0, "%s: build the fixture (see %s.log)", label, check_path(bin));
		return;
	}
	snprintf(why, sizeof(why), "'%s' >/dev/null 2>&1", check_path(bin));
	if (run)
		check(system(why) == 0, "%s: runs without utrace (tracepoints off)", label);
	if (utrace_event_list_load(check_path(bin), &l, &err) < 0) {
		check(0, "%s: load: %s", label, err.msg);
		return;
	}
	n = utrace_event_list_count(l);
	ok = n == 4;
	for (unsigned i = 0; ok && i < n; i++) /* sorted by system:name */
		ok = !strcmp(utrace_event_list_get(l, i)->system, "tev") &&
		     !strcmp(utrace_event_list_get(l, i)->name, event_names[i]);
	check(ok, "%s: 4 events tev:tev_close, tev_ints, tev_open, tev_word (got %u)", label, n);
	check(utrace_event_list_get(l, 4) == NULL && !utrace_event_list_find(l, "tev", "nope") &&
		  !utrace_event_list_find(l, "other", "tev_word") &&
		  utrace_event_list_find(l, NULL, "tev_word"),
	      "%s: find and get out of range", label);
	if (run)
		check_layout(label, bin, l);
	check_kinds(label, l);
	check_common(label, utrace_event_list_find(l, "tev", "tev_ints"));
	{
		const struct utrace_event_format *o = utrace_event_list_find(l, "tev", "tev_open");
		const struct utrace_event_format *c = utrace_event_list_find(l, "tev", "tev_close");

		check(o && c && o->fields == c->fields && !strcmp(o->print_fmt, c->print_fmt) &&
			  !strcmp(o->print_fmt, "\"path=%s id=%lu\", __get_str(path), REC->id"),
		      "%s: DEFINE_EVENTs share their class's fields and print fmt", label);
	}
	{
		const struct utrace_event_format *w = utrace_event_list_find(l, "tev", "tev_word");
		char *text = w ? utrace_event_format_text(w, 7) : NULL;

		check(
		    w && !strcmp(w->print_fmt, "\"word=%s count=%d\", __get_str(word), REC->count"),
		    "%s: print fmt of tev_word", label);
		check(text && !strcmp(text, golden_word), "%s: format text of tev_word", label);
		if (text && strcmp(text, golden_word))
			printf("# got:\n%s", text);
		free(text);
	}
	ok = 1;
	for (unsigned i = 0; ok && i < n; i++) {
		ok = round_trip(utrace_event_list_get(l, i), 100 + (int)i, why, sizeof(why));
		if (!ok)
			printf("# %s: %s: %s\n", label, utrace_event_list_get(l, i)->name, why);
	}
	check(ok, "%s: text -> parse -> text round trip of every event", label);
	utrace_event_list_free(l);
}

/* ---- corrupt sections ------------------------------------------------ */

static unsigned char *orig;
static size_t orig_len;
static uint64_t sec_off, sec_size, shdr_off; /* of __utrace_events */
static uint64_t class_at, event_at;	     /* first CLASS / EVENT, file offsets */
static uint32_t event_size;

static void put32(unsigned char *b, uint64_t at, uint32_t v)
{
	memcpy(b + at, &v, 4);
}

static void put64(unsigned char *b, uint64_t at, uint64_t v)
{
	memcpy(b + at, &v, 8);
}

/* Every event of the file prints and parses back the same; 0 if not. */
static int round_trip_file(const char *path)
{
	struct utrace_error err = {0};
	struct utrace_event_list *l;
	char why[600];
	int ok = 1;

	if (utrace_event_list_load(path, &l, &err) < 0)
		return 0;
	for (unsigned i = 0; ok && i < utrace_event_list_count(l); i++) {
		ok = round_trip(utrace_event_list_get(l, i), (int)i, why, sizeof(why));
		if (!ok)
			printf("# %s: %s\n", utrace_event_list_get(l, i)->name, why);
	}
	utrace_event_list_free(l);
	return ok;
}

/* Loads buf as a file: 1 if it loaded, 0 if it failed with a message
 * naming the file and containing want (if not NULL), -1 otherwise. */
static int load_buf(const unsigned char *buf, size_t len, const char *want, unsigned *nr)
{
	struct utrace_error err = {0};
	struct utrace_event_list *l = NULL;
	const char *path = check_path("bad.bin");
	int ret;

	if (check_write_file("bad.bin", buf, len) < 0)
		return -1;
	ret = utrace_event_list_load(path, &l, &err);
	if (ret == 0) {
		if (nr)
			*nr = utrace_event_list_count(l);
		utrace_event_list_free(l);
		return 1;
	}
	if (l || err.code != ret || !strstr(err.msg, path) || (want && !strstr(err.msg, want))) {
		printf("# unexpected error: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static void corrupt(const char *what, const char *want, void (*fn)(unsigned char *b))
{
	unsigned char *b = malloc(orig_len);

	if (!b)
		return;
	memcpy(b, orig, orig_len);
	fn(b);
	check(load_buf(b, orig_len, want, NULL) == 0, "corrupt: %s is an error", what);
	free(b);
}

/* clang-format off */
static void c_size_huge(unsigned char *b) { put32(b, class_at, 0xfffffff0u); }
static void c_size_tiny(unsigned char *b) { put32(b, class_at, 4); }
static void c_kind(unsigned char *b) { put32(b, class_at + 4, 9); }
static void c_abi(unsigned char *b) { put32(b, class_at + 8, 7); }
static void c_nr_fields(unsigned char *b) { put32(b, class_at + 12, 0x10000); }
static void c_rec_size(unsigned char *b) { put32(b, class_at + 16, 1000); }
static void c_class_name(unsigned char *b) { memset(b + class_at + 24, 'x', UTRACE_NAME_MAX); }
#define FIELD0 (class_at + sizeof(struct utrace_fmt_class))
#define FOFF(m) (FIELD0 + offsetof(struct utrace_field_fmt, m))
static void c_align3(unsigned char *b) { put32(b, FOFF(align), 3); }
static void c_align128(unsigned char *b) { put32(b, FOFF(align), 128); }
static void c_align0(unsigned char *b) { put32(b, FOFF(align), 0); }
static void c_fsize(unsigned char *b) { put32(b, FOFF(size), 0x20000); }
static void c_fname(unsigned char *b) { memset(b + FOFF(name), 'y', UTRACE_NAME_MAX); }
static void c_ftype(unsigned char *b) { memset(b + FOFF(type), 'z', UTRACE_FIELD_TYPE_MAX); }
static void c_ftype_semi(unsigned char *b) { b[FOFF(type)] = ';'; }
static void c_fsigned(unsigned char *b) { b[FOFF(is_signed)] = 5; }
static void c_fkind(unsigned char *b) { b[FOFF(kind)] = 9; }
static void c_ev_size(unsigned char *b) { put32(b, event_at, 16); }
static void c_ev_system(unsigned char *b)
{ memset(b + event_at + offsetof(struct utrace_fmt_event, system), 's', UTRACE_NAME_MAX); }
static void c_ev_class(unsigned char *b)
{ strcpy((char *)b + event_at + offsetof(struct utrace_fmt_event, class_name), "no_such"); }
static void c_sh_size(unsigned char *b) { put64(b, shdr_off + 32, sec_size - 12); }
static void c_sh_size5(unsigned char *b) { put64(b, shdr_off + 32, 5); }
static void c_sh_offset(unsigned char *b) { put64(b, shdr_off + 24, (uint64_t)1 << 40); }
/* clang-format on */

/* The print fmt: every byte up to the end of the entry, no NUL. */
static void c_print_fmt(unsigned char *b)
{
	uint32_t size, nr;

	memcpy(&size, b + class_at, 4);
	memcpy(&nr, b + class_at + 12, 4);
	memset(b + FIELD0 + nr * sizeof(struct utrace_field_fmt), 'p',
	       size - sizeof(struct utrace_fmt_class) - nr * sizeof(struct utrace_field_fmt));
}

/* Finds the section and its first CLASS and EVENT in orig. */
static int locate(const char *path)
{
	struct utrace_elf_section sec;
	struct utrace_elf *elf;
	uint64_t shoff;

	if (utrace_elf_open(path, &elf) < 0)
		return -1;
	if (utrace_elf_find_section(elf, "__utrace_events", &sec) < 0) {
		utrace_elf_close(elf);
		return -1;
	}
	utrace_elf_close(elf);
	sec_off = sec.offset;
	sec_size = sec.size;
	memcpy(&shoff, orig + 0x28, 8); /* e_shoff */
	shdr_off = shoff + (uint64_t)sec.index * 64;
	class_at = event_at = 0;
	for (uint64_t at = 0; at + 8 <= sec_size;) {
		uint32_t size, kind;

		memcpy(&size, orig + sec_off + at, 4);
		memcpy(&kind, orig + sec_off + at + 4, 4);
		if (!size) {
			at += 8;
			continue;
		}
		if (kind == UTRACE_FMT_CLASS && !class_at)
			class_at = sec_off + at;
		if (kind == UTRACE_FMT_EVENT && !event_at) {
			event_at = sec_off + at;
			event_size = size;
		}
		at += (size + 7u) & ~7u;
	}
	return class_at && event_at ? 0 : -1;
}

static void test_corrupt(void)
{
	static const struct {
		const char *what, *want;
		void (*fn)(unsigned char *b);
	} cases[] = {
	    {"entry size beyond the section", "does not fit", c_size_huge},
	    {"entry size 4", "does not fit", c_size_tiny},
	    {"unknown kind", "kind", c_kind},
	    {"ABI version 7", "ABI", c_abi},
	    {"nr_fields 65536", "fields do not fit", c_nr_fields},
	    {"wrong rec_size", "record", c_rec_size},
	    {"class name without NUL", "NUL", c_class_name},
	    {"field align 3", "alignment", c_align3},
	    {"field align 128", "alignment", c_align128},
	    {"field align 0", "alignment", c_align0},
	    {"field size 128 KiB", "larger than", c_fsize},
	    {"field name without NUL", "NUL", c_fname},
	    {"field type without NUL", "NUL", c_ftype},
	    {"field type with ';'", "malformed", c_ftype_semi},
	    {"field signed 5", "signed", c_fsigned},
	    {"field kind 9", "kind", c_fkind},
	    {"print fmt without NUL", "print fmt", c_print_fmt},
	    {"EVENT smaller than its header", NULL, c_ev_size},
	    {"event system without NUL", "NUL", c_ev_system},
	    {"event of a missing class", "no_such", c_ev_class},
	    {"section cut inside an entry", NULL, c_sh_size},
	    {"section of 5 bytes", "truncated", c_sh_size5},
	    {"section beyond the file", NULL, c_sh_offset},
	};
	const char *src = check_path("prog-gcc");
	unsigned nr = 0, crashes = 0, errors = 0, loads = 0, differ = 0;
	int ok;
	unsigned char *b;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	orig = check_slurp(src, &orig_len);
	if (!orig || locate(src) < 0) {
		check_skip("corrupt sections", "no gcc fixture");
		free(orig);
		return;
	}
	check(load_buf(orig, orig_len, NULL, &nr) == 1 && nr == 4, "corrupt: the copy loads");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		corrupt(cases[i].what, cases[i].want, cases[i].fn);
	corrupt("missing class names the event", "event tev:", c_ev_class);
	b = malloc(orig_len);
	if (!b)
		return;
	/* An EVENT zeroed out is padding: one event fewer, no error. */
	memcpy(b, orig, orig_len);
	memset(b + event_at, 0, (event_size + 7u) & ~7u);
	ok = load_buf(b, orig_len, NULL, &nr) == 1 && nr == 3;
	check(ok, "zeroed entry is padding (%u events)", nr);
	check(load_buf(orig, orig_len / 3, NULL, NULL) == 0, "corrupt: truncated file is an error");
	/* Random damage inside the section: a result or an error, never a fault. */
	for (unsigned i = 0; i < 3000; i++) {
		unsigned flips = 1 + i % 4;
		int r;

		memcpy(b, orig, orig_len);
		for (unsigned k = 0; k < flips; k++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			b[sec_off + (seed >> 8) % sec_size] ^= (unsigned char)(1u << (seed & 7));
		}
		r = load_buf(b, orig_len, NULL, NULL);
		if (r == 1)
			differ += !round_trip_file(check_path("bad.bin"));
		crashes += r < 0;
		errors += r == 0;
		loads += r == 1;
	}
	check(!crashes && !differ,
	      "fuzz: 3000 damaged sections: %u loaded (%u not round-tripped), %u errors, %u bad",
	      loads, differ, errors, crashes);
	free(b);
	free(orig);
}

/* ---- parsing ---------------------------------------------------------- */

static void test_parse_errors(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
	    {"", "no name"},
	    {"garbage\n", "line 1: unexpected"},
	    {"name: x\nID: zz\nformat:\n\nprint fmt: \"\"\n", "bad ID"},
	    {"name: x\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n",
	     "no print fmt"},
	    {"name: x\nID: 1\nformat:\n\tfield:int a;\toffset:0;\n\nprint fmt: \"\"\n",
	     "line 4: field a lacks"},
	    {"name: x\nID: 1\nformat:\n\tfield:;\toffset:0;\tsize:4;\n\nprint fmt: \"\"\n",
	     "no type or name"},
	    {"name: x\nID: 1\nformat:\n\tfield:a;\toffset:0;\tsize:4;\n\nprint fmt: \"\"\n",
	     "no type or name"},
	    {"name: x\nID: 1\nformat:\n\tfield:int a\toffset:0;\n\nprint fmt: \"\"\n", "';'"},
	    {"name: x\nformat:\n\tfield:int a;\toffset:99999999999;\tsize:4;\n\nprint fmt: x\n",
	     "bad"},
	    {"name: x\nformat:\n\tfield:int a;\toffset:4294967295;\tsize:4;\n\nprint fmt: x\n",
	     "4 GiB"},
	    {"name: x\nID: 1\nprint fmt: \"\"\n", "no format"},
	};
	struct utrace_event_format *f;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct utrace_error err = {0};
		int ret = utrace_event_format_parse("s", bad[i].text, &f, &err);

		check(ret < 0 && !f && strstr(err.msg, bad[i].want) && !strchr(err.msg, '\n'),
		      "parse error %zu: '%s' in \"%s\"", i, bad[i].want, err.msg);
	}
}

static void test_parse_kinds(void)
{
	static const char text[] =
	    "name: k\nformat:\n"
	    "\tfield special:unsigned short common_type;\toffset:0;\tsize:2;\n"
	    "\n"
	    "\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
	    "\tfield:__data_loc u8[] buf;\toffset:12;\tsize:4;\tsigned:0;\n"
	    "\tfield:__data_loc cpumask_t mask;\toffset:16;\tsize:4;\tsigned:0;\n"
	    "\tfield:char comm[16];\toffset:20;\tsize:16;\tsigned:0;\n"
	    "\tfield:u8 addr[6];\toffset:36;\tsize:6;\tsigned:0;\n"
	    "\tfield:const char * s;\toffset:48;\tsize:8;\tsigned:0;\n"
	    "\tfield:__rel_loc char[] r;\toffset:56;\tsize:4;\tsigned:0;\n"
	    "\tfield:double d;\toffset:64;\tsize:8;\tsigned:1;\n"
	    "\tfield:unsigned long args[];\toffset:72;\tsize:0;\tsigned:0;\n"
	    "\tfield:s64 v;\toffset:72;\tsize:8;\tsigned:1;\n"
	    "\n"
	    "print fmt: \"two\nlines\", REC->v\n";
	static const struct {
		const char *field, *type;
		enum utrace_event_field_kind kind;
	} want[] = {
	    {"common_type", "unsigned short", UTRACE_EF_INT},
	    {"name", "__data_loc char[]", UTRACE_EF_STRING},
	    {"buf", "__data_loc u8[]", UTRACE_EF_DYNARRAY},
	    {"mask", "__data_loc cpumask_t", UTRACE_EF_DYNARRAY},
	    {"comm", "char", UTRACE_EF_CHARS},
	    {"addr", "u8", UTRACE_EF_OTHER},
	    {"s", "const char *", UTRACE_EF_INT},
	    {"r", "__rel_loc char[]", UTRACE_EF_OTHER},
	    {"d", "double", UTRACE_EF_OTHER},
	    {"args", "unsigned long", UTRACE_EF_OTHER},
	    {"v", "s64", UTRACE_EF_INT},
	};
	struct utrace_error err = {0};
	struct utrace_event_format *f;
	unsigned bad = 0;

	if (utrace_event_format_parse(NULL, text, &f, &err) < 0) {
		check(0, "parse kinds: %s", err.msg);
		return;
	}
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct utrace_event_field *fd = utrace_event_field_find(f, want[i].field);

		if (!fd || strcmp(fd->type, want[i].type) || fd->kind != want[i].kind) {
			printf("# %s: type '%s' kind %d\n", want[i].field, fd ? fd->type : "?",
			       fd ? (int)fd->kind : -1);
			bad++;
		}
	}
	check(!bad && f->nr_fields == 11, "parse: types and kinds of kernel-style fields");
	check(f->fields[0].common && !f->fields[1].common && !strcmp(f->system, "") &&
		  utrace_event_format_id(f) == -1 && f->rec_size == 80 &&
		  !strcmp(utrace_event_field_find(f, "comm")->name, "comm[16]"),
	      "parse: common block, no system, no ID, rec_size");
	check(!strcmp(f->print_fmt, "\"two\nlines\", REC->v"), "parse: print fmt over two lines");
	utrace_event_format_free(f);
}

/* A tracefs file (its size says 0): the text, or NULL. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return NULL;
	n = getdelim(&buf, &cap, '\0', f); /* to the end: there is no NUL */
	fclose(f);
	if (n <= 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Every format file of the running kernel parses and prints back the same. */
static void test_kernel_formats(void)
{
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	unsigned parsed = 0, bad = 0;
	char pattern[128], common[512] = "";
	glob_t g = {0};
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(pattern, sizeof(pattern), "%s/events/*/*/format", roots[i]);
		if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc)
			break;
		globfree(&g);
		memset(&g, 0, sizeof(g));
	}
	if (i == 2) {
		check_skip("parse every kernel format file", "tracefs not mounted or not readable");
		return;
	}
	for (i = 0; i < g.gl_pathc; i++) {
		struct utrace_error err = {0};
		struct utrace_event_format *f;
		char *text = read_text(g.gl_pathv[i]), *again;

		if (!text)
			continue; /* not readable (permissions): not a parse failure */
		if (utrace_event_format_parse("kernel", text, &f, &err) < 0) {
			if (bad++ < 5)
				printf("# %s: %s\n", g.gl_pathv[i], err.msg);
			free(text);
			continue;
		}
		again = utrace_event_format_text(f, utrace_event_format_id(f));
		if (!again || strcmp(again, text)) {
			if (bad++ < 5)
				printf("# %s: printed back differently\n", g.gl_pathv[i]);
		} else if (!common[0] && strstr(text, "\n\n")) {
			/* the common fields block, "format:\n" to the blank line */
			const char *a = strstr(text, "format:\n"), *z = strstr(text, "\n\n");

			if (a && z > a && (size_t)(z - a) < sizeof(common))
				snprintf(common, sizeof(common), "%.*s", (int)(z - a + 2), a);
		}
		parsed++;
		free(again);
		utrace_event_format_free(f);
		free(text);
	}
	globfree(&g);
	if (!parsed) {
		check_skip("parse every kernel format file", "format files not readable");
		return;
	}
	check(!bad, "parse and print back all %u kernel format files exactly (%u bad)", parsed,
	      bad);
	check(common[0] && strstr(golden_word, common),
	      "our common fields are the kernel's, byte for byte");
}

static void test_no_events(void)
{
	struct utrace_error err = {0};
	struct utrace_event_list *l = NULL;
	int ret;

	if (check_build(check_cc(), "plain", NULL, "int main(void) { return 0; }\n", "") < 0) {
		check(0, "build a program without events");
		return;
	}
	ret = utrace_event_list_load(check_path("plain"), &l, &err);
	check(ret == 0 && l && utrace_event_list_count(l) == 0,
	      "a program without __utrace_events has no events");
	utrace_event_list_free(l);
	check_write_file("notelf", "hello", 5);
	l = NULL;
	ret = utrace_event_list_load(check_path("notelf"), &l, &err);
	check(ret < 0 && !l && strstr(err.msg, check_path("notelf")), "not an ELF file: %s",
	      err.msg);
}

int main(void)
{
	if (check_tmpdir_init("evfmt") < 0) {
		printf("not ok - mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	if (check_write_file("tev_events.h", events_h, strlen(events_h)) < 0) {
		printf("not ok - write tev_events.h\n");
		return 1;
	}
	test_build("gcc", "gcc", 0, "", 1);
	test_build("clang", "clang", 0, "", 1);
	test_build("gxx", "g++", 1, "", 1);
	test_build("clangxx", "clang++", 1, "", 1);
	test_build("gcc-O0", "gcc", 0, "-O0 -g", 1);
	test_build("gcc-shared", "gcc", 0, "-fPIC -shared", 0);
	test_corrupt();
	test_parse_errors();
	test_parse_kinds();
	test_kernel_formats();
	test_no_events();
	check_tmpdir_cleanup();
	return check_done();
}
