/* SPDX-License-Identifier: MIT */
/*
 * test_bt_types.c - `utrace bt`'s C types (lib/bt/bt_types.c,
 * bt_check_ptr.c, bt_compile_mem.c): struct layouts as the C compiler
 * lays them out (checked against this very compiler's offsetof), the
 * fetch-args a uprobe's member reads become, pointer arithmetic, and
 * LOAD's reads at run time through the context's load.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_compile.h"
#include "lib/bt/bt_longval.h"
#include "lib/bt/bt_maps.h"
#include "lib/bt/bt_print_internal.h"
#include "lib/bt/bt_types.h"
#include "lib/elf/symtab.h"
#include "tests/unit/bt_fixture.h"
#include "tests/unit/check.h"

struct bar {
	short a : 4, b : 8, c : 3, d : 1;
	int e : 9, f : 15, g : 1, h : 2, i : 5;
};

struct t {
	uint32_t a;
	uint32_t b[2];
};

struct w {
	uint32_t a;
	struct t t;
};

struct c {
	uint32_t a;
	void *b;
	struct w w[10];
	char s[3];
};

static const struct bt_member *member(const struct bt_program *p, const char *st, const char *m)
{
	for (unsigned i = 1; i < p->nctypes; i++)
		if (p->ctypes[i].name && !strcmp(p->ctypes[i].name, st))
			return bt_ctype_member(p, i, m);
	return NULL;
}

/* The bitfields of struct bar, found by setting each in turn. */
static unsigned bit_of(unsigned k)
{
	union {
		struct bar b;
		uint64_t w;
	} u = {.w = 0};

	switch (k) {
	case 0: u.b.a = 1; break;
	case 1: u.b.b = 1; break;
	case 2: u.b.c = 1; break;
	case 3: u.b.d = 1; break;
	case 4: u.b.e = 1; break;
	case 5: u.b.f = 1; break;
	case 6: u.b.g = 1; break;
	case 7: u.b.h = 1; break;
	default: u.b.i = 1; break;
	}
	return (unsigned)__builtin_ctzll(u.w);
}

