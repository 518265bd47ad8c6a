/* SPDX-License-Identifier: MIT */
/*
 * test_event_filter.c - event filters: the compiler (lib/events/event_filter.c)
 * against a hand-made event format, the interpreter (common/filter_prog.h)
 * on hand-made records, every compile error with its column, FIELD.function
 * (the kernel's range of a function, by name or address), and
 * robustness against garbage programs and truncated records (run it
 * under ASan/UBSan: build-san/tests/test_event_filter).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/filter_prog.h"
#include "lib/events/event_filter.h"
#include "lib/events/event_format.h"
#include "lib/events/ftrace_formats.h"
#include "tests/unit/check.h"

/*
 * The event: the kernel's common fields at 0..8, then
 *   int count @8; short delta @12; unsigned char level @14; char ch @15;
 *   unsigned long len @16; char comm[16] @24; __data_loc char[] word @40;
 *   __data_loc int[] vals @44; long long big @48; int arr[2] @56;
 *   unsigned int flags32 @64; dynamic data from 68.
 */
#define REC_SIZE 68
static const struct utrace_event_field fields[] = {
    UTRACE_EVENT_COMMON_FIELDS,
    {"int", "count", "count", 8, 4, true, false, UTRACE_EF_INT},
    {"short", "delta", "delta", 12, 2, true, false, UTRACE_EF_INT},
    {"unsigned char", "level", "level", 14, 1, false, false, UTRACE_EF_INT},
    {"char", "ch", "ch", 15, 1, true, false, UTRACE_EF_INT},
    {"unsigned long", "len", "len", 16, 8, false, false, UTRACE_EF_INT},
    {"char", "comm[16]", "comm", 24, 16, true, false, UTRACE_EF_CHARS},
    {"__data_loc char[]", "word", "word", 40, 4, false, false, UTRACE_EF_STRING},
    {"__data_loc int[]", "vals", "vals", 44, 4, false, false, UTRACE_EF_DYNARRAY},
    {"long long", "big", "big", 48, 8, true, false, UTRACE_EF_INT},
    {"int", "arr[2]", "arr", 56, 8, true, false, UTRACE_EF_OTHER},
    {"unsigned int", "flags32", "flags32", 64, 4, false, false, UTRACE_EF_INT},
};
static const struct utrace_event_format fmt = {
    .system = "test",
    .name = "sample",
    .rec_size = REC_SIZE,
    .nr_fields = sizeof(fields) / sizeof(fields[0]),
    .fields = fields,
    .print_fmt = "\"count=%d\", REC->count",
};

struct vals {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid, count;
	int16_t delta;
	uint8_t level;
	int8_t ch;
	uint64_t len;
	char comm[16];	  /* copied as is: need not end with a NUL */
	const char *word; /* NULL: an empty __data_loc (len 0) */
	int64_t big;
	uint32_t flags32;
};

static const struct vals base = {
    .type = 42,
    .flags = 0x5,
    .pid = 1234,
    .count = 7,
    .delta = -300,
    .level = 200,
    .ch = -1,
    .len = 0x10,
    .comm = "bash",
    .word = "foobar",
    .big = -1,
    .flags32 = 0x80000001u,
};

/* Lays v out in buf (room for REC_SIZE + 256); the record's length. */
static uint32_t build(uint8_t *buf, const struct vals *v)
{
	uint32_t loc = 0, len = REC_SIZE;

	memset(buf, 0, REC_SIZE);
	memcpy(buf + 0, &v->type, 2);
	buf[2] = v->flags;
	buf[3] = v->preempt;
	memcpy(buf + 4, &v->pid, 4);
	memcpy(buf + 8, &v->count, 4);
	memcpy(buf + 12, &v->delta, 2);
	buf[14] = v->level;
	memcpy(buf + 15, &v->ch, 1);
	memcpy(buf + 16, &v->len, 8);
	memcpy(buf + 24, v->comm, 16);
	if (v->word) {
		uint32_t n = (uint32_t)strlen(v->word) + 1;

		memcpy(buf + REC_SIZE, v->word, n);
		loc = n << 16 | REC_SIZE;
		len += n;
	}
	memcpy(buf + 40, &loc, 4);
	memcpy(buf + 48, &v->big, 8);
	memcpy(buf + 64, &v->flags32, 4);
	return len;
}

/* expr on one line, at most 80 bytes of it, for check() messages. */
static const char *show(const char *expr)
{
	static char bufs[4][84];
	static int next;
	char *b = bufs[next++ % 4];
	size_t i;

	snprintf(b, sizeof(bufs[0]), "%.80s", expr);
	for (i = 0; b[i]; i++)
		if (b[i] == '\n' || b[i] == '\t')
			b[i] = ' ';
	return b;
}

/* Compiles expr; NULL (with a failed check) if it does not compile. */
static void *compile(const char *expr, uint32_t *len)
{
	struct utrace_error err = {0};
	void *prog = NULL;

	if (utrace_filter_compile(&fmt, expr, &prog, len, &err) < 0) {
		check(0, "compile '%s': %s", show(expr), err.msg);
		return NULL;
	}
	if (!prog) {
		check(0, "compile '%s': no program", show(expr));
		return NULL;
	}
	if (utrace_filter_check(prog, *len) < 0) {
		check(0, "compile '%s': utrace_filter_check rejects the program", show(expr));
		free(prog);
		return NULL;
	}
	return prog;
}

