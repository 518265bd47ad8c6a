/* SPDX-License-Identifier: MIT */
/*
 * test_dat_kernel.c - kernel events in utrace.dat (lib/tracefile/dat_kernel.c):
 * KHEADER, EVENT_FORMAT, KPAGE and KTASKS records written by hand in the
 * kernel's ring-buffer page format, read back merged with a user buffer
 * (tests/unit/dat_fixture.h's function_graph buffer, 1 tick = 1 ns):
 * times, order, CPU, the task's buffer (the user buffer of a traced
 * thread, a buffer of its own for any other task), comm, a time extend,
 * missed events, TP_printk text, a damaged page, a file whose
 * recorder died before KTASKS, and the kernel's kernel_stack entries of
 * its stacktrace trigger (a STACK event named from the KSYMS record,
 * printed as the kernel's trace_stack_print), the OWN windows of
 * utrace's own work, whose kernel events are left out and counted, and a
 * reading resumed from a time, which skips the pages before it.
 */
#include "common/proto.h"
#include "lib/tracefile/dat_reader.h"
#include "lib/report/event_print.h"
#include "lib/report/report_stack.h"
#include "tests/unit/dat_fixture.h"

#define KEV_ID 7

static const char kev_format[] = FX_KEV_FORMAT;

/* A kernel ring-buffer page being built: u64 time_stamp, u64 commit, data. */
struct kpage {
	uint8_t b[4096];
	uint32_t len; /* data bytes */
};

static void ipp_u32(struct kpage *p, uint32_t v)
{
	memcpy(p->b + 16 + p->len, &v, 4);
	p->len += 4;
}

/* A 12-byte event (type_len 3): common fields + int value. */
static void ipp_event(struct kpage *p, uint32_t delta, int32_t pid, int32_t value)
{
	uint16_t type = KEV_ID;

	ipp_u32(p, 3u | delta << 5);
	memcpy(p->b + 16 + p->len, &type, 2);
	memset(p->b + 16 + p->len + 2, 0, 2);
	memcpy(p->b + 16 + p->len + 4, &pid, 4);
	memcpy(p->b + 16 + p->len + 8, &value, 4);
	p->len += 12;
}

static void ipp_write(struct utrace_dat_writer *w, uint32_t cpu, struct kpage *p, uint64_t ts,
		     uint64_t flags)
{
	struct utrace_dat_kpage kp = {cpu, 0};
	uint64_t commit = p->len | flags;

	memcpy(p->b, &ts, 8);
	memcpy(p->b + 8, &commit, 8);
	fx_write(w, UTRACE_DAT_KPAGE, &kp, sizeof(kp), p->b, 16 + p->len);
}

static void kernel_header(struct utrace_dat_writer *w)
{
	struct utrace_dat_kheader h = {4096, 0, "x86-tsc"};
	struct utrace_dat_event_format ef = {KEV_ID, 0};
	struct iovec iov[3] = {
	    {&ef, sizeof(ef)}, {"test", 5}, {(void *)kev_format, sizeof(kev_format)}};
	struct utrace_error err;

	fx_write(w, UTRACE_DAT_KHEADER, &h, sizeof(h), "hp\0he", 6);
	if (utrace_dat_write(w, UTRACE_DAT_EVENT_FORMAT, iov, 3, &err) < 0)
		fx_die(&err);
}

