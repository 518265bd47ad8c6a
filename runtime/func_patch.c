/* SPDX-License-Identifier: MIT */
/*
 * func_patch.c - tracing the functions of an object built without the
 * instrumentation flags: its function entries become its call sites.
 *
 * The tool decides everything (lib/probes/func_patch.c decodes the object
 * and picks the entries a 5-byte jmp can safely cover) and sends, per
 * entry, the displaced instructions relocated for a slot of this file's
 * detour area (common/proto.h FPATCH).  Each slot, within rel32 reach of
 * the object like the stubs:
 *
 *   slot i:  call stub_i          the compiler sites' stub: push id, tracer
 *            <displaced insns>    relocated by the tool
 *            jmp entry + len      back into the function
 *
 * and the entry becomes `jmp slot_i`.  The call makes the stack exactly
 * what a patched compiler site makes it (return into the slot, then the
 * caller's return address, which function_graph hooks), so the tracers,
 * their filters and the exception/longjmp handling of fgraph.c and
 * unwind.c work unchanged; the detour is left with `jmp`, so no frame of
 * it stays on the stack while the function runs, and nothing but the
 * tracer's own trampoline ever returns into a slot.
 *
 * Each slot gets an FDE (the tool's call frame instructions for its
 * displaced ones), registered with libgcc's __register_frame: a call
 * among the displaced instructions leaves a return address inside the
 * slot, which backtrace() and other unwinders must step through.  A
 * program without libgcc_s gets it loaded for that (glibc's backtrace()
 * loads it too, later, and would find no frames of ours then).
 *
 * The entries are patched through text_poke.c's int3-first batch.  A
 * thread that meets the int3 meanwhile resumes at its slot's displaced
 * instructions (rt_fpatch_resume), which is the function run untraced
 * once: skipping 5 bytes, as for a NOP site, would skip real code.
 *
 * An entry the tool could not prove safe for a jmp but whose first
 * instruction moves (UTRACE_FPATCH_ENT_INT3) keeps a 1-byte int3 for
 * good: text_poke.c's SIGTRAP handler finds it in the table below and
 * sets the thread's rip to the slot's start, so that after the sigreturn
 * the slot runs exactly as after the jmp (call stub_i, the first
 * instruction, jmp back): the tracer runs outside the signal handler,
 * and the stack is the function's entry stack.  A one-byte store needs
 * no int3-first protocol (rt_text_poke_bytes).  Costlier (a signal per
 * call), so only where the jmp is refused.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>

#include "arch/x86_64/insn.h"
#include "runtime/rt.h"

#define FP_HEAD UTRACE_FPATCH_HEAD
#define FP_INT3 0x80u /* in fpatch_len: the entry takes an int3 */
#define FP_FDE_MAX 64 /* an FDE: 4 + 4 + 8 + 8 + 1 + UTRACE_FPATCH_CFI, padded */
#define FP_QUIESCE_TRIES 10		 /* attached: quiesced batches tried */
#define FP_QUIESCE_PAUSE_NS 10000000L /* between two */
#define FP_REFUSED_MAX 64		 /* entries left as int3s for a thread's sake */

/* The slots' .eh_frame: the CIE (common/proto.h), the FDEs, a 0 word. */
struct fp_frames {
	uint8_t *buf;
	size_t len;
};

static const uint8_t fp_cie[24] = {
    20,	  0,	0,   0,	   0, 0,    0,	0, /* length, CIE id */
    1,	  'z',	'R', 0,	   1, 0x78, 16,	   /* version, "zR", code 1, data -8, return address r16 */
    1,	  0x00,		      /* augmentation: FDE addresses are absolute 8-byte words */
    0x0c, 7,	8,   0x90, 1, /* def_cfa rsp+8; r16 at cfa-8 */
    0,	  0};		      /* nops */

static void fp_fde(struct fp_frames *f, uint64_t slot, const uint8_t *cfi, uint32_t n)
{
	uint8_t *p = f->buf + f->len;
	uint32_t body = 4 + 8 + 8 + 1 + n, pad = (8 - (4 + body) % 8) % 8, len = body + pad;
	uint32_t cie = (uint32_t)(f->len + 4); /* back from this word to the CIE */
	uint64_t range = UTRACE_FPATCH_SLOT;

	memcpy(p, &len, 4);
	memcpy(p + 4, &cie, 4);
	memcpy(p + 8, &slot, 8);
	memcpy(p + 16, &range, 8);
	p[24] = 0; /* no augmentation data */
	memcpy(p + 25, cfi, n);
	memset(p + 25 + n, 0, pad); /* DW_CFA_nop */
	f->len += 4 + len;
}

