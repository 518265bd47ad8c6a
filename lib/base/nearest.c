/* SPDX-License-Identifier: MIT */
/*
 * nearest.c - edit distance and the nearest name (nearest.h).  Names are
 * short (commands, options, events), so the whole matrix lives on the
 * stack.
 */
#include <stdint.h>
#include <string.h>

#include "lib/base/nearest.h"

#define NEAREST_MAX 64

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

size_t utrace_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[NEAREST_MAX][NEAREST_MAX];

	if (la >= NEAREST_MAX || lb >= NEAREST_MAX)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, sub);
			/* two neighbours swapped: "reocrd" */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[la][lb];
}

const char *utrace_nearest(const char *word, const char *const *cands, size_t n,
			   size_t max_dist)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	int ties = 0;

	for (size_t i = 0; i < n; i++) {
		size_t d = utrace_edit_distance(word, cands[i]);

		if (d < best_d) {
			best = cands[i];
			best_d = d;
			ties = 0;
		} else if (d == best_d) {
			ties++;
		}
	}
	return best && best_d <= max_dist && !ties ? best : NULL;
}