/* expr on the record of v: want 1 (keep) or 0 (drop). */
static void eval_v(const char *expr, const struct vals *v, int want)
{
	uint8_t buf[REC_SIZE + 256];
	uint32_t rlen = build(buf, v), plen;
	void *prog = compile(expr, &plen);
	int got;

	if (!prog)
		return;
	got = utrace_filter_run(prog, plen, buf, rlen);
	check(got == want, "'%s' %s", show(expr), want ? "keeps" : "drops");
	free(prog);
}

static void eval(const char *expr, int want)
{
	eval_v(expr, &base, want);
}

/* Cases "W EXPR": W is 1 if EXPR keeps the record of v, 0 if it drops it. */
static void eval_all(const struct vals *v, const char *const *cases, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		eval_v(cases[i] + 2, v, cases[i][0] == '1');
}
#define EVAL_ALL(v, cases) eval_all(v, cases, sizeof(cases) / sizeof(cases[0]))

static void test_integers(void)
{
	static const char *const cases[] = {
	    "1 count == 7", "0 count != 7", "1 count < 8", "0 count < 7", "1 count <= 7",
	    "0 count > 7", "1 count > 6", "1 count >= 7", "0 count >= 8", "1 count>6&&count<8",
	    "1   count\t==\n7  ",
	    /* negative values of signed fields */
	    "1 count > -5", "1 delta == -300", "1 delta < -299", "1 delta > -301 && delta < 0",
	    "0 delta > 0", "1 ch < 0", "1 ch == -1", "1 big == -1", "1 big < 0", "1 big == -0x1",
	    /* unsigned comparisons */
	    "1 level > 100", "1 level == 200", "1 flags32 > 0x7fffffff", "1 flags32 & 0x80000000",
	    "1 flags32 == 2147483649",
	    /* hex, octal (the kernel's base 0), masks */
	    "1 len == 0x10", "1 len == 0X10", "1 len == 16", "1 len == 020", "0 len == 0",
	    "1 len & 0x10", "0 len & 0xf", "1 len & 0x30", "1 common_flags & 4",
	    "0 common_flags & 2",
	    /* common fields */
	    "1 common_pid == 1234", "0 common_pid != 1234", "1 common_type == 42",
	    "1 common_preempt_count == 0",
	    /* the value is converted to the field's type, as in the kernel */
	    "1 common_flags == 261", "1 ch == 255"};
	static const char *const extremes[] = {
	    "1 len > 0xfffffffffffffff0",    "1 len == 18446744073709551615",
	    "1 big == -9223372036854775808", "1 big < -9223372036854775807",
	    "1 big <= 9223372036854775807",  "1 count == -2147483648",
	    "1 count < -2147483647"};
	struct vals v = base;

	EVAL_ALL(&base, cases);
	v.len = UINT64_MAX;
	v.big = INT64_MIN;
	v.count = INT32_MIN;
	EVAL_ALL(&v, extremes);
}

static void test_logic(void)
{
	static const char *const cases[] = {
	    /* a || b && c is a || (b && c) */
	    "1 count == 7 || count == 1 && count == 2",
	    "0 (count == 7 || count == 1) && count == 2",
	    "1 count == 1 && count == 2 || count == 7",
	    "0 count == 1 && (count == 2 || count == 7)",
	    "0 count == 1 || count == 2 || count == 3", "1 count == 1 || count == 2 || count == 7",
	    "1 count == 7 && len == 16 && comm == \"bash\"",
	    "0 count == 7 && len == 16 && comm == \"zsh\"",
	    "1 count == 1 && count == 2 || count == 3 && count == 4 || count == 7",
	    "1 (count == 1 || count == 7) && (len == 1 || len == 16)",
	    "0 (count == 1 || count == 7) && (len == 1 || len == 2)", "1 ((((count == 7))))",
	    /* not */
	    "0 !count == 7", "0 !(count == 7)", "1 !!(count == 7)", "1 ! ! count == 7",
	    "1 !(count == 1 || count == 2)", "0 !(count == 1 || count == 7)",
	    "1 !(count == 7 && comm == 'bash') || len == 16",
	    "0 !(count == 7 && comm == 'bash') || len == 17",
	    "1 !(!(count == 7) || len == 1) && !(comm != 'bash')",
	    "1 !(count == 1 && !(len == 16 || comm == 'x'))", "1 !comm != 'bash'",
	    "1 !(comm ~ '!ba*')"};

	EVAL_ALL(&base, cases);
}