/* The entries of obj, patched or not, taken from the recorder into the
 * area (RW until fp_arm), their FDEs into fr.  got: entries
 * received so far; *changed: those left alone, whose bytes in memory
 * were not the file's. */
static int fp_receive(struct rt_object *obj, uint8_t *area, uint32_t count, struct fp_frames *fr,
		      uint32_t *changed)
{
	struct utrace_msg_fpatch *m = malloc(UTRACE_MSG_MAX);
	uint32_t got = 0;
	int n, ret = 0;

	if (!m)
		return -ENOMEM;
	while (got < count && ret >= 0) {
		n = rt_recv(m, UTRACE_MSG_MAX, NULL);
		if (n < (int)sizeof(*m) || m->hdr.type != UTRACE_MSG_FPATCH ||
		    m->obj != obj->index || m->first != got || m->count > count - got ||
		    (size_t)n < sizeof(*m) + m->count * sizeof(m->e[0])) {
			ret = n < 0 ? n : -EPROTO;
			break;
		}
		for (uint32_t k = 0; k < m->count; k++, got++) {
			const struct utrace_fpatch_ent *e = &m->e[k];
			uint64_t at = obj->bias + e->vaddr;

			obj->sites[got] = at;
			/* a slot left as int3s is never patched (rt_fpatch_slot) */
			uint8_t *slot = area + (size_t)got * UTRACE_FPATCH_SLOT;

			/* An attached runtime was dlopen()ed, not preloaded: the
			 * program's own sigaction/sigprocmask calls do not reach
			 * trap_guard.c, so one that later blocks or takes over
			 * SIGTRAP would die at a lasting int3: no such entries. */
			if ((e->flags & UTRACE_FPATCH_ENT_INT3) && rt.attached)
				continue;
			if (!e->xol_len || e->xol_len > UTRACE_FPATCH_XOL || !e->len ||
			    e->len >= FP_INT3 ||
			    (e->len < 5 && !(e->flags & UTRACE_FPATCH_ENT_INT3)) || at < obj->lo ||
			    at + e->len > obj->hi)
				continue;
			/* bytes that are not the file's (the plan's): another
			 * tool's uprobe, whose int3 the patch would overwrite */
			if (memcmp((const void *)(uintptr_t)at, e->orig, e->len)) {
				(*changed)++;
				continue;
			}
			obj->fpatch_len[got] =
			    (uint8_t)(e->len | (e->flags & UTRACE_FPATCH_ENT_INT3 ? FP_INT3 : 0));
			memcpy(slot + FP_HEAD, e->xol, e->xol_len);
			if (fr->buf && e->cfi_len <= UTRACE_FPATCH_CFI)
				fp_fde(fr, (uint64_t)(uintptr_t)slot, e->cfi, e->cfi_len);
		}
	}
	free(m);
	return ret;
}

/* The FDEs to libgcc, loaded if need be (kept for good: the unwinder
 * reads them for as long as the slots exist).  Not from inside
 * dl_iterate_phdr, which holds the loader's lock that dlopen takes:
 * fp_arm calls it, after the scan; the real dlopen, not ftrace.c's,
 * which would scan again under the objects lock. */
static void fp_register_frames(void *frames)
{
	void *(*real_dlopen)(const char *, int);
	void (*reg)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "__register_frame");
	void *h;

	if (!reg && (real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen")) &&
	    (h = real_dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL)))
		reg = (void (*)(void *))dlsym(h, "__register_frame");
	if (reg)
		reg(frames);
	else
		free(frames);
}

/* Whether obj is code the runtime itself runs while it patches and
 * traces: libc (mprotect, membarrier, sendmsg), the dynamic loader
 * (dl_iterate_phdr, dlsym) or the unwinder (unwind.c's real _Unwind_*). */
static bool fp_runtime_dep(const struct rt_object *obj)
{
	uint64_t libc = (uint64_t)(uintptr_t)&mprotect, ldso = getauxval(AT_BASE);
	uint64_t unw = (uint64_t)(uintptr_t)dlsym(RTLD_NEXT, "_Unwind_RaiseException");

	return (libc >= obj->lo && libc < obj->hi) || (ldso >= obj->lo && ldso < obj->hi) ||
	       (unw >= obj->lo && unw < obj->hi);
}

