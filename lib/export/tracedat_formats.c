/* SPDX-License-Identifier: MIT */
/*
 * tracedat_formats.c - the header of a trace-cmd trace.dat, version 6:
 * everything before the ring-buffer pages (lib/export/tracedat.h).
 *
 * Design: the header is built in memory, in file order, as
 * trace-cmd.dat.v6(5) lays it out.  The texts are the kernel's (x86-64,
 * 64-bit long): events/header_page, whose field sizes tell the reader the
 * long size and the page layout, events/header_event, and the formats of
 * the ftrace events function, print, funcgraph_entry and funcgraph_exit,
 * whose field offsets the reader takes from the text, and the formats the
 * recording saved for its other events, grouped by system.  trace-cmd
 * prints function, funcgraph_entry and funcgraph_exit with built-in
 * handlers (function_graph's "func() {", "func();" and "}"), so their
 * print fmt lines only serve other readers; every other event is printed
 * from its print fmt by libtraceevent, as the kernel's are.
 * The flyrecord offsets depend on the header's own size, which is known
 * once the variable parts are in: so they are appended last, and the
 * whole is padded to a page.  All numbers are in host byte order, which
 * the endianness byte announces.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/events/ftrace_formats.h"
#include "lib/export/tracedat.h"

#define COMMON_FIELDS UTRACE_FTRACE_COMMON_FIELDS

static const char header_page[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
				  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
				  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
				  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

/*
 * The ftrace events' formats, in trace-cmd's order.  function and
 * function_graph's are those of the kernel before 6.x gave them args[]
 * and an unsigned depth (lib/events/ftrace_formats.c has today's): the
 * files converted so far say these, and trace-cmd reads both.  An entry
 * that is a bare name is the kernel's current text of that event.
 */
static const char *const ftrace_formats[] = {
    "name: function\n"
    "ID: 1\n"
    "format:\n" COMMON_FIELDS "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\n"
    "print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n",

    "kernel_stack", /* these two: as the kernel prints them now */
    "print",

    "name: funcgraph_exit\n"
    "ID: 10\n"
    "format:\n" COMMON_FIELDS "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n"
    "\n"
    "print fmt: \"<-- %ps (%d) (start: %llx  end: %llx) over: %d\", (void *)REC->func, "
    "REC->depth, REC->calltime, REC->rettime, REC->depth\n",

    "name: funcgraph_entry\n"
    "ID: 11\n"
    "format:\n" COMMON_FIELDS "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"--> %ps (%d)\", (void *)REC->func, REC->depth\n",
};

/* trace-cmd's option ids */
enum {
	OPT_DONE = 0,
	OPT_TRACECLOCK = 4,
	OPT_CPUCOUNT = 8,
};

