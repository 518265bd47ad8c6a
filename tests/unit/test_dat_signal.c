/* SPDX-License-Identifier: MIT */
/*
 * test_dat_signal.c - record --dump-on-crash's UEXT_SIGNAL record: decoded
 * as UTRACE_EV_SIGNAL at the depth the thread was at, printed as the
 * reports' "signal:" text (code names, fault address or sender, ip as
 * function+offset), and the crash dump of lib/report/crash_dump.c: the
 * last N calls of the thread that took the signal, every thread's with
 * all, every thread's when no record has the signal.
 */
#include <errno.h>
#include <signal.h>

#include "lib/report/report_signal.h"
#include "lib/tracefile/dat_reader.h"
#include "tests/unit/dat_fixture.h"

#define MAX_EVENTS 32

struct evlist {
	struct utrace_event ev[MAX_EVENTS];
	struct urec_signal sig[MAX_EVENTS];
	int n;
};

static void wl_signal(struct wl *l, uint32_t delta, uint32_t sig, const struct urec_signal *s)
{
	const uint32_t *w = (const uint32_t *)(const void *)s;

	wl_ext(l, UEXT_SIGNAL, sizeof(*s) / 4);
	wl_put(l, delta);
	wl_put(l, sig);
	for (size_t i = 0; i < sizeof(*s) / 4; i++)
		wl_put(l, w[i]);
}

/* thread 100: main() { foo() { bar(); <SIGSEGV at foo+0x10> (died);
 * thread 101: main() { bar(); } later */
static const char *write_file(void)
{
	const char *path = check_path("signal.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p = {1000, 0, 0, 0, 0, 0};
	struct urec_signal s = {.addr = 0, .ip = FX_BIAS + 0x210, .code = 1};
	struct wl l = {.n = 0};

	fx_buffer(w, 7, 100, "test");
	fx_buffer(w, 8, 101, "worker");
	wl_entry(&l, 0, 0);	 /* main @1000 */
	wl_entry(&l, 1, 10);	 /* foo @1010 */
	wl_entry(&l, 2, 10);	 /* bar @1020 */
	wl_exit(&l, 5);		 /* @1025 */
	wl_signal(&l, 5, 11, &s); /* @1030 */
	fx_page(w, 7, &p, &l);
	l.n = 0;
	p.ts = 1002;
	wl_entry(&l, 0, 0);  /* main @1002 */
	wl_entry(&l, 2, 38); /* bar @1040 */
	wl_exit(&l, 2);
	wl_exit(&l, 8);
	fx_page(w, 8, &p, &l);
	fx_end(w);
	return path;
}

static int read_all(struct utrace_dat *d, struct evlist *l, struct utrace_error *err)
{
	struct utrace_dat_iter *it;
	struct utrace_event ev;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = utrace_dat_iter_open(d, &it, err);
	while (ret == 0 && (ret = utrace_dat_iter_next(it, &ev, err)) > 0) {
		if (l->n == MAX_EVENTS)
			continue;
		if (ev.kind == UTRACE_EV_SIGNAL && ev.data_len == sizeof(l->sig[0])) {
			memcpy(&l->sig[l->n], ev.data, ev.data_len);
			ev.data = &l->sig[l->n]; /* ev.data lasts until the next event */
		}
		l->ev[l->n++] = ev;
		ret = 0;
	}
	if (ret >= 0)
		utrace_dat_iter_close(it);
	return ret;
}

static void test_decode(struct utrace_dat *d)
{
	struct utrace_error err = {0};
	struct evlist l;
	const struct utrace_event *sig = NULL;
	char text[256];

	if (read_all(d, &l, &err) < 0) {
		check(0, "read: %s", err.msg);
		return;
	}
	for (int i = 0; i < l.n; i++)
		if (l.ev[i].kind == UTRACE_EV_SIGNAL)
			sig = &l.ev[i];
	check(sig && sig->id == 11 && sig->ts == 1030 && sig->depth == 2 && sig->tid == 100,
	      "the signal: SIGSEGV at 1030, inside main and foo, thread 100");
	if (!sig)
		return;
	check(l.sig[sig - l.ev].ip == FX_BIAS + 0x210 && l.sig[sig - l.ev].code == 1,
	      "its fields: ip and si_code");
	utrace_report_signal_text(d, sig, text, sizeof(text));
	check(!strcmp(text, "SIGSEGV code=SEGV_MAPERR addr=0x0 ip=foo+0x10"), "printed: %s", text);
	{
		struct utrace_event ev = *sig;
		struct urec_signal s = {.ip = FX_BIAS + 0x110, .code = SI_TKILL, .sender = 100};

		ev.id = 6;
		ev.data = &s;
		utrace_report_signal_text(d, &ev, text, sizeof(text));
		check(!strcmp(text, "SIGABRT code=SI_TKILL pid=100 ip=main+0x10"),
		      "a sent one with its sender: %s", text);
	}
}

/* The dump of d as text (free it). */
static char *dump(struct utrace_dat *d, int sig, unsigned calls, bool all)
{
	struct utrace_crash_dump_opts o = {.pid = 100, .sig = sig, .calls = calls, .all = all};
	struct utrace_error err = {0};
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	int ret = utrace_report_crash_dump(d, f, &o, &err);

	fclose(f);
	check(ret >= 0, "dump: %s", err.msg);
	return buf;
}

static void test_dump(struct utrace_dat *d)
{
	char *b = dump(d, 11, 2, false);
	const char *body = b ? strstr(b, "---\n") : NULL;
	bool ok;

	ok = b && strstr(b, "utrace: pid 100 died of SIGSEGV in thread 100\n") &&
	     strstr(b, "thread 100: signal: SIGSEGV code=SEGV_MAPERR addr=0x0 ip=foo+0x10\n") &&
	     strstr(b, "Dumping the last 2 calls of thread 100 before its signal:\n") && body &&
	     strstr(body, "foo() {\n") && strstr(body, "bar();\n") && !strstr(body, "main() {") &&
	     strstr(body, "/* signal: SIGSEGV code=SEGV_MAPERR addr=0x0 ip=foo+0x10 */\n") &&
	     !strstr(b, "thread 101");
	check(ok, "the last 2 calls of the thread that died, up to its signal");
	if (!ok)
		printf("# got:\n%s", b ? b : "");
	free(b);
	b = dump(d, 11, 20, true);
	ok = b && strstr(b, "Dumping the last 2 calls of thread 101:\n") &&
	     strstr(b, "Dumping the last 3 calls of thread 100 before its signal:\n") &&
	     strstr(b, "thread 101:\n") < strstr(b, "thread 100 before");
	check(ok, "all: every thread, the one that died last");
	if (!ok)
		printf("# got:\n%s", b ? b : "");
	free(b);
	b = dump(d, 6, 20, false);
	ok = b && strstr(b, "died of SIGABRT with no signal record") &&
	     strstr(b, "calls of thread 101:\n") && strstr(b, "calls of thread 100:\n");
	check(ok, "no record of that signal: every thread's last calls");
	if (!ok)
		printf("# got:\n%s", b ? b : "");
	free(b);
}

int main(void)
{
	struct utrace_error err = {0};
	struct utrace_dat *d;

	check_begin("dat-signal");
	if (utrace_dat_open(write_file(), &d, &err) < 0) {
		check(0, "open: %s", err.msg);
		return check_end();
	}
	test_decode(d);
	test_dump(d);
	utrace_dat_close(d);
	return check_end();
}