static void fp_drop(struct rt_object *obj)
{
	free(obj->sites);
	free(obj->fpatch_len);
	obj->sites = NULL;
	obj->fpatch_len = NULL;
}

/* The recorder says how many entries of obj were left unpatched, and why. */
static void fp_say_changed(const struct rt_object *obj, uint32_t n)
{
	char msg[4200];

	snprintf(msg, sizeof(msg),
		 "%.4000s: %u function entr%s left unpatched: not the file's bytes in memory "
		 "(another tool's uprobe)",
		 obj->path, n, n == 1 ? "y" : "ies");
	rt_log(msg);
}

int rt_fpatch_object(struct rt_object *obj)
{
	size_t plen = strlen(obj->path) + 1;
	struct utrace_msg_fpatch_ask *ask;
	struct utrace_msg_fpatch_plan plan;
	struct utrace_msg_fpatch_area am = {{sizeof(am), UTRACE_MSG_FPATCH_AREA}, obj->index, 0, 0};
	struct fp_frames fr = {NULL, 0};
	uint8_t *area = NULL;
	uint32_t changed = 0;
	uint64_t size;
	int ret;

	if (rt.cfg.tracer != UTRACE_TRACER_FUNCTION &&
	    rt.cfg.tracer != UTRACE_TRACER_FUNCTION_GRAPH)
		return 0;
	ask = malloc(sizeof(*ask) + plen);
	if (!ask)
		return -ENOMEM;
	*ask = (struct utrace_msg_fpatch_ask){
	    {(uint32_t)(sizeof(*ask) + plen), UTRACE_MSG_FPATCH_ASK},
	    obj->index,
	    (obj->flags & UTRACE_OBJ_MAIN) | (fp_runtime_dep(obj) ? UTRACE_FPATCH_ASK_RUNTIME : 0),
	    obj->bias};
	memcpy(ask->path, obj->path, plen);
	ret = rt_send(ask, ask->hdr.size, -1);
	free(ask);
	if (ret >= 0)
		ret = rt_recv(&plan, sizeof(plan), NULL);
	if (ret < 0)
		return ret;
	if (ret < (int)sizeof(plan) || plan.hdr.type != UTRACE_MSG_FPATCH_PLAN ||
	    plan.obj != obj->index)
		return -EPROTO;
	if (!plan.count)
		return 0;
	size = (uint64_t)plan.count * UTRACE_FPATCH_SLOT;
	if (rt.next_id + plan.count <= RT_MAX_IDS && (obj->sites = calloc(plan.count, 8)) &&
	    (obj->fpatch_len = calloc(plan.count, 1)))
		area = rt_map_near(obj->lo, obj->hi, size);
	am.addr = (uint64_t)(uintptr_t)area;
	ret = rt_send(&am, sizeof(am), -1);
	if (!area || ret < 0) {
		fp_drop(obj);
		return ret < 0 ? ret : 0; /* no room: the recorder sends nothing */
	}
	memset(area, INSN_INT3, size);
	fr.buf = malloc(sizeof(fp_cie) + (size_t)plan.count * FP_FDE_MAX + 4);
	if (fr.buf) {
		memcpy(fr.buf, fp_cie, sizeof(fp_cie));
		fr.len = sizeof(fp_cie);
	}
	ret = fp_receive(obj, area, plan.count, &fr, &changed);
	if (changed)
		fp_say_changed(obj, changed);
	if (ret < 0) {
		munmap(area, size);
		fp_drop(obj);
		free(fr.buf);
		return ret;
	}
	if (fr.buf && fr.len > sizeof(fp_cie)) {
		memset(fr.buf + fr.len, 0, 4); /* the end of the list */
		obj->fpatch_frames = fr.buf;
	} else {
		free(fr.buf);
	}
	obj->fpatch = area;
	obj->nr_sites = plan.count;
	obj->flags |= UTRACE_OBJ_FPATCH;
	obj->id_base = rt.next_id;
	rt.next_id += plan.count;
	return 0;
}

/* Each slot's `call stub_i`, then the area R-X: once, before any entry
 * jumps into it (rt_fpatch_enable, after the stubs exist). */
