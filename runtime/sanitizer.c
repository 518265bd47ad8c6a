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
#include "runtime/sanitizer.h"


/* The ASan interface (asan_interface.h), looked up at start. */
static struct {
	void (*set_callback)(void (*)(const char *));
	void *(*pc)(void);
	void *(*address)(void);
	int (*access_type)(void);
	size_t (*access_size)(void);
	const char *(*description)(void);
} asan;

static void san_asan_report(const char *text)
{
	struct rt_san_report r;
	uint64_t pc[UREC_STACK_MAX];
	int saved = errno;

	for (size_t i = 0; i < sizeof(r); i++) /* not memset: ASan intercepts it */
		((volatile char *)&r)[i] = 0;
	if (text && trace_asan_report_enabled()) {
		if (asan.description)
			rt_san_copy(r.kind, sizeof(r.kind), asan.description(), NULL);
		r.addr = asan.address ? (unsigned long)asan.address() : 0;
		r.size = asan.access_size ? asan.access_size() : 0;
		r.is_write = asan.access_type ? asan.access_type() : 0;
		r.pc = asan.pc ? (unsigned long)asan.pc() : 0;
		rt_san_summary(text, &r);
		rt_san_copy(r.first_line, sizeof(r.first_line), rt_san_first_line(text), NULL);
		rt_stack_given(pc, rt_san_stack(text, pc, UREC_STACK_MAX));
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
		    rt_san_starts(info.dli_sname, "__ubsan_handle_"))
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
		rt_san_copy(r.kind, sizeof(r.kind), kind, NULL);
		rt_san_copy(r.file, sizeof(r.file), file, NULL);
		r.line = line;
		if (maddr && maddr[0] == '0' && maddr[1] == 'x') {
			const char *h = maddr + 2;

			r.addr = rt_parse_hex(&h);
		}
		rt_san_cat(r.first_line, sizeof(r.first_line), &n, file ? file : "<unknown>");
		rt_san_cat(r.first_line, sizeof(r.first_line), &n, ":");
		rt_san_cat_u(r.first_line, sizeof(r.first_line), &n, line);
		rt_san_cat(r.first_line, sizeof(r.first_line), &n, ":");
		rt_san_cat_u(r.first_line, sizeof(r.first_line), &n, col);
		rt_san_cat(r.first_line, sizeof(r.first_line), &n, ": runtime error: ");
		at = n;
		rt_san_cat(r.first_line, sizeof(r.first_line), &n, msg);
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
		rt_san_cat(r->first_line, sizeof(r->first_line), &n, "WARNING: ThreadSanitizer: ");
		rt_san_cat(r->first_line, sizeof(r->first_line), &n, tsan_titles[i][1]);
		rt_san_cat(r->first_line, sizeof(r->first_line), &n, " (pid=");
		rt_san_cat_u(r->first_line, sizeof(r->first_line), &n, (unsigned)getpid());
		rt_san_cat(r->first_line, sizeof(r->first_line), &n, ")");
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
		rt_san_copy(r.kind, sizeof(r.kind), desc, NULL);
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
			  dlsym(RTLD_DEFAULT, "__msan_init") ||
			  dlsym(RTLD_DEFAULT, "__lsan_do_leak_check") ||
			  /* (the .symtab read only for a TSan program) */
			  (dlsym(RTLD_DEFAULT, "__tsan_init") &&
			   rt_sanitizer_sym("__tsan_get_report_data"));
	return present;
}

/*
 * Our constructor runs before every other initializer (libutrace.so is
 * linked -z initfirst: init.c), so before the executable's preinit_array
 * too, where clang's ThreadSanitizer starts its runtime (__tsan_init).
 * The calls it intercepts (pthread_create, malloc, ...) crash until then:
 * start it first, as its preinit entry would (it starts once).
 */
void rt_sanitizer_early(void)
{
	void (*tsan_init)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "__tsan_init");

	if (tsan_init)
		tsan_init();
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
	if (dlsym(RTLD_DEFAULT, "__msan_init") || dlsym(RTLD_DEFAULT, "__lsan_do_leak_check"))
		rt_sanitizer_patch("__sanitizer_on_print", (void *)rt_san_on_print);
	*(void **)&asan.set_callback = dlsym(RTLD_DEFAULT, "__asan_set_error_report_callback");
	*(void **)&asan.pc = dlsym(RTLD_DEFAULT, "__asan_get_report_pc");
	*(void **)&asan.address = dlsym(RTLD_DEFAULT, "__asan_get_report_address");
	*(void **)&asan.access_type = dlsym(RTLD_DEFAULT, "__asan_get_report_access_type");
	*(void **)&asan.access_size = dlsym(RTLD_DEFAULT, "__asan_get_report_access_size");
	*(void **)&asan.description = dlsym(RTLD_DEFAULT, "__asan_get_report_description");
	if (asan.set_callback)
		asan.set_callback(san_asan_report);
}
