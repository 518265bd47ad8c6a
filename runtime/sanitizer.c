/* SPDX-License-Identifier: MIT */
/*
 * sanitizer.c - a sanitizer's report as a sanitizer:* event, as the
 * kernel's kasan_report is one: the report then comes with the calls
 * that led to it, and filters and triggers (stacktrace, traceoff,
 * snapshot, hist) apply to it.
 *
 * Design: the events are libutrace.so's own (runtime/sanitizer_events.h):
 * when the process has a sanitizer runtime with a report hook, ftrace.c
 * registers libutrace.so as an object that has events and no call sites,
 * so the recorder enables them from -e and the tracefs like any object's.
 * The hook is AddressSanitizer's documented one, the same in gcc 12's
 * libasan and clang 14's compiler-rt: __asan_set_error_report_callback,
 * called with the report's text after the report is printed and before
 * the runtime dies, with the error still current for the
 * __asan_get_report_* functions.  The callback only reads: the report
 * on stderr, the exit status and the program's own callback (set later,
 * it replaces ours) are as untraced.  It may run in ASan's SEGV handler:
 * no allocation, no stdio, no lock, no libc string call (ASan intercepts
 * them), errno kept.  Without a report nothing here runs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stddef.h>
#include <unistd.h>

#include "common/record.h"
#include "runtime/rt.h"

/* No jump label: the event is off until enabled, and reports are rare. */
#define UTRACE_NO_ASM_GOTO
#define CREATE_TRACE_POINTS
#include "runtime/sanitizer_events.h"

/* The ASan interface (asan_interface.h), looked up at start. */
static struct {
	void (*set_callback)(void (*)(const char *));
	void *(*pc)(void);
	void *(*address)(void);
	int (*access_type)(void);
	size_t (*access_size)(void);
	const char *(*description)(void);
} asan;

/* Copies the text [s, end) into dst (cap bytes, NUL-terminated), without
 * the colour escapes a terminal gets; stops at a newline. */
static void san_copy(char *dst, size_t cap, const char *s, const char *end)
{
	size_t n = 0;

	while (s && *s && (!end || s < end) && *s != '\n' && n + 1 < cap) {
		if (*s == '\033') { /* ESC [ ... m */
			while (*s && *s != 'm' && *s != '\n')
				s++;
			if (*s == 'm')
				s++;
			continue;
		}
		dst[n++] = *s++;
	}
	dst[n] = 0;
}

static bool san_starts(const char *s, const char *prefix)
{
	while (*prefix && *s == *prefix)
		s++, prefix++;
	return !*prefix;
}

/* The line of text that starts with prefix (colour escapes before it
 * skipped), NULL if none. */
static const char *san_line(const char *text, const char *prefix)
{
	for (const char *l = text; l && *l;) {
		const char *s = l;

		while (*s == '\033' && s[1] == '[') {
			while (*s && *s != 'm')
				s++;
			s += !!*s;
		}
		if (san_starts(s, prefix))
			return s;
		while (*l && *l != '\n')
			l++;
		l += !!*l;
	}
	return NULL;
}

/* The first line that is not empty and not the row of '=' before it. */
static const char *san_first_line(const char *text)
{
	for (const char *l = text; *l;) {
		const char *s = l;

		while (*s == '=' || *s == ' ')
			s++;
		if (*s && *s != '\n')
			return l;
		while (*l && *l != '\n')
			l++;
		l += !!*l;
	}
	return text;
}

static unsigned san_digits(const char *s, const char *end, bool *ok)
{
	unsigned v = 0;

	*ok = s < end;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			*ok = false;
		v = v * 10 + (unsigned)(*s - '0');
	}
	return v;
}

/* "FILE:LINE" or "FILE:LINE:COL" in [s, end) into r; a "(module+0x...)"
 * has neither. */
static void san_location(const char *s, const char *end, struct rt_san_report *r)
{
	const char *c1 = NULL, *c2 = NULL;
	bool ok1 = false, ok2 = false;
	unsigned v1, v2;

	if (s >= end || *s == '(')
		return;
	for (const char *p = s; p < end; p++)
		if (*p == ':')
			c1 = c2, c2 = p;
	if (!c2)
		return;
	v2 = san_digits(c2 + 1, end, &ok2);
	v1 = c1 ? san_digits(c1 + 1, c2, &ok1) : 0;
	if (c1 && ok1 && ok2) {
		r->line = v1;
		san_copy(r->file, sizeof(r->file), s, c1);
	} else if (ok2) {
		r->line = v2;
		san_copy(r->file, sizeof(r->file), s, c2);
	}
}

