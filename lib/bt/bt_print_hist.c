/* SPDX-License-Identifier: MIT */
/*
 * bt_print_hist.c - hist() and lhist() as bpftrace 0.17 prints them
 * (src/output.cpp: TextOutput/JsonOutput::hist_to_str, lhist_to_str).
 *
 * Only the buckets from the first to the last non-empty one are printed;
 * a bar is count / max * 52 '@' computed in float, as bpftrace does (so
 * rounding matches); labels take K/M/G/T suffixes for hist and K/M for
 * lhist when the number divides evenly.  bpftrace's json of hist bounds
 * computes `1 << n` on a 32-bit int: buckets from 2^31 up print wrapped
 * bounds there, and so they do here (byte for byte, quirks included).
 */
#include <inttypes.h>
#include <string.h>

#include "lib/bt/bt_print_internal.h"

#define BAR_WIDTH 52

/* hist_index_label: 2^power with a K/M/G/T suffix. */
static void hist_label(char *buf, size_t len, int power)
{
	static const char suffix[] = "\0KMGT";
	int s = power >= 40 ? 4 : power / 10;

	power -= s * 10;
	snprintf(buf, len, "%d%.1s", 1 << power, s ? &suffix[s] : "");
}

/* lhist_index_label: a number with K (1024) or M (1048576) if it divides. */
static void lhist_label(char *buf, size_t len, int64_t n)
{
	if (n != 0 && n % 1048576 == 0)
		snprintf(buf, len, "%" PRId64 "M", n / 1048576);
	else if (n != 0 && n % 1024 == 0)
		snprintf(buf, len, "%" PRId64 "K", n / 1024);
	else
		snprintf(buf, len, "%" PRId64, n);
}

/* First and last non-zero bucket of b[0..n); *max the largest (as int). */
static int hist_range(const uint64_t *b, size_t n, size_t *lo, size_t *hi, int *max)
{
	int found = 0;

	*max = 0;
	for (size_t i = 0; i < n; i++) {
		int v = (int)b[i];

		if (b[i] > 0) {
			if (!found)
				*lo = i;
			*hi = i;
			found = 1;
		}
		if (v > *max)
			*max = v;
	}
	return found;
}

static void bar_line(FILE *out, const char *header, uint64_t v, uint64_t shown, int max)
{
	int width = (float)v / (float)max * BAR_WIDTH;
	char bar[BAR_WIDTH + 1];

	if (width < 0)
		width = 0;
	if (width > BAR_WIDTH)
		width = BAR_WIDTH;
	memset(bar, '@', width);
	bar[width] = 0;
	fprintf(out, "%-16s%8" PRIu64 " |%-*s|\n", header, shown, BAR_WIDTH, bar);
}

void bt_hist_text(FILE *out, const uint64_t *b, uint64_t div)
{
	size_t lo = 0, hi = 0;
	int max;
	char header[64], l1[24], l2[24];

	if (!hist_range(b, UTRACE_BT_HIST_BUCKETS, &lo, &hi, &max))
		return;
	for (size_t i = lo; i <= hi; i++) {
		if (i == 0) {
			snprintf(header, sizeof(header), "(..., 0)");
		} else if (i <= 2) {
			snprintf(header, sizeof(header), "[%zu]", i - 1);
		} else {
			hist_label(l1, sizeof(l1), (int)i - 2);
			hist_label(l2, sizeof(l2), (int)i - 1);
			snprintf(header, sizeof(header), "[%s, %s)", l1, l2);
		}
		bar_line(out, header, b[i], b[i] / div, max);
	}
}

size_t bt_lhist_nbuckets(const struct utrace_bt_map *m)
{
	if (m->lhist_step <= 0 || m->lhist_max < m->lhist_min)
		return 2;
	return (size_t)((m->lhist_max - m->lhist_min) / m->lhist_step) + 2;
}

void bt_lhist_text(FILE *out, const struct utrace_bt_map *m, const uint64_t *b)
{
	size_t n = bt_lhist_nbuckets(m), lo = 0, hi = 0;
	int max;
	char header[80], l1[32], l2[32];

	if (!hist_range(b, n, &lo, &hi, &max))
		return;
	for (size_t i = lo; i <= hi; i++) {
		if (i == 0) {
			lhist_label(l1, sizeof(l1), m->lhist_min);
			snprintf(header, sizeof(header), "(..., %s)", l1);
		} else if (i == n - 1) {
			lhist_label(l1, sizeof(l1), m->lhist_max);
			snprintf(header, sizeof(header), "[%s, ...)", l1);
		} else {
			lhist_label(l1, sizeof(l1), (int64_t)(i - 1) * m->lhist_step + m->lhist_min);
			lhist_label(l2, sizeof(l2), (int64_t)i * m->lhist_step + m->lhist_min);
			snprintf(header, sizeof(header), "[%s, %s)", l1, l2);
		}
		bar_line(out, header, b[i], b[i], max);
	}
}

void bt_hist_json(FILE *out, const uint64_t *b, uint64_t div)
{
	size_t lo = 0, hi = 0;
	int max;

	if (!hist_range(b, UTRACE_BT_HIST_BUCKETS, &lo, &hi, &max)) {
		fputs("[]", out);
		return;
	}
	fputc('[', out);
	for (size_t i = lo; i <= hi; i++) {
		fputs(i > lo ? ", {" : "{", out);
		if (i == 0) {
			fputs("\"max\": -1, ", out);
		} else if (i <= 2) {
			fprintf(out, "\"min\": %zu, \"max\": %zu, ", i - 1, i - 1);
		} else {
			/* `long low = 1 << (i-2)`: an int shift, as bpftrace */
			long low = (int32_t)(1u << ((i - 2) & 31));
			long high = (int32_t)((1u << ((i - 1) & 31)) - 1u);

			fprintf(out, "\"min\": %ld, \"max\": %ld, ", low, high);
		}
		fprintf(out, "\"count\": %" PRIu64 "}", b[i] / div);
	}
	fputc(']', out);
}

void bt_lhist_json(FILE *out, const struct utrace_bt_map *m, const uint64_t *b)
{
	size_t n = bt_lhist_nbuckets(m), lo = 0, hi = 0;
	int max;

	if (!hist_range(b, n, &lo, &hi, &max)) {
		fputs("[]", out);
		return;
	}
	fputc('[', out);
	for (size_t i = lo; i <= hi; i++) {
		fputs(i > lo ? ", {" : "{", out);
		if (i == 0)
			fprintf(out, "\"max\": %" PRId64 ", ", m->lhist_min - 1);
		else if (i == n - 1)
			fprintf(out, "\"min\": %" PRId64 ", ", m->lhist_max);
		else
			fprintf(out, "\"min\": %" PRId64 ", \"max\": %" PRId64 ", ",
				(int64_t)(i - 1) * m->lhist_step + m->lhist_min,
				(int64_t)i * m->lhist_step + m->lhist_min - 1);
		fprintf(out, "\"count\": %" PRIu64 "}", b[i]);
	}
	fputc(']', out);
}
