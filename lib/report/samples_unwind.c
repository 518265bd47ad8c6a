/* SPDX-License-Identifier: MIT */
/*
 * samples_unwind.c - DWARF unwinding of the samples of `record
 * --call-graph dwarf` (samples_unwind.h), with elfutils' libdwfl as perf's
 * unwind-libdw.c does it.
 *
 * Design: one Dwfl per process of the recording (kept while the report
 * runs, so each file's ELF and CFI are read once, not once per sample as
 * perf does), attached to "threads" whose state is the sample being
 * unwound:
 *
 *   set_initial_registers  the sample's user registers, in DWARF's order
 *   memory_read            8 bytes of the sample's stack copy (from its
 *                          sp on); else of the file mapped there
 *   frame callback         a pc, its file reported to the Dwfl first if
 *                          new (the kernel's MMAP records say which file
 *                          and where: utrace_dat_sample_map), so the next
 *                          frame's CFI can be found
 *
 * A return address is the instruction after the call: as perf does, it
 * is taken one byte back (in the call) for every frame but the first.
 *
 * Under function_graph a traced call's return slot holds the return
 * trampoline, which has no CFI: the unwinder would stop there.  As the
 * kernel's unwinders ask ftrace_graph_ret_addr(), memory_read gives the
 * real return address instead: the sample carries those of its thread's
 * open calls, innermost first (lib/tracefile/dat_samples_graph.c), and
 * the slots that hold the trampoline are met innermost first too, each
 * given the next one (a slot read again gets the same).
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <asm/perf_regs.h>
#endif

#include "lib/report/samples_unwind.h"

struct proc {
	int32_t pid;
	Dwfl *dwfl; /* NULL: could not attach (no module, no backend) */
	struct proc *next;
};

struct utrace_unwind {
	struct utrace_dat *d;
	struct proc *procs;
	const struct utrace_dat_sample *s; /* the sample being unwound */
	uint64_t sp;			   /* its user stack pointer */
	uint64_t chain[UTRACE_UNWIND_MAX + 512];
	uint32_t nr, max;
	uint64_t slots[UTRACE_UNWIND_MAX]; /* trampoline slots met, by graph_rets' order */
	uint32_t nr_slots;
};

static char *debuginfo_path;
static const Dwfl_Callbacks offline = {
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
    .section_address = dwfl_offline_section_address,
};

/* Register n of the sample (PERF_REG_* bit n of its mask), 0 if absent. */
static uint64_t reg(const struct utrace_dat_sample *s, unsigned n)
{
	uint64_t below = s->regs_mask & ((1ull << n) - 1);

	if (!(s->regs_mask & (1ull << n)))
		return 0;
	return s->regs[__builtin_popcountll(below)];
}