static void test_layout(void)
{
	static const char *const names[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
	const char *src = "struct Bar { short a:4, b:8, c:3, d:1; int e:9, f:15, g:1, h:2, i:5 }\n"
			  "struct T { uint32_t a; uint32_t b[2]; };\n"
			  "struct W { uint32_t a; struct T t; };\n"
			  "struct C { uint32_t a; void * b; struct W w[10]; char s[3] };\n"
			  "BEGIN { @ = sizeof(struct C); @b = sizeof(struct Bar); }";
	struct utrace_error err = {0};
	struct bt_program p;
	struct bt_code code = {0};
	const struct bt_member *m;

	check(bt_fixture_compile(src, &p, &code, &err) == 0, "struct definitions: %s", err.msg);
	for (unsigned k = 0; k < 9; k++) {
		m = member(&p, "Bar", names[k]);
		check(m && 8 * m->off + m->bit_off == bit_of(k), "Bar.%s at bit %u, as cc's (%u)",
		      names[k], m ? 8 * m->off + m->bit_off : 0, bit_of(k));
	}
	m = member(&p, "C", "w");
	check(m && m->off == offsetof(struct c, w), "C.w at %zu", offsetof(struct c, w));
	m = member(&p, "C", "s");
	check(m && m->off == offsetof(struct c, s), "C.s at %zu", offsetof(struct c, s));
	for (unsigned i = 1; i < p.nctypes; i++)
		if (p.ctypes[i].name && !strcmp(p.ctypes[i].name, "C"))
			check(p.ctypes[i].size == sizeof(struct c), "sizeof(struct C) %u, cc's %zu",
			      p.ctypes[i].size, sizeof(struct c));
	bt_fixture_code_free(&code);
	bt_program_free(&p);
}

/* A uprobe's reads: the fetch-args the probe takes at the hit. */
static void test_fetchargs(void)
{
	static const struct {
		const char *src, *want;
	} cases[] = {
	    {"struct Foo { int a; struct Foo *next; } uprobe:/bin/true:main "
	     "{ $f = (struct Foo *)arg0; @x = $f->next->a; }",
	     "+0(+8(%di)):s32"},
	    {"uprobe:/bin/true:main { $p = (int32 **)arg1; @x = **($p + 1); }", "+0(+8(%si)):s32"},
	    {"struct C { int *z[4]; } uprobe:/bin/true:main { @x = *((struct C*)arg0)->z[1]; }",
	     "+0(+8(%di)):s32"},
	    {"struct T { uint32_t a; uint32_t b[2]; } struct W { uint32_t a; struct T t; } "
	     "uprobe:/bin/true:main { @x = ((struct W *)arg2)->t.b[1]; }",
	     "+12(%dx):u32"},
	    {"struct F { long x; char s[5]; } uprobe:/bin/true:main "
	     "{ printf(\"%s\\n\", ((struct F *)arg0)->s); }",
	     "+8(%di):string"},
	    {"struct A { int x[4]; } uprobe:/bin/true:main { $a = (struct A *)(arg0 - 4); "
	     "@x = $a->x[3]; }",
	     "+8(%di):s32"},
	    {"uprobe:/bin/true:main { @x = sum(*(uint16*)(reg(\"sp\") + 8)); }", "+8(%sp):u16"},
	    {"uprobe:/bin/true:main { @x = reg(\"ip\"); }", "%ip:u64"},
	    /* sargN: past the return address, as bpftrace reads it on x86-64 */
	    {"uprobe:/bin/true:main { @x = sarg1; }", "+16(%sp):u64"},
	    {"uprobe:/bin/true:main { @a[0] = (int32 *)arg0; $x = @a[0]; @x = $x[1]; }",
	     "+4(%di):s32"},
	    {"struct S { long x; char mac[6]; } uprobe:/bin/true:main "
	     "{ @m[macaddr(((struct S *)arg0)->mac)] = 1; }",
	     "+8(%di):u8[6]"},
	    /* a uretprobe's return value as an address: read at the return */
	    {"uretprobe:/bin/true:main { @x = *(int32 *)(retval + 4); }", "+4($retval):s32"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct utrace_error err = {0};
		struct bt_program p;
		struct bt_code code = {0};
		int ret = bt_fixture_compile(cases[i].src, &p, &code, &err);

		check(ret == 0 && code.nfields == 1 && !strcmp(code.fields[0], cases[i].want),
		      "%s: want %s, got %s (%s)", cases[i].src, cases[i].want,
		      code.nfields ? code.fields[0] : "none", err.msg);
		bt_fixture_code_free(&code);
		bt_program_free(&p);
	}
}

/* bpftrace 0.17's texts: a column more after each cast to a struct */
static const struct {
	const char *src, *want;
} errors[] = {
    {"struct Foo { int a; } BEGIN { $f = (struct Foo *)0; @x = $f->b; }",
     "stdin:1:59-64: ERROR: Struct/union of type 'struct Foo' does not contain a field named 'b'"},
    {"struct A { int x[4]; } BEGIN { $a = (struct A *)0; @x = $a->x[5]; }",
     "stdin:1:58-66: ERROR: the index 5 is out of bounds for array of size 4"},
    {"BEGIN { $x = 1; @y = *$x; }", "stdin:1:22-25: ERROR: Can not dereference type 'int64'"},
    {"uretprobe:/bin/true:main { @x = sarg0; }",
     "stdin:1:33-38: ERROR: The sarg0 builtin can only be used with 'kprobes' and 'uprobes' probes"},
    {"struct Foo { int a } BEGIN { @ = (struct Foo *)\"s\"; }",
     "stdin:1:34-52: ERROR: Cannot cast from \"string[2]\" to \"struct Foo *\""},
};

static void test_errors(void)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		struct utrace_error err = {0};
		struct bt_program p;
		struct bt_code code = {0};
		int ret = bt_fixture_compile(errors[i].src, &p, &code, &err);

		check(ret == -EINVAL && !strncmp(err.msg, errors[i].want, strlen(errors[i].want)),
		      "error of %s\nwant: %s\ngot:  %s", errors[i].src, errors[i].want, err.msg);
		bt_fixture_code_free(&code);
		bt_program_free(&p);
	}
}