static void test_strings(void)
{
	static const char *const bash[] = {
	    "1 comm == \"bash\"", "1 comm == 'bash'", "0 comm != \"bash\"", "1 comm != \"zsh\"",
	    "0 comm == \"bas\"", "0 comm == \"bashx\"", "0 comm == \"\"", "1 comm ~ \"bash\"",
	    "0 comm ~ \"ba\"", "1 comm ~ \"ba*\"", "0 comm ~ \"sh*\"", "1 comm ~ \"*sh\"",
	    "0 comm ~ \"*ba\"", "1 comm ~ \"*as*\"", "0 comm ~ \"*zz*\"", "1 comm ~ \"b?sh\"",
	    "0 comm ~ \"b?h\"", "1 comm ~ \"[abc]ash\"", "0 comm ~ \"[!b]ash\"",
	    "1 comm ~ \"[a-c]*\"", "1 comm ~ \"b*h\"", "0 comm ~ \"b*x\"", "1 comm ~ \"*\"",
	    "1 comm ~ \"**\"", "1 comm ~ \"b\\ash\"", "0 comm ~ \"!ba*\"", "1 comm ~ \"!zz*\"",
	    "1 comm ~ 'ba*' && count == 7", "0 comm == \"ba*\"" /* == does not glob */,
	    /* __data_loc char[] */
	    "1 word == \"foobar\"", "0 word == \"foo\"", "1 word != \"foo\"", "1 word ~ \"foo*\"",
	    "0 word ~ \"bar*\"", "1 word ~ \"*bar\"", "1 word ~ \"*oba*\"", "1 word ~ \"f?o*\"",
	    "1 word ~ \"[e-g]oo*\"", "0 word ~ \"*[!r]\"", "1 word ~ \"*[r]\""};
	/* char[16] filled up without a NUL */
	static const char *const full[] = {"1 comm == \"abcdefghijklmnop\"",
					   "0 comm == \"abcdefghijklmno\"",
					   "0 comm == \"abcdefghijklmnopq\"",
					   "1 comm ~ \"*nop\"",
					   "1 comm ~ \"*p\"",
					   "1 comm ~ \"abc*\"",
					   "1 comm ~ \"*ghi*\"",
					   "1 comm ~ \"a*p\"",
					   "1 comm ~ \"a?c*\"",
					   "0 comm ~ \"*q\"",
					   "0 comm ~ \"abcdefghijklmnop?\""};
	static const char *const empty[] = {"1 comm == \"\"", "1 comm ~ \"*\"", "0 comm ~ \"?*\"",
					    "1 word == \"\"", "1 word ~ \"*\"", "0 word ~ \"?\""};
	static const char *const longer[] = {"1 word ~ \"*whole\"", "1 word ~ \"a much*\"",
					     "1 word ~ \"*longer*\""};
	struct vals v = base;

	EVAL_ALL(&base, bash);
	memcpy(v.comm, "abcdefghijklmnop", 16);
	EVAL_ALL(&v, full);
	memset(v.comm, 0, sizeof(v.comm));
	v.word = "";
	EVAL_ALL(&v, empty);
	v.word = NULL; /* len 0: empty, wherever its offset points */
	EVAL_ALL(&v, empty);
	v.word = "a much longer word than the others, to see it whole";
	EVAL_ALL(&v, longer);
}

/* A __data_loc string without its NUL: its length says where it ends. */
static void test_loc_without_nul(void)
{
	static const char *const exprs[] = {"word == \"foo\"", "word ~ \"*o\"", "word ~ \"f*\""};
	uint8_t buf[REC_SIZE + 8];
	uint32_t loc = 3u << 16 | REC_SIZE, plen;
	size_t i;

	build(buf, &base);
	memcpy(buf + 40, &loc, 4);
	memcpy(buf + REC_SIZE, "fooXXXXX", 8);
	for (i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++) {
		void *prog = compile(exprs[i], &plen);

		if (prog)
			check(utrace_filter_run(prog, plen, buf, REC_SIZE + 3) == 1,
			      "'%s' on a __data_loc without a NUL", exprs[i]);
		free(prog);
	}
}

/*
 * Cases "W PATTERN STRING" of "word ~": many from the kernel's lib/base/glob.c
 * self test.
 */
static void test_glob_cases(void)
{
	/* clang-format off */
	static const char *const cases[] = {
		"1 a a", "0 a b", "0 a aa", "0 a ", "1 [a] a", "0 [a] b", "0 [!a] a", "1 [!a] b",
		"1 [ab] b", "0 [ab] c", "1 [!ab] c", "1 [a-c] b", "0 [a-c] d", "1 [a-c-e-g] -",
		"0 [a-c-e-g] d", "1 [a-c-e-g] f", "1 []a-ceg-ik[] a", "1 []a-ceg-ik[] ]",
		"1 []a-ceg-ik[] [", "1 []a-ceg-ik[] h", "0 []a-ceg-ik[] f", "0 [!]a-ceg-ik[] h",
		"0 [!]a-ceg-ik[] ]", "1 [!]a-ceg-ik[] f", "1 [a-] -",
		"1 [ab [ab" /* no ']': a literal '[' */, "0 [ab a", "1 ? a", "0 ? aa", "0 ?? a",
		"1 ?x? axb", "0 ?x? abx", "0 ?x? xab", "0 *?? a", "1 *?? ab", "1 *?? abcd",
		"0 ??* a", "1 ??* abc", "0 ?*? a", "1 ?*? ab", "1 ?*? abcd", "1 *b b", "0 *b ba",
		"1 *b bab", "1 *bc abbc", "1 *bc bcbc", "1 *ac* abacadaeafag",
		"1 *ac*ae*ag* abacadaeafag", "1 *a*b*[bc]*[ef]*g* abacadaeafag",
		"0 *a*b*[ef]*[cd]*g* abacadaeafag", "1 *abcd* abcabcabcabcdefg",
		"1 *ab*cd* abcabcabcabcdefg", "1 *abcd*abcdef* abcabcdabcdeabcdefg",
		"0 *abcd* abcabcabcabcefg", "0 *ab*cd* abcabcabcabcefg", "1 a\\*b a*b",
		"0 a\\*b axb", "0 *a*a*a*a*a*a*a*b aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
	/* clang-format on */
	struct vals v = base;
	char expr[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *pat = cases[i] + 2, *sp = strchr(pat, ' ');

		snprintf(expr, sizeof(expr), "word ~ \"%.*s\"", (int)(sp - pat), pat);
		v.word = sp + 1;
		eval_v(expr, &v, cases[i][0] == '1');
	}
}

/* expr must fail with code at column col, and say so. */
static void expect_err(const char *expr, int code, int col)
{
	struct utrace_error err = {0};
	char want[600];
	void *prog = (void *)1;
	uint32_t len = 1;
	int got = -1, ret;

	ret = utrace_filter_compile_code(&fmt, expr, &prog, &len, &got, &err);
	snprintf(want, sizeof(want), "%s at column %d", utrace_filter_error_text(code), col);
	check(ret == -EINVAL && err.code == -EINVAL && got == code && err.column == col &&
		  !strcmp(err.msg, want) && !prog && !len,
	      "'%s' fails: %s (got: %s)", show(expr), want, err.msg);
	free(prog);
}

/* The enum utrace_filter_err of a name ("INVALID_OP"), or -1. */
static int err_code(const char *name, size_t len)
{
#define ERR_NAME(name, text) #name,
	static const char *const names[] = {UTRACE_FILTER_ERRORS(ERR_NAME)};
#undef ERR_NAME
	int i;

	for (i = 0; i < UTRACE_FILTER_ERR_MAX; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], name, len))
			return i;
	return -1;
}

