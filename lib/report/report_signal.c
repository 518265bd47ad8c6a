/* SPDX-License-Identifier: MIT */
/*
 * report_signal.c - a crash signal's record (record --dump-on-crash,
 * runtime/crash.c) as the reports print it: "signal: SIGSEGV
 * code=SEGV_MAPERR addr=0x0 ip=crash+0x1b", the names of the kernel's
 * uapi (what uftrace prints as "Segmentation fault: address not mapped
 * (addr: (nil))"), and the interrupted instruction as function+offset,
 * as the kernel's oops prints its RIP.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/record.h"
#include "lib/report/report_signal.h"

const char *utrace_report_signal_name(int sig, char *buf, size_t size)
{
	const char *abbrev = sig > 0 && sig < 65 ? sigabbrev_np(sig) : NULL;

	if (abbrev)
		snprintf(buf, size, "SIG%s", abbrev);
	else
		snprintf(buf, size, "signal %d", sig);
	return buf;
}

/* si_code's name for the crash signals (the kernel's uapi names). */
static const char *signal_code_name(int sig, int code)
{
	static const char *const segv[] = {NULL, "SEGV_MAPERR", "SEGV_ACCERR", "SEGV_BNDERR",
					   "SEGV_PKUERR"};
	static const char *const bus[] = {NULL, "BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR",
					  "BUS_MCEERR_AR", "BUS_MCEERR_AO"};
	static const char *const ill[] = {NULL,		"ILL_ILLOPC", "ILL_ILLOPN",
					  "ILL_ILLADR", "ILL_ILLTRP", "ILL_PRVOPC",
					  "ILL_PRVREG", "ILL_COPROC", "ILL_BADSTK"};
	static const char *const fpe[] = {NULL,		"FPE_INTDIV", "FPE_INTOVF",
					  "FPE_FLTDIV", "FPE_FLTOVF", "FPE_FLTUND",
					  "FPE_FLTRES", "FPE_FLTINV", "FPE_FLTSUB"};
#define CODE(tab) (code < (int)(sizeof(tab) / sizeof(tab[0])) ? tab[code] : NULL)

	switch (code) {
	case SI_USER:
		return "SI_USER";
	case SI_QUEUE:
		return "SI_QUEUE";
	case SI_TKILL:
		return "SI_TKILL";
	case SI_KERNEL:
		return "SI_KERNEL";
	}
	if (code <= 0)
		return NULL;
	switch (sig) {
	case SIGSEGV:
		return CODE(segv);
	case SIGBUS:
		return CODE(bus);
	case SIGILL:
		return CODE(ill);
	case SIGFPE:
		return CODE(fpe);
	}
	return NULL;
#undef CODE
}

void utrace_report_signal_text(struct utrace_dat *d, const struct utrace_event *ev, char *buf,
			       size_t size)
{
	struct urec_signal rec;
	char name[32], code[24], where[160];
	const char *cname, *fn;
	uint64_t off = 0;

	memset(&rec, 0, sizeof(rec));
	memcpy(&rec, ev->data, ev->data_len < sizeof(rec) ? ev->data_len : sizeof(rec));
	cname = signal_code_name((int)ev->id, rec.code);
	if (cname)
		snprintf(code, sizeof(code), "%s", cname);
	else
		snprintf(code, sizeof(code), "%d", rec.code);
	fn = utrace_dat_addr_name(d, ev->image, rec.ip, &off);
	if (fn)
		snprintf(where, sizeof(where), "%s+0x%" PRIx64, fn, off);
	else
		snprintf(where, sizeof(where), "0x%" PRIx64, rec.ip);
	utrace_report_signal_name((int)ev->id, name, sizeof(name));
	if (rec.code > 0)
		snprintf(buf, size, "%s code=%s addr=0x%" PRIx64 " ip=%s", name, code, rec.addr,
			 where);
	else
		snprintf(buf, size, "%s code=%s pid=%d ip=%s", name, code, rec.sender, where);
}