static struct c mem; /* what LOAD reads: at address 0x1000 for the program */

static int load(uint64_t addr, unsigned size, uint64_t *out)
{
	*out = 0;
	if (addr < 0x1000 || addr + size > 0x1000 + sizeof(mem))
		return -1;
	memcpy(out, (const uint8_t *)&mem + (addr - 0x1000), size);
	return 0;
}

static const struct bt_program *rec_prog;

static void record(void *arg, uint64_t addr, uint32_t type, char *out)
{
	const struct bt_ctype *t = bt_ctype(rec_prog, type);

	(void)arg;
	out[0] = 0;
	if (t && addr >= 0x1000 && addr + t->size <= 0x1000 + sizeof(mem))
		bt_record_text(rec_prog, type, (const uint8_t *)&mem + (addr - 0x1000), t->size, NULL, out);
}

static void emit_none(void *arg, const void *rec, uint32_t len)
{
	(void)arg, (void)rec, (void)len;
}

static int64_t get(struct bt_maps *ms, unsigned map)
{
	uint8_t k[UTRACE_BT_KEY_MAX] = {0};
	struct utrace_bt_mval v;

	return bt_maps_get(ms, map, k, &v) == 0 ? v.i : -999;
}

static void print_as(const char *t, int mode, char *buf, size_t room)
{
	FILE *f = fmemopen(buf, room, "w");

	buf[0] = 0;
	if (!f)
		return;
	bt_tuple_print_as(f, t, mode);
	fclose(f);
}

/* BEGIN reads with LOAD; pointers step over their elements. */
static void test_run(void)
{
	const char *src = "struct T { uint32_t a; uint32_t b[2]; } struct W { uint32_t a; struct T t; } "
			  "struct C { uint32_t a; void * b; struct W w[10]; } "
			  "BEGIN { $c = (struct C *)0x1000; @a = $c->w[3].t.b[1]; $i = 2; "
			  "@b = $c->w[$i].a; @p = (int32 *)32; @p += 6; @p--; "
			  "@q = (struct C *)0x1000 - 1; @z = *(int64 *)8; @u = *(uint64 *)8 > -1; "
			  "@v = *(int64 *)8 > -1; @r = $c->w[3].t; }";
	struct utrace_error err = {0};
	struct utrace_bt_state *st = calloc(1, sizeof(*st));
	struct bt_program p;
	struct bt_code code = {0};
	struct bt_maps *ms = NULL;

	mem.w[3].t.b[1] = 77;
	mem.w[2].a = 5;
	check(st && bt_fixture_compile(src, &p, &code, &err) == 0, "compiles: %s", err.msg);
	if (st && !err.msg[0] && bt_maps_new(code.prog, &ms) == 0) {
		struct utrace_bt_ctx ctx = {.arg = ms, .load = load, .map_get = bt_maps_get,
					    .map_update = bt_maps_update, .emit = emit_none,
					    .record = record};
		struct utrace_bt_hit hit = {0};
		uint8_t k[UTRACE_BT_KEY_MAX] = {0};
		struct utrace_bt_mval v = {0};
		char buf[128];

		rec_prog = &p;
		check(utrace_bt_exec(code.prog, &hit, &ctx, st) == 0, "runs");
		check(get(ms, 0) == 77 && get(ms, 1) == 5, "$c->w[3].t.b[1], $c->w[$i].a: %lld %lld",
		      (long long)get(ms, 0), (long long)get(ms, 1));
		check(get(ms, 2) == 32 + 5 * 4, "(int32 *)32 + 6 - 1: %lld", (long long)get(ms, 2));
		/* the program's struct C ends where this one's s starts */
		check(get(ms, 3) == 0x1000 - (int64_t)offsetof(struct c, s), "struct pointer - 1");
		check(get(ms, 4) == 0, "an unreadable address reads 0");
		check(get(ms, 5) == 0 && get(ms, 6) == 1, "uint64 0 > -1 is false, int64's true");
		bt_maps_get(ms, 7, k, &v);
		print_as(v.s, 0, buf, sizeof(buf));
		check(!strcmp(buf, "{ .a = 0, .b = [0,77] }"), "LOADREC: %s", buf);
		bt_maps_free(ms);
	}
	free(st);
	bt_fixture_code_free(&code);
	bt_program_free(&p);
}