static void test_errors(void)
{
	/* clang-format off */
	/* "ERROR COLUMN EXPR" */
	static const char *const cases[] = {
		"INVALID_OP 7 count = 5", "INVALID_OP 6 count", "INVALID_OP 7 count && len == 1",
		"INVALID_OP 7 count !~ 'x'", "TOO_MANY_OPEN 1 (count == 5",
		"TOO_MANY_OPEN 1 ((count == 5)", "TOO_MANY_OPEN 15 count == 1 && (comm == 'x'",
		"TOO_MANY_CLOSE 11 count == 5)", "TOO_MANY_CLOSE 13 (count == 5))",
		"MISSING_QUOTE 9 comm == \"bash", "MISSING_QUOTE 9 comm == 'bash\"",
		"OPERAND_TOO_LONG 10 count == 0000000000000000000000001",
		"EXPECT_STRING 9 comm == 5", "EXPECT_STRING 8 word ~ -1",
		"EXPECT_DIGIT 10 count == \"5\"", "EXPECT_DIGIT 9 count ~ 'x*'",
		"ILLEGAL_FIELD_OP 6 comm < 'x'", "ILLEGAL_FIELD_OP 6 word & 'x'",
		"ILLEGAL_FIELD_OP 7 count ~ 5", "ILLEGAL_FIELD_OP 6 vals == 1",
		"ILLEGAL_FIELD_OP 5 arr == 1", "FIELD_NOT_FOUND 1 cnt == 5",
		"FIELD_NOT_FOUND 15 count == 5 && nope > 1", "FIELD_NOT_FOUND 1 5 == count",
		"FIELD_NOT_FOUND 1 Count == 5", "FIELD_NOT_FOUND 1 00",
		"ILLEGAL_INTVAL 8 len == -1", "ILLEGAL_INTVAL 10 level == -56",
		"ILLEGAL_INTVAL 10 count == 12abc", "ILLEGAL_INTVAL 10 count == 08",
		"ILLEGAL_INTVAL 10 count == 0x", "ILLEGAL_INTVAL 10 count == -",
		"ILLEGAL_INTVAL 10 count == --1", "ILLEGAL_INTVAL 8 len == 0x10000000000000000",
		"ILLEGAL_INTVAL 8 big == 9223372036854775808",
		"ILLEGAL_INTVAL 8 big == -9223372036854775809",
		"ILLEGAL_INTVAL 8 big == 0xffffffffffffffff",
		"TOO_MANY_PREDS 12 count == 5 comm == 'x'", "TOO_MANY_PREDS 13 (count == 5 x)",
		"TOO_MANY_PREDS 12 count == 5 & len == 1",
		"TOO_MANY_PREDS 12 count == 5 | len == 1", "INVALID_VALUE 9 comm == bash",
		"INVALID_VALUE 9 count ==", "INVALID_VALUE 10 count == +5",
		"INVALID_VALUE 10 count == (5)", "NO_FILTER 1 ", "NO_FILTER 1  \t\n",
		"MISSING_FIELD 14 count == 5 &&", "MISSING_FIELD 15 count == 5 || && len == 1",
		"MISSING_FIELD 1 == 5", "MISSING_FIELD 1 != 5", "MISSING_FIELD 2 ()",
		"MISSING_FIELD 2 !"};
	/* clang-format on */
	char buf[400];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *sp = strchr(cases[i], ' ');
		char *end;
		long col = strtol(sp + 1, &end, 10);

		expect_err(end + 1, err_code(cases[i], (size_t)(sp - cases[i])), (int)col);
	}
	strcpy(buf, "comm == \"");
	for (i = 0; i < 256; i++)
		strcat(buf, "x");
	strcat(buf, "\"");
	expect_err(buf, UTRACE_FILTER_ERR_OPERAND_TOO_LONG, 9);
	buf[strlen(buf) - 2] = '"';
	buf[strlen(buf) - 1] = '\0';
	eval(buf, 0); /* 255 bytes is fine */

	/* nesting */
	for (i = 0; i < UTRACE_FILTER_MAX_DEPTH; i++)
		buf[i] = '(';
	strcpy(buf + i, "count == 7");
	for (i = 0; i < UTRACE_FILTER_MAX_DEPTH; i++)
		strcat(buf, ")");
	eval(buf, 1);
	memmove(buf + 1, buf, strlen(buf) + 1);
	strcat(buf, ")");
	expect_err(buf, UTRACE_FILTER_ERR_TOO_DEEP, UTRACE_FILTER_MAX_DEPTH + 1);

	check(!strcmp(utrace_filter_error_text(UTRACE_FILTER_ERR_NO_MEMORY), "Out of memory") &&
		  !strcmp(utrace_filter_error_text(-1), "Unknown error") &&
		  !strcmp(utrace_filter_error_text(UTRACE_FILTER_ERR_MAX), "Unknown error"),
	      "error texts");
}