static int fp_arm(struct rt_object *obj)
{
	uint64_t size = (uint64_t)obj->nr_sites * UTRACE_FPATCH_SLOT;

	for (uint32_t i = 0; i < obj->nr_sites; i++) {
		uint8_t *slot = obj->fpatch + (size_t)i * UTRACE_FPATCH_SLOT;

		insn_rel32(slot, INSN_CALL, (uint64_t)(uintptr_t)slot,
			   (uint64_t)(uintptr_t)obj->stubs + RT_STUB_HEADER +
			       (uint64_t)i * INSN_STUB_SIZE);
	}
	size = (size + 4095) & ~4095ull;
	if (mprotect(obj->fpatch, size, PROT_READ | PROT_EXEC) < 0)
		return -errno;
	if (obj->fpatch_frames)
		fp_register_frames(obj->fpatch_frames);
	obj->fpatch_frames = NULL;
	return 0;
}

/* Where entry i jumps to, 0 if its slot is empty. */
uint64_t rt_fpatch_slot(const struct rt_object *obj, uint32_t i)
{
	const uint8_t *slot = obj->fpatch + (size_t)i * UTRACE_FPATCH_SLOT;

	return slot[FP_HEAD] == INSN_INT3 ? 0 : (uint64_t)(uintptr_t)slot;
}

