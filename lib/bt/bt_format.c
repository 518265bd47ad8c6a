/* SPDX-License-Identifier: MIT */
/*
 * bt_format.c - the records a program emits (common/bt_prog.h) turned
 * into bpftrace's output: printf's format with its values, print()'s
 * value, time()'s strftime.  bpftrace hands each conversion to C's
 * snprintf with the 64-bit value, so the length modifier decides what is
 * read, as on x86-64: none reads the low 32 bits (%d of 5000000000 is
 * 705032704), h and hh narrow those to a short and a char, l, ll, j, z
 * and t take all 64; %p is C's (0 is "(nil)").  Each conversion here is
 * C's with the value cast to what its modifier reads.
 * -f json wraps them as bpftrace does: {"type": "printf", "data": "..."}.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/bt/bt_check.h"
#include "lib/bt/bt_longval.h"
#include "lib/bt/bt_print_internal.h"
#include "lib/bt/bt_run_internal.h"

/* One conversion of fmt (at s, after '%') with its value, into out. */
static const char *one_conv(FILE *out, const char *s, enum bt_fmt_conv conv, const uint8_t *val,
			    const struct bt_longvals *lv)
{
	char spec[32];
	size_t n = 0;
	int64_t x = 0;

	const char *mod;
	bool wide;

	spec[n++] = '%';
	while (*s && strchr("-+ #0123456789.", *s) && n < 20)
		spec[n++] = *s++;
	for (mod = s; *s == 'l' || *s == 'h' || *s == 'z' || *s == 'j' || *s == 't';)
		s++;
	wide = s > mod && *mod != 'h';
	if (conv != BT_FMT_STR)
		memcpy(&x, val, 8);
	switch (conv) {
	case BT_FMT_BUF:
		bt_buf_print(out, (const char *)val, *s == 'r' && (s[1] == 'x' || s[1] == 'h') ? s[1] : 'r');
		return s + 1 + (*s == 'r' && (s[1] == 'x' || s[1] == 'h'));
	case BT_FMT_STR:
		spec[n++] = 's';
		spec[n] = 0;
		fprintf(out, spec, bt_longval_str(lv, (const char *)val));
		break;
	case BT_FMT_CHAR:
		spec[n++] = 'c';
		spec[n] = 0;
		fprintf(out, spec, (int)x);
		break;
	case BT_FMT_PTR:
		spec[n++] = 'p';
		spec[n] = 0;
		fprintf(out, spec, (void *)(uintptr_t)x);
		break;
	default:
		if (wide) {
			spec[n++] = 'l';
			spec[n++] = 'l';
		} else {
			for (const char *m = mod; m < s && n < 24; m++)
				spec[n++] = *m; /* h, hh: printf narrows the int */
		}
		spec[n++] = *s == 'i' ? 'd' : *s;
		spec[n] = 0;
		if (wide)
			fprintf(out, spec, (long long)x);
		else if (*s == 'd' || *s == 'i')
			fprintf(out, spec, (int)x);
		else
			fprintf(out, spec, (unsigned)x);
		break;
	}
	return *s ? s + 1 : s;
}

/* A ustack argument of printf as bpftrace formats it: a newline, then a
 * frame a line, indented 8 (perf's lines as they are). */
static void stack_arg(FILE *out, const struct bt_usym *u, const uint8_t *val)
{
	const char *const *lines;
	int64_t id;
	size_t n;

	memcpy(&id, val, 8);
	lines = u ? bt_usym_lines(u, id, &n) : NULL;
	fputc('\n', out);
	for (size_t i = 0; lines && i < n; i++)
		fprintf(out, "%s%s\n", lines[i][0] == '\t' ? "" : "        ", lines[i]);
}

/* The text of printf's record into out; stacks: which values are ustack
 * ids of u; lv: the names kept whole (bt_longval.c). */
static void printf_text(FILE *out, const char *fmt, const uint8_t *vals, const uint8_t *end,
			uint32_t stacks, const struct bt_usym *u, const struct bt_longvals *lv)
{
	enum bt_fmt_conv conv[UTRACE_BT_EMIT_MAX];
	char spec[UTRACE_BT_EMIT_MAX][8];
	int nc = bt_fmt_scan(fmt, conv, spec, UTRACE_BT_EMIT_MAX);
	int k = 0;

	for (const char *s = fmt; *s;) {
		if (*s != '%') {
			fputc(*s++, out);
			continue;
		}
		if (s[1] == '%') {
			fputc('%', out); /* bpftrace 0.17 prints %% as it is */
			fputc('%', out);
			s += 2;
			continue;
		}
		if (k >= nc)
			break;
		if (stacks >> k & 1) { /* %s of a ustack: its id */
			if (vals + 8 > end)
				break;
			stack_arg(out, u, vals);
			for (s++; *s && !strchr("diuxXocsp", *s); s++)
				;
			s += *s != 0;
			vals += 8;
			k++;
			continue;
		}
		if (vals + (conv[k] == BT_FMT_STR || conv[k] == BT_FMT_BUF ? UTRACE_BT_STRLEN : 8) >
		    end)
			break;
		s = one_conv(out, s + 1, conv[k], vals, lv);
		vals += conv[k] == BT_FMT_STR || conv[k] == BT_FMT_BUF ? UTRACE_BT_STRLEN : 8;
		k++;
	}
}