/* "SUMMARY: TOOL: KIND LOCATION in FUNC": the kind (if the runtime did
 * not say it), the source location and the function. */
static void san_summary(const char *text, struct rt_san_report *r)
{
	const char *s = san_line(text, "SUMMARY: "), *kind, *loc, *in = NULL, *eol;

	if (!s)
		return;
	s += 9;
	while (*s && *s != '\n' && !san_starts(s, ": "))
		s++;
	if (!san_starts(s, ": "))
		return;
	kind = s + 2;
	for (loc = kind; *loc && *loc != ' ' && *loc != '\n';)
		loc++;
	if (!r->kind[0])
		san_copy(r->kind, sizeof(r->kind), kind, loc);
	loc += *loc == ' ';
	for (eol = loc; *eol && *eol != '\n'; eol++)
		if (san_starts(eol, " in "))
			in = eol;
	san_location(loc, in ? in : eol, r);
	if (in)
		san_copy(r->func, sizeof(r->func), in + 4, eol);
}

static uint64_t san_hex(const char **s)
{
	uint64_t v = 0;

	for (;; (*s)++) {
		char c = **s;

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return v;
	}
}

/* The report's first stack, as it printed it ("    #N 0x<pc> in ..."),
 * into pc[0..max): how many frames. */
static unsigned san_stack(const char *text, uint64_t *pc, unsigned max)
{
	const char *l = san_line(text, "    #0 0x");
	unsigned n = 0;

	while (l && n < max) {
		const char *s = l;

		while (*s == ' ')
			s++;
		if (*s++ != '#')
			break;
		while (*s >= '0' && *s <= '9')
			s++;
		if (!san_starts(s, " 0x"))
			break;
		s += 3;
		pc[n++] = san_hex(&s);
		while (*s && *s != '\n')
			s++;
		l = *s ? s + 1 : NULL;
	}
	return n;
}

static void san_asan_report(const char *text)
{
	struct rt_san_report r;
	uint64_t pc[UREC_STACK_MAX];
	int saved = errno;

	for (size_t i = 0; i < sizeof(r); i++) /* not memset: ASan intercepts it */
		((volatile char *)&r)[i] = 0;
	if (text && trace_asan_report_enabled()) {
		if (asan.description)
			san_copy(r.kind, sizeof(r.kind), asan.description(), NULL);
		r.addr = asan.address ? (unsigned long)asan.address() : 0;
		r.size = asan.access_size ? asan.access_size() : 0;
		r.is_write = asan.access_type ? asan.access_type() : 0;
		r.pc = asan.pc ? (unsigned long)asan.pc() : 0;
		san_summary(text, &r);
		san_copy(r.first_line, sizeof(r.first_line), san_first_line(text), NULL);
		rt_stack_given(pc, san_stack(text, pc, UREC_STACK_MAX));
		trace_asan_report(&r);
		rt_stack_given(NULL, 0);
	}
	errno = saved;
}

/* The UBSan and TSan interfaces (ubsan_monitor.h, tsan_interface.h). */
static void (*ubsan_get_data)(const char **kind, const char **message, const char **file,
			      unsigned *line, unsigned *col, char **memory_addr);
static int (*tsan_get_data)(void *rep, const char **description, int *count, int *stacks,
			    int *mops, int *locs, int *mutexes, int *threads, int *tids,
			    void **sleep_trace, size_t trace_size);
static int (*tsan_get_mop)(void *rep, size_t idx, int *tid, void **addr, int *size, int *write,
			   int *atomic, void **trace, size_t trace_size);
static void (*symbolize_pc)(void *pc, const char *fmt, char *out, size_t len);

/* NUL-terminated parts of one text, no libc call */
static void san_cat(char *dst, size_t cap, size_t *n, const char *s)
{
	while (s && *s && *n + 1 < cap)
		dst[(*n)++] = *s++;
	dst[*n] = 0;
}

static void san_cat_u(char *dst, size_t cap, size_t *n, unsigned v)
{
	char d[12];
	int i = 0;

	do
		d[i++] = (char)('0' + v % 10);
	while ((v /= 10) && i < 11);
	while (i && *n + 1 < cap)
		dst[(*n)++] = d[--i];
	dst[*n] = 0;
}

/* UBSan prints no stack: the stack from the caller of its handler
 * (__ubsan_handle_*) out, by glibc's backtrace(), which unwinds by DWARF
 * through the runtime's frames that have no frame pointer.  Return
 * addresses less one: the calls, as a sanitizer prints its frames. */
