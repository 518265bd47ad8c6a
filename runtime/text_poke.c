/* SPDX-License-Identifier: MIT */
/*
 * text_poke.c - rewriting 5-byte call sites while other threads run them.
 *
 * A 5-byte store is not atomic with respect to instruction fetch on
 * another core: a thread could execute half an old instruction and half a
 * new one.  The kernel's text_poke_bp() protocol avoids that, and so do we,
 * for a whole batch of sites at once (text_poke_bp_batch):
 *
 *   1. write int3 (cc) over the first byte of every site   cc 1f 44 00 00
 *      sync every core
 *   2. write bytes 1..4 of the new instructions            cc rr rr rr rr
 *      sync every core
 *   3. write the new first byte                            e8 rr rr rr rr
 *      sync every core
 *
 * Between 1 and 3 a thread that reaches a site traps; our SIGTRAP handler
 * finds the site in the batch and resumes the thread after it, as if the
 * site were a NOP (the call is simply not traced this once); a patched
 * function entry is no NOP: func_patch.c's hook says where such a thread
 * goes on instead.  "Sync every
 * core" is membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE): every
 * running thread of the process executes a core-serialising instruction
 * before it returns, so no core keeps stale instructions in its pipeline.
 *
 * The text is made writable for the batch with mprotect(RWX) - never RW
 * alone, which would fault threads executing the same page - and restored
 * to R-X afterwards.  poke_lock serialises the batches: ftrace.c pokes
 * under its objects lock, inproc_probe_opt.c's helper thread without it.
 * Either way the caller keeps the text mapped (a dlopen's own objects, or
 * rt_text_pin): a dlclose meanwhile would unmap it under the stores.
 *
 * dlclose unmaps an object before ftrace.c's interposer can forget it, so
 * no lock of the objects keeps text mapped.  A thread that writes into
 * objects' text outside a dlopen (the live thread, the probe helper) pins
 * them: the write side of text_unmap, while every dlclose holds the read
 * side from before the unmap until the object is forgotten.  Readers nest
 * (a destructor may dlclose) and glibc's default rwlock prefers readers,
 * so a nested dlclose never waits behind a pin.  Order: text_unmap, then
 * ftrace.c's objects lock, then inproc_probes.c's and inproc_probe_opt.c's
 * locks, then poke_lock.
 *
 * UTRACE_POKE_PAUSE_US=N (tests only) sleeps N us once the text is
 * writable, before the stores: the window a dlclose or another thread
 * could fall in becomes wide enough for a test to hit every time.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch/x86_64/insn.h"
#include "runtime/rt.h"

static int poke_sync_cmd;
static bool (*poke_trap_hook)(void *uc);	  /* inproc_probes.c: its int3s */
static uint64_t (*poke_resume_hook)(uint64_t ip); /* func_patch.c: entries, not NOPs */
static uint64_t (*poke_entry_hook)(uint64_t ip);  /* func_patch.c: its int3 entries */
static void (*poke_seen_hook)(void *uc);	  /* inproc_probe_opt.c: a thread seen going on */
static struct rt_poke *volatile poke_batch;
static volatile size_t poke_batch_n;
static pthread_mutex_t poke_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned poke_pause_us; /* UTRACE_POKE_PAUSE_US */
static pthread_rwlock_t text_unmap = PTHREAD_RWLOCK_INITIALIZER;

/* No object is unmapped until rt_text_unpin. */
void rt_text_pin(void)
{
	pthread_rwlock_wrlock(&text_unmap);
}

void rt_text_unpin(void)
{
	pthread_rwlock_unlock(&text_unmap);
}

/* dlclose (ftrace.c): from before the unmap until the object is forgotten */
void rt_text_unmap_begin(void)
{
	pthread_rwlock_rdlock(&text_unmap);
}

void rt_text_unmap_end(void)
{
	pthread_rwlock_unlock(&text_unmap);
}