/* The largest program, and one predicate more. */
static void test_too_many_preds(void)
{
	const char *term = "count == 1 || ";
	size_t tl = strlen(term), n = UTRACE_FILTER_MAX_INSNS, i;
	char *expr = malloc(tl * (n + 1) + 16);

	if (!expr)
		abort();
	for (i = 0; i < n - 1; i++)
		memcpy(expr + i * tl, term, tl);
	strcpy(expr + i * tl, "count == 7");
	eval(expr, 1);
	strcpy(expr + i * tl, "count == 1");
	eval(expr, 0);
	memcpy(expr + i * tl, term, tl);
	strcpy(expr + n * tl, "count == 7");
	expect_err(expr, UTRACE_FILTER_ERR_TOO_MANY_PREDS, (int)(n * tl) + 1);
	free(expr);
}

static void test_no_filter(void)
{
	static const char *const none[] = {"0", " 0 \n", "1", "\t1"};
	struct utrace_error err = {0};
	uint8_t rec[REC_SIZE + 256];
	uint32_t rlen = build(rec, &base);
	size_t i;

	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		void *prog = (void *)1;
		uint32_t len = 1;
		int ret = utrace_filter_compile(&fmt, none[i], &prog, &len, &err);

		check(ret == 0 && !prog && !len, "'%s' is no filter", show(none[i]));
	}
	check(utrace_filter_run(NULL, 0, rec, rlen) == 1, "no program keeps everything");
}

static void disasm_case(const char *expr, const char *want)
{
	char buf[512];
	uint32_t plen;
	void *prog = compile(expr, &plen);
	int n;

	if (!prog)
		return;
	n = utrace_filter_disasm(prog, plen, buf, sizeof(buf));
	check(n == (int)strlen(want) && !strcmp(buf, want), "disasm '%s'", show(expr));
	if (strcmp(buf, want))
		printf("# got:\n%s# want:\n%s", buf, want);
	free(prog);
}

static void test_disasm(void)
{
	char small[8];
	uint32_t plen;
	void *prog;

	disasm_case("count > 5 && word ~ \"foo*\"",
		    "   0: s32 @8 > 5 ? 1 : drop\n"
		    "   1: __data_loc char[] @40 prefix \"foo\" ? keep : drop\n");
	/* the picture in common/filter_prog.h */
	disasm_case("count == 1 || count == 2 && !(count == 3)",
		    "   0: s32 @8 == 1 ? keep : 1\n"
		    "   1: s32 @8 == 2 ? 2 : drop\n"
		    "   2: s32 @8 == 3 ? drop : keep\n");
	disasm_case("(count == 1 || len & 0x3) && comm != 'a\"b' || comm ~ '*[x]' && level < 3",
		    "   0: s32 @8 == 1 ? 2 : 1\n"
		    "   1: u64 @16 & 0x3 ? 2 : 3\n"
		    "   2: char[16] @24 == \"a\\\"b\" ? 3 : keep\n"
		    "   3: char[16] @24 glob \"*[x]\" ? 4 : drop\n"
		    "   4: u8 @14 < 3 ? keep : drop\n");
	disasm_case("comm ~ '*x*' || comm ~ '!*x' || big >= -2",
		    "   0: char[16] @24 contains \"x\" ? keep : 1\n"
		    "   1: char[16] @24 suffix \"x\" ? 2 : keep\n"
		    "   2: s64 @48 >= -2 ? keep : drop\n");

	prog = compile("count > 5", &plen);
	if (prog) {
		int n = utrace_filter_disasm(prog, plen, small, sizeof(small));

		check(n == (int)strlen("   0: s32 @8 > 5 ? keep : drop\n") &&
			  !strcmp(small, "   0: s"),
		      "disasm truncates like snprintf");
		check(utrace_filter_disasm(prog, plen - 8, small, sizeof(small)) == -EINVAL &&
			  !small[0],
		      "disasm rejects a bad program");
		free(prog);
	}
}

/* A program of the records' own making, for the robustness tests. */
struct raw_prog {
	struct utrace_filter_hdr h;
	struct utrace_filter_insn in[2];
	char str[16];
};

/* q: p changed by stmt; the run must keep, utrace_filter_check() reject. */
#define MALFORMED(stmt, what)                                                                      \
	do {                                                                                       \
		q = p;                                                                             \
		stmt;                                                                              \
		check(utrace_filter_run(&q, sizeof(q), rec, rlen) == 1 &&                          \
			  utrace_filter_check(&q, sizeof(q)) < 0,                                  \
		      "%s keeps", what);                                                           \
	} while (0)