static unsigned san_ubsan_stack(uint64_t *pc, unsigned max)
{
	void *buf[UREC_STACK_MAX + 16];
	int n = backtrace(buf, (int)(sizeof(buf) / sizeof(buf[0]))), from = -1;
	unsigned k = 0;

	for (int i = 0; i < n; i++) {
		Dl_info info;

		if (dladdr(buf[i], &info) && info.dli_sname &&
		    san_starts(info.dli_sname, "__ubsan_handle_"))
			from = i + 1;
	}
	for (int i = from; from > 0 && i < n && k < max; i++)
		pc[k++] = (uint64_t)(uintptr_t)buf[i] - 1;
	return k;
}

/* __ubsan_on_report(): the current report's data, as UBSan printed it
 * ("FILE:LINE:COL: runtime error: MESSAGE"). */
static void san_ubsan_report(void)
{
	struct rt_san_report r;
	uint64_t pc[UREC_STACK_MAX];
	const char *kind = NULL, *msg = NULL, *file = NULL;
	char *maddr = NULL;
	unsigned line = 0, col = 0;
	size_t n = 0, at;
	int saved = errno;

	if (ubsan_get_data && trace_ubsan_report_enabled()) {
		for (size_t i = 0; i < sizeof(r); i++)
			((volatile char *)&r)[i] = 0;
		ubsan_get_data(&kind, &msg, &file, &line, &col, &maddr);
		san_copy(r.kind, sizeof(r.kind), kind, NULL);
		san_copy(r.file, sizeof(r.file), file, NULL);
		r.line = line;
		if (maddr && maddr[0] == '0' && maddr[1] == 'x') {
			const char *h = maddr + 2;

			r.addr = san_hex(&h);
		}
		san_cat(r.first_line, sizeof(r.first_line), &n, file ? file : "<unknown>");
		san_cat(r.first_line, sizeof(r.first_line), &n, ":");
		san_cat_u(r.first_line, sizeof(r.first_line), &n, line);
		san_cat(r.first_line, sizeof(r.first_line), &n, ":");
		san_cat_u(r.first_line, sizeof(r.first_line), &n, col);
		san_cat(r.first_line, sizeof(r.first_line), &n, ": runtime error: ");
		at = n;
		san_cat(r.first_line, sizeof(r.first_line), &n, msg);
		/* the report data capitalises the message, the printed line not */
		if (at < n && msg[0] >= 'A' && msg[0] <= 'Z' && msg[1] >= 'a' && msg[1] <= 'z')
			r.first_line[at] = (char)(msg[0] - 'A' + 'a');
		rt_stack_given(pc, san_ubsan_stack(pc, UREC_STACK_MAX));
		trace_ubsan_report(&r);
		rt_stack_given(NULL, 0);
	}
	errno = saved;
}

/* TSan's report types (__tsan_get_report_data's names) as its first
 * line prints them ("WARNING: ThreadSanitizer: %s (pid=%d)"), from
 * tsan_report.cpp; a type not here leaves first_line empty. */
static const char *const tsan_titles[][2] = {
    {"data-race", "data race"},
    {"data-race-vptr", "data race on vptr (ctor/dtor vs virtual call)"},
    {"heap-use-after-free", "heap-use-after-free"},
    {"heap-use-after-free-vptr", "heap-use-after-free (virtual call vs free)"},
    {"thread-leak", "thread leak"},
    {"locked-mutex-destroy", "destroy of a locked mutex"},
    {"mutex-double-lock", "double lock of a mutex"},
    {"mutex-invalid-access", "use of an invalid mutex (e.g. uninitialized or destroyed)"},
    {"mutex-bad-unlock", "unlock of an unlocked mutex (or by a wrong thread)"},
    {"mutex-bad-read-lock", "read lock of a write locked mutex"},
    {"mutex-bad-read-unlock", "read unlock of a write locked mutex"},
    {"signal-unsafe-call", "signal-unsafe call inside of a signal"},
    {"errno-in-signal-handler", "signal handler spoils errno"},
    {"lock-order-inversion", "lock-order-inversion (potential deadlock)"},
};

static void san_tsan_first_line(struct rt_san_report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(tsan_titles) / sizeof(tsan_titles[0]); i++) {
		const char *a = tsan_titles[i][0], *b = r->kind;

		while (*a && *a == *b)
			a++, b++;
		if (*a || *b)
			continue;
		san_cat(r->first_line, sizeof(r->first_line), &n, "WARNING: ThreadSanitizer: ");
		san_cat(r->first_line, sizeof(r->first_line), &n, tsan_titles[i][1]);
		san_cat(r->first_line, sizeof(r->first_line), &n, " (pid=");
		san_cat_u(r->first_line, sizeof(r->first_line), &n, (unsigned)getpid());
		san_cat(r->first_line, sizeof(r->first_line), &n, ")");
		return;
	}
}