static void kernel_pages(struct utrace_dat_writer *w)
{
	struct kpage p0 = {.len = 0}, p1 = {.len = 0}, bad = {.len = 0};

	ipp_event(&p0, 0, 100, 42);    /* @1005, the traced thread */
	ipp_event(&p0, 1010, 555, 43); /* @2015, a kworker */
	ipp_u32(&p0, 30u | 5u << 5);   /* time extend: + (1 << 27) + 5 */
	ipp_u32(&p0, 1);
	ipp_event(&p0, 0, 555, 44); /* @2015 + 134217733 */
	ipp_write(w, 0, &p0, 1005, 0);
	ipp_event(&p1, 0, 0, 45); /* @1012 after missed events, idle */
	ipp_write(w, 1, &p1, 1012, 1ull << 31);
	ipp_event(&bad, 0, 555, 46);
	bad.len = 4; /* commit below says more than the record holds */
	{
		struct utrace_dat_kpage kp = {0, 0};
		uint64_t ts = 3000000000ull, commit = 2000;

		memcpy(bad.b, &ts, 8);
		memcpy(bad.b + 8, &commit, 8);
		fx_write(w, UTRACE_DAT_KPAGE, &kp, sizeof(kp), bad.b, 16 + 16);
	}
}

struct kev {
	struct utrace_event ev;
	int32_t value;
	char comm[17];
	int kernel;
	char text[64];
};

static int read_events(const char *path, struct kev *out, int max, uint64_t *warnings,
		       struct utrace_dat **dp)
{
	struct utrace_event_printer *pr;
	struct utrace_dat_iter *it;
	struct utrace_error err;
	struct utrace_event ev;
	struct utrace_dat *d;
	int n = 0, ret;

	if (utrace_dat_open(path, &d, &err) < 0 || utrace_event_printer_new(d, &pr, &err) < 0 ||
	    utrace_dat_iter_open(d, &it, &err) < 0) {
		printf("# %s\n", err.msg);
		return -1;
	}
	while ((ret = utrace_dat_iter_next(it, &ev, &err)) > 0 && n < max) {
		const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(d, ev.buf);
		struct kev *k = &out[n++];

		memset(k, 0, sizeof(*k));
		k->ev = ev;
		if (ev.kind == UTRACE_EV_EVENT && ev.data_len >= 4) {
			memcpy(&k->value, ev.data, 4);
			snprintf(k->text, sizeof(k->text), "%s",
				 utrace_event_printer_render(pr, (int)ev.id, ev.tid, ev.data,
							     ev.data_len));
		}
		if (bi) {
			memcpy(k->comm, bi->comm, sizeof(k->comm));
			k->kernel = bi->kernel;
		}
	}
	*warnings = utrace_dat_iter_warnings(it);
	utrace_dat_iter_close(it);
	utrace_event_printer_free(pr);
	*dp = d;
	return ret < 0 ? -1 : n;
}

static int find_value(const struct kev *k, int n, int32_t value)
{
	for (int i = 0; i < n; i++)
		if (k[i].ev.kind == UTRACE_EV_EVENT && k[i].value == value)
			return i;
	return -1;
}

