/* SPDX-License-Identifier: MIT */
/*
 * latency.c - the histogram of `utrace latency`, in perf ftrace latency's
 * layout (latency.h).  The formats below are perf's, character for
 * character: its users read (and parse) that layout.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/latency.h"

/* perf's bar: 46 columns "to fit in 80 column" */
#define BAR_TOTAL 46
static const char bar[] = "###############################################";

int utrace_latency_init(struct utrace_latency *h, const struct utrace_latency_opts *o,
			struct utrace_error *err)
{
	memset(h, 0, sizeof(*h));
	h->o = *o;
	if (!o->bucket_range && o->min_latency)
		return utrace_error_set(err, -EINVAL,
					"--min-latency works only with --bucket-range");
	if (!o->bucket_range && o->max_latency)
		return utrace_error_set(err, -EINVAL,
					"--max-latency works only with --bucket-range");
	if (o->bucket_range && !o->min_latency)
		h->o.min_latency = o->bucket_range; /* perf's default */
	/* at least one bucket between the two outlier buckets */
	if (o->bucket_range && o->max_latency &&
	    (uint64_t)o->max_latency < (uint64_t)h->o.min_latency + o->bucket_range)
		return utrace_error_set(err, -EINVAL,
					"--max-latency must be larger than min-latency + "
					"bucket-range");
	h->nbuckets = UTRACE_LATENCY_BUCKETS;
	if (o->bucket_range && o->max_latency)
		h->nbuckets = (o->max_latency - h->o.min_latency) / o->bucket_range + 2;
	else if (o->bucket_range)
		h->o.max_latency =
		    (UTRACE_LATENCY_BUCKETS - 2) * o->bucket_range + h->o.min_latency;
	h->buckets = calloc(h->nbuckets, sizeof(*h->buckets));
	if (!h->buckets)
		return utrace_error_set(err, -ENOMEM, "out of memory for %u buckets", h->nbuckets);
	h->min = UINT64_MAX;
	return 0;
}

void utrace_latency_free(struct utrace_latency *h)
{
	free(h->buckets);
	h->buckets = NULL;
}

/* The bucket of a duration of num units (fractions of a unit kept, as
 * perf has them from the trace's "12.345 us"). */
static unsigned latency_bucket(const struct utrace_latency *h, double num)
{
	const struct utrace_latency_opts *o = &h->o;
	uint64_t i = 0;

	if (!o->bucket_range) {
		/* the label's [2^(i-1), 2^i): the bit length of the whole units */
		for (uint64_t v = (uint64_t)num; v; v >>= 1)
			i++;
	} else if (num >= o->min_latency) {
		num -= o->min_latency;
		if (num > 0) /* exactly min_latency stays in the first bucket, as in perf */
			i = (uint64_t)(num / o->bucket_range) + 1;
		if (num >= (double)o->max_latency - o->min_latency)
			i = h->nbuckets - 1;
	}
	return i >= h->nbuckets ? h->nbuckets - 1 : (unsigned)i;
}

void utrace_latency_add(struct utrace_latency *h, uint64_t ns)
{
	double num = h->o.use_nsec ? (double)ns : ns / 1000.0;
	/* perf's update_stats() takes a u64: whole units */
	uint64_t val = (uint64_t)num;
	double delta;

	h->buckets[latency_bucket(h, num)]++;
	h->n++;
	delta = (double)val - h->mean;
	h->mean += delta / h->n;
	if (val > h->max)
		h->max = val;
	if (val < h->min)
		h->min = val;
}

int utrace_latency_add_dat(struct utrace_latency *h, struct utrace_dat *d, uint64_t *lost,
			   struct utrace_error *err)
{
	struct utrace_dat_iter *it;
	struct utrace_event ev;
	int ret;

	if (lost)
		*lost = 0;
	if (utrace_dat_iter_open(d, &it, err) < 0)
		return -1;
	while ((ret = utrace_dat_iter_next(it, &ev, err)) > 0) {
		if (ev.kind == UTRACE_EV_LOST && lost)
			*lost += ev.lost ? ev.lost : 1;
		/* a return whose entry was lost has no duration to count */
		if (ev.kind == UTRACE_EV_LEAF ||
		    (ev.kind == UTRACE_EV_EXIT && !(ev.flags & UTRACE_EVF_NO_DURATION)))
			utrace_latency_add(h, ev.duration);
	}
	utrace_dat_iter_close(it);
	return ret < 0 ? -1 : 0;
}