/* A struct value: its bytes as the bytecode's tuple, printed as bpftrace
 * prints one in a value, a key and json; its elements by TGET. */
static void test_record(void)
{
	const char *src = "struct Foo { struct { short m[2] } y; struct { char s[4]; short n; } a; "
			  "unsigned char b:3, c:5; } uprobe:/bin/true:main "
			  "{ @s = *((struct Foo *)arg0); @t = (1, @s); @k[@s.y] = @s.a.n; }";
	static const struct {
		short y[2];
		char s[4];
		short n;
		unsigned char b : 3, c : 5;
	} foo = {{2, -3}, "ab", 7, 5, 17};
	struct utrace_error err = {0};
	struct bt_program p;
	struct bt_code code = {0};
	char text[UTRACE_BT_STRLEN], buf[256], el[UTRACE_BT_STRLEN];
	int64_t num = 0;

	check(bt_fixture_compile(src, &p, &code, &err) == 0 && code.nfields == 1 && code.ftypes &&
		      code.ftypes[0] && !strcmp(code.fields[0], "+0(%di):u8[12]"),
	      "a struct read is one fetch-arg of its bytes: %s %s", code.nfields ? code.fields[0] : "",
	      err.msg);
	if (!code.nfields || !code.ftypes) {
		bt_fixture_code_free(&code);
		bt_program_free(&p);
		return;
	}
	bt_record_text(&p, code.ftypes[0], &foo, sizeof(foo), NULL, text);
	print_as(text, 0, buf, sizeof(buf));
	check(!strcmp(buf, "{ .y = { .m = [2,-3] }, .a = { .s = ab, .n = 7 }, .b = 5, .c = 17 }"),
	      "text: %s", buf);
	print_as(text, 2, buf, sizeof(buf));
	check(!strcmp(buf, "{.y={.m=[2,-3]},.a={.s=ab,.n=7},.b=5,.c=17}"), "key: %s", buf);
	print_as(text, 1, buf, sizeof(buf));
	check(!strcmp(buf, "{ \"y\": { \"m\": [2,-3] }, \"a\": { \"s\": \"ab\", \"n\": 7 }, "
			   "\"b\": 5, \"c\": 17 }"),
	      "json: %s", buf);
	check(utrace_bt_tuple_get(text, 1, el, &num) == 1 &&
		      utrace_bt_tuple_get(el, 1, buf, &num) == 0 && num == 7,
	      "TGET .a, then .n: %lld", (long long)num);
	check(utrace_bt_tuple_get(text, 3, el, &num) == 0 && num == 17, "TGET .c: %lld",
	      (long long)num);
	bt_fixture_code_free(&code);
	bt_program_free(&p);
	code = (struct bt_code){0};
	check(bt_fixture_compile("struct B { long a[1000]; } "
				 "uprobe:/bin/true:main { @w = *((struct B *)arg0); }",
				 &p, &code, &err) == -EINVAL &&
		      strstr(err.msg, "a struct or an array value this long"),
	      "a value whose text may pass BT_LONGVAL_TEXT_MAX is refused: %s", err.msg);
	bt_fixture_code_free(&code);
	bt_program_free(&p);
}

/* What the context of test_record_long gives: the maps, the store, the
 * struct C the probe's one fetch-arg read. */
