/* SPDX-License-Identifier: MIT */
/*
 * test_bt_buf.c - `utrace bt`'s buf() of the traced program's memory
 * (lib/bt/bt_buf.c): the fetch-arg that reads it at a uprobe's hit, its
 * length by bpftrace's rules (an array's size, LEN capped at 64), the
 * errors bpftrace gives for what buf() does not take, and the bytes made
 * a buffer value (common/bt_buf.h) printed as bpftrace prints them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_compile.h"
#include "lib/bt/bt_print_internal.h"
#include "tests/unit/check.h"

#define MYSTRUCT                                                                                   \
	"struct MyStruct { const char* a; char b[4]; uint8_t c[4]; int d[4]; uint16_t e[4]; "     \
	"uint64_t f[4] }; "

static int compile(const char *src, struct bt_program *p, struct bt_code *code,
		   struct utrace_error *err)
{
	struct bt_formats fmts = {0};
	int ret;

	*p = (struct bt_program){.src = src, .name = "stdin"};
	ret = bt_parse(p, err);
	if (!ret)
		ret = bt_check(p, err);
	if (!ret)
		ret = bt_compile(p, &p->probes[p->nprobes - 1], &p->probes[p->nprobes - 1].aps[0],
				 "main", &fmts, code, err);
	bt_formats_free(&fmts);
	return ret;
}

static void code_free(struct bt_code *code)
{
	for (unsigned i = 0; i < code->nfields; i++)
		free(code->fields[i]);
	free(code->fields);
	free(code->ftypes);
	free(code->prog);
	*code = (struct bt_code){0};
}

struct bt_buf_t {
	long x;
	uint32_t b[2];
	char s[4];
};

__attribute__((noinline, used)) uint32_t bt_buf_fn(struct bt_buf_t *p)
{
	return p->b[1];
}

/* buf(args->p->b) of DWARF's array members: where the member is. */
static void dwarf_fetch(void)
{
	static const char *const calls[] = {"buf(args->p->b)", "buf(args->p->s, 3)"};
	unsigned want_len[] = {8, 3};
	size_t off[] = {offsetof(struct bt_buf_t, b), offsetof(struct bt_buf_t, s)};

	for (unsigned i = 0; i < 2; i++) {
		struct utrace_error err = {0};
		struct bt_program p;
		struct bt_code code = {0};
		char src[160], want[40];
		int ret;

		snprintf(src, sizeof(src), "uprobe:/proc/self/exe:bt_buf_fn { printf(\"%%r\\n\", %s); }",
			 calls[i]);
		snprintf(want, sizeof(want), "+%zu(%%di):u8[%u]", off[i], want_len[i]);
		ret = compile(src, &p, &code, &err);
		check(ret == 0 && code.nfields == 1 && !strcmp(code.fields[0], want),
		      "%s: want %s, got %s (%s)", calls[i], want,
		      code.nfields ? code.fields[0] : "none", err.msg);
		code_free(&code);
		bt_program_free(&p);
	}
}

/* buf(retval, N) of a uretprobe: read where the return value points. */
static void ret_fetch(void)
{
	struct utrace_error err = {0};
	struct bt_program p;
	struct bt_code code = {0};
	int ret = compile("uretprobe:/bin/true:main { printf(\"%r\\n\", buf(retval, 8)); }", &p,
			  &code, &err);

	check(ret == 0 && code.nfields == 1 && !strcmp(code.fields[0], "+0($retval):u8[8]"),
	      "buf(retval, 8): %s (%s)", code.nfields ? code.fields[0] : "none", err.msg);
	code_free(&code);
	bt_program_free(&p);
}