static void test_malformed(void)
{
	uint8_t rec[REC_SIZE + 256];
	uint32_t rlen = build(rec, &base);
	struct raw_prog p, q, s;
	uint64_t big[16] = {0};

	memset(&p, 0, sizeof(p));
	p.h = (struct utrace_filter_hdr){sizeof(p), UTRACE_FILTER_VERSION, 1, UTRACE_FILTER_MAGIC};
	p.in[0] = (struct utrace_filter_insn){
	    UTRACE_FOP_EQ, UTRACE_FF_SIGNED, 0, UTRACE_FILTER_DROP, UTRACE_FILTER_DROP, 8, 4,
	    {.imm = 7}};
	check(utrace_filter_run(&p, sizeof(p), rec, rlen) == 0 &&
		  utrace_filter_check(&p, sizeof(p)) == 0,
	      "a hand-made program drops");
	MALFORMED(q.h.magic = 0, "bad magic");
	MALFORMED(q.h.version = 2, "bad version");
	MALFORMED(q.h.size -= 8, "bad size");
	MALFORMED(q.h.nr_insns = 1000, "too many instructions for the size");
	MALFORMED((q.h.nr_insns = 2, q.in[0].jt = 0), "a jump to itself");
	MALFORMED((q.h.nr_insns = 2, q.in[0].jt = 2), "a jump past the end");
	MALFORMED(q.in[0].op = 0, "op 0");
	MALFORMED(q.in[0].op = UTRACE_FOP_MAX, "an unknown op");
	MALFORMED(q.in[0].size = 3, "an integer of 3 bytes");
	q = p;
	q.in[0].off = UINT32_MAX - 1; /* well formed, but never in a record */
	check(utrace_filter_run(&q, sizeof(q), rec, rlen) == 1, "a huge offset keeps");

	s = p;
	s.in[0] = (struct utrace_filter_insn){UTRACE_FOP_STR_EQ,  0,  0,  UTRACE_FILTER_DROP,
					      UTRACE_FILTER_DROP, 24, 16, {.imm = 0}};
	s.in[0].str_off = offsetof(struct raw_prog, str);
	s.in[0].str_len = 4;
	memcpy(s.str, "bash", 4);
	check(utrace_filter_run(&s, sizeof(s), rec, rlen) == 0, "hand-made string test drops");
	p = s;
	MALFORMED(q.in[0].str_len = 17, "a constant past the end");
	MALFORMED((q.in[0].str_off = UINT32_MAX, q.in[0].str_len = 2),
		  "a constant offset overflow");
	MALFORMED((q.in[0].str_off = 0, q.in[0].str_len = UTRACE_FILTER_STR_MAX + 1),
		  "a constant too long");

	memcpy((char *)big + 4, &p, sizeof(p));
	check(utrace_filter_run((char *)big + 4, sizeof(p), rec, rlen) == 1,
	      "misaligned program keeps");
	check(utrace_filter_run(&p, sizeof(p), NULL, 100) == 1, "no record keeps");
}

/* A copy of rec[0..len) in a buffer of exactly len bytes, for ASan. */
static int run_exact(const void *prog, uint32_t plen, const uint8_t *rec, uint32_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	int r;

	if (!copy)
		abort();
	memcpy(copy, rec, len);
	r = utrace_filter_run(prog, plen, copy, len);
	free(copy);
	return r;
}

static void test_truncated(void)
{
	static const char *const exprs[] = {
	    "count > 5 && word ~ \"foo*\"",
	    "flags32 & 1 || comm ~ '*a*'",
	    "word ~ '*[!x]*r' && big < 0",
	    "word != 'x' && len == 16",
	};
	uint8_t rec[REC_SIZE + 256];
	uint32_t rlen = build(rec, &base), plen, loc, l;
	void *prog;
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++) {
		prog = compile(exprs[i], &plen);
		if (!prog)
			continue;
		for (l = 0; l <= rlen; l++) {
			int r = run_exact(prog, plen, rec, l);
			int full = utrace_filter_run(prog, plen, rec, rlen);

			/* Every expression needs its last field: short keeps. */
			if (l < rlen && r != 1)
				bad++;
			if (l == rlen && r != full)
				bad++;
		}
		free(prog);
	}
	check(!bad, "truncated records keep, without reading past them");

	/* A __data_loc pointing outside the record. */
	prog = compile("word == 'foo'", &plen);
	if (!prog)
		return;
	loc = 100u << 16 | 60;
	memcpy(rec + 40, &loc, 4);
	check(run_exact(prog, plen, rec, rlen) == 1, "__data_loc past the record keeps");
	loc = 0xffffu << 16 | 0xffff;
	memcpy(rec + 40, &loc, 4);
	check(run_exact(prog, plen, rec, rlen) == 1, "__data_loc at 0xffff + 0xffff keeps");
	free(prog);
}

/* xorshift64*: the same garbage on every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void fill_random(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)rnd();
}

/* Runs prog (copied to an exact-size 8-aligned buffer) on random records;
 * counts results that are neither 0 nor 1. */
