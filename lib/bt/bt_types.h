/* SPDX-License-Identifier: MIT */
/*
 * bt_types.h - the C types of a bpftrace program: the structs its script
 * defines at the top (`struct Foo { int a; char b[10]; struct Bar *p; }`)
 * and the types its casts name (`(struct Foo *)arg0`, `(int32 **)arg0`).
 * They live in the program's table (p->ctypes), named by index: index 0
 * is "no C type".  Layout as the x86-64 SysV ABI lays a C struct out
 * (natural alignment, bitfields packed into units of their type), which
 * is what clang gives bpftrace for the same definitions.
 */
#ifndef UTRACE_LIB_BT_TYPES_H
#define UTRACE_LIB_BT_TYPES_H

#include "lib/bt/bt_ast.h"

enum bt_ckind {
	BT_C_INT,    /* size 1, 2, 4, 8; is_signed; is_char: C's char */
	BT_C_PTR,    /* elem: the pointee (0: void) */
	BT_C_ARRAY,  /* elem[count] */
	BT_C_STRUCT, /* members */
	BT_C_TIMESTAMP, /* strftime()'s value, a string bpftrace types apart (bt_strftime.c) */
};

struct bt_member {
	char *name;
	unsigned type;
	unsigned off;		/* bytes */
	unsigned bit_off, bits; /* a bitfield: bits wide, bit_off past off's unit */
};

struct bt_ctype {
	enum bt_ckind kind;
	unsigned size, align;
	bool is_signed, is_char;
	unsigned elem, count;
	char *name; /* a struct's, NULL if anonymous */
	struct bt_member *m;
	unsigned nm;
	bool defined; /* a struct whose members are known */
};

/* The types of p by kind: their index (0 with -ENOMEM's error unset). */
unsigned bt_ctype_int(struct bt_program *p, unsigned size, bool is_signed, bool is_char);
unsigned bt_ctype_ptr(struct bt_program *p, unsigned elem);
unsigned bt_ctype_array(struct bt_program *p, unsigned elem, unsigned count);
unsigned bt_ctype_timestamp(struct bt_program *p);
const struct bt_ctype *bt_ctype(const struct bt_program *p, unsigned idx);
/* A member of struct type t by name, or NULL. */
const struct bt_member *bt_ctype_member(const struct bt_program *p, unsigned t, const char *name);
/* bpftrace's name of a type ("struct Foo *", "int32 *"), into buf. */
const char *bt_ctype_name(const struct bt_program *p, unsigned t, char *buf, size_t room);
/* The alignment of type t (1 if none). */
unsigned bt_record_align(const struct bt_program *p, unsigned t);
/* A type whose value bpftrace keeps as a string: an array of char. */
bool bt_ctype_is_str(const struct bt_program *p, unsigned t);

/* Whether the token starts a type name (struct, int, uint8_t, int32 ...). */
bool bt_ctype_starts(const struct bt_token *t);
/* `struct NAME { members } [;]` at the top level, t its "struct": its
 * definition into p; the token after it current, lexed at the top level.
 * 0, or -EINVAL with err (a syntax error), -ENOMEM. */
int bt_ctype_parse_def(struct bt_program *p, struct bt_lexer *lx, struct bt_token *t,
		       struct utrace_error *err);
/* A type name (`struct Foo *`, `uint8 *`, `int`) at t into *type; the
 * token after it current. */
int bt_ctype_parse_name(struct bt_program *p, struct bt_lexer *lx, struct bt_token *t,
			unsigned *type, struct utrace_error *err);
void bt_ctypes_free(struct bt_program *p);

struct bt_longvals;
/* bt_record.c: a struct or an array of type t, len bytes read from the
 * program, as the value the bytecode carries (a tuple of
 * common/bt_tuple.h) into out (UTRACE_BT_STRLEN bytes): its text, or
 * when longer its handle in lv (bt_longval.h; NULL: cut). */
void bt_record_text(const struct bt_program *p, unsigned t, const void *bytes, size_t len,
		    struct bt_longvals *lv, char *out);
/* The longest that value of type t can be, its NUL not counted. */
unsigned bt_record_maxlen(const struct bt_program *p, unsigned t);

#endif
