/* SPDX-License-Identifier: MIT */
/*
 * bt_lex.c - the tokens of a bpftrace program, with the source ranges its
 * error messages print.  As bpftrace's lexer, an attach point at the top
 * level ("uprobe:/bin/bash:readline", "interval:s:1", "BEGIN") is one
 * token: a path holds '/', '.' and '-', which inside an action are
 * operators.  It ends at a space, ',' or '{'; a '/' ends it only before
 * its first ':' (`BEGIN/pid/`), so that a predicate after a uprobe's path
 * needs the space bpftrace's examples always have.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_ast.h"

void bt_lex_init(struct bt_lexer *lx, const char *src)
{
	*lx = (struct bt_lexer){.src = src, .p = src, .line = 1, .line_start = src, .top = true};
}

static void lex_space(struct bt_lexer *lx)
{
	for (;;) {
		if (*lx->p == '\n') {
			lx->p++;
			lx->line++;
			lx->line_start = lx->p;
			lx->shift = 0;
		} else if (isspace((unsigned char)*lx->p)) {
			lx->p++;
		} else if (lx->p[0] == '/' && lx->p[1] == '/') {
			while (*lx->p && *lx->p != '\n')
				lx->p++;
		} else if (lx->p[0] == '/' && lx->p[1] == '*') {
			lx->p += 2;
			while (*lx->p && !(lx->p[0] == '*' && lx->p[1] == '/')) {
				if (*lx->p == '\n') {
					lx->line++;
					lx->line_start = lx->p + 1;
					lx->shift = 0;
				}
				lx->p++;
			}
			if (*lx->p)
				lx->p += 2;
		} else {
			return;
		}
	}
}

static int lex_string(struct bt_lexer *lx, struct bt_token *t)
{
	const char *s = lx->p + 1;
	char *out = malloc(strlen(s) + 1);
	size_t n = 0;

	if (!out)
		return -ENOMEM;
	for (; *s && *s != '"' && *s != '\n'; s++) {
		if (*s != '\\' || !s[1]) {
			out[n++] = *s;
			continue;
		}
		switch (*++s) {
		case 'n': out[n++] = '\n'; break;
		case 't': out[n++] = '\t'; break;
		case 'r': out[n++] = '\r'; break;
		case '0': out[n++] = '\0'; break;
		default: out[n++] = *s; break;
		}
	}
	out[n] = 0;
	t->kind = *s == '"' ? BT_TK_STR : BT_TK_BAD;
	t->sval = out;
	t->ival = (int64_t)n;
	lx->p = *s == '"' ? s + 1 : s;
	return 0;
}

static const char *const lex_puncts[] = {
    "<<=", ">>=", "==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=",
    "%=",  "&=",  "|=", "^=", "<<", ">>", "->", "{",  "}",  "(",  ")",  "[",  "]",  ";",
    ",",   "=",   "<",  ">",  "+",  "-",  "*",  "/",  "%",  "&",  "|",  "^",  "!",  "~",
    "?",   ":",   ".",
};

static void lex_attach(struct bt_lexer *lx, struct bt_token *t)
{
	const char *s = lx->p;
	bool colon = false;

	while (*s && !isspace((unsigned char)*s) && *s != ',' && *s != '{' &&
	       !(*s == '/' && !colon)) {
		colon |= *s == ':';
		s++;
	}
	t->kind = BT_TK_ATTACH;
	lx->p = s;
}

static void lex_word(struct bt_lexer *lx, struct bt_token *t)
{
	const char *s = lx->p;

	if (*s == '$' || *s == '@')
		s++;
	if (*lx->p == '$' && *s == '#') /* $#: the positional parameters' count */
		s++;
	while (isalnum((unsigned char)*s) || *s == '_')
		s++;
	t->kind = *lx->p == '$' ? BT_TK_VAR : *lx->p == '@' ? BT_TK_MAP : BT_TK_IDENT;
	lx->p = s;
}

