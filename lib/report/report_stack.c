/* SPDX-License-Identifier: MIT */
/*
 * report_stack.c - a stack of the stacktrace trigger, printed as the
 * kernel's trace_stack_print() prints a TRACE_STACK entry:
 *
 *            hist-1234    [002] .....   123.456789: <stack trace>
 *    => fire
 *    => main
 *
 * Each frame is seq_print_ip_sym() without sym-offset: the name of the
 * function holding the address, or the address in hex ("0x55d0c0a01139")
 * when no symbol covers it.  A frame-pointer walk gives return addresses,
 * the instruction after each call, which may be the first of the next
 * function when the call is a function's last instruction (a noreturn
 * callee), so those are looked up one byte back; the function_graph
 * shadow stack gives function starts, looked up as they are.  The walk
 * starts in the tracepoint's generated code (__utrace_do_EVENT and
 * __utrace_class_do_CLASS, include/utrace/define_trace.h): those first
 * frames are left out, as the kernel skips its own (STACK_SKIP), so the
 * block starts with the function that fired the event.
 *
 * A kernel event's stack is the kernel's own (its stacktrace trigger's
 * kernel_stack entry): named from the recording's copy of kallsyms, as
 * the kernel names it, without skipping anything (the kernel did).
 */
#include <inttypes.h>
#include <string.h>

#include "lib/report/report_stack.h"

/* A kernel_stack entry's frames (the kernel's own stacktrace trigger):
 * up to ULONG_MAX, each named from the recording's kallsyms as
 * seq_print_sym() names it, "0x%08lx" when no symbol holds it. */
static void print_kernel_frames(FILE *out, const struct utrace_dat *d,
				const struct utrace_event *ev)
{
	for (unsigned i = 0; i < ev->data_len / 8; i++) {
		uint64_t pc, off, size;
		const char *name;

		memcpy(&pc, (const uint8_t *)ev->data + 8 * i, 8);
		if (pc == UINT64_MAX)
			break;
		if ((name = utrace_dat_ksym(d, pc, &off, &size)))
			fprintf(out, "\n => %s", name);
		else
			fprintf(out, "\n => 0x%08" PRIx64, pc);
	}
}

void utrace_report_print_stack(FILE *out, struct utrace_dat *d, const struct utrace_event *ev,
			       bool in_comment)
{
	unsigned n = ev->data_len / 8;
	bool lead = true;

	fputs("<stack trace>", out);
	if (ev->flags & UTRACE_EVF_STACK_KERNEL) {
		print_kernel_frames(out, d, ev);
		fputs(in_comment ? " */\n" : "\n", out);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t pc, look, off;
		const char *name;

		memcpy(&pc, (const uint8_t *)ev->data + 8 * i, 8);
		look = (ev->flags & UTRACE_EVF_STACK_RET) && pc ? pc - 1 : pc;
		name = utrace_dat_addr_name(d, ev->image, look, &off);
		if (lead && name && !strncmp(name, "__utrace_", 9) && strstr(name, "do_"))
			continue;
		lead = false;
		if (name)
			fprintf(out, "\n => %s", name);
		else
			fprintf(out, "\n => 0x%" PRIx64, pc);
	}
	fputs(in_comment ? " */\n" : "\n", out);
}