static void latency_bar(FILE *f, const struct utrace_latency *h, unsigned i, uint64_t total)
{
	int len = (int)(h->buckets[i] * BAR_TOTAL / total);

	fprintf(f, " | %10" PRIu64 " | %.*s%*s |\n", h->buckets[i], len, bar, BAR_TOTAL - len, "");
}

/* The label of middle bucket i; false past max_latency (range mode). */
static bool latency_label(FILE *f, const struct utrace_latency *h, unsigned i)
{
	const struct utrace_latency_opts *o = &h->o;
	const char *unit = o->use_nsec ? "ns" : "us";
	unsigned start, stop;

	if (!o->bucket_range) {
		start = 1u << (i - 1);
		stop = 1u << i;
		if (start >= 1024) { /* perf divides by 1024 and calls it the next unit */
			start >>= 10;
			stop >>= 10;
			unit = o->use_nsec ? "us" : "ms";
		}
	} else {
		start = (i - 1) * o->bucket_range + o->min_latency;
		stop = i * o->bucket_range + o->min_latency;
		if (start >= o->max_latency)
			return false;
		if (stop > o->max_latency)
			stop = o->max_latency;
		if (start >= 1000) {
			fprintf(f, "  %4.2f - %-4.2f %s", start / 1000.0, stop / 1000.0,
				o->use_nsec ? "us" : "ms");
			return true;
		}
	}
	fprintf(f, "  %4d - %4d %s", start, stop, unit);
	return true;
}

static void latency_last_label(FILE *f, const struct utrace_latency *h)
{
	const struct utrace_latency_opts *o = &h->o;
	unsigned upper;

	if (!o->bucket_range) {
		fprintf(f, "  %4d - %-4s %s", 1, "...", o->use_nsec ? "ms" : "s ");
		return;
	}
	upper = (h->nbuckets - 2) * o->bucket_range + o->min_latency;
	if (upper > o->max_latency)
		upper = o->max_latency;
	if (upper >= 1000)
		fprintf(f, "  %4.2f - %-4s %s", upper / 1000.0, "...", o->use_nsec ? "us" : "ms");
	else
		fprintf(f, "  %4d - %4s %s", upper, "...", o->use_nsec ? "ns" : "us");
}

void utrace_latency_print(const struct utrace_latency *h, FILE *f)
{
	const struct utrace_latency_opts *o = &h->o;
	unsigned last = h->nbuckets - 1;
	uint64_t total = 0;

	for (unsigned i = 0; i < h->nbuckets; i++)
		total += h->buckets[i];
	if (!total) {
		fprintf(f, "No data found\n");
		return;
	}
	fprintf(f, "# %14s | %10s | %-*s |\n", "  DURATION    ", "COUNT", BAR_TOTAL, "GRAPH");
	if (!o->hide_empty || h->buckets[0]) {
		fprintf(f, "  %4d - %4d %s", 0, o->min_latency ? (int)o->min_latency : 1,
			o->use_nsec ? "ns" : "us");
		latency_bar(f, h, 0, total);
	}
	for (unsigned i = 1; i < last; i++) {
		if (o->hide_empty && !h->buckets[i])
			continue;
		if (!latency_label(f, h, i))
			break;
		latency_bar(f, h, i, total);
	}
	if (!o->hide_empty || h->buckets[last]) {
		latency_last_label(f, h);
		latency_bar(f, h, last, total);
	}
	fprintf(f, "\n# statistics  (in %s)\n", o->use_nsec ? "nsec" : "usec");
	fprintf(f, "  total time: %20.0f\n", h->mean * h->n);
	fprintf(f, "    avg time: %20.0f\n", h->mean);
	fprintf(f, "    max time: %20" PRIu64 "\n", h->max);
	fprintf(f, "    min time: %20" PRIu64 "\n", h->min);
	fprintf(f, "       count: %20.0f\n", h->n);
}
