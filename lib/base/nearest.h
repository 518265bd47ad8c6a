/* SPDX-License-Identifier: MIT */
/*
 * nearest.h - the name nearest to a mistyped one, for "did you mean"
 * hints (git's help.autocorrect, perf's unknown-subcommand hint).
 *
 * The distance is Damerau-Levenshtein's restricted form (optimal string
 * alignment): insertions, deletions, substitutions and swaps of two
 * neighbouring characters cost 1 each, so "reocrd" is 1 from "record".
 */
#ifndef UTRACE_LIB_NEAREST_H
#define UTRACE_LIB_NEAREST_H

#include <stddef.h>

/* The edit distance of a and b; names longer than 63 bytes count as far
 * (SIZE_MAX): nobody mistypes those. */
size_t utrace_edit_distance(const char *a, const char *b);

/* The one of n candidates nearest to word, if its distance is at most
 * max_dist and no other candidate is as near; else NULL. */
const char *utrace_nearest(const char *word, const char *const *cands, size_t n,
			   size_t max_dist);

#endif
