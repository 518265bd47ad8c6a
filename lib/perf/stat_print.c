/* SPDX-License-Identifier: MIT */
/*
 * stat_print.c - perf stat's report: the counts averaged over the runs,
 * their spread, the derived metrics and perf's exact text layout.
 *
 * Design.  Every run adds one value per counter (raw count, already scaled
 * for multiplexing) to a running mean/variance (Welford), and its wall
 * time to another.  The report prints the means; with more than one run
 * the spread is the standard deviation of the mean relative to the mean,
 * "( +-  1.23% )", exactly what perf's util/stat.c computes.
 *
 * The layout is perf 6.x's tools/perf/util/stat-display.c for the default
 * (global, non-CSV) mode, field by field:
 *
 *	"%'18.2f " / "%'18.0f "	value (2 decimals if the scale has a
 *				fraction: msec of a clock; thousands grouped
 *				in a locale that groups), then "%-*s " the unit
 *				in the width of the longest unit (4 or more),
 *				then "%-32s" the event name
 *	" # %8.3f %-23s"	the metric, 35 columns (METRIC_LEN), or 35
 *				blanks when there is none
 *	"  ( +-%6.2f%% )"	the spread, with -r, when not 0
 *	"  (%.2f%%)"		running/enabled, when multiplexed
 *
 * A counter that did not count prints "%18s " <not supported> or
 * <not counted>, the unit, "%-25s" the name and 35 blanks.  The metrics are
 * perf's stat-shadow.c ones for the events utrace knows: a clock gives
 * "CPUs utilized" (its time over the wall time), cycles "GHz" and
 * instructions "insn per cycle" (both need the other counter), the misses
 * their share "of all ..." accesses, and any other event its rate per
 * second of task time ("K/sec") when a clock was counted.  The header and
 * the footer (elapsed, user and sys seconds; "avg +- stddev" with -r, at
 * two more decimals than the stddev's first significant digit) are perf's
 * as well.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "lib/base/grow.h"
#include "lib/perf/stat_print.h"

#define METRIC_LEN 35

/* What a counter contributes to the metrics (perf's shadow stats). */
enum role {
	R_OTHER,
	R_CLOCK,
	R_CYCLES,
	R_INSTRUCTIONS,
	R_BRANCHES,
	R_BRANCH_MISSES,
	R_CACHE_REFS,
	R_CACHE_MISSES,
	R_STALLED_FE,
	R_STALLED_BE,
	R_L1D,
	R_L1D_MISS,
	R_L1I,
	R_L1I_MISS,
	R_LL,
	R_LL_MISS,
	R_DTLB,
	R_DTLB_MISS,
	R_ITLB,
	R_ITLB_MISS,
};

struct stat_counter {
	char *name, *unit;
	double scale;
	enum role role;
	struct utrace_stat_acc val; /* over the runs it counted in */
	uint64_t enabled, running;  /* summed over the runs */
	bool unsupported;
};

struct utrace_stat_table {
	struct stat_counter *c;
	int nr, cap;
	unsigned runs;
	struct utrace_stat_acc wall; /* ns */
	double user_s, sys_s;	     /* of the last run */
};

void utrace_stat_acc_add(struct utrace_stat_acc *a, double v)
{
	double delta;

	a->n++;
	delta = v - a->mean;
	a->mean += delta / (double)a->n;
	a->m2 += delta * (v - a->mean);
}

double utrace_stat_acc_mean(const struct utrace_stat_acc *a)
{
	return a->mean;
}

double utrace_stat_acc_stddev(const struct utrace_stat_acc *a)
{
	double variance;

	if (a->n < 2)
		return 0.0;
	variance = a->m2 / (double)(a->n - 1);
	return sqrt(variance / (double)a->n);
}

double utrace_stat_rel_pct(double stddev, double mean)
{
	return mean ? 100.0 * stddev / mean : 0.0;
}

int utrace_stat_time_precision(double stddev)
{
	if (!(stddev > 0))
		return 9;
	if (stddev > 1)
		return 2;
	return (int)lround(ceil(-log10(stddev))) + 2;
}