struct long_ctx {
	struct bt_maps *ms;
	struct bt_longvals *lv;
	const struct bt_program *p;
	const struct bt_code *code;
	const void *bytes;
	size_t len;
};

static int long_get(void *arg, unsigned map, const uint8_t *key, struct utrace_bt_mval *v)
{
	return bt_maps_get(((struct long_ctx *)arg)->ms, map, key, v);
}

static void long_update(void *arg, unsigned map, const uint8_t *key, int agg,
			const struct utrace_bt_mval *v)
{
	bt_maps_update(((struct long_ctx *)arg)->ms, map, key, agg, v);
}

static int64_t long_field(void *arg, unsigned k, char *out)
{
	const struct long_ctx *c = arg;

	if (out && k < c->code->nfields && c->code->ftypes[k])
		bt_record_text(c->p, c->code->ftypes[k], c->bytes, c->len, c->lv, out);
	return 0;
}

static const char *long_text(void *arg, const char *slot)
{
	return bt_longval_text(((struct long_ctx *)arg)->lv, slot);
}

static void long_put(void *arg, const char *text, unsigned len, char *slot)
{
	bt_longval_put(((struct long_ctx *)arg)->lv, text, len, slot);
}

static void print_map(struct bt_maps *ms, unsigned map, const char *name, char *buf, size_t room)
{
	FILE *f = fmemopen(buf, room, "w");

	buf[0] = 0;
	if (f) {
		bt_maps_print(ms, map, name, 0, 0, UTRACE_BT_TEXT, f);
		fclose(f);
	}
}

/* A struct value longer than a slot (ten struct W, about 300 bytes as
 * text): kept whole in the store, its handle in variables, keys, values
 * and tuples; its elements by TGET; printed whole (bpftrace's
 * struct_array_vars.bt). */
static void test_record_long(void)
{
	const char *src =
	    "struct T { uint32_t a; uint32_t b[2]; } struct W { uint32_t a; struct T t; } "
	    "struct C { uint32_t a; void * b; struct W w[10]; } uprobe:/bin/true:main { "
	    "$w = ((struct C *)arg0)->w; @w[0] = $w; @k[$w] = 42; @a = $w[8].a; "
	    "@b = @w[0][3].t.b[1]; @t = (7, $w); @e = $w[9]; @same[$w] = count(); }";
	struct utrace_error err = {0};
	struct utrace_bt_state *st = calloc(1, sizeof(*st));
	struct bt_program p;
	struct bt_code code = {0};
	struct long_ctx lc = {0};
	static char buf[4096];
	static struct c cm;

	for (unsigned i = 0; i < 10; i++)
		cm.w[i] = (struct w){100 + i, {i, {100 - i, 100 - 2 * i}}};
	check(st && bt_fixture_compile(src, &p, &code, &err) == 0 && code.nfields == 1,
	      "compiles, the struct's bytes one fetch-arg: %s", err.msg);
	if (!st || err.msg[0] || code.nfields != 1 || bt_maps_new(code.prog, &lc.ms) < 0 ||
	    bt_longvals_new(&lc.lv) < 0)
		goto out;
	lc = (struct long_ctx){lc.ms, lc.lv, &p, &code, cm.w, sizeof(cm.w)};
	bt_maps_set_longvals(lc.ms, lc.lv);
	struct utrace_bt_ctx ctx = {.arg = &lc, .map_get = long_get, .map_update = long_update,
				    .emit = emit_none, .field = long_field,
				    .long_text = long_text, .long_put = long_put};
	struct utrace_bt_hit hit = {0};

	check(utrace_bt_exec(code.prog, &hit, &ctx, st) == 0 &&
		      utrace_bt_exec(code.prog, &hit, &ctx, st) == 0,
	      "runs twice");
	check(get(lc.ms, 2) == 108, "$w[8].a: %lld", (long long)get(lc.ms, 2));
	check(get(lc.ms, 3) == 94, "@w[0][3].t.b[1]: %lld", (long long)get(lc.ms, 3));
	print_map(lc.ms, 1, "@k", buf, sizeof(buf));
	check(!strncmp(buf, "@k[[{.a=100,.t={.a=0,.b=[100,100]}},{.a=101,", 44) &&
		      strstr(buf, "{.a=109,.t={.a=9,.b=[91,82]}}]]: 42\n"),
	      "a key printed whole: %s", buf);
	print_map(lc.ms, 4, "@t", buf, sizeof(buf));
	check(!strncmp(buf, "@t: (7, [{ .a = 100, .t = { .a = 0, .b = [100,100] } },", 55) &&
		      strstr(buf, "{ .a = 109, .t = { .a = 9, .b = [91,82] } }])\n"),
	      "a tuple holding it: %s", buf);
	print_map(lc.ms, 5, "@e", buf, sizeof(buf));
	check(!strcmp(buf, "@e: { .a = 109, .t = { .a = 9, .b = [91,82] } }\n"), "an element: %s",
	      buf);
	print_map(lc.ms, 6, "@same", buf, sizeof(buf));
	check(strstr(buf, "]]: 2\n") && !strstr(buf + 1, "@same"),
	      "the same value twice is one key: %s", buf);
out:
	bt_maps_free(lc.ms);
	bt_longvals_free(lc.lv);
	free(st);
	bt_fixture_code_free(&code);
	bt_program_free(&p);
}

