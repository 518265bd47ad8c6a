/* SPDX-License-Identifier: MIT */
/*
 * live_options.c - trace_options and options/NAME: the options of the
 * trace's printing (the kernel's names: funcgraph-proc, print-parent, ...,
 * those `utrace report -O` knows, ops->option_names).
 *
 * The options are a word that only ops->set_option understands; an
 * option is on when setting it changes nothing.  trace_options lists
 * every option, "noNAME" when off; a write of NAME or noNAME sets or
 * clears it (another name: EINVAL).  options/NAME reads 1 or 0 and takes
 * 1 or 0.  The caller holds l->lock.
 *
 * The kernel's other options are listed too, each at the one value that
 * says what utrace does (stacktrace 0: no stack after every event;
 * markers 1: trace_marker writes ...); setting one to its value is taken,
 * to the other EOPNOTSUPP.  event-fork and function-fork (off at first, as
 * the kernel's) make a process forked by a thread of the event (function)
 * pid lists join them: ops->follow_fork, the recording adds it
 * (live_pids.c).  dump-on-crash (utrace's: the kernel's
 * ftrace_dump_on_oops is a sysctl, not an option) says whether a crash
 * signal of the program dumps its last calls: ops->dump_on_crash.
 * funcgraph-retval is the recording's (the kernel's function_graph
 * always saves the return value and the option only prints it; here the
 * runtime writes it only when asked, record -O funcgraph-retval): setting
 * it makes every process's exits carry rax from then on,
 * ops->graph_retval; funcgraph-retval-hex is the printing's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefs/live_internal.h"

/* The kernel's options whose value utrace does not change: name, value */
static const struct {
	const char *name;
	bool on;
} fixed[] = {
    {"sym-offset", false},     {"sym-addr", false},	  {"verbose", false},
    {"raw", false},	       {"hex", false},		  {"bin", false},
    {"block", false},	       {"fields", false},	  {"context-info", true},
    {"latency-format", false}, {"record-cmd", true},	  {"record-tgid", false},
    {"irq-info", true},	       {"markers", true},	  {"display-graph", false},
    {"stacktrace", false},     {"userstacktrace", false},
};
#define NFIXED (sizeof(fixed) / sizeof(fixed[0]))

/* The options of the pid lists: name, UTRACE_LIVE_FOLLOW_* */
static const struct {
	const char *name;
	unsigned bit;
} follow[] = {{"event-fork", UTRACE_LIVE_FOLLOW_EVENT},
	      {"function-fork", UTRACE_LIVE_FOLLOW_FUNCTION}};
#define NFOLLOW (sizeof(follow) / sizeof(follow[0]))

#define DUMP_ON_CRASH "dump-on-crash" /* ops->dump_on_crash's option */
#define GRAPH_RETVAL "funcgraph-retval" /* ops->graph_retval's option */

/* follow[]'s bit of name, 0 if none */
static unsigned follow_bit(const char *name)
{
	for (size_t i = 0; i < NFOLLOW; i++)
		if (!strcmp(follow[i].name, name))
			return follow[i].bit;
	return 0;
}

/* fixed[]'s entry of name, -1 if none */
static int fixed_find(const char *name)
{
	for (size_t i = 0; i < NFIXED; i++)
		if (!strcmp(fixed[i].name, name))
			return (int)i;
	return -1;
}

/* Each option name in turn, through fn; stops when fn returns true. */
static bool each_option(struct utrace_live *l, bool (*fn)(void *arg, const char *name), void *arg)
{
	const char *s = l->ops.option_names;
	char name[65];

	for (size_t i = 0; i < NFIXED; i++)
		if (fn(arg, fixed[i].name))
			return true;
	for (size_t i = 0; i < NFOLLOW && l->ops.follow_fork; i++)
		if (fn(arg, follow[i].name))
			return true;
	if (l->ops.dump_on_crash && fn(arg, DUMP_ON_CRASH))
		return true;
	if (l->ops.graph_retval && fn(arg, GRAPH_RETVAL))
		return true;

	while (s && *s) {
		size_t n = strcspn(s, " ");

		if (n && n < sizeof(name)) {
			memcpy(name, s, n);
			name[n] = 0;
			if (fn(arg, name))
				return true;
		}
		s += n + (s[n] == ' ');
	}
	return false;
}

