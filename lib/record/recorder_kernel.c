/* SPDX-License-Identifier: MIT */
/*
 * recorder_kernel.c - the records of the kernel side of a recording
 * (docs/utrace-dat.md): KHEADER once, an EVENT_FORMAT per enabled kernel
 * event (kernel ids, below the user events' 32768), the KPAGE records as
 * lib/kernel/kernel_trace.c reads them, and KTASKS when recording ends.  They go
 * through the session's writer (utrace_recorder_write_record), between the
 * user-space records, in the order they are read; or, when kernel events
 * have triggers the recorder runs (recorder_khist.c), through the merge
 * that runs them in time order and writes the pages again
 * (recorder_kmerge.c).  KSYMS, the kernel's symbols of the frames of the
 * kernel's own stacks (a stacktrace trigger it runs), when recording ends
 * (the merge collects the frames: utrace_recorder_kstack_addrs).  In a
 * live recording whose merge runs, the trace_marker writes too: a print
 * entry of the writer (recorder_kmarker.c).
 */
#include <string.h>
#include <sys/uio.h>

#include "lib/tracefile/dat_format.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_kernel.h"

int utrace_recorder_write_kheader(struct utrace_recorder *r, const char *clock,
				  uint32_t subbuf_size, const char *header_page,
				  const char *header_event, struct utrace_error *err)
{
	struct utrace_dat_kheader h = {.subbuf_size = subbuf_size};
	struct iovec iov[3] = {{&h, sizeof(h)},
			       {(void *)header_page, strlen(header_page) + 1},
			       {(void *)header_event, strlen(header_event) + 1}};

	strncpy(h.clock, clock, sizeof(h.clock) - 1);
	rec_kheader_set(r, !strcmp(clock, "x86-tsc"), subbuf_size);
	return utrace_recorder_write_record(r, UTRACE_DAT_KHEADER, iov, 3, err);
}

int utrace_recorder_write_kformat(struct utrace_recorder *r, const char *system, const char *name,
				  int id, const char *text, struct utrace_error *err)
{
	struct utrace_dat_event_format ef = {.id = (uint32_t)id};
	struct iovec iov[3] = {{&ef, sizeof(ef)},
			       {(void *)system, strlen(system) + 1},
			       {(void *)text, strlen(text) + 1}};

	if (rec_hist_kformat(r, system, name, id, text, err) < 0)
		return err->code;
	return utrace_recorder_write_record(r, UTRACE_DAT_EVENT_FORMAT, iov, 3, err);
}

int utrace_recorder_write_kpage(struct utrace_recorder *r, uint32_t cpu, const void *page,
				size_t len, struct utrace_error *err)
{
	struct utrace_dat_kpage kp = {.cpu = cpu};
	struct iovec iov[2] = {{&kp, sizeof(kp)}, {(void *)page, len}};

	if (r->km)
		return rec_kmerge_page(r, cpu, page, len, err);
	return utrace_recorder_write_record(r, UTRACE_DAT_KPAGE, iov, 2, err);
}

int utrace_recorder_write_ktasks(struct utrace_recorder *r, const struct utrace_dat_ktask *tasks,
				 size_t n, struct utrace_error *err)
{
	struct iovec iov = {(void *)tasks, n * sizeof(*tasks)};

	/* after the last read: the merge's records all go before the tasks */
	if (r->km && rec_kmerge_round(r, true, err) < 0)
		return err->code;
	return n ? utrace_recorder_write_record(r, UTRACE_DAT_KTASKS, &iov, 1, err) : 0;
}

int utrace_recorder_write_ksyms(struct utrace_recorder *r, const char *text, size_t len,
				struct utrace_error *err)
{
	struct iovec iov = {(void *)text, len};

	return utrace_recorder_write_record(r, UTRACE_DAT_KSYMS, &iov, 1, err);
}

int utrace_recorder_kready(struct utrace_recorder *r, struct utrace_error *err)
{
	return rec_kready(r, err);
}

int utrace_recorder_kround(struct utrace_recorder *r, struct utrace_error *err)
{
	return r->km ? rec_kmerge_round(r, false, err) : 0;
}

void utrace_recorder_kread_begin(struct utrace_recorder *r)
{
	if (r->km)
		rec_kmerge_read_begin(r);
}

void utrace_recorder_kread_end(struct utrace_recorder *r)
{
	if (r->km)
		rec_kmerge_read_end(r);
}