/* bpftrace's json string: its escapes (bt_json_escape), in quotes. */
static void json_string(FILE *out, const char *s, size_t len)
{
	fputc('"', out);
	bt_json_escape(out, s, len);
	fputc('"', out);
}

/* Text made by fn, written as it is or as a json line of type. */
static int emit_text(struct bt_run *r, const char *type, unsigned id, const uint8_t *vals,
		     const uint8_t *end, bool is_time)
{
	const char *fmt = r->fmts.fmts[id];
	char *buf = NULL;
	size_t len = 0;
	FILE *m = r->fmt == UTRACE_BT_JSON ? open_memstream(&buf, &len) : r->out;

	if (!m)
		return -ENOMEM;
	if (is_time) {
		char t[256];
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		if (strftime(t, sizeof(t), fmt, &tm))
			fputs(t, m);
	} else {
		printf_text(m, fmt, vals, end, r->fmts.stacks ? r->fmts.stacks[id] : 0, r->usym,
			    r->longvals);
	}
	if (m != r->out) {
		fclose(m);
		fprintf(r->out, "{\"type\": \"%s\", \"data\": ", type);
		json_string(r->out, buf, len);
		fputs("}\n", r->out);
		free(buf);
	}
	return 0;
}

/* join()'s strings (UTRACE_BT_JOIN_MAX of them) up to the first empty
 * one, delim between them: one line, or bpftrace's json "join" line. */
static int join_text(struct bt_run *r, const char *delim, const uint8_t *vals,
		     const uint8_t *end)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return -ENOMEM;
	for (unsigned i = 0; i < UTRACE_BT_JOIN_MAX; i++) {
		const char *s = (const char *)vals + i * UTRACE_BT_STRLEN;

		if (vals + (i + 1) * UTRACE_BT_STRLEN > end || !*s)
			break;
		fprintf(m, "%s%.*s", i ? delim : "", (int)UTRACE_BT_STRLEN, s);
	}
	if (fclose(m)) {
		free(buf);
		return -ENOMEM;
	}
	if (r->fmt == UTRACE_BT_JSON) {
		fputs("{\"type\": \"join\", \"data\": ", r->out);
		json_string(r->out, buf, len);
		fputs("}\n", r->out);
	} else {
		fprintf(r->out, "%s\n", buf);
	}
	free(buf);
	return 0;
}

/* cat()'s path or system()'s command: printf's text of fmt. */
static int cat_system(struct bt_run *r, bool cat, uint32_t id, const uint8_t *vals,
		      const uint8_t *end)
{
	const char *fmt = r->fmts.fmts[id];
	char *what = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&what, &len);
	int ret;

	if (!m)
		return -ENOMEM;
	printf_text(m, fmt, vals, end, r->fmts.stacks ? r->fmts.stacks[id] : 0, r->usym,
		    r->longvals);
	if (fclose(m)) {
		free(what);
		return -ENOMEM;
	}
	ret = bt_format_cat_system(r, cat, what);
	free(what);
	return ret;
}

int bt_format_record(struct bt_run *r, const void *rec, uint32_t len)
{
	struct utrace_bt_rec_hdr h;
	const uint8_t *vals = (const uint8_t *)rec + sizeof(h), *end = (const uint8_t *)rec + len;

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	switch (h.kind) {
	case UTRACE_BREC_PRINTF:
		return h.id < r->fmts.n ? emit_text(r, "printf", h.id, vals, end, false)
					: -EINVAL;
	case UTRACE_BREC_TIME:
		return h.id < r->fmts.n ? emit_text(r, "time", h.id, vals, end, true)
					: -EINVAL;
	case UTRACE_BREC_PRINT: {
		struct utrace_bt_scalar v = {.kind = UTRACE_BT_INT};

		if (h.id == 1 || h.id == 2 || h.id == 5) { /* a string, a tuple, a timestamp */
			v.kind = h.id == 2 ? UTRACE_BT_TUPLE : h.id == 5 ? UTRACE_BT_TIME : UTRACE_BT_STR;
			v.s = h.id == 2 ? bt_longval_text(r->longvals, (const char *)vals)
					: bt_longval_str(r->longvals, (const char *)vals);
		} else {
			memcpy(&v.i, vals, 8);
		}
		if (h.id == 4) /* an unsigned integer (bt_check_sign.c) */
			v.kind = UTRACE_BT_UINT;
		if (h.id == 3) { /* a ustack id */
			v.kind = UTRACE_BT_STACK;
			v.lines = r->usym ? bt_usym_lines(r->usym, v.i, &v.nlines) : NULL;
		}
		return utrace_bt_value_print(r->out, &v, r->fmt);
	}
	case UTRACE_BREC_JOIN:
		return h.id < r->fmts.n ? join_text(r, r->fmts.fmts[h.id], vals, end) : -EINVAL;
	case UTRACE_BREC_HELPER_ERR:
		return h.id < r->fmts.n ? bt_helper_err_print(r, r->fmts.fmts[h.id]) : -EINVAL;
	case UTRACE_BREC_CAT:
	case UTRACE_BREC_SYSTEM:
		return h.id < r->fmts.n ? cat_system(r, h.kind == UTRACE_BREC_CAT, h.id, vals, end)
					: -EINVAL;
	default:
		return 1; /* a command: the caller's (bt_run_command) */
	}
}