static bool same_name(void *arg, const char *name)
{
	return !strcmp(arg, name);
}

bool live_option_known(struct utrace_live *l, const char *name)
{
	return each_option(l, same_name, (void *)name);
}

static bool option_on(struct utrace_live *l, const char *name)
{
	uint32_t w = l->options;

	if (fixed_find(name) >= 0)
		return fixed[fixed_find(name)].on;
	if (follow_bit(name))
		return l->follow & follow_bit(name);
	if (!strcmp(name, DUMP_ON_CRASH))
		return l->dump_on_crash;
	if (!strcmp(name, GRAPH_RETVAL))
		return l->graph_retval;
	return l->ops.set_option(l->ops.arg, name, &w) == 0 && w == l->options;
}

struct fill_arg {
	void (*fill)(void *arg, const char *name);
	void *arg;
};

static bool fill_one(void *arg, const char *name)
{
	struct fill_arg *f = arg;

	f->fill(f->arg, name);
	return false;
}

void live_option_names(struct utrace_live *l, void (*fill)(void *arg, const char *name), void *arg)
{
	struct fill_arg f = {fill, arg};

	each_option(l, fill_one, &f);
}

struct show_arg {
	struct utrace_live *l;
	FILE *out;
};

static bool show_one(void *arg, const char *name)
{
	struct show_arg *s = arg;

	fprintf(s->out, "%s%s\n", option_on(s->l, name) ? "" : "no", name);
	return false;
}

int live_show_options(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct show_arg s = {l, out};

	each_option(l, show_one, &s);
	return 0;
}

/* NAME or noNAME of a known option, applied. */
static int option_set(struct utrace_live *l, const char *name)
{
	const char *base = strncmp(name, "no", 2) || live_option_known(l, name) ? name : name + 2;
	uint32_t w = l->options;
	int k = fixed_find(base);

	if (k >= 0) /* only its value */
		return fixed[k].on == (base == name) ? 0 : -EOPNOTSUPP;
	if (follow_bit(base) && l->ops.follow_fork) {
		l->follow = base == name ? l->follow | follow_bit(base) : l->follow & ~follow_bit(base);
		l->ops.follow_fork(l->ops.arg, l->follow);
		return 0;
	}
	if (!strcmp(base, DUMP_ON_CRASH) && l->ops.dump_on_crash) {
		l->dump_on_crash = base == name;
		l->ops.dump_on_crash(l->ops.arg, l->dump_on_crash);
		return 0;
	}
	if (!strcmp(base, GRAPH_RETVAL) && l->ops.graph_retval) {
		struct utrace_error err = {0};
		int ret = l->ops.graph_retval(l->ops.arg, base == name, &err);

		if (ret < 0)
			return ret;
		l->graph_retval = base == name;
		return 0;
	}
	if (!live_option_known(l, base) || l->ops.set_option(l->ops.arg, name, &w) < 0)
		return -EINVAL;
	l->options = w;
	return 0;
}

long live_write_options(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	char *s = strndup(buf, n), *save = NULL, *tok;
	int ret = -EINVAL;

	if (!s)
		return -ENOMEM;
	/* the kernel takes one option per write */
	if ((tok = strtok_r(s, " \t\n", &save)) && !strtok_r(NULL, " \t\n", &save))
		ret = option_set(l, tok);
	free(s);
	return ret < 0 ? ret : (long)n;
}

int live_show_option(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	fprintf(out, "%d\n", option_on(l, h->ev) ? 1 : 0);
	return 0;
}

long live_write_option(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	char name[68];
	size_t len = n;
	int ret;

	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	if (len != 1 || (buf[0] != '0' && buf[0] != '1'))
		return -EINVAL;
	snprintf(name, sizeof(name), "%s%s", buf[0] == '1' ? "" : "no", h->ev);
	ret = option_set(l, name);
	return ret < 0 ? ret : (long)n;
}