/*
 * The program's own bytes (attach.c).  A process we attached to must get
 * back exactly what it had when we detach, whatever patched it meanwhile
 * (sites, entries, jump labels, probes, sites patched more than once):
 * while logging is on, every poke first notes what the bytes were.  The
 * earliest note of an address holds the program's bytes.  A poke whose
 * note cannot be kept is refused: no byte is changed that could not be
 * put back.
 */
struct poke_orig {
	uint8_t *addr;
	uint32_t seq; /* order of the notes: the first of an address wins */
	uint8_t len;  /* 5 (a batch) or 1 (rt_text_poke_bytes) */
	uint8_t bytes[INSN_SITE_SIZE];
};
static struct poke_orig *poke_log;
static size_t poke_log_n, poke_log_cap;
static bool poke_logging;

/* Room for n more notes; false if there is none. */
static bool poke_reserve(size_t n)
{
	if (poke_logging && poke_log_n + n > poke_log_cap) {
		size_t cap = (poke_log_n + n) * 2;
		struct poke_orig *p = realloc(poke_log, cap * sizeof(*p));

		if (!p)
			return false;
		poke_log = p;
		poke_log_cap = cap;
	}
	return true;
}

/* Notes the bytes at n addresses (len each), in room reserved already. */
static void poke_note(uint8_t *const *addrs, size_t stride, size_t n, uint8_t len)
{
	if (!poke_logging)
		return;
	for (size_t i = 0; i < n; i++) {
		struct poke_orig *o = &poke_log[poke_log_n];
		uint8_t *a = *(uint8_t *const *)(const void *)((const char *)addrs + i * stride);

		o->addr = a;
		o->seq = (uint32_t)poke_log_n++;
		o->len = len;
		memcpy(o->bytes, a, len);
	}
}

/* attach.c: the other threads stopped around a batch (see rt.h). */
static int (*poke_quiesce)(const struct rt_poke *pokes, size_t n, bool stop);

void rt_text_poke_quiesce_hook(int (*hook)(const struct rt_poke *pokes, size_t n, bool stop))
{
	poke_quiesce = hook;
}

static uint64_t poke_refused; /* under poke_lock, read by the batch's caller */

void rt_text_poke_set_refused(uint64_t addr)
{
	poke_refused = addr;
}

uint64_t rt_text_poke_refused(void)
{
	return poke_refused;
}

/* a fork()ed child has one thread: a lock held by another is free */
static void poke_child(void)
{
	pthread_mutex_init(&poke_lock, NULL);
	pthread_rwlock_init(&text_unmap, NULL); /* a pinning thread is not here */
}

static int membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

int rt_text_poke_init(void)
{
	int cmds = membarrier(MEMBARRIER_CMD_QUERY);
	const char *pause = getenv("UTRACE_POKE_PAUSE_US");

	poke_pause_us = pause ? (unsigned)strtoul(pause, NULL, 10) : 0;

	pthread_atfork(NULL, NULL, poke_child);

	if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) &&
	    !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE)) {
		poke_sync_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE;
		return 0;
	}
	/* An IPI ends in IRET, which serialises the core that took it. */
	if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)) {
		poke_sync_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
		return 0;
	}
	return -ENOSYS;
}

static void poke_sync_cores(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	membarrier(poke_sync_cmd);
}