static int fuzz_one(const void *prog, uint32_t plen, bool disasm)
{
	uint64_t *copy = malloc(plen ? plen : 1);
	uint8_t rec[160];
	char text[256];
	int bad = 0, k;

	if (!copy)
		abort();
	memcpy(copy, prog, plen);
	for (k = 0; k < 4; k++) {
		uint32_t rl = (uint32_t)(rnd() % sizeof(rec));
		int r;

		fill_random(rec, rl);
		r = run_exact(copy, plen, rec, rl);
		if (r != 0 && r != 1)
			bad++;
	}
	if (disasm)
		utrace_filter_disasm(copy, plen, text, sizeof(text));
	free(copy);
	return bad;
}

static void test_fuzz(void)
{
	static const char *const seeds[] = {
	    "count > 5 && word ~ \"foo*\"",
	    "(count == 1 || len & 0x3) && comm != 'ab' || comm ~ '*[x]?' && level < 3",
	    "word ~ '*a*' || word ~ 'b*' || word ~ '*c' || word == 'd' || !(big > 1)",
	};
	uint64_t buf[64];
	struct utrace_filter_hdr *h = (struct utrace_filter_hdr *)buf;
	int bad = 0, i, j;
	size_t s;

	/* pure garbage */
	for (i = 0; i < 5000; i++) {
		uint32_t len = (uint32_t)(rnd() % sizeof(buf));

		fill_random((uint8_t *)buf, len);
		bad += fuzz_one(buf, len, true);
	}
	check(!bad, "random bytes as a program: no crash, 0 or 1");

	/* a valid header over garbage instructions with plausible fields */
	bad = 0;
	for (i = 0; i < 5000; i++) {
		uint32_t nr = 1 + (uint32_t)(rnd() % 8), len;
		struct utrace_filter_insn *in = (struct utrace_filter_insn *)(h + 1);

		len = (uint32_t)(sizeof(*h) + nr * sizeof(*in) + 64);
		fill_random((uint8_t *)buf, len);
		*h =
		    (struct utrace_filter_hdr){len, UTRACE_FILTER_VERSION, nr, UTRACE_FILTER_MAGIC};
		for (j = 0; j < (int)nr; j++) {
			in[j].op = (uint8_t)(rnd() % (UTRACE_FOP_MAX + 1));
			in[j].flags &= 3;
			in[j].jt = (uint16_t)(rnd() % (nr + 2));
			in[j].jf = (uint16_t)(rnd() % (nr + 2));
			if (in[j].jt == nr)
				in[j].jt = UTRACE_FILTER_KEEP;
			if (in[j].jf == nr + 1)
				in[j].jf = UTRACE_FILTER_DROP;
			in[j].off = (uint32_t)(rnd() % 180);
			in[j].size = (uint32_t)(rnd() % 24);
			if (in[j].op > UTRACE_FOP_BAND) {
				in[j].str_off = (uint32_t)(rnd() % (len + 8));
				in[j].str_len = (uint32_t)(rnd() % 80);
			}
		}
		bad += fuzz_one(buf, len, true);
	}
	check(!bad, "random instructions: no crash, 0 or 1");

	/* compiled programs with bytes flipped */
	bad = 0;
	for (s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		uint32_t plen;
		void *prog = compile(seeds[s], &plen);

		if (!prog)
			continue;
		for (i = 0; i < 3000; i++) {
			uint64_t *m = malloc(plen);
			int flips = 1 + (int)(rnd() % 4);

			if (!m)
				abort();
			memcpy(m, prog, plen);
			for (j = 0; j < flips; j++)
				((uint8_t *)m)[rnd() % plen] ^= (uint8_t)(1u << (rnd() % 8));
			bad += fuzz_one(m, plen, (i & 7) == 0);
			free(m);
		}
		free(prog);
	}
	check(!bad, "compiled programs with flipped bits: no crash, 0 or 1");
}

/* The interpreter's glob on buffers that are not NUL-terminated. */
static void test_glob_bounds(void)
{
	static const uint8_t pat[] = {'[', 'a', '-'}, s[] = {'['};
	uint8_t *p = malloc(3), *t = malloc(1);

	if (!p || !t)
		abort();
	memcpy(p, pat, 3);
	memcpy(t, s, 1);
	check(utrace_filter_glob(p, 3, t, 1) == 0, "glob: unterminated range at the end");
	check(utrace_filter_glob(p, 1, t, 1) == 1, "glob: lone '[' is literal");
	p[0] = '\\';
	check(utrace_filter_glob(p, 1, (const uint8_t *)"\\", 1) == 1,
	      "glob: trailing backslash is literal");
	check(utrace_filter_glob(p, 0, t, 0) == 1, "glob: empty matches empty");
	free(p);
	free(t);
}

/* ftrace:print's `char buf[]` (size 0, the rest of the record), parsed
 * from the kernel's format text: a string to filters, as the kernel's
 * filter_assign_type takes it (trace_marker's triggers: `if buf ==
 * "start"`), its end the record's when there is no NUL. */