/* Site index of the entry at ip in obj, or nr_sites. */
static uint32_t fp_site_at(const struct rt_object *obj, uint64_t ip)
{
	uint32_t lo = 0, hi = obj->nr_sites;

	while (lo < hi) { /* sites are sorted: the functions' order */
		uint32_t mid = (lo + hi) / 2;

		if (obj->sites[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < obj->nr_sites && obj->sites[lo] == ip ? lo : obj->nr_sites;
}

/* A call to v (a GOT slot's target): does a patched entry trace it?  The
 * entry may sit after an endbr64. */
bool rt_fpatch_traced(const struct rt_object *obj, uint64_t v)
{
	for (uint64_t at = v; at <= v + 4; at += 4) {
		uint32_t i = fp_site_at(obj, at);

		if (i < obj->nr_sites && rt_fpatch_slot(obj, i) &&
		    (rt.site_flags[obj->id_base + i] & UTRACE_SITE_TRACE))
			return true;
	}
	return false;
}

/* text_poke.c's trap handler: a thread met the int3 of an entry being
 * patched: where it goes on (the slot's displaced instructions), or 0.
 * Signal-safe: the objects list only grows while a batch runs. */
uint64_t rt_fpatch_resume(uint64_t ip)
{
	for (const struct rt_object *o = rt.objects; o; o = o->next) {
		uint32_t i;

		if (!(o->flags & UTRACE_OBJ_FPATCH) || ip < o->lo || ip >= o->hi || !o->fpatch)
			continue;
		i = fp_site_at(o, ip);
		if (i < o->nr_sites && rt_fpatch_slot(o, i))
			return rt_fpatch_slot(o, i) + FP_HEAD;
	}
	return 0;
}

/*
 * Entries patched with int3 for good (the tool found no safe jmp): one
 * table of every object's, sorted by address, which the SIGTRAP handler
 * reads with no lock.  A change builds a new table and publishes it with
 * a release store before any int3 it names is written (and after the
 * bytes an unload took away are gone); the old one is never freed, since
 * a handler may still be reading it (one per object loaded or unloaded:
 * small).  Writers hold ftrace.c's objects lock.
 */
struct fp_int3_ent {
	uint64_t addr, slot;
};

struct fp_int3_table {
	size_t n;
	struct fp_int3_ent e[];
};

static struct fp_int3_table *fp_int3_tab;

static bool fp_is_int3(const struct rt_object *obj, uint32_t i)
{
	return obj->fpatch_len[i] & FP_INT3;
}

static uint32_t fp_len(const struct rt_object *obj, uint32_t i)
{
	return obj->fpatch_len[i] & ~FP_INT3;
}

/* SIGTRAP handler (text_poke.c): the slot of the int3 entry at ip, or 0. */
static uint64_t fp_int3_find(uint64_t ip)
{
	const struct fp_int3_table *t = __atomic_load_n(&fp_int3_tab, __ATOMIC_ACQUIRE);
	size_t lo = 0, hi = t ? t->n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->e[mid].addr < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return t && lo < t->n && t->e[lo].addr == ip ? t->e[lo].slot : 0;
}

static int fp_int3_cmp(const void *a, const void *b)
{
	const struct fp_int3_ent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A new table: the current one's entries outside [lo, hi) and room for
 * k more (n: the kept ones). */
static struct fp_int3_table *fp_int3_copy(uint64_t lo, uint64_t hi, size_t k)
{
	const struct fp_int3_table *old = fp_int3_tab;
	size_t n = old ? old->n : 0;
	struct fp_int3_table *t = malloc(sizeof(*t) + (n + k) * sizeof(t->e[0]));

	if (!t)
		return NULL;
	t->n = 0;
	for (size_t i = 0; i < n; i++)
		if (old->e[i].addr < lo || old->e[i].addr >= hi)
			t->e[t->n++] = old->e[i];
	return t;
}

/* The n entries at addrs (their slots in slots) become int3s: the table
 * first, then the bytes (one byte each, atomic for fetch). */
static int fp_int3_write(uint8_t **addrs, const uint64_t *slots, size_t n)
{
	struct fp_int3_table *t = n ? fp_int3_copy(0, 0, n) : NULL; /* [0, 0): keep all */
	uint8_t *cc = n ? malloc(n) : NULL;
	int ret;

	if (!n)
		return 0;
	if (!t || !cc) {
		free(t);
		free(cc);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		t->e[t->n++] = (struct fp_int3_ent){(uint64_t)(uintptr_t)addrs[k], slots[k]};
		cc[k] = INSN_INT3;
	}
	qsort(t->e, t->n, sizeof(t->e[0]), fp_int3_cmp);
	__atomic_store_n(&fp_int3_tab, t, __ATOMIC_RELEASE);
	rt_text_poke_entry_hook(fp_int3_find);
	ret = rt_text_poke_bytes(addrs, cc, n);
	free(cc);
	return ret;
}

/* Whether another thread runs now (/proc/self/task has more than us). */
static bool fp_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return true; /* cannot tell: as if some did */
	while (n < 2 && (e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n > 1;
}

/* Whether p is one of the n entries a quiesced batch refused. */
static bool fp_refused(const uint64_t *excl, size_t n, const uint8_t *p)
{
	for (size_t k = 0; k < n; k++)
		if (excl[k] == (uint64_t)(uintptr_t)p)
			return true;
	return false;
}

/*
 * The selected entries: int3 ones get their int3; the jmp ones their
 * jmp through text_poke.c's int3-first batch when no other thread runs.
 * Otherwise (a library dlopen()ed while threads run) one of them may be
 * inside an entry's displaced bytes, or in a callee that returns there: a
 * thread that a constructor of the library started, or one that dlopen()ed
 * the same library meanwhile.  The jmp would cut its instructions in two.
 * So (staged) every entry takes an int3 first (a thread already past
 * byte 0 is not disturbed), and the jmps are queued to inproc_probe_opt.c,
 * which writes each once it has seen every thread outside its bytes (the
 * kernel's optprobe rule); those it cannot prove stay int3s, correct and
 * slower.  excl: entries an attached process's quiesced batch refused,
 * which take an int3 instead of their jmp.
 */
static int fp_enable(struct rt_object *obj, struct rt_poke *pokes, bool staged,
		     const uint64_t *excl, size_t nexcl)
{
	uint8_t **addrs = malloc((obj->nr_sites + 1) * sizeof(*addrs));
	uint64_t *slots = calloc(obj->nr_sites + 1, sizeof(*slots));
	uint64_t *hi = malloc((obj->nr_sites + 1) * sizeof(*hi));
	size_t nj = 0, ni = 0;
	int ret = addrs && slots && hi ? 0 : -ENOMEM;

	for (uint32_t i = 0; ret >= 0 && i < obj->nr_sites; i++) {
		uint8_t *p = (uint8_t *)(uintptr_t)obj->sites[i];
		uint64_t slot = rt_fpatch_slot(obj, i);
		bool int3 = fp_is_int3(obj, i) || staged || fp_refused(excl, nexcl, p);

		if (!p || !slot || !rt_site_patched(obj->id_base + i, rt.site_flags[obj->id_base + i]))
			continue;
		if (int3 && *p != INSN_INT3) { /* (an earlier try may have put it) */
			addrs[ni] = p;
			slots[ni++] = slot;
		}
		if (!fp_is_int3(obj, i) && (staged || !int3)) { /* `jmp slot` */
			insn_rel32(pokes[nj].bytes, INSN_JMP, (uint64_t)(uintptr_t)p, slot);
			pokes[nj].addr = p;
			hi[nj++] = (uint64_t)(uintptr_t)p + fp_len(obj, i);
		}
	}
	if (ret >= 0)
		ret = fp_int3_write(addrs, slots, ni);
	if (ret >= 0 && !staged)
		ret = rt_text_poke_batch(pokes, nj);
	else if (ret >= 0 && nj && !rt.attached) {
		rt_inproc_probe_opt_start(NULL);
		rt_inproc_probe_opt_queue(pokes, hi, nj);
	}
	free(addrs);
	free(slots);
	free(hi);
	return ret;
}

/*
 * An attached process (attach.c) runs threads whatever it loads, but its
 * batches stop them: the recorder holds every other thread with ptrace
 * out of the bytes being rewritten and refuses if one has a return
 * address or a signal frame into them (lib/attach/quiesce.c), so its
 * jmps are written at once, as in a program started under utrace.  An
 * entry a thread would come back into (the recorder names it) keeps an
 * int3 instead, and the others are tried again; a batch still refused
 * after a few tries (nothing written) leaves every entry an int3 for
 * the attach, correct and slower.  Their jmps are not queued to
 * inproc_probe_opt.c: its question is a signal to every thread, which would
 * end a sleep or a sigsuspend of the program's with EINTR (the
 * recorder's ptrace leaves such threads alone), and the attach thread,
 * which blocks it, would never answer anyway.
 */
int rt_fpatch_enable(struct rt_object *obj, struct rt_poke *pokes)
{
	struct timespec pause = {0, FP_QUIESCE_PAUSE_NS};
	uint64_t excl[FP_REFUSED_MAX];
	bool staged = fp_threads();
	size_t nexcl = 0;
	int ret;

	rt_text_poke_resume_hook(rt_fpatch_resume);
	if ((ret = fp_arm(obj)) < 0)
		return ret;
	/* an entry a thread's stack points into keeps an int3 (its jmp
	 * would cut the bytes the thread comes back to), the others are
	 * tried again; a refusal for no named entry is mostly passing (a
	 * thread being stepped): the attach thread may wait a little */
	for (int k = 0; staged && rt.attached && k < FP_QUIESCE_TRIES;) {
		uint64_t a;

		if (fp_enable(obj, pokes, false, excl, nexcl) >= 0)
			return 0;
		if ((a = rt_text_poke_refused()) && nexcl < FP_REFUSED_MAX &&
		    !fp_refused(excl, nexcl, (const uint8_t *)(uintptr_t)a)) {
			excl[nexcl++] = a;
			continue;
		}
		k++;
		nanosleep(&pause, NULL);
	}
	return fp_enable(obj, pokes, staged, NULL, 0);
}

/* A live change (ftrace.c): whether selected entry i may become `jmp
 * slot` in its batch: not an int3 entry (a jmp would cover the bytes
 * after its one instruction), and no int3 there now (a jmp queued to
 * inproc_probe_opt.c, which writes it once no thread is in the way). */
bool rt_fpatch_live_jmp(const struct rt_object *obj, uint32_t i)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)obj->sites[i];

	return !fp_is_int3(obj, i) && *p != INSN_INT3;
}

/* A live change: the int3 entries the filter selects now and that have
 * no int3 yet get it, as at registration (one byte each). */
int rt_fpatch_live_int3(struct rt_object *obj)
{
	uint8_t **addrs = malloc((obj->nr_sites + 1) * sizeof(*addrs));
	uint64_t *slots = malloc((obj->nr_sites + 1) * sizeof(*slots));
	size_t n = 0;
	int ret = addrs && slots ? 0 : -ENOMEM;

	for (uint32_t i = 0; !ret && i < obj->nr_sites; i++) {
		uint8_t *p = (uint8_t *)(uintptr_t)obj->sites[i];
		uint64_t slot = rt_fpatch_slot(obj, i);

		if (p && slot && fp_is_int3(obj, i) && *p != INSN_INT3 &&
		    rt_site_patched(obj->id_base + i, rt.site_flags[obj->id_base + i])) {
			addrs[n] = p;
			slots[n++] = slot;
		}
	}
	if (!ret)
		ret = fp_int3_write(addrs, slots, n);
	free(addrs);
	free(slots);
	return ret;
}

/* An object unloaded: its code is gone, and so are its int3s. */
void rt_fpatch_forget(uint64_t lo, uint64_t hi)
{
	struct fp_int3_table *t = fp_int3_copy(lo, hi, 0);

	if (t) /* out of memory: stale entries name unmapped code only */
		__atomic_store_n(&fp_int3_tab, t, __ATOMIC_RELEASE);
}