static int poke_cmp(const void *a, const void *b)
{
	const struct rt_poke *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Nothing here calls the program's allocator: a fork child of an attached
 * process puts its code back from a fork handler (attach.c), where an
 * allocator that holds its lock across fork is still locked.  So scratch
 * memory is mapped, and sorting is a shell sort in place (glibc's qsort
 * mallocs a buffer for more than 1 KiB).
 */
static void *poke_scratch(size_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void poke_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *v = base, x[32];

	if (size > sizeof(x))
		return; /* (never: the notes and the pokes are smaller) */
	for (size_t gap = n / 2; gap; gap = gap == 2 ? 1 : gap * 5 / 11)
		for (size_t i = gap, j; i < n; i++) {
			memcpy(x, v + i * size, size);
			for (j = i; j >= gap && cmp(v + (j - gap) * size, x) > 0; j -= gap)
				memcpy(v + j * size, v + (j - gap) * size, size);
			memcpy(v + j * size, x, size);
		}
}

static void poke_trap(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uint8_t *ip = (uint8_t *)uc->uc_mcontext.gregs[REG_RIP] - 1; /* int3 is done */
	struct rt_poke *b = poke_batch;
	size_t lo = 0, hi = poke_batch_n;

	if (si->si_code != SI_KERNEL) /* sent by kill(), not an int3 */
		goto not_ours;
	if (poke_trap_hook && poke_trap_hook(uc_))
		goto seen;
	/* A thread that trapped just before step 3 may get its signal only
	 * now: the int3 is gone, so run the instruction that replaced it. */
	if (*ip != INSN_INT3) {
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)ip;
		goto seen;
	}
	/* an entry patched with int3 for good: on to its slot, which calls
	 * the tracer after the sigreturn, as the jmp's would */
	if (poke_entry_hook) {
		uint64_t to = poke_entry_hook((uint64_t)(uintptr_t)ip);

		if (to) {
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)to;
			goto seen;
		}
	}
	while (b && lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (b[mid].addr == ip) {
			uint64_t to = poke_resume_hook ? poke_resume_hook((uint64_t)(uintptr_t)ip) : 0;

			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(to ? to : (uint64_t)(uintptr_t)ip + INSN_SITE_SIZE);
			goto seen;
		}
		if (b[mid].addr < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
not_ours:
	/* Not ours: the program's own disposition (trap_guard.c) */
	rt_trap_forward(sig, si, uc_);
	return;
seen: /* where it goes on is set: inproc_probe_opt.c may want to see it there */
	if (poke_seen_hook)
		poke_seen_hook(uc_);
}

static void poke_trap_install(void)
{
	/* Our handler stays installed after the batch (see poke_trap);
	 * trap_guard.c keeps what the program installs, before or after. */
	rt_trap_guard_install(poke_trap);
}

/* inproc_probe_opt.c: shown every thread that one of our int3s sends on, its
 * ucontext's RIP where it goes on (never back to the int3). */
void rt_text_poke_seen_hook(void (*hook)(void *uc))
{
	poke_seen_hook = hook;
}

/* inproc_probes.c's int3s: hook(uc) resumes the thread and says true if the
 * trap was one of its probes.  Installs the SIGTRAP handler. */
void rt_text_poke_trap_hook(bool (*hook)(void *uc))
{
	poke_trap_hook = hook;
	poke_trap_install();
}

void rt_text_poke_resume_hook(uint64_t (*hook)(uint64_t ip))
{
	poke_resume_hook = hook;
}

void rt_text_poke_entry_hook(uint64_t (*hook)(uint64_t ip))
{
	poke_entry_hook = hook;
	poke_trap_install();
}

/* mprotect every page the batch touches (sorted, so runs are adjacent). */
static int poke_protect(struct rt_poke *p, size_t n, int prot)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t start = 0, end = 0;

	for (size_t i = 0; i <= n; i++) {
		uintptr_t s = 0, e = 0;

		if (i < n) {
			s = (uintptr_t)p[i].addr & ~(uintptr_t)(pg - 1);
			e = ((uintptr_t)p[i].addr + INSN_SITE_SIZE + pg - 1) & ~(uintptr_t)(pg - 1);
			if (end && s <= end) {
				end = e > end ? e : end;
				continue;
			}
		}
		if (end && mprotect((void *)start, end - start, prot) < 0)
			return -errno;
		start = s;
		end = e;
	}
	return 0;
}

/*
 * Rewrite every pokes[i].addr with pokes[i].bytes.  Sites must currently
 * hold a complete 5-byte instruction (never the 1-byte NOP sled, see
 * insn.h) or an int3 on its first byte.  Sorts pokes.
 */