/* A growing buffer that remembers running out of memory. */
struct obuf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void put(struct obuf *b, const void *data, size_t len)
{
	if (b->oom)
		return;
	if (UTRACE_GROW(b->p, b->cap, b->len + len) < 0) {
		b->oom = true;
		return;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void put_u16(struct obuf *b, uint16_t v)
{
	put(b, &v, sizeof(v));
}

static void put_u32(struct obuf *b, uint32_t v)
{
	put(b, &v, sizeof(v));
}

static void put_u64(struct obuf *b, uint64_t v)
{
	put(b, &v, sizeof(v));
}

static void put_str0(struct obuf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

static void __attribute__((format(printf, 2, 3))) put_fmt(struct obuf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		put(b, small, (size_t)n);
		return;
	}
	{
		char *big = malloc((size_t)n + 1);

		if (!big) {
			b->oom = true;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		put(b, big, (size_t)n);
		free(big);
	}
}

/*
 * /proc/kallsyms lines: "%016llx T name\n"; a name has no blank.
 * libtraceevent names an address after the closest symbol below it only
 * if there is a symbol above it: the list ends with a marker.
 */
static void put_kallsyms(struct obuf *b, const struct utrace_tracedat_layout *l)
{
	struct obuf t = {0};

	for (size_t i = 0; i < l->nr_syms; i++)
		put_fmt(&t, "%016llx T %s\n", (unsigned long long)l->syms[i].addr, l->syms[i].name);
	put_fmt(&t, "%016llx T _etext\n", (unsigned long long)l->end);
	if (t.oom || t.len > UINT32_MAX) {
		b->oom = true;
		free(t.p);
		return;
	}
	put_u32(b, (uint32_t)t.len);
	put(b, t.p, t.len);
	free(t.p);
}

/* The other event systems: u32 count, then per system its name, u32
 * count and the formats (u64 size + text), each system once, in the order
 * of its first format. */
static void put_systems(struct obuf *b, const struct utrace_tracedat_layout *l)
{
	uint32_t nr_systems = 0;

	for (size_t i = 0; i < l->nr_formats; i++) {
		size_t j = 0;

		while (j < i && strcmp(l->formats[j].system, l->formats[i].system))
			j++;
		nr_systems += j == i;
	}
	put_u32(b, nr_systems);
	for (size_t i = 0; i < l->nr_formats; i++) {
		const char *sys = l->formats[i].system;
		uint32_t n = 0;
		size_t j = 0;

		while (j < i && strcmp(l->formats[j].system, sys))
			j++;
		if (j < i)
			continue; /* written with its system's first format */
		for (j = i; j < l->nr_formats; j++)
			n += !strcmp(l->formats[j].system, sys);
		put_str0(b, sys);
		put_u32(b, n);
		for (j = i; j < l->nr_formats; j++) {
			if (strcmp(l->formats[j].system, sys))
				continue;
			put_u64(b, strlen(l->formats[j].text));
			put(b, l->formats[j].text, strlen(l->formats[j].text));
		}
	}
}

/* saved_cmdlines: "%d %s\n" */
static void put_cmdlines(struct obuf *b, const struct utrace_tracedat_layout *l)
{
	struct obuf t = {0};

	for (size_t i = 0; i < l->nr_tasks; i++)
		put_fmt(&t, "%d %s\n", l->tasks[i].pid, l->tasks[i].comm);
	if (t.oom) {
		b->oom = true;
		free(t.p);
		return;
	}
	put_u64(b, t.len);
	put(b, t.p, t.len);
	free(t.p);
}

int utrace_tracedat_header(const struct utrace_tracedat_layout *l, char **out, size_t *len,
			   struct utrace_error *err)
{
	static const char magic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
	const size_t page = UTRACE_TRACEDAT_PAGE_SIZE;
	struct obuf b = {0};
	char clock[64];
	size_t end;
	uint64_t off;

	*out = NULL;
	*len = 0;
	snprintf(clock, sizeof(clock), "[%s]", l->clock);

	put(&b, magic, sizeof(magic));
	put_str0(&b, "6");
	put(&b, &(uint8_t){__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__}, 1);
	put(&b, &(uint8_t){8}, 1); /* long size */
	put_u32(&b, page);

	put_str0(&b, "header_page");
	put_u64(&b, sizeof(header_page) - 1);
	put(&b, header_page, sizeof(header_page) - 1);
	put_str0(&b, "header_event");
	put_u64(&b, strlen(utrace_ftrace_header_event));
	put(&b, utrace_ftrace_header_event, strlen(utrace_ftrace_header_event));

	put_u32(&b, sizeof(ftrace_formats) / sizeof(ftrace_formats[0]));
	for (size_t i = 0; i < sizeof(ftrace_formats) / sizeof(ftrace_formats[0]); i++) {
		const struct utrace_ftrace_format *f = utrace_ftrace_format_find(ftrace_formats[i]);
		const char *text = f ? f->text : ftrace_formats[i];

		put_u64(&b, strlen(text));
		put(&b, text, strlen(text));
	}
	put_systems(&b, l);
	put_kallsyms(&b, l);
	put_u32(&b, 0); /* no printk formats */
	put_cmdlines(&b, l);
	put_u32(&b, l->nr_cpus);

	put(&b, "options  ", 10);
	put_u16(&b, OPT_TRACECLOCK);
	put_u32(&b, (uint32_t)strlen(clock) + 1);
	put_str0(&b, clock);
	put_u16(&b, OPT_CPUCOUNT);
	put_u32(&b, 4);
	put_u32(&b, l->nr_cpus);
	put_u16(&b, OPT_DONE);

	put(&b, "flyrecord", 10);
	/* the offsets, then the clock (written because TRACECLOCK was) */
	end = b.len + (size_t)l->nr_cpus * 16 + 8 + strlen(clock);
	off = (end + page - 1) / page * page;
	for (uint32_t c = 0; c < l->nr_cpus; c++) {
		put_u64(&b, off);
		put_u64(&b, l->cpu_pages[c] * page);
		off += l->cpu_pages[c] * page;
	}
	put_u64(&b, strlen(clock));
	put(&b, clock, strlen(clock));
	while (!b.oom && b.len % page)
		put(&b, "", 1);
	if (b.oom) {
		free(b.p);
		return utrace_error_set(err, -ENOMEM, "out of memory for the trace.dat header");
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

/* ---- saved_cmdlines ---- */

struct task_at {
	struct utrace_tracedat_task t;
	unsigned buf;
};

static int task_cmp(const void *a, const void *b)
{
	const struct task_at *x = a, *y = b;

	if (x->t.pid != y->t.pid)
		return x->t.pid < y->t.pid ? -1 : 1;
	return x->buf < y->buf ? -1 : x->buf > y->buf;
}

struct utrace_tracedat_task *utrace_tracedat_tasks(struct utrace_dat *d, size_t *n)
{
	unsigned nb = utrace_dat_buffer_count(d);
	struct task_at *v = malloc((nb + 1) * sizeof(*v));
	struct utrace_tracedat_task *t = malloc((nb + 1) * sizeof(*t));
	size_t k = 0, out = 0;

	if (!v || !t) {
		free(v);
		free(t);
		return NULL;
	}
	for (unsigned i = 0; i < nb; i++) {
		const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(d, i);

		if (bi && bi->tid > 0 && bi->comm[0] && strcmp(bi->comm, "<...>"))
			v[k++] = (struct task_at){{bi->tid, bi->comm}, i};
	}
	qsort(v, k, sizeof(*v), task_cmp);
	for (size_t i = 0; i < k; i++)
		if (i + 1 == k || v[i + 1].t.pid != v[i].t.pid)
			t[out++] = v[i].t;
	free(v);
	*n = out;
	return t;
}

/* ---- Names for kallsyms ---- */

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* Length of s without a trailing parameter list (and the qualifiers after
 * it), or len if there is none. */
static size_t without_params(const char *s, size_t len)
{
	static const char *const quals[] = {" const", " volatile", " &&", " &", " noexcept"};
	bool again = true;
	int depth = 0;

	while (again) {
		again = false;
		for (size_t k = 0; k < sizeof(quals) / sizeof(quals[0]); k++) {
			if (ends_with(s, len, quals[k])) {
				len -= strlen(quals[k]);
				again = true;
			}
		}
	}
	if (len == 0 || s[len - 1] != ')')
		return len;
	for (size_t i = len; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i > 0 ? i : len;
	}
	return len;
}

/* Start of a function template's name after its return type ("void
 * ns::f<int>" -> "ns::f<int>"), or 0. */
static size_t after_return_type(const char *s, size_t len)
{
	size_t start = 0;
	int depth = 0;

	if (len == 0 || s[len - 1] != '>')
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '<' || s[i] == '(')
			depth++;
		else if ((s[i] == '>' || s[i] == ')') && depth > 0)
			depth--;
		else if (s[i] == ' ' && depth == 0)
			start = i + 1;
	}
	if (start >= 9 && !memcmp(s + start - 9, "operator ", 9))
		return 0;
	return start;
}

char *utrace_tracedat_symbol_name(const char *name)
{
	const char *clone = strstr(name, " [clone ");
	size_t len = strlen(name), start, n = 0;
	char *out = malloc(len + 1);

	if (!out)
		return NULL;
	/* gcc clones come last: "f(int) [clone .constprop.0] [clone .cold]" */
	if (clone && name[len - 1] == ']')
		len = (size_t)(clone - name);
	else
		clone = NULL;
	len = without_params(name, len);
	start = after_return_type(name, len);
	for (size_t i = start; i < len; i++) {
		char ch = name[i];

		if (ch == ' ' || ch == '\t' || ch == '\n') {
			if (n && (out[n - 1] == ',' ||
				  (out[n - 1] == '>' && i + 1 < len && name[i + 1] == '>')))
				continue;
			ch = '_';
		}
		out[n++] = ch;
	}
	while (clone && !strncmp(clone, " [clone ", 8)) {
		const char *close = strchr(clone + 8, ']');

		if (!close)
			break;
		for (const char *p = clone + 8; p < close; p++)
			out[n++] = *p == ' ' ? '_' : *p;
		clone = close + 1;
	}
	out[n] = '\0';
	return out;
}
