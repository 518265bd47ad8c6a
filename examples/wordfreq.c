/* SPDX-License-Identifier: MIT */
/*
 * wordfreq.c - the demo's traced program: counts the words of a text with a
 * small hash table, sorts them and prints the most frequent ones.  Many
 * small functions at a few depths, like real code.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utrace/utrace.h>

/* the static tracepoints of examples/demo_events.h, instantiated here */
#define CREATE_TRACE_POINTS
#include "demo_events.h"

static const char *text =
	"the quick brown fox jumps over the lazy dog the dog sleeps and the fox "
	"runs while the quick dog watches the brown fox jump over the lazy cat";

struct entry {
	char word[32];
	int count;
	struct entry *next;
};

#define NBUCKETS 64
static struct entry *table[NBUCKETS];

static unsigned hash(const char *s)
{
	unsigned h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % NBUCKETS;
}

static struct entry *lookup(const char *w)
{
	for (struct entry *e = table[hash(w)]; e; e = e->next)
		if (!strcmp(e->word, w))
			return e;
	return NULL;
}

static void add_word(const char *w)
{
	struct entry *e = lookup(w);
	unsigned h;

	if (e) {
		e->count++;
		trace_demo_word(w, e->count);
		return;
	}
	e = calloc(1, sizeof(*e));
	snprintf(e->word, sizeof(e->word), "%s", w);
	e->count = 1;
	h = hash(w);
	e->next = table[h];
	table[h] = e;
	trace_demo_insert(h, 1);
	trace_demo_word(w, 1);
}

static int tokenize(const char *s)
{
	char w[32];
	int n = 0, len = 0;

	for (;; s++) {
		if (isalpha((unsigned char)*s) && len < 31) {
			w[len++] = (char)*s;
		} else if (len) {
			w[len] = 0;
			add_word(w);
			len = 0;
			n++;
		}
		if (!*s)
			return n;
	}
}

static int by_count(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a, *y = *(const struct entry *const *)b;

	return x->count != y->count ? y->count - x->count : strcmp(x->word, y->word);
}

static int report(int top)
{
	struct entry *all[256];
	int n = 0;

	for (int i = 0; i < NBUCKETS; i++)
		for (struct entry *e = table[i]; e && n < 256; e = e->next)
			all[n++] = e;
	qsort(all, (size_t)n, sizeof(all[0]), by_count);
	for (int i = 0; i < top && i < n; i++)
		printf("%-8s %d\n", all[i]->word, all[i]->count);
	return n;
}

int main(void)
{
	int words = tokenize(text);
	int distinct;

	utrace_printf("tokenized %d words", words);
	distinct = report(3);

	printf("%d words, %d distinct\n", words, distinct);
	fflush(stdout); /* the write(2) happens here, inside main */
	return 0;
}
