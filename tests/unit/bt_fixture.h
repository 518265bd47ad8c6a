/* SPDX-License-Identifier: MIT */
/*
 * bt_fixture.h - what the bt compiler's unit tests share: a program's
 * last probe compiled as it would be for a function named "main", and
 * the code freed.  Header-only, as check.h.
 */
#ifndef UTRACE_TESTS_BT_FIXTURE_H
#define UTRACE_TESTS_BT_FIXTURE_H

#include <stdlib.h>

#include "lib/bt/bt_ast.h"
#include "lib/bt/bt_compile.h"
#include "tests/unit/check.h"

/* src parsed, checked and its last probe's first attach point compiled
 * into code: 0, or <0 with err. */
static inline int bt_fixture_compile(const char *src, struct bt_program *p, struct bt_code *code,
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

/* The same, checked to compile (a check of its own). */
static inline int bt_fixture_compile_ok(const char *src, struct bt_program *p, struct bt_code *code)
{
	struct utrace_error err = {0};
	int ret = bt_fixture_compile(src, p, code, &err);

	check(ret == 0, "compiles: %s %s", src, err.msg);
	return ret;
}

static inline void bt_fixture_code_free(struct bt_code *code)
{
	for (unsigned i = 0; i < code->nfields; i++)
		free(code->fields[i]);
	free(code->fields);
	free(code->ftypes);
	free(code->prog);
	*code = (struct bt_code){0};
}

#endif