static bool initial_registers(Dwfl_Thread *thread, void *arg)
{
#if defined(__x86_64__)
	const struct utrace_dat_sample *s = ((struct utrace_unwind *)arg)->s;
	/* DWARF's x86_64 numbering: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
	static const unsigned order[17] = {
	    PERF_REG_X86_AX,  PERF_REG_X86_DX,	PERF_REG_X86_CX,  PERF_REG_X86_BX,
	    PERF_REG_X86_SI,  PERF_REG_X86_DI,	PERF_REG_X86_BP,  PERF_REG_X86_SP,
	    PERF_REG_X86_R8,  PERF_REG_X86_R9,	PERF_REG_X86_R10, PERF_REG_X86_R11,
	    PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
	    PERF_REG_X86_IP,
	};
	Dwarf_Word regs[17];

	for (unsigned i = 0; i < 17; i++)
		regs[i] = reg(s, order[i]);
	return dwfl_thread_state_registers(thread, 0, 17, regs);
#else
	(void)thread;
	(void)arg;
	return false;
#endif
}

static uint64_t user_sp(const struct utrace_dat_sample *s)
{
#if defined(__x86_64__)
	return reg(s, PERF_REG_X86_SP);
#else
	(void)s;
	return 0;
#endif
}

static uint64_t user_ip(const struct utrace_dat_sample *s)
{
#if defined(__x86_64__)
	return reg(s, PERF_REG_X86_IP);
#else
	(void)s;
	return 0;
#endif
}

/* Outside the stack copy: the file mapped at addr (its read-only data). */
static bool file_read(struct utrace_unwind *u, Dwarf_Addr addr, Dwarf_Word *out)
{
	uint64_t off;
	const char *path = utrace_dat_sample_map(u->d, u->s->pid, addr, &off);
	int fd;
	bool ok;

	if (!path || path[0] != '/' || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	ok = pread(fd, out, sizeof(*out), (off_t)off) == (ssize_t)sizeof(*out);
	close(fd);
	return ok;
}

/* The real return address of the hooked slot at addr (tramp if unknown). */
static uint64_t graph_ret(struct utrace_unwind *u, uint64_t addr, uint64_t tramp)
{
	uint32_t i;

	for (i = 0; i < u->nr_slots && u->slots[i] != addr; i++)
		;
	if (i == u->nr_slots && i < UTRACE_UNWIND_MAX)
		u->slots[u->nr_slots++] = addr;
	return i < u->s->nr_graph_rets && u->s->graph_rets[i] ? u->s->graph_rets[i] : tramp;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out, void *arg)
{
	struct utrace_unwind *u = arg;

	(void)dwfl;
	if (addr >= u->sp && addr - u->sp + sizeof(*out) <= u->s->stack_size) {
		memcpy(out, u->s->stack + (addr - u->sp), sizeof(*out));
		if (u->s->nr_graph_rets &&
		    utrace_dat_sample_is_graph_return(u->d, u->s->pid, *out))
			*out = graph_ret(u, addr, *out);
		return true;
	}
	return file_read(u, addr, out);
}

/* One thread, the sample's. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl;
	if (*thread_arg)
		return 0;
	*thread_arg = arg;
	return ((struct utrace_unwind *)arg)->s->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl;
	(void)tid;
	*thread_arg = arg;
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = initial_registers,
};

/* The file mapped at pc in the sample's process, reported if new. */
static void report_module(struct utrace_unwind *u, Dwfl *dwfl, uint64_t pc)
{
	uint64_t off;
	const char *path, *base;

	if (dwfl_addrmodule(dwfl, pc))
		return;
	path = utrace_dat_sample_map(u->d, u->s->pid, pc, &off);
	if (!path || path[0] != '/' || access(path, R_OK))
		return;
	base = strrchr(path, '/') + 1;
	/* the load bias: where the file's offset 0 is mapped */
	dwfl_report_elf(dwfl, base, path, -1, pc - off, false);
}

static struct proc *proc_of(struct utrace_unwind *u)
{
	struct proc *p;

	for (p = u->procs; p; p = p->next)
		if (p->pid == u->s->pid)
			return p;
	if (!(p = calloc(1, sizeof(*p))))
		return NULL;
	p->pid = u->s->pid;
	p->next = u->procs;
	u->procs = p;
	p->dwfl = dwfl_begin(&offline);
	if (!p->dwfl)
		return p;
	report_module(u, p->dwfl, user_ip(u->s));
	if (!dwfl_attach_state(p->dwfl, NULL, p->pid, &thread_callbacks, u)) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
	}
	return p;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct utrace_unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	report_module(u, dwfl_thread_dwfl(dwfl_frame_thread(state)), pc);
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!activation)
		pc--;
	u->chain[u->nr++] = pc;
	return u->nr < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int utrace_unwind_sample(struct utrace_unwind *u, const struct utrace_dat_sample *s,
			 struct utrace_dat_sample *full)
{
	uint32_t nk = s->nr_kernel < 512 ? s->nr_kernel : 512;
	struct proc *p;

	*full = *s;
	if (!s->nr_regs || !user_ip(s))
		return 0;
	u->s = s;
	u->sp = user_sp(s);
	u->nr_slots = 0;
	if (nk) /* the kernel's part (no chain at all with :u) */
		memcpy(u->chain, s->chain, nk * sizeof(*u->chain));
	u->nr = nk;
	u->max = nk + UTRACE_UNWIND_MAX;
	if (!(p = proc_of(u)))
		return -ENOMEM;
	if (!p->dwfl || dwfl_getthread_frames(p->dwfl, s->tid, frame_cb, u) != 0) {
		/* at least the sample's own user ip */
		if (u->nr == nk)
			u->chain[u->nr++] = user_ip(s);
	}
	full->chain = u->chain;
	full->nr = u->nr;
	full->nr_kernel = nk;
	return 0;
}

int utrace_unwind_new(struct utrace_dat *d, struct utrace_unwind **out, struct utrace_error *err)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	(*out)->d = d;
	return 0;
}

void utrace_unwind_free(struct utrace_unwind *u)
{
	if (!u)
		return;
	while (u->procs) {
		struct proc *p = u->procs;

		u->procs = p->next;
		if (p->dwfl)
			dwfl_end(p->dwfl);
		free(p);
	}
	free(u);
}