static enum role role_of(uint32_t type, uint64_t config)
{
	if (type == PERF_TYPE_SOFTWARE)
		return config == PERF_COUNT_SW_TASK_CLOCK || config == PERF_COUNT_SW_CPU_CLOCK
			   ? R_CLOCK
			   : R_OTHER;
	if (type == PERF_TYPE_HARDWARE) {
		switch (config & 0xffffffffu) {
		case PERF_COUNT_HW_CPU_CYCLES:
			return R_CYCLES;
		case PERF_COUNT_HW_INSTRUCTIONS:
			return R_INSTRUCTIONS;
		case PERF_COUNT_HW_BRANCH_INSTRUCTIONS:
			return R_BRANCHES;
		case PERF_COUNT_HW_BRANCH_MISSES:
			return R_BRANCH_MISSES;
		case PERF_COUNT_HW_CACHE_REFERENCES:
			return R_CACHE_REFS;
		case PERF_COUNT_HW_CACHE_MISSES:
			return R_CACHE_MISSES;
		case PERF_COUNT_HW_STALLED_CYCLES_FRONTEND:
			return R_STALLED_FE;
		case PERF_COUNT_HW_STALLED_CYCLES_BACKEND:
			return R_STALLED_BE;
		default:
			return R_OTHER;
		}
	}
	if (type == PERF_TYPE_HW_CACHE) {
		/* reads only, as perf: the access counter is the cache id
		 * alone (op READ = 0, result ACCESS = 0) */
		uint64_t miss = (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
		static const struct {
			uint64_t id;
			enum role access, miss;
		} caches[] = {
		    {PERF_COUNT_HW_CACHE_L1D, R_L1D, R_L1D_MISS},
		    {PERF_COUNT_HW_CACHE_L1I, R_L1I, R_L1I_MISS},
		    {PERF_COUNT_HW_CACHE_LL, R_LL, R_LL_MISS},
		    {PERF_COUNT_HW_CACHE_DTLB, R_DTLB, R_DTLB_MISS},
		    {PERF_COUNT_HW_CACHE_ITLB, R_ITLB, R_ITLB_MISS},
		};

		for (size_t i = 0; i < sizeof(caches) / sizeof(caches[0]); i++) {
			if (config == caches[i].id)
				return caches[i].access;
			if (config == (caches[i].id | miss))
				return caches[i].miss;
		}
	}
	return R_OTHER;
}

struct utrace_stat_table *utrace_stat_table_new(void)
{
	return calloc(1, sizeof(struct utrace_stat_table));
}

void utrace_stat_table_free(struct utrace_stat_table *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nr; i++) {
		free(t->c[i].name);
		free(t->c[i].unit);
	}
	free(t->c);
	free(t);
}

int utrace_stat_table_add_counter(struct utrace_stat_table *t, const char *name, const char *unit,
				  double scale, uint32_t type, uint64_t config,
				  struct utrace_error *err)
{
	struct stat_counter *c;

