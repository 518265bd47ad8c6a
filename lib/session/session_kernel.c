/* SPDX-License-Identifier: MIT */
/*
 * session_kernel.c - what `utrace record` writes for the kernel side
 * (lib/session/session_internal.h): kernel tracing started on a pid, the
 * tracefs instance's pages and formats, the sampler's PERF records and
 * their attributes, and the kernel symbols the samples and the kernel's
 * stacks need.
 *
 * Design: each is one call into the recorder (lib/record/recorder.h),
 * shaped as the callbacks of lib/kernel and lib/sample want them.  The
 * kernel symbols are named while recording ends, since only this
 * machine's /proc/kallsyms can name them.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <sys/uio.h>

#include "lib/session/session_internal.h"
#include "lib/sample/offcpu.h"
#include "lib/tracefile/dat_format.h"

int session_kernel_start(struct session_kernel *k, pid_t pid)
{
	return utrace_ktrace_start(k->kt, k->system_wide ? 0 : pid, k->children, &k->err);
}

int session_kpage(void *r, uint32_t cpu, const void *page, size_t len, struct utrace_error *err)
{
	return utrace_recorder_write_kpage(r, cpu, page, len, err);
}

/* A drain of the sampler: one PERF record per CPU buffer's records. */
int session_perf(void *r, uint32_t cpu, const void *records, size_t len, struct utrace_error *err)
{
	struct utrace_dat_perf h = {cpu, 0};
	struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)records, len}};

	return utrace_recorder_write_record(r, UTRACE_DAT_PERF, iov, 2, err);
}

/* The off-CPU samples of a drain (--off-cpu), in a record of their own. */
int session_offcpu(void *r, uint32_t cpu, const void *records, size_t len, struct utrace_error *err)
{
	struct utrace_dat_perf h = {cpu, 0};
	struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)records, len}};

	_Static_assert(UTRACE_OFFCPU_SAMPLE_TYPE == UTRACE_DAT_OFFCPU_SAMPLE_TYPE,
		       "the sampler writes the off-CPU samples the file says it holds");
	return utrace_recorder_write_record(r, UTRACE_DAT_PERF_OFFCPU, iov, 2, err);
}

/* What the samples hold, before the first of them. */
int session_perf_attr(struct utrace_recorder *r, const struct utrace_sampler *sp, bool user_only,
		      struct utrace_error *err)
{
	struct utrace_sampler_attr a;
	struct utrace_dat_perf_attr pa;
	struct iovec iov = {&pa, sizeof(pa)};

	utrace_sampler_attr(sp, &a);
	pa = (struct utrace_dat_perf_attr){.sample_type = a.sample_type,
					   .freq = a.freq,
					   .flags = user_only ? UTRACE_DAT_PERF_USER_ONLY : 0,
					   .regs_user = a.regs_user,
					   .stack_user = a.stack_user};
	return utrace_recorder_write_record(r, UTRACE_DAT_PERF_ATTR, &iov, 1, err);
}

/* The kernel symbols the samples need, named now (only this machine's
 * /proc/kallsyms can). */
int session_ksyms(struct utrace_recorder *r, struct utrace_sampler *sp, struct utrace_error *err)
{
	struct iovec iov;
	size_t len;
	void *buf;
	int ret = utrace_sampler_ksyms(sp, &buf, &len, err);

	if (ret == 0 && len) {
		iov = (struct iovec){buf, len};
		ret = utrace_recorder_write_record(r, UTRACE_DAT_PERF_KSYMS, &iov, 1, err);
	}
	free(buf);
	return ret;
}

int session_kformat(void *r, const char *system, const char *name, int id, const char *text,
		    struct utrace_error *err)
{
	return utrace_recorder_write_kformat(r, system, name, id, text, err);
}

/* When recording ends: the kernel symbols of the frames of the kernel's
 * stacks the recording holds (-R stacktrace, hists on common_stacktrace),
 * named while this machine's /proc/kallsyms is at hand. */
int session_kstack_syms(struct utrace_ktrace *kt, struct utrace_recorder *r,
			struct utrace_error *err)
{
	const uint64_t *addrs = NULL;
	size_t n, len;
	char *text;
	int ret;

	if (!utrace_ktrace_stacks(kt) || !(n = utrace_recorder_kstack_addrs(r, &addrs)))
		return 0;
	if (!(text = utrace_ktrace_kallsyms(NULL, addrs, n, &len, err)))
		return err->code;
	ret = len ? utrace_recorder_write_ksyms(r, text, len, err) : 0;
	free(text);
	return ret;
}