static void test_merge(void)
{
	const char *path = check_path("kernel.dat");
	struct utrace_dat_ktask tasks[3] = {
	    {100, 100, "test"}, {555, 550, "kworker/0:1"}, {0, 0, "<idle>"}};
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct kev k[64];
	uint64_t warnings = 0;
	struct utrace_dat *d = NULL;
	int n, a, b, c, e, i;

	kernel_header(w);
	fx_graph_basic(w); /* buffer 7: test-100, main @1000, foo @1010..1015, bar @1020 */
	kernel_pages(w);
	fx_write(w, UTRACE_DAT_KTASKS, tasks, sizeof(tasks), NULL, 0);
	fx_end(w);

	n = read_events(path, k, 64, &warnings, &d);
	check(n > 0, "kernel: the file reads (%d events)", n);
	if (n <= 0)
		return;
	a = find_value(k, n, 42);
	check(a > 0 && k[a].ev.ts == 1005 && k[a].ev.cpu == 0 && k[a].ev.id == KEV_ID &&
		  k[a].ev.tid == 100 && k[a].ev.pid == 100,
	      "kernel: an event at 1005 on cpu 0, id 7, pid 100");
	check(a > 0 && k[a - 1].ev.kind == UTRACE_EV_ENTRY && k[a - 1].ev.ts == 1000 &&
		  k[a + 1].ev.ts == 1010,
	      "kernel: merged by time between main's entry (1000) and foo (1010)");
	check(a > 0 && !k[a].kernel && !strcmp(k[a].comm, "test") && k[a].ev.buf == k[a - 1].ev.buf,
	      "kernel: an event of a traced thread comes in that thread's buffer");
	check(a > 0 && k[a].ev.depth == 1,
	      "kernel: inside main(), at the thread's call depth (1): %u",
	      a > 0 ? k[a].ev.depth : 0);
	check(a > 0 && !strcmp(k[a].text, "value=42"), "kernel: TP_printk text '%s'",
	      a > 0 ? k[a].text : "");
	b = find_value(k, n, 43);
	check(b > a && k[b].ev.ts == 2015 && k[b].ev.tid == 555 && k[b].ev.pid == 550 &&
		  k[b].kernel && !strcmp(k[b].comm, "kworker/0:1"),
	      "kernel: another task's event: its own buffer, comm and tgid from KTASKS");
	c = find_value(k, n, 44);
	check(c > b && k[c].ev.ts == 2015 + (1u << 27) + 5, "kernel: a time extend (ts %llu)",
	      c > 0 ? (unsigned long long)k[c].ev.ts : 0);
	e = find_value(k, n, 45);
	check(e > 0 && k[e - 1].ev.kind == UTRACE_EV_LOST &&
		  (k[e - 1].ev.flags & UTRACE_EVF_LOST_UNKNOWN) && k[e - 1].ev.cpu == 1 &&
		  k[e - 1].ev.ts == 1012 && k[e].ev.ts == 1012,
	      "kernel: missed events on cpu 1: LOST (count unknown) before the page's events");
	check(e > 0 && k[e].ev.cpu == 1 && !strcmp(k[e].comm, "<idle>"), "kernel: pid 0 is <idle>");
	check(find_value(k, n, 46) < 0 && warnings == 1,
	      "kernel: a page whose commit is past its end is skipped with a warning");
	for (i = 1; i < n && k[i - 1].ev.ts <= k[i].ev.ts; i++)
		;
	check(i == n, "kernel: all events in time order");
	check(utrace_dat_comm(d, 555) && !strcmp(utrace_dat_comm(d, 555), "kworker/0:1") &&
		  utrace_dat_comm(d, 12345) == NULL,
	      "kernel: utrace_dat_comm()");
	check(utrace_dat_kernel_clock(d) && !strcmp(utrace_dat_kernel_clock(d), "x86-tsc"),
	      "kernel: utrace_dat_kernel_clock()");
	utrace_dat_close(d);
}