/* The store's rules: short texts stay themselves, the same long text
 * the same handle, handles in a tuple replaced, a bad handle left. */
static void test_longval_store(void)
{
	struct bt_longvals *lv = NULL;
	char a[300], b[300], s1[UTRACE_BT_STRLEN], s2[UTRACE_BT_STRLEN], s3[UTRACE_BT_STRLEN];
	char tup[UTRACE_BT_STRLEN];

	if (bt_longvals_new(&lv) < 0)
		return;
	memset(a, 'x', sizeof(a) - 1), a[sizeof(a) - 1] = 0;
	memcpy(b, a, sizeof(a)), b[150] = 'y';
	bt_longval_put(lv, "short", 5, s1);
	check(!strcmp(s1, "short") && bt_longval_text(lv, s1) == s1, "a short text is itself");
	bt_longval_put(lv, a, strlen(a), s1);
	bt_longval_put(lv, b, strlen(b), s2);
	bt_longval_put(lv, a, strlen(a), s3);
	check(s1[0] == UTRACE_BT_T_LONG && strlen(s1) < 8 && !strcmp(s1, s3) && strcmp(s1, s2),
	      "handles: the same text the same one");
	check(!strcmp(bt_longval_text(lv, s1), a) && !strcmp(bt_longval_text(lv, s2), b),
	      "a handle's text");
	bt_longval_put(lv, a, 100, s2); /* a part of a longer text */
	check(strlen(bt_longval_text(lv, s2)) == 100, "a part is its own value");
	snprintf(tup, sizeof(tup), "\0011\037%s\002", s1);
	check(strlen(bt_longval_text(lv, tup)) == 1 + 1 + 1 + 299 + 1, "a tuple's handle replaced");
	check(!strcmp(bt_longval_text(lv, "\010999"), "\010999"), "an unknown handle stays");
	check(!strcmp(bt_longval_str(lv, s1), a) && !strcmp(bt_longval_str(lv, "x\0100"), "x\0100") &&
		      !strcmp(bt_longval_str(lv, tup), tup),
	      "a string is a handle's text only when it is one handle");
	check(bt_longvals_cut(lv) == 0, "nothing cut");
	bt_longvals_free(lv);
}

/* Globals uaddr() finds in this test's own binary. */
__attribute__((used)) short bt_uaddr_s = 7;
__attribute__((used)) long bt_uaddr_l = 9;

/* uaddr("NAME"): the symbol's ELF address, read at the hit as @ADDR, as
 * wide as the symbol; the two addresses as far apart as the globals. */