/* What each buf() reads at the hit: one fetch-arg of its bytes. */
static void test_fetch(void)
{
	static const struct {
		const char *call, *want;
	} cases[] = {
	    {"buf($s->a, 4)", "+0(+0(%di)):u8[4]"}, /* a pointer: where it points */
	    {"buf($s->b, 4)", "+8(%di):u8[4]"},	    /* a char array: its bytes, NULs too */
	    {"buf($s->c)", "+12(%di):u8[4]"},	    /* an array: its size */
	    {"buf($s->d)", "+16(%di):u8[16]"},
	    {"buf($s->f)", "+40(%di):u8[32]"},
	    {"buf($s->f, 2)", "+40(%di):u8[2]"},
	    {"buf(arg1 + 8, 100)", "+8(%si):u8[64]"}, /* LEN capped as bpftrace caps it */
	    {"buf(*(uint64 *)(arg0 + 16), 4)", "+0(+16(%di)):u8[4]"}, /* an integer: an address */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[512];
		struct utrace_error err = {0};
		struct bt_program p;
		struct bt_code code = {0};
		int ret;

		snprintf(src, sizeof(src),
			 MYSTRUCT "uprobe:/bin/true:main { $s = (struct MyStruct *)arg0; "
				  "printf(\"%%r\\n\", %s); }",
			 cases[i].call);
		ret = compile(src, &p, &code, &err);
		check(ret == 0 && code.nfields == 1 && !strcmp(code.fields[0], cases[i].want) &&
			      code.ftypes && code.ftypes[0] == BT_FTYPE_BUF,
		      "%s: want %s, got %s (%s)", cases[i].call, cases[i].want,
		      code.nfields ? code.fields[0] : "none", err.msg);
		code_free(&code);
		bt_program_free(&p);
	}
	ret_fetch();
	dwarf_fetch();
}

/* The checker's length: the node's size, the bytes the value holds. */
static void test_length(void)
{
	static const struct {
		const char *call;
		unsigned size;
		bool warn; /* bpftrace's warning that LEN is cut */
	} cases[] = {
	    {"buf(\"abc\", 8)", 8, false},   {"buf(\"abc\", 200)", 64, true},
	    {"buf($s->e)", 8, false},	     {"buf($s->f, 65)", 64, true},
	    {"buf($s->f, 64)", 64, false}, {"buf(arg0, 0)", 0, false},
	};
	static const char warning[] = "WARNING: buf() length is too long and will be shortened "
				      "to 64 bytes (see BPFTRACE_STRLEN)";

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[512];
		struct utrace_error err = {0};
		struct bt_program p;
		struct bt_code code = {0};
		const struct bt_node *pf, *b = NULL;
		int ret;

		snprintf(src, sizeof(src),
			 MYSTRUCT "uprobe:/bin/true:main { $s = (struct MyStruct *)arg0; "
				  "printf(\"%%r\\n\", %s); }",
			 cases[i].call);
		ret = compile(src, &p, &code, &err);
		pf = ret == 0 ? p.probes[0].body[p.probes[0].nbody - 1] : NULL;
		if (pf && pf->kind == BT_N_EXPR)
			pf = pf->a; /* the statement's call */
		if (pf && pf->nargs == 2)
			b = pf->args[1];
		check(b && b->type == BT_T_BUF && b->size == cases[i].size,
		      "%s: %u bytes, got %u (%s)", cases[i].call, cases[i].size, b ? b->size : 0,
		      err.msg);
		check(cases[i].warn == (p.warnings && strstr(p.warnings, warning)),
		      "%s: %s", cases[i].call, cases[i].warn ? "warns" : "no warning");
		code_free(&code);
		bt_program_free(&p);
	}
}