	if (UTRACE_GROW(t->c, t->cap, (size_t)t->nr + 1) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	c = &t->c[t->nr];
	memset(c, 0, sizeof(*c));
	c->name = strdup(name);
	c->unit = strdup(unit ? unit : "");
	if (!c->name || !c->unit) {
		free(c->name);
		free(c->unit);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	c->scale = scale;
	c->role = role_of(type, config);
	return t->nr++;
}

void utrace_stat_table_add_count(struct utrace_stat_table *t, int idx, enum utrace_stat_state st,
				 uint64_t value, uint64_t enabled, uint64_t running)
{
	struct stat_counter *c;

	if (idx < 0 || idx >= t->nr)
		return;
	c = &t->c[idx];
	c->enabled += enabled;
	c->running += running;
	if (st == UTRACE_STAT_NOT_SUPPORTED)
		c->unsupported = true;
	else if (st == UTRACE_STAT_COUNTED)
		utrace_stat_acc_add(&c->val, (double)value);
}

void utrace_stat_table_add_run(struct utrace_stat_table *t, uint64_t elapsed_ns, double user_s,
			       double sys_s)
{
	t->runs++;
	utrace_stat_acc_add(&t->wall, (double)elapsed_ns);
	t->user_s = user_s;
	t->sys_s = sys_s;
}

static bool counted(const struct stat_counter *c)
{
	return !c->unsupported && c->val.n > 0;
}

/* The mean of the first counted counter with this role, 0 if none. */
static double shadow(const struct utrace_stat_table *t, enum role r, bool *found)
{
	for (int i = 0; i < t->nr; i++) {
		if (t->c[i].role == r && counted(&t->c[i])) {
			if (found)
				*found = true;
			return t->c[i].val.mean;
		}
	}
	if (found)
		*found = false;
	return 0.0;
}

/* perf's print_metric_std(); fmt or unit NULL prints the blank column. */
static void print_metric(FILE *out, bool newline, const char *fmt, const char *unit, double val)
{
	int n;

	if (!fmt || !unit) {
		fprintf(out, "%-*s", METRIC_LEN, "");
		return;
	}
	if (newline)
		fprintf(out, "\n%49s", "");
	n = fprintf(out, " # ");
	n += fprintf(out, fmt, val);
	fprintf(out, " %-*s", METRIC_LEN - n - 1, unit);
}

static const char *miss_unit(enum role r)
{
	switch (r) {
	case R_BRANCH_MISSES:
		return "of all branches";
	case R_L1D_MISS:
		return "of all L1-dcache accesses";
	case R_L1I_MISS:
		return "of all L1-icache accesses";
	case R_LL_MISS:
		return "of all LL-cache accesses";
	case R_DTLB_MISS:
		return "of all dTLB cache accesses";
	case R_ITLB_MISS:
		return "of all iTLB cache accesses";
	default:
		return NULL;
	}
}

/* The access counter a miss counter is a share of. */
static enum role miss_base(enum role r)
{
	switch (r) {
	case R_BRANCH_MISSES:
		return R_BRANCHES;
	case R_L1D_MISS:
		return R_L1D;
	case R_L1I_MISS:
		return R_L1I;
	case R_LL_MISS:
		return R_LL;
	case R_DTLB_MISS:
		return R_DTLB;
	case R_ITLB_MISS:
		return R_ITLB;
	default:
		return R_OTHER;
	}
}

/* perf_stat__print_shadow_stats() for the events utrace knows. */
static void print_shadow(const struct utrace_stat_table *t, const struct stat_counter *c, FILE *out)
{
	double avg = c->val.mean * c->scale, total, ratio = 0.0;
	bool have;

	switch (c->role) {
	case R_CLOCK:
		total = utrace_stat_acc_mean(&t->wall);
		if (total)
			print_metric(out, false, "%8.3f", "CPUs utilized",
				     avg / (total * c->scale));
		else
			print_metric(out, false, NULL, "CPUs utilized", 0);
		return;
	case R_CYCLES:
		total = shadow(t, R_CLOCK, NULL);
		if (total)
			print_metric(out, false, "%8.3f", "GHz", avg / total);
		else
			print_metric(out, false, NULL, "GHz", 0);
		return;
	case R_INSTRUCTIONS:
		total = shadow(t, R_CYCLES, NULL);
		if (total)
			print_metric(out, false, "%7.2f ", "insn per cycle", avg / total);
		else
			print_metric(out, false, NULL, "insn per cycle", 0);
		total = fmax(shadow(t, R_STALLED_FE, NULL), shadow(t, R_STALLED_BE, NULL));
		if (total && avg)
			print_metric(out, true, "%7.2f ", "stalled cycles per insn", total / avg);
		return;
	case R_STALLED_FE:
	case R_STALLED_BE:
		total = shadow(t, R_CYCLES, NULL);
		if (total)
			ratio = avg / total * 100.0;
		print_metric(out, false, "%7.2f%%",
			     c->role == R_STALLED_FE ? "frontend cycles idle"
						     : "backend cycles idle",
			     ratio);
		return;
	case R_CACHE_MISSES:
		total = shadow(t, R_CACHE_REFS, &have);
		if (total)
			ratio = avg * 100 / total;
		print_metric(out, false, have ? "%8.3f %%" : NULL, "of all cache refs", ratio);
		return;
	case R_BRANCH_MISSES:
	case R_L1D_MISS:
	case R_L1I_MISS:
	case R_LL_MISS:
	case R_DTLB_MISS:
	case R_ITLB_MISS:
		total = shadow(t, miss_base(c->role), &have);
		if (total)
			ratio = avg / total * 100.0;
		print_metric(out, false, have ? "%7.2f%%" : NULL, miss_unit(c->role), ratio);
		return;
	default:
		break;
	}
	total = shadow(t, R_CLOCK, &have);
	if (have) {
		char unit_buf[10] = "/sec";
		char unit = ' ';

		if (total) {
			/* perf's convert_unit_double() */
			ratio = 1000000000.0 * avg / total;
			if (ratio > 1000.0) {
				ratio /= 1000.0;
				unit = 'K';
			}
			if (ratio > 1000.0) {
				ratio /= 1000.0;
				unit = 'M';
			}
			if (ratio > 1000.0) {
				ratio /= 1000.0;
				unit = 'G';
			}
		}
		if (unit != ' ')
			snprintf(unit_buf, sizeof(unit_buf), "%c/sec", unit);
		print_metric(out, false, "%8.3f", unit_buf, ratio);
		return;
	}
	print_metric(out, false, NULL, NULL, 0);
}

static void print_noise(const struct utrace_stat_table *t, const struct stat_counter *c, FILE *out)
{
	double pct;

	if (t->runs < 2)
		return;
	pct = utrace_stat_rel_pct(utrace_stat_acc_stddev(&c->val), c->val.mean);
	if (pct)
		fprintf(out, "  ( +-%6.2f%% )", pct);
}

static void print_running(const struct stat_counter *c, FILE *out)
{
	if (c->running != c->enabled)
		fprintf(out, "  (%.2f%%)", 100.0 * (double)c->running / (double)c->enabled);
}

static void print_counter(const struct utrace_stat_table *t, const struct stat_counter *c,
			  int unit_width, FILE *out)
{
	if (!counted(c)) {
		fprintf(out, "%18s ", c->unsupported ? "<not supported>" : "<not counted>");
		fprintf(out, "%-*s ", unit_width, c->unit);
		fprintf(out, "%-25s", c->name);
		print_metric(out, false, NULL, NULL, 0);
		print_noise(t, c, out);
		print_running(c, out);
		fputc('\n', out);
		return;
	}
	/* the ' flag: thousands grouped if the caller set an LC_NUMERIC that
	 * groups, perf's default --big-num */
	fprintf(out, floor(c->scale) != c->scale ? "%'18.2f " : "%'18.0f ", c->val.mean * c->scale);
	fprintf(out, "%-*s ", unit_width, c->unit);
	fprintf(out, "%-32s", c->name);
	print_shadow(t, c, out);
	print_noise(t, c, out);
	print_running(c, out);
	fputc('\n', out);
}

static void print_footer(const struct utrace_stat_table *t, FILE *out)
{
	double avg = utrace_stat_acc_mean(&t->wall) / 1e9;

	fputc('\n', out);
	if (t->runs == 1) {
		fprintf(out, " %17.9f seconds time elapsed", avg);
		fprintf(out, "\n\n");
		fprintf(out, " %17.9f seconds user\n", t->user_s);
		fprintf(out, " %17.9f seconds sys\n", t->sys_s);
	} else {
		double sd = utrace_stat_acc_stddev(&t->wall) / 1e9;
		int precision = utrace_stat_time_precision(sd);
		double pct = utrace_stat_rel_pct(sd, avg);

		fprintf(out, " %17.*f +- %.*f seconds time elapsed", precision, avg, precision, sd);
		if (pct)
			fprintf(out, "  ( +-%6.2f%% )", pct);
	}
	fprintf(out, "\n\n");
}

int utrace_stat_table_print(const struct utrace_stat_table *t, FILE *out, int argc,
			    char *const argv[], struct utrace_error *err)
{
	int unit_width = 4; /* strlen("unit"), as perf */

	if (!t->runs)
		return utrace_error_set(err, -EINVAL, "no run to report");
	for (int i = 0; i < t->nr; i++) {
		int l = (int)strlen(t->c[i].unit);

		if (l > unit_width)
			unit_width = l;
	}
	fprintf(out, "\n Performance counter stats for '");
	for (int i = 0; i < argc; i++)
		fprintf(out, "%s%s", i ? " " : "", argv[i]);
	fputc('\'', out);
	if (t->runs > 1)
		fprintf(out, " (%u runs)", t->runs);
	fprintf(out, ":\n\n");
	for (int i = 0; i < t->nr; i++)
		print_counter(t, &t->c[i], unit_width, out);
	print_footer(t, out);
	if (fflush(out) == EOF || ferror(out))
		return utrace_error_set(err, -EIO, "cannot write the report: %s", strerror(errno));
	return 0;
}