int rt_text_poke_batch(struct rt_poke *pokes, size_t n)
{
	int ret, quiet;

	if (!n)
		return 0;
	poke_sort(pokes, n, sizeof(*pokes), poke_cmp);
	pthread_mutex_lock(&poke_lock);
	/* nothing below allocates: the threads a quiesce stops may hold
	 * malloc's locks */
	if (!poke_reserve(n)) {
		pthread_mutex_unlock(&poke_lock);
		return -ENOMEM;
	}
	poke_refused = 0;
	quiet = poke_quiesce ? poke_quiesce(pokes, n, true) : 0;
	ret = quiet < 0 ? quiet : poke_protect(pokes, n, PROT_READ | PROT_WRITE | PROT_EXEC);
	if (ret < 0) {
		if (quiet > 0)
			poke_quiesce(pokes, n, false);
		pthread_mutex_unlock(&poke_lock);
		return ret;
	}
	poke_note(&pokes[0].addr, sizeof(*pokes), n, INSN_SITE_SIZE);
	if (poke_pause_us)
		usleep(poke_pause_us);

	poke_batch_n = n;
	poke_batch = pokes;
	poke_trap_install();

	for (size_t i = 0; i < n; i++)
		__atomic_store_n(pokes[i].addr, (uint8_t)INSN_INT3, __ATOMIC_RELAXED);
	poke_sync_cores();
	for (size_t i = 0; i < n; i++)
		for (int j = 1; j < INSN_SITE_SIZE; j++)
			__atomic_store_n(pokes[i].addr + j, pokes[i].bytes[j], __ATOMIC_RELAXED);
	poke_sync_cores();
	for (size_t i = 0; i < n; i++)
		__atomic_store_n(pokes[i].addr, pokes[i].bytes[0], __ATOMIC_RELAXED);
	poke_sync_cores();

	poke_batch = NULL;
	poke_batch_n = 0;
	ret = poke_protect(pokes, n, PROT_READ | PROT_EXEC);
	if (quiet > 0)
		poke_quiesce(pokes, n, false);
	pthread_mutex_unlock(&poke_lock);
	return ret;
}

/*
 * One byte per address: int3 on (install) or the original byte back.  A
 * one-byte store is atomic for instruction fetch, so no int3-first step
 * is needed; the sync makes every core see it before we return (the
 * caller publishes what the trap handler needs before installing).
 */
int rt_text_poke_bytes(uint8_t *const *addrs, const uint8_t *bytes, size_t n)
{
	struct rt_poke *p = poke_scratch(n * sizeof(*p));
	int ret;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		p[i].addr = addrs[i];
	poke_sort(p, n, sizeof(*p), poke_cmp);
	pthread_mutex_lock(&poke_lock);
	ret = poke_reserve(n) ? poke_protect(p, n, PROT_READ | PROT_WRITE | PROT_EXEC) : -ENOMEM;
	if (ret >= 0) {
		poke_note(addrs, sizeof(*addrs), n, 1);
		for (size_t i = 0; i < n; i++)
			__atomic_store_n(addrs[i], bytes[i], __ATOMIC_RELAXED);
		poke_sync_cores();
		ret = poke_protect(p, n, PROT_READ | PROT_EXEC);
	}
	pthread_mutex_unlock(&poke_lock);
	munmap(p, n ? n * sizeof(*p) : 1);
	return ret;
}

/* Map size bytes at an address that code in [lo, hi) reaches with rel32
 * (the kernel keeps its trampolines near the text for the same reason). */
/* ---- the program's bytes, put back (attach.c) ------------------------- */

void rt_text_poke_log(bool on)
{
	pthread_mutex_lock(&poke_lock);
	poke_logging = on;
	poke_log_n = 0;
	pthread_mutex_unlock(&poke_lock);
}

/* An object unloaded while attached: its notes go, so that the restore
 * never writes where it was (unmapped, or another object's now). */