static void test_uaddr(void)
{
	struct utrace_error err = {0};
	struct bt_program p;
	struct bt_code code = {0};
	uint64_t as = 0, al = 0, ss = 0, sl = 0;
	int fs = utrace_symtab_find("/proc/self/exe", "bt_uaddr_s", &as, &ss);
	int fl = utrace_symtab_find("/proc/self/exe", "bt_uaddr_l", &al, &sl);
	char want_s[40], want_l[40];
	int ret = bt_fixture_compile("uprobe:/proc/self/exe:main { @a = *uaddr(\"bt_uaddr_s\"); "
			  "@b = *uaddr(\"bt_uaddr_l\"); }",
			  &p, &code, &err);

	check(fs == 0 && ss == 2 && fl == 0 && sl == 8 &&
		      (int64_t)(al - as) == (int64_t)((char *)&bt_uaddr_l - (char *)&bt_uaddr_s),
	      "the globals' symbols: 0x%llx 0x%llx", (unsigned long long)as,
	      (unsigned long long)al);
	snprintf(want_s, sizeof(want_s), "@0x%llx:s16", (unsigned long long)as);
	snprintf(want_l, sizeof(want_l), "@0x%llx:s64", (unsigned long long)al);
	check(ret == 0 && code.nfields == 2 && !strcmp(code.fields[0], want_s) &&
		      !strcmp(code.fields[1], want_l),
	      "uaddr: want %s %s, got %s %s (%s)", want_s, want_l,
	      code.nfields > 0 ? code.fields[0] : "none", code.nfields > 1 ? code.fields[1] : "none",
	      err.msg);
	bt_fixture_code_free(&code);
	bt_program_free(&p);
	code = (struct bt_code){0};
	ret = bt_fixture_compile("uprobe:/proc/self/exe:main { @x = uaddr(\"bt_no_such_global\"); }", &p,
		      &code, &err);
	check(ret < 0 && strstr(err.msg, "ERROR: Could not resolve symbol: "
					 "/proc/self/exe:bt_no_such_global"),
	      "uaddr of no symbol: bpftrace's error: %s", err.msg);
	bt_fixture_code_free(&code);
	bt_program_free(&p);
}

__attribute__((noinline, used)) uint32_t bt_dwarf_fn(struct t *p)
{
	return p->b[1];
}

/* args->p->b, an array of integers (DWARF's struct t): one fetch-arg of
 * the whole array, its C type an array of them (printed "[1,2]"). */
static void test_dwarf_array(void)
{
	struct utrace_error err = {0};
	struct bt_program p;
	struct bt_code code = {0};
	const struct bt_ctype *t = NULL, *e = NULL;
	int ret = bt_fixture_compile("uprobe:/proc/self/exe:bt_dwarf_fn { print(args->p->b); }", &p, &code,
			  &err);
	const char *f = ret == 0 && code.nfields == 1 ? code.fields[0] : "";

	if (ret == 0 && code.nfields == 1 && (t = bt_ctype(&p, code.ftypes[0])))
		e = bt_ctype(&p, t->elem);
	check(ret == 0 && strlen(f) > 8 && !strcmp(f + strlen(f) - 8, "):u32[2]") && t &&
		      t->kind == BT_C_ARRAY && t->count == 2 && t->size == 8 && e &&
		      e->kind == BT_C_INT && e->size == 4,
	      "an array member: one fetch-arg, an array type: %s (%s)", f, err.msg);
	bt_fixture_code_free(&code);
	bt_program_free(&p);
}

/* (struct w *)arg0 with no struct w in the program: the binary's own
 * (DWARF), embedded struct t too, at the offsets this compiler gives. */
