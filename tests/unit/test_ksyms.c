/* SPDX-License-Identifier: MIT */
/*
 * test_ksyms.c - the kernel symbols a recording saves for its samples
 * (lib/sample/ksyms.c) and their reading back (lib/tracefile/
 * dat_samples.c, PERF_KSYMS), on a kallsyms file written here: kernel
 * addresses of sample ips and call chains collected (user addresses and
 * context markers not), each named by the last text symbol at or below
 * it, whatever kallsyms' order; data symbols ignored; only the symbols
 * needed saved; a kallsyms whose addresses are hidden gives nothing.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sample/ksyms.h"
#include "lib/tracefile/dat_samples.h"
#include "tests/unit/trace_fixture.h"

#define TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN)

static size_t sample(unsigned char *p, uint64_t ip, uint64_t k1)
{
	uint64_t v[7] = {
	    ip, 1, 4, (uint64_t)PERF_CONTEXT_KERNEL, k1, (uint64_t)PERF_CONTEXT_USER, 0x401000};
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, sizeof(h) + sizeof(v)};

	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), v, sizeof(v));
	return sizeof(h) + sizeof(v);
}

int main(void)
{
	static const char kallsyms[] = "ffffffff81000200 T vfs_write\n"
				       "ffffffff81000000 T _stext\n"
				       "ffffffff81000100 t do_syscall_64\n"
				       "ffffffff81000180 D some_data\n"
				       "ffffffff81000300 T unused_fn\n";
	static const char hidden[] = "0000000000000000 T vfs_write\n";
	struct utrace_ksyms *k = utrace_ksyms_new();
	unsigned char rec[256];
	struct utrace_error err;
	size_t n = 0, len;
	void *out;
	uint64_t start = 0;
	const char *name;
	struct utrace_dat *d;
	struct utrace_dat_writer *w;

	check_begin("ksyms");
	check_write_file("kallsyms", kallsyms, sizeof(kallsyms) - 1);
	check_write_file("hidden", hidden, sizeof(hidden) - 1);
	n += sample(rec + n, 0xffffffff81000210ull, 0xffffffff81000190ull);
	n += sample(rec + n, 0x401000, 0xffffffff81000210ull);
	check(utrace_ksyms_add(k, TYPE, rec, n) == 0, "ksyms: addresses collected");
	check(utrace_ksyms_resolve(k, check_path("kallsyms"), &out, &len, &err) == 0,
	      "ksyms: resolved");
	/* two symbols: vfs_write (0x210) and do_syscall_64 (0x190, past some_data) */
	check(len == 2 * 8 + sizeof("do_syscall_64") + sizeof("vfs_write"),
	      "ksyms: only the symbols needed are saved (%zu bytes)", len);
	check(len > 8 && !strcmp((char *)out + 8, "do_syscall_64"),
	      "ksyms: by address, a data symbol does not name code");

	w = fx_begin(check_path("k.dat"), "nop");
	fx_write(w, UTRACE_DAT_PERF_KSYMS, out, len, NULL, 0);
	fx_end(w);
	free(out);
	if (utrace_dat_open(check_path("k.dat"), &d, &err) < 0) {
		check(0, "ksyms: open: %s", err.msg);
		return check_end();
	}
	name = utrace_dat_sample_ksym(d, 0xffffffff81000250ull, &start);
	check(name && !strcmp(name, "vfs_write") && start == 0xffffffff81000200ull,
	      "ksyms: read back, an address named with its symbol's start");
	check(!utrace_dat_sample_ksym(d, 0xffffffff81000000ull, &start),
	      "ksyms: below every saved symbol: none");
	utrace_dat_close(d);

	check(utrace_ksyms_resolve(k, check_path("hidden"), &out, &len, &err) == 0 && len == 0,
	      "ksyms: kallsyms with hidden addresses: nothing saved");
	free(out);
	utrace_ksyms_free(k);
	return check_end();
}