static void test_print_buf(void)
{
	const struct utrace_ftrace_format *ff = utrace_ftrace_format_find("print");
	static const struct {
		const char *expr, *text;
		int want;
	} cases[] = {
	    {"buf == \"start\"", "start", 1},	 {"buf == \"start\"", "end", 0},
	    {"buf == \"start\"", "started", 0}, {"buf != \"end\"", "start", 1},
	    {"buf ~ \"st*\"", "start", 1},	 {"buf ~ \"*nd\"", "end", 1},
	    {"buf ~ \"*nd\"", "ends", 0},	 {"buf == \"\"", "", 1},
	};
	struct utrace_event_format *f = NULL;
	struct utrace_error err = {0};
	const struct utrace_event_field *buf;

	check(ff && utrace_event_format_parse("ftrace", ff->text, &f, &err) == 0,
	      "the print format parses: %s", err.msg);
	buf = f ? utrace_event_field_find(f, "buf") : NULL;
	check(buf && buf->kind == UTRACE_EF_CHARS && buf->size == 0 && buf->offset == 16,
	      "char buf[] of size 0 is a string");
	for (size_t i = 0; f && i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t rec[64] = {0};
		uint32_t n = (uint32_t)strlen(cases[i].text), plen;
		void *prog = NULL;

		memcpy(rec + 16, cases[i].text, n);
		if (utrace_filter_compile(f, cases[i].expr, &prog, &plen, &err) < 0) {
			check(0, "compile '%s': %s", cases[i].expr, err.msg);
			continue;
		}
		/* with its NUL, and cut at the record's end */
		check(utrace_filter_run(prog, plen, rec, 16 + n + 1) == cases[i].want &&
			  utrace_filter_run(prog, plen, rec, 16 + n) == cases[i].want,
		      "'%s' on buf \"%s\" gives %d", cases[i].expr, cases[i].text, cases[i].want);
		free(prog);
	}
	utrace_event_format_free(f);
}

/* FIELD.function's functions: alpha [0x1000, 0x1040), beta [0x2000,
 * 0x2010), by name or by an address they hold. */
static int fake_funcs(void *arg, const char *name, uint64_t addr, uint64_t *start, uint64_t *end)
{
	static const struct {
		const char *name;
		uint64_t start, end;
	} f[] = {{"alpha", 0x1000, 0x1040}, {"beta", 0x2000, 0x2010}};

	(void)arg;
	for (size_t i = 0; i < 2; i++)
		if (name ? !strcmp(name, f[i].name) : addr >= f[i].start && addr < f[i].end) {
			*start = f[i].start;
			*end = f[i].end;
			return 0;
		}
	return -ENOENT;
}

/* expr with .function on a record whose len is addr: want keep (1) or
 * drop (0) */
static void eval_func(const char *expr, uint64_t addr, int want)
{
	struct vals v = base;
	struct utrace_error err = {0};
	uint8_t buf[REC_SIZE + 256];
	uint32_t rlen, plen = 0;
	void *prog = NULL;

	v.len = addr;
	rlen = build(buf, &v);
	if (utrace_filter_compile_func(&fmt, expr, fake_funcs, NULL, &prog, &plen, NULL, &err) < 0 ||
	    !prog || utrace_filter_check(prog, plen) < 0) {
		check(0, "compile '%s': %s", expr, err.msg);
		free(prog);
		return;
	}
	check(utrace_filter_run(prog, plen, buf, rlen) == want, "'%s' with len 0x%llx %s", expr,
	      (unsigned long long)addr, want ? "keeps" : "drops");
	free(prog);
}

/* .function's errors: the kernel's texts and columns */
static void func_error(const char *expr, int code, int column)
{
	struct utrace_error err = {0};
	void *prog = NULL;
	uint32_t plen;
	int got = -1;

	check(utrace_filter_compile_func(&fmt, expr, fake_funcs, NULL, &prog, &plen, &got, &err) ==
		      -EINVAL &&
		  got == code && err.column == column,
	      "'%s': %s at column %d (got '%s')", expr, utrace_filter_error_text(code), column,
	      err.msg);
	free(prog);
}

static void test_function(void)
{
	struct utrace_error err = {0};
	void *prog = NULL;
	uint32_t plen;

	eval_func("len.function == alpha", 0x1000, 1);
	eval_func("len.function == alpha", 0x103f, 1);
	eval_func("len.function == alpha", 0x1040, 0);
	eval_func("len.function == alpha", 0xfff, 0);
	eval_func("len.function != alpha", 0x1010, 0);
	eval_func("len.function != alpha", 0x2000, 1);
	eval_func("len.function == 0x2008", 0x2000, 1); /* beta, by an address it holds */
	eval_func("len.function == 0x2008", 0x1000, 0);
	eval_func("count == 7 && len.function == beta", 0x200f, 1);
	/* a name ends at a blank, as the kernel's */
	eval_func("!(len.function == beta ) || count == 8", 0x200f, 0);
	func_error("count.function == alpha", UTRACE_FILTER_ERR_ILLEGAL_FIELD_OP, 19);
	func_error("len.function < alpha", UTRACE_FILTER_ERR_INVALID_OP, 16);
	func_error("len.function == gamma", UTRACE_FILTER_ERR_NO_FUNCTION, 22);
	func_error("len.function == 0x9000", UTRACE_FILTER_ERR_NO_FUNCTION, 23);
	check(utrace_filter_compile(&fmt, "len.function == alpha", &prog, &plen, &err) == -EINVAL &&
		  !prog,
	      "without functions to look in: Function not found");
}

int main(void)
{
	test_integers();
	test_function();
	test_logic();
	test_strings();
	test_loc_without_nul();
	test_glob_cases();
	test_errors();
	test_too_many_preds();
	test_no_filter();
	test_disasm();
	test_malformed();
	test_truncated();
	test_glob_bounds();
	test_print_buf();
	test_fuzz();
	return check_done();
}