static void test_dwarf_cast(void)
{
	struct utrace_error err = {0};
	struct bt_program p;
	struct bt_code code = {0};
	char want[40];
	int ret = bt_fixture_compile(
	    "uprobe:/proc/self/exe:bt_dwarf_fn { @x = ((struct w *)arg0)->t.b[1]; }", &p, &code, &err);

	snprintf(want, sizeof(want), "+%zu(%%di):u32",
		 offsetof(struct w, t) + offsetof(struct t, b) + sizeof(uint32_t));
	check(ret == 0 && code.nfields == 1 && !strcmp(code.fields[0], want),
	      "a cast to a struct of the binary's DWARF: want %s, got %s (%s)", want,
	      code.nfields ? code.fields[0] : "none", err.msg);
	bt_fixture_code_free(&code);
	bt_program_free(&p);
}

/* str() of an address a uprobe's hit gives: read there at the hit, a
 * fetch-arg of the probe (the runtime cannot read memory at run time). */
static void test_str_fetch(void)
{
	struct utrace_error err = {0};
	struct bt_program p;
	struct bt_code code = {0};
	int ret = bt_fixture_compile("uprobe:/proc/self/exe:bt_dwarf_fn { printf(\"%s %s\\n\", "
				     "str(arg0 + 4), str(*(uint64 *)(arg1 + 8))); }",
				     &p, &code, &err);

	check(ret == 0 && code.nfields == 2 && !strcmp(code.fields[0], "+4(%di):string") &&
		      !strcmp(code.fields[1], "+0(+8(%si)):string"),
	      "str(arg0 + 4), str(*(arg1 + 8)): read at the hit: %s %s (%s)",
	      code.nfields > 0 ? code.fields[0] : "none", code.nfields > 1 ? code.fields[1] : "none",
	      err.msg);
	bt_fixture_code_free(&code);
	bt_program_free(&p);
}

/* A tuple's unsigned integers (bpftrace's uint64 builtins) print as
 * uint64, its signed ones signed: bpftrace 0.17 prints this program, on
 * f(-1, 5), as `@t: (18446744073709551615, -1, 255, (5, s), -1)`, json
 * `[18446744073709551615,-1,255,[5,"s"],-1]`, and $t.0 stays unsigned. */
static void test_tuple_sign(void)
{
	const char *src = "uprobe:/bin/true:main { @t = (arg0, (int64)arg0, (uint8)arg0, "
			  "(arg1, \"s\"), -1); $t = (arg0, -1); @y = $t.0 > 10; }";
	struct utrace_error err = {0};
	struct utrace_bt_state *st = calloc(1, sizeof(*st));
	struct bt_program p;
	struct bt_code code = {0};
	struct bt_maps *ms = NULL;

	check(st && bt_fixture_compile(src, &p, &code, &err) == 0, "compiles: %s", err.msg);
	if (st && !err.msg[0] && bt_maps_new(code.prog, &ms) == 0) {
		struct utrace_bt_ctx ctx = {.arg = ms, .load = load, .map_get = bt_maps_get,
					    .map_update = bt_maps_update, .emit = emit_none};
		struct utrace_bt_hit hit = {.args = {-1, 5}};
		uint8_t k[UTRACE_BT_KEY_MAX] = {0};
		struct utrace_bt_mval v = {0};
		char buf[128];

		check(utrace_bt_exec(code.prog, &hit, &ctx, st) == 0, "runs");
		bt_maps_get(ms, 0, k, &v);
		print_as(v.s, 0, buf, sizeof(buf));
		check(!strcmp(buf, "(18446744073709551615, -1, 255, (5, s), -1)"), "text: %s", buf);
		print_as(v.s, 1, buf, sizeof(buf));
		check(!strcmp(buf, "[18446744073709551615,-1,255,[5,\"s\"],-1]"), "json: %s", buf);
		check(get(ms, 1) == 1, "$t.0 of arg0 -1 > 10: unsigned");
		bt_maps_free(ms);
	}
	free(st);
	bt_fixture_code_free(&code);
	bt_program_free(&p);
}

int main(void)
{
	test_tuple_sign();
	test_uaddr();
	test_str_fetch();
	test_dwarf_cast();
	test_dwarf_array();
	test_record();
	test_record_long();
	test_longval_store();
	test_layout();
	test_fetchargs();
	test_errors();
	test_run();
	return check_done();
}