/* The recorder was killed before KTASKS: tasks are found in the pages. */
static void test_no_tasks(void)
{
	const char *path = check_path("kernel-killed.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct utrace_dat *d = NULL;
	uint64_t warnings;
	struct kev k[64];
	int n, b;

	kernel_header(w);
	fx_graph_basic(w);
	kernel_pages(w);
	fx_end(w);
	n = read_events(path, k, 64, &warnings, &d);
	b = n > 0 ? find_value(k, n, 43) : -1;
	check(b > 0 && k[b].kernel && k[b].ev.tid == 555 && !strcmp(k[b].comm, "<...>"),
	      "kernel: no KTASKS record: a buffer for each pid the pages name, comm <...>");
	if (d)
		utrace_dat_close(d);
}

/* The values of the kernel events one iterator gives (show: OWN shown),
 * a bit each (42..45), and how many it left out as utrace's own. */
static unsigned own_pass(struct utrace_dat *d, bool show, uint64_t *own)
{
	struct utrace_dat_iter *it;
	struct utrace_error err;
	struct utrace_event ev;
	unsigned seen = 0;
	int32_t v;

	utrace_dat_show_own(d, show);
	if (utrace_dat_iter_open(d, &it, &err) < 0)
		return 0;
	while (utrace_dat_iter_next(it, &ev, &err) > 0)
		if (ev.kind == UTRACE_EV_EVENT && ev.id == KEV_ID && ev.data_len >= 4) {
			memcpy(&v, ev.data, 4);
			if (v >= 42 && v <= 45)
				seen |= 1u << (v - 42);
		}
	*own = utrace_dat_iter_own(it);
	utrace_dat_iter_close(it);
	return seen;
}

/* OWN records: a kernel event of the window's thread inside it is left
 * out (both ends included), another thread's or one outside is not. */
static void test_own(void)
{
	const char *path = check_path("kernel-own.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct utrace_dat_own own[4] = {
	    {100, UTRACE_OWN_START, 1000, 1005},		   /* 42 @1005: out */
	    {555, UTRACE_OWN_BUFFER, 0, 2014},			   /* 43 @2015: kept */
	    {555, UTRACE_OWN_THREAD, 2015 + (1u << 27) + 5, UINT64_MAX}, /* 44: out */
	    {100, UTRACE_OWN_EXIT, 10, 5}};			   /* ends before it starts */
	struct utrace_dat *d = NULL;
	struct utrace_error err;
	unsigned seen, nw;
	uint64_t n = 0;

	kernel_header(w);
	fx_graph_basic(w);
	kernel_pages(w);
	for (int i = 0; i < 4; i++)
		fx_write(w, UTRACE_DAT_OWN, &own[i], sizeof(own[i]), NULL, 0);
	fx_end(w);
	if (utrace_dat_open(path, &d, &err) < 0) {
		check(0, "own: the file reads: %s", err.msg);
		return;
	}
	nw = utrace_dat_warning_count(d);
	check(utrace_dat_own_windows(d) == 3 && nw >= 1,
	      "own: three windows, the reversed one skipped with a warning (%zu, %u warnings)",
	      utrace_dat_own_windows(d), nw);
	seen = own_pass(d, false, &n);
	check(seen == (1u << 1 | 1u << 3) && n == 2,
	      "own: the events in a window of their thread are left out and counted (0x%x, %llu)",
	      seen, (unsigned long long)n);
	seen = own_pass(d, true, &n);
	check(seen == 0xf && n == 0, "own: utrace_dat_show_own() keeps them (0x%x, %llu)", seen,
	      (unsigned long long)n);
	utrace_dat_close(d);
}

/* ftrace:kernel_stack (events/ftrace/kernel_stack/format, id 4). */
static const char kstack_format[] =
    "name: kernel_stack\n"
    "ID: 4\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:int size;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"
    "\n"
    "print fmt: \"\\t=> %ps\\n\", (void *)REC->caller[0]\n";

static const char ksyms[] = "ffffffff81000000 T _stext\n"
			    "ffffffff81001000 t __schedule\n"
			    "ffffffff81001800 T schedule\n"
			    "ffffffffc0001000 t mod_wait\t[mymod]\n"
			    "ffffffffc0002000 t mod_end\t[mymod]\n";

/* A kev, then its kernel_stack entry (3 frames, the last one unnamed
 * below _stext), as the kernel's stacktrace trigger writes them. */
static void kstack_page(struct utrace_dat_writer *w)
{
	uint64_t pcs[4] = {0xffffffff81001234ull, 0xffffffff81001810ull, 0xffffffffc0001010ull,
			   0x1000};
	uint16_t type = 4;
	int32_t pid = 100, size = 4;
	struct kpage p = {.len = 0};

	ipp_event(&p, 0, 100, 42);
	ipp_u32(&p, 12u | 3u << 5); /* 48 bytes of data */
	memcpy(p.b + 16 + p.len, &type, 2);
	memset(p.b + 16 + p.len + 2, 0, 2);
	memcpy(p.b + 16 + p.len + 4, &pid, 4);
	memcpy(p.b + 16 + p.len + 8, &size, 4);
	memset(p.b + 16 + p.len + 12, 0, 4);
	memcpy(p.b + 16 + p.len + 16, pcs, sizeof(pcs));
	p.len += 48;
	ipp_write(w, 0, &p, 1005, 0);
}

static void test_kernel_stack(void)
{
	const char *path = check_path("kernel-stack.dat");
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct utrace_dat_event_format ef = {4, 0};
	struct iovec iov[3] = {
	    {&ef, sizeof(ef)}, {"ftrace", 7}, {(void *)kstack_format, sizeof(kstack_format)}};
	struct utrace_error err;
	struct utrace_dat *d = NULL;
	uint64_t warnings, off = 0, size = 0;
	struct kev k[16];
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int n, s = -1;

	kernel_header(w);
	if (utrace_dat_write(w, UTRACE_DAT_EVENT_FORMAT, iov, 3, &err) < 0)
		fx_die(&err);
	fx_write(w, UTRACE_DAT_KSYMS, ksyms, sizeof(ksyms) - 1, NULL, 0);
	fx_graph_basic(w);
	kstack_page(w);
	fx_end(w);
	n = read_events(path, k, 16, &warnings, &d);
	for (int i = 0; i < n; i++)
		if (k[i].ev.kind == UTRACE_EV_STACK)
			s = i;
	check(s > 0 && (k[s].ev.flags & UTRACE_EVF_STACK_KERNEL) && k[s].ev.data_len == 32 &&
		  k[s].ev.has_ctx && k[s - 1].ev.kind == UTRACE_EV_EVENT && k[s - 1].value == 42,
	      "kernel stack: a STACK event after its event, 4 frames");
	check(d && utrace_dat_ksym(d, 0xffffffff81001234ull, &off, &size) &&
		  !strcmp(utrace_dat_ksym(d, 0xffffffff81001234ull, &off, &size), "__schedule") &&
		  off == 0x234 && size == 0x800,
	      "kernel stack: kallsyms names an address, its offset and size");
	f = open_memstream(&text, &len);
	if (f && d && s > 0) {
		/* the event's data lives in the iterator's copy: read it again */
		const uint64_t pcs[4] = {0xffffffff81001234ull, 0xffffffff81001810ull,
					 0xffffffffc0001010ull, 0x1000};

		k[s].ev.data = pcs;
		utrace_report_print_stack(f, d, &k[s].ev, false);
	}
	if (f)
		fclose(f);
	n = text && !strcmp(text, "<stack trace>\n => __schedule\n => schedule\n"
				  " => mod_wait [mymod]\n => 0x00001000\n");
	if (!n)
		printf("# got:\n%s", text ? text : "");
	check(n, "kernel stack: printed as trace_stack_print, named from kallsyms");
	free(text);
	if (d)
		utrace_dat_close(d);
}

/* The context column, as trace_print_lat_fmt() prints it. */
static void test_lat_fmt(void)
{
	static const struct {
		uint8_t flags, pc;
		const char *want;
	} cases[] = {
	    {0x00, 0x00, "....."}, {0x01, 0x02, "d..2."}, {0x81, 0x00, "D...."},
	    {0x80, 0x00, "b...."}, {0x24, 0x01, ".N.1."}, {0x04, 0x00, ".n..."},
	    {0x26, 0x00, ".B..."}, {0x02, 0x00, ".l..."}, {0x18, 0x00, "..H.."},
	    {0x48, 0x00, "..Z.."}, {0x40, 0x00, "..z.."}, {0x10, 0x31, "..s13"},
	    {0x01, 0x1f, "d..f1"},
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct utrace_event ev = {
		    .has_ctx = 1, .ctx_flags = cases[i].flags, .ctx_preempt = cases[i].pc};
		char out[6];

		utrace_event_lat_fmt(&ev, out);
		if (strcmp(out, cases[i].want)) {
			printf("# flags %#x pc %#x: got %s, want %s\n", cases[i].flags, cases[i].pc,
			       out, cases[i].want);
			bad++;
		}
	}
	check(!bad, "kernel context: irqs-off, need-resched, irq, preempt, migrate as the kernel");
}

/* The values of the events of path from since_ns on, a resumed reading
 * (rs) or a whole one; *before: how many came out before since_ns. */
static int resumed_values(const char *path, struct utrace_dat_resume *rs, uint64_t since_ns,
			  int32_t *v, int max, int *before)
{
	struct utrace_dat_iter *it = NULL;
	struct utrace_error err;
	struct utrace_event ev;
	struct utrace_dat *d;
	int n = 0, ret;

	*before = 0;
	if (utrace_dat_open(path, &d, &err) < 0 || utrace_dat_iter_open(d, &it, &err) < 0 ||
	    (rs && utrace_dat_iter_resume(it, rs, since_ns, &err) < 0)) {
		printf("# %s\n", err.msg);
		return -1;
	}
	while ((ret = utrace_dat_iter_next(it, &ev, &err)) > 0) {
		if (ev.kind != UTRACE_EV_EVENT || ev.data_len < 4)
			continue;
		if (ev.ts < since_ns)
			(*before)++;
		else if (n < max)
			memcpy(&v[n++], ev.data, 4);
	}
	utrace_dat_iter_close(it);
	utrace_dat_close(d);
	return ret < 0 ? -1 : n;
}

/* A reading resumed from a time starts each CPU's pages around it
 * (dat_kcursor_seek): the events from then on as a whole reading gives
 * them, and the pages well before it not read. */
static void test_resume(void)
{
	const char *path = check_path("kernel-resume.dat");
	struct utrace_dat_writer *w = fx_begin(path, "nop");
	struct utrace_dat_resume *rs = NULL;
	int32_t all[128], part[128];
	int n_all, n_part, before_all, before_part;
	uint64_t since = 40000 + 5;

	kernel_header(w);
	for (int cpu = 0; cpu < 2; cpu++)
		for (int pg = 0; pg < 10; pg++) { /* page pg at 10000 * pg (+ 7 on cpu 1) */
			struct kpage p = {.len = 0};

			for (int e = 0; e < 3; e++) /* at +0, +10, +20 */
				ipp_event(&p, e ? 10 : 0, 100 + cpu,
					  cpu * 1000 + pg * 10 + e);
			ipp_write(w, (uint32_t)cpu, &p, 10000ull * (uint64_t)pg + (uint64_t)cpu * 7, 0);
		}
	fx_end(w);
	if (utrace_dat_resume_new(&rs) < 0) {
		check(0, "kernel resume: a resume");
		return;
	}
	n_all = resumed_values(path, NULL, since, all, 128, &before_all);
	n_part = resumed_values(path, rs, since, part, 128, &before_part);
	check(n_all == 2 * 6 * 3 - 1 && before_all == 2 * 4 * 3 + 1,
	      "kernel resume: a whole reading has %d events from the time, %d before", n_all,
	      before_all);
	check(n_part == n_all && !memcmp(part, all, (size_t)n_all * sizeof(*all)),
	      "kernel resume: the events from the time on, as a whole reading's (%d of %d)",
	      n_part, n_all);
	check(before_part < before_all && before_part <= 2 * 2 * 3,
	      "kernel resume: the pages before the time not read (%d events of them out, of %d)",
	      before_part, before_all);
	utrace_dat_resume_free(rs);
}

int main(void)
{
	if (check_tmpdir_init("dat-kernel") < 0) {
		perror("mkdtemp");
		return 2;
	}
	test_merge();
	test_no_tasks();
	test_own();
	test_kernel_stack();
	test_lat_fmt();
	test_resume();
	check_tmpdir_cleanup();
	return check_done();
}