void rt_text_poke_unlog(uint64_t lo, uint64_t hi)
{
	size_t keep = 0;

	pthread_mutex_lock(&poke_lock);
	for (size_t i = 0; i < poke_log_n; i++) {
		uint64_t a = (uint64_t)(uintptr_t)poke_log[i].addr;

		if (a < lo || a >= hi)
			poke_log[keep++] = poke_log[i];
	}
	poke_log_n = keep;
	pthread_mutex_unlock(&poke_lock);
}

static int orig_cmp(const void *a, const void *b)
{
	const struct poke_orig *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The program's bytes at each noted address, into pokes (5 bytes) and
 * ones/one_bytes (1 byte); how many of each. */
static void orig_merge(struct rt_poke *pokes, size_t *np, uint8_t **ones, uint8_t *one_bytes,
		       size_t *n1)
{
	for (size_t i = 0, j; i < poke_log_n; i = j) {
		uint8_t want[INSN_SITE_SIZE];
		unsigned have = 0;

		/* byte k: from the earliest note that covers it */
		for (j = i; j < poke_log_n && poke_log[j].addr == poke_log[i].addr; j++)
			if (poke_log[j].len > have) {
				memcpy(want + have, poke_log[j].bytes + have, poke_log[j].len - have);
				have = poke_log[j].len;
			}
		if (have == INSN_SITE_SIZE) {
			pokes[*np].addr = poke_log[i].addr;
			memcpy(pokes[(*np)++].bytes, want, INSN_SITE_SIZE);
		} else {
			ones[*n1] = poke_log[i].addr;
			one_bytes[(*n1)++] = want[0];
		}
	}
}

/* Every noted address gets the program's bytes back (int3 first, as any
 * batch), and logging stops. */
int rt_text_poke_restore(void)
{
	size_t n = poke_log_n, np = 0, n1 = 0;
	size_t bytes = n * (sizeof(struct rt_poke) + sizeof(uint8_t *) + 1);
	struct rt_poke *pokes = poke_scratch(bytes);
	uint8_t **ones = pokes ? (uint8_t **)(pokes + n) : NULL;
	int ret = -ENOMEM;

	pthread_mutex_lock(&poke_lock);
	poke_logging = false;
	pthread_mutex_unlock(&poke_lock);
	if (pokes) {
		poke_sort(poke_log, n, sizeof(*poke_log), orig_cmp);
		orig_merge(pokes, &np, ones, (uint8_t *)(ones + n), &n1);
		ret = rt_text_poke_batch(pokes, np);
		if (ret >= 0 && n1)
			ret = rt_text_poke_bytes(ones, (uint8_t *)(ones + n), n1);
		munmap(pokes, bytes ? bytes : 1);
	}
	poke_log_n = 0;
	return ret;
}

void *rt_map_near(uint64_t lo, uint64_t hi, uint64_t size)
{
	const uint64_t step = 1ull << 20, span = 1ull << 31;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);

	size = (size + pg - 1) & ~(pg - 1);
	for (uint64_t k = 1; k * step < span; k++) {
		for (int dir = 0; dir < 2; dir++) {
			uint64_t hint = dir ? ((hi + pg - 1) & ~(pg - 1)) + k * step
					    : (lo & ~(step - 1)) - k * step - size;
			void *p;

			if (dir == 0 && hint > lo)
				continue; /* wrapped below zero */
			if (!insn_rel32_reaches(lo + INSN_SITE_SIZE, hint) ||
			    !insn_rel32_reaches(lo + INSN_SITE_SIZE, hint + size) ||
			    !insn_rel32_reaches(hi, hint) || !insn_rel32_reaches(hi, hint + size))
				continue;
			p = mmap((void *)hint, size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p == MAP_FAILED)
				continue;
			if ((uint64_t)(uintptr_t)p != hint) { /* kernel without NOREPLACE */
				munmap(p, size);
				continue;
			}
			return p;
		}
	}
	return NULL;
}