/* What buf() does not take: bpftrace's errors, its columns. */
static void test_errors(void)
{
	static const struct {
		const char *src, *want;
	} cases[] = {
	    {"BEGIN { printf(\"%r\\n\", buf(\"abc\")); }",
	     "stdin:1:24-34: ERROR: buf() expects a length argument for non-array type string"},
	    {"struct S { char s[4]; } uprobe:/bin/true:main { printf(\"%r\\n\", "
	     "buf(((struct S *)arg0)->s)); }",
	     "ERROR: buf() expects a length argument for non-array type string"},
	    {"uprobe:/bin/true:main { printf(\"%r\\n\", buf(arg0)); }",
	     "stdin:1:40-49: ERROR: buf() expects a length argument for non-array type integer"},
	    {"uprobe:/bin/true:main { printf(\"%r\\n\", buf((int8 *)arg0)); }",
	     "stdin:1:40-57: ERROR: buf() expects a length argument for non-array type pointer"},
	    {"struct S { int x; } uprobe:/bin/true:main { printf(\"%r\\n\", "
	     "buf(*(struct S *)arg0, 4)); }",
	     "ERROR: buf() expects an integer, string, or array argument but saw record\n"},
	    /* bpftrace's two errors of a record without LEN, as it prints them */
	    {"BEGIN { printf(\"%r\\n\", buf((1, 2))); }",
	     "stdin:1:24-35: ERROR: buf() expects an integer, string, or array argument but saw "
	     "tuple\nBEGIN { printf(\"%r\\n\", buf((1, 2))); }\n                       ~~~~~~~~~~~\n"
	     "stdin:1:24-35: ERROR: buf() expects a length argument for non-array type tuple\n"},
	    {"struct S { int x[2]; } uprobe:/bin/true:main { $v = ((struct S *)arg0)->x; "
	     "printf(\"%r\\n\", buf($v)); }",
	     "buf() of an array kept in a variable or a map is not supported by utrace bt yet"},
	    {"struct S { int x[2]; } BEGIN { printf(\"%r\\n\", buf(((struct S *)0)->x)); }",
	     "buf() of memory at an address the probe's arguments do not give is not "
	     "supported by utrace bt yet"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct utrace_error err = {0};
		struct bt_program p;
		struct bt_code code = {0};
		int ret = compile(cases[i].src, &p, &code, &err);

		check(ret == -EINVAL && strstr(err.msg, cases[i].want), "%s\nwant: %s\ngot:  %s",
		      cases[i].src, cases[i].want, err.msg);
		code_free(&code);
		bt_program_free(&p);
	}
}

static void print_buf(const char *enc, char mode, char *out, size_t room)
{
	FILE *f = fmemopen(out, room, "w");

	out[0] = 0;
	if (!f)
		return;
	bt_buf_print(f, enc, mode);
	fclose(f);
}

/* The bytes the fetch-arg read, NULs and 1s among them, as a value, and
 * printed as bpftrace's %r, %rx, %rh; a value too long escaped is cut. */
static void test_bytes(void)
{
	static const uint8_t b[] = {0x09, 0x00, 0x01, 'A', 0xff, 0x00};
	uint8_t zeros[64] = {0};
	char enc[UTRACE_BT_STRLEN], out[512];

	utrace_bt_buf_bytes(enc, b, sizeof(b));
	print_buf(enc, 0, out, sizeof(out));
	check(!strcmp(out, "\\x09\\x00\\x01A\\xff\\x00"), "%%r: %s", out);
	print_buf(enc, 'x', out, sizeof(out));
	check(!strcmp(out, "\\x09\\x00\\x01\\x41\\xff\\x00"), "%%rx: %s", out);
	print_buf(enc, 'h', out, sizeof(out));
	check(!strcmp(out, "09 00 01 41 ff 00"), "%%rh: %s", out);
	utrace_bt_buf_bytes(enc, zeros, sizeof(zeros));
	check(strlen(enc) == 62 && enc[0] == 1 && enc[1] == 1,
	      "64 zero bytes: cut at %u escaped (31 bytes)", (unsigned)strlen(enc));
	utrace_bt_buf_make(enc, "hi", 4);
	print_buf(enc, 'h', out, sizeof(out));
	check(!strcmp(out, "68 69 00 00"), "buf(\"hi\", 4): %s", out);
}

int main(void)
{
	test_fetch();
	test_length();
	test_errors();
	test_bytes();
	return check_done();
}