static void lex_number(struct bt_lexer *lx, struct bt_token *t)
{
	char *end;
	unsigned long long v = strtoull(lx->p, &end, 0);

	/* bpftrace's 1e6 and 1_000 forms */
	while (*end == '_' && isdigit((unsigned char)end[1])) {
		const char *d = end + 1;

		while (isdigit((unsigned char)*d) || *d == '_') {
			if (*d != '_')
				v = v * 10 + (unsigned)(*d - '0');
			d++;
		}
		end = (char *)d;
	}
	if (*end == 'e' && isdigit((unsigned char)end[1])) {
		unsigned e = (unsigned)strtoul(end + 1, &end, 10);

		while (e--)
			v *= 10;
	}
	t->kind = BT_TK_INT;
	t->ival = (int64_t)v;
	lx->p = end;
}

static bool struct_word(const struct bt_token *t)
{
	static const char *const words[] = {"struct", "union", "enum"};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (t->len == strlen(words[i]) && !strncmp(t->start, words[i], t->len))
			return true;
	return false;
}

/* bpftrace's columns after a struct type: its lexer takes `struct NAME`
 * up to a '*' or ')' (a cast: that character is read again, a column
 * more) or a '{' (a definition, whose braces it takes whole). */
static void lex_struct(struct bt_lexer *lx, const char *c)
{
	if (lx->brace) {
		lx->brace += *c == '{';
		lx->brace -= *c == '}';
	} else if (lx->in_struct && (*c == '*' || *c == ')')) {
		lx->shift++;
		lx->in_struct = false;
	} else if (lx->in_struct && *c == '{') {
		lx->brace = 1;
		lx->in_struct = false;
	}
}

int bt_lex_next(struct bt_lexer *lx, struct bt_token *t)
{
	const char *c;

	lex_space(lx);
	c = lx->p;
	lex_struct(lx, c);
	*t = (struct bt_token){.start = c};
	t->loc.line = lx->line;
	t->loc.col = (unsigned)(c - lx->line_start) + 1 + lx->shift;
	if (!*c) {
		t->kind = BT_TK_EOF;
	} else if (lx->top && (isalpha((unsigned char)*c) || *c == '_' || *c == '/' || *c == '.' ||
			       *c == '*')) {
		lex_attach(lx, t);
	} else if (*c == '"') {
		if (lex_string(lx, t) < 0)
			return -ENOMEM;
	} else if (isdigit((unsigned char)*c)) {
		lex_number(lx, t);
	} else if (isalpha((unsigned char)*c) || *c == '_' || *c == '$' || *c == '@') {
		lex_word(lx, t);
	} else {
		t->kind = BT_TK_BAD;
		for (size_t i = 0; i < sizeof(lex_puncts) / sizeof(lex_puncts[0]); i++)
			if (!strncmp(c, lex_puncts[i], strlen(lex_puncts[i]))) {
				t->kind = BT_TK_PUNCT;
				lx->p += strlen(lex_puncts[i]);
				break;
			}
		if (t->kind == BT_TK_BAD && *c == '#') /* bpftrace's preprocessor lines */
			while (*lx->p && *lx->p != '\n')
				lx->p++;
		else if (t->kind == BT_TK_BAD)
			lx->p++;
	}
	t->len = (size_t)(lx->p - c);
	t->loc.end = t->loc.col + (unsigned)t->len;
	if (!lx->brace && (t->kind == BT_TK_IDENT || t->kind == BT_TK_ATTACH))
		lx->in_struct |= struct_word(t);
	return 0;
}

void bt_tok_name(const struct bt_token *t, char *buf, size_t size)
{
	static const char *const names[] = {
	    [BT_TK_EOF] = "end of file", [BT_TK_INT] = "integer",  [BT_TK_STR] = "string",
	    [BT_TK_IDENT] = "identifier", [BT_TK_VAR] = "variable", [BT_TK_MAP] = "map",
	    [BT_TK_ATTACH] = "attachpoint",
	};

	if (t->kind == BT_TK_PUNCT)
		snprintf(buf, size, "%.*s", (int)t->len, t->start);
	else if (t->kind == BT_TK_BAD && *t->start == '#')
		snprintf(buf, size, "preprocessor directive");
	else if (t->kind == BT_TK_BAD)
		snprintf(buf, size, "%.*s", (int)(t->len ? t->len : 1), t->start);
	else
		snprintf(buf, size, "%s", names[t->kind]);
}