/* __tsan_on_report(rep): its type, its first access and where that is
 * (symbolized as the report was), the access's stack as the stack. */
static void san_tsan_report(void *rep)
{
	struct rt_san_report r;
	void *trace[UREC_STACK_MAX] = {0}, *addr = NULL, *sleep = NULL;
	uint64_t pc[UREC_STACK_MAX];
	const char *desc = NULL;
	int count, stacks, mops = 0, locs, mutexes, threads, tids, tid, size = 0, write = 0, atomic;
	unsigned n = 0;
	int saved = errno;

	if (tsan_get_data && tsan_get_mop && trace_tsan_report_enabled()) {
		for (size_t i = 0; i < sizeof(r); i++)
			((volatile char *)&r)[i] = 0;
		tsan_get_data(rep, &desc, &count, &stacks, &mops, &locs, &mutexes, &threads, &tids,
			      &sleep, 1);
		san_copy(r.kind, sizeof(r.kind), desc, NULL);
		san_tsan_first_line(&r);
		if (mops > 0 && tsan_get_mop(rep, 0, &tid, &addr, &size, &write, &atomic, trace,
					     UREC_STACK_MAX)) {
			r.addr = (unsigned long)addr;
			r.size = (unsigned long)size;
			r.is_write = write;
			r.pc = (unsigned long)trace[0];
			while (n < UREC_STACK_MAX && trace[n])
				pc[n] = (uint64_t)(uintptr_t)trace[n], n++;
		}
		if (r.pc && symbolize_pc) {
			char num[16] = "";

			/* symbolize_pc takes the previous instruction's pc, as
			 * for a return address: the access's own is pc + 1 */
			symbolize_pc((void *)(r.pc + 1), "%s", r.file, sizeof(r.file));
			symbolize_pc((void *)(r.pc + 1), "%f", r.func, sizeof(r.func));
			symbolize_pc((void *)(r.pc + 1), "%l", num, sizeof(num));
			for (const char *d = num; *d >= '0' && *d <= '9'; d++)
				r.line = r.line * 10 + (unsigned)(*d - '0');
		}
		rt_stack_given(pc, n);
		trace_tsan_report(&r);
		rt_stack_given(NULL, 0);
	}
	errno = saved;
}

bool rt_sanitizer_present(void)
{
	static int present = -1;

	if (present < 0)
		present = dlsym(RTLD_DEFAULT, "__asan_set_error_report_callback") ||
			  dlsym(RTLD_DEFAULT, "__ubsan_get_current_report_data") ||
			  /* (the .symtab read only for a TSan program) */
			  (dlsym(RTLD_DEFAULT, "__tsan_init") &&
			   rt_sanitizer_sym("__tsan_get_report_data"));
	return present;
}

void rt_sanitizer_hook(void)
{
	if (!rt_sanitizer_present())
		return;
	*(void **)&ubsan_get_data = dlsym(RTLD_DEFAULT, "__ubsan_get_current_report_data");
	*(void **)&tsan_get_data = rt_sanitizer_sym("__tsan_get_report_data");
	*(void **)&tsan_get_mop = rt_sanitizer_sym("__tsan_get_report_mop");
	*(void **)&symbolize_pc = dlsym(RTLD_DEFAULT, "__sanitizer_symbolize_pc");
	if (ubsan_get_data)
		rt_sanitizer_patch("__ubsan_on_report", (void *)san_ubsan_report);
	if (tsan_get_data && tsan_get_mop)
		rt_sanitizer_patch("__tsan_on_report", (void *)san_tsan_report);
	*(void **)&asan.set_callback = dlsym(RTLD_DEFAULT, "__asan_set_error_report_callback");
	*(void **)&asan.pc = dlsym(RTLD_DEFAULT, "__asan_get_report_pc");
	*(void **)&asan.address = dlsym(RTLD_DEFAULT, "__asan_get_report_address");
	*(void **)&asan.access_type = dlsym(RTLD_DEFAULT, "__asan_get_report_access_type");
	*(void **)&asan.access_size = dlsym(RTLD_DEFAULT, "__asan_get_report_access_size");
	*(void **)&asan.description = dlsym(RTLD_DEFAULT, "__asan_get_report_description");
	if (asan.set_callback)
		asan.set_callback(san_asan_report);
}
