/* SPDX-License-Identifier: MIT */
/*
 * ftrace.c - call sites: finding them, numbering them, turning them on.
 *
 * Every object built with the instrumentation flags lists its call sites
 * in a section: __patchable_function_entries (-fpatchable-function-entry)
 * or __mcount_loc (-mrecord-mcount).  The section is loaded and relocated
 * like any data, so the runtime reads the site addresses straight from
 * memory, in section order, and numbers them: function id = the object's
 * id_base + index.  The section is found through the object's file on
 * disk (section headers are not mapped).
 *
 * Each object gets a stub region within rel32 reach of its code (the
 * kernel keeps its trampolines near the text for the same reason):
 *
 *   region: +--------------------+-------------+-------------+-----
 *           | jmp *tracer (far)  | stub 0      | stub 1      | ...
 *           +--------------------+-------------+-------------+-----
 *                     ^            push $id0     push $id1
 *                     +----------- jmp region ---+
 *
 * The recorder, which has the symbol tables and the filters, answers the
 * list of sites with one byte of flags per site; the selected ones are
 * patched from NOP to `call stub_i` in one text_poke batch.  Sites that
 * are not selected keep their NOP and cost nothing.
 *
 * dlopen/dlclose are interposed so that libraries loaded later are
 * scanned too, and unloaded ones forgotten.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/x86_64/insn.h"
#include "include/utrace/tracepoint.h"
#include "lib/elf/elf.h"
#include "runtime/rt.h"

static pthread_mutex_t objects_lock = PTHREAD_MUTEX_INITIALIZER;

int (*rt_objects_added_hook)(struct rt_object *added);
int (*rt_objects_libcall_live_hook)(struct rt_object *lc, uint32_t tracer);

static uint64_t page_up(uint64_t x)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);

	return (x + pg - 1) & ~(pg - 1);
}

static void *stubs_map_near(struct rt_object *obj, uint64_t size)
{
	return rt_map_near(obj->lo, obj->hi, size);
}

/*
 * The trampoline an object's stubs jump to under tracer.  Compiler sites
 * are C functions, whose flags are dead at entry and after the return:
 * the plain trampolines.  Entries patched by func_patch.c (an object
 * without compiler sites) may be code off the C convention, which takes
 * or returns a condition in the flags: the ones that keep them, and for
 * function_graph the return trampoline that does (fgraph.c).  While the
 * stack tracer is on, its own (stack_tracer.c), for every tracer.
 */
static void *stubs_tramp(const struct rt_object *obj, uint32_t tracer)
{
	bool keep = obj->flags & UTRACE_OBJ_FPATCH;

	if (rt.stack_on) /* the stack tracer's, which calls the tracer's handler */
		return keep ? (void *)utrace_stack_tramp_keepflags : (void *)utrace_stack_tramp;
	if (tracer == UTRACE_TRACER_FUNCTION)
		return keep ? (void *)utrace_func_tramp_keepflags : (void *)utrace_func_tramp;
	return keep ? (void *)utrace_graph_tramp_keepflags : (void *)utrace_graph_tramp;
}

static int stubs_create(struct rt_object *obj)
{
	uint64_t size = page_up(RT_STUB_HEADER + (uint64_t)obj->nr_sites * INSN_STUB_SIZE);
	void *tramp = stubs_tramp(obj, rt.cfg.tracer);
	uint8_t *r = stubs_map_near(obj, size);

	if (!r)
		return -ENOMEM;
	insn_make_farjmp(r, (uint64_t)(uintptr_t)tramp);
	for (uint32_t i = 0; i < obj->nr_sites; i++) {
		uint8_t *at = r + RT_STUB_HEADER + (uint64_t)i * INSN_STUB_SIZE;

		insn_make_stub(at, (uint64_t)(uintptr_t)at, obj->id_base + i,
			       (uint64_t)(uintptr_t)r);
	}
	/* Written once, before any site can call into it; then R-X. */
	if (mprotect(r, size, PROT_READ | PROT_EXEC) < 0) {
		munmap(r, size);
		return -errno;
	}
	obj->stubs = r;
	obj->stubs_size = size;
	return 0;
}

static struct rt_object *object_find(uint64_t bias, const char *path)
{
	for (struct rt_object *o = rt.objects; o; o = o->next)
		if (o->bias == bias && !strcmp(o->path, path))
			return o;
	return NULL;
}

/* Where a loaded section of obj is in memory, or NULL (absent, or not
 * inside the object's mapping). */
static void *object_section(struct rt_object *obj, const struct utrace_elf *elf, const char *name,
			    uint64_t *size)
{
	struct utrace_elf_section sec;
	uint64_t at;

	if (utrace_elf_find_section(elf, name, &sec) < 0 || !sec.size)
		return NULL;
	at = obj->bias + sec.vaddr;
	if (at < obj->lo || at + sec.size > obj->hi || at + sec.size < at)
		return NULL;
	*size = sec.size;
	return (void *)(uintptr_t)at;
}

/* Site address a if it can be patched safely, else 0 (left alone). */
static uint64_t site_ok(const struct rt_object *obj, uint64_t a)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)a;

	if (a < obj->lo || a + INSN_SITE_SIZE > obj->hi || !(insn_is_nop5(p) || insn_is_nop1x5(p)))
		return 0;
	return a;
}

/*
 * The object's sites: the section's n (mem, relocated runtime addresses),
 * in its order, then those only its symbols show (gcc 12 can lose a whole
 * object's records with a discarded COMDAT function), in the order
 * utrace_elf_extra_sites gives, which is also how the tool numbers them.
 */
static int object_sites(struct rt_object *obj, const struct utrace_elf *elf, const uint64_t *mem,
			size_t n)
{
	uint64_t *known = malloc(n * sizeof(uint64_t)), *extra = NULL;
	size_t nextra = 0, nk = 0;

	if (!known)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (mem[i])
			known[nk++] = mem[i] - obj->bias;
	if (utrace_elf_extra_sites(elf, known, nk, &extra, &nextra) < 0)
		nextra = 0; /* out of memory: the section's sites alone */
	free(known);
	if (rt.next_id + n + nextra > RT_MAX_IDS ||
	    !(obj->sites = malloc((n + nextra) * sizeof(uint64_t)))) {
		free(extra);
		return rt.next_id + n + nextra > RT_MAX_IDS ? -ENOSPC : -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		obj->sites[i] = site_ok(obj, mem[i]);
	for (size_t i = 0; i < nextra; i++)
		obj->sites[n + i] = site_ok(obj, extra[i] + obj->bias);
	if (nextra)
		obj->flags |= UTRACE_OBJ_SYMTAB_SITES;
	free(extra);
	obj->nr_sites = (uint32_t)(n + nextra);
	obj->id_base = rt.next_id;
	rt.next_id += obj->nr_sites;
	return 0;
}

/*
 * Read what the object's sections list, from memory (loaded and relocated
 * like any data; the file only tells where they are): call sites, and the
 * keys and jump sites of static tracepoints.
 */
static int object_read_sections(struct rt_object *obj)
{
	struct utrace_elf *elf;
	const uint64_t *mem;
	uint64_t size = 0;
	size_t n;
	int ret;

	if (utrace_elf_open(obj->path, &elf) < 0)
		return 0; /* not a file we can read: nothing to trace */
	obj->keys = object_section(obj, elf, "__utrace_event_keys", &size);
	obj->nr_keys = obj->keys ? (uint32_t)(size / sizeof(struct utrace_event_key)) : 0;
	obj->jumps = object_section(obj, elf, "__utrace_jump_table", &size);
	obj->nr_jumps = obj->jumps ? (uint32_t)(size / (3 * sizeof(uint64_t))) : 0;
	mem = object_section(obj, elf, "__patchable_function_entries", &size);
	if (mem) {
		obj->flags &= ~UTRACE_OBJ_MCOUNT;
	} else {
		mem = object_section(obj, elf, "__mcount_loc", &size);
		obj->flags |= UTRACE_OBJ_MCOUNT;
	}
	n = mem ? size / sizeof(uint64_t) : 0;
	ret = n ? object_sites(obj, elf, mem, n) : 0;
	utrace_elf_close(elf);
	/* no compiler sites: its function entries, if the tool finds some */
	return n || ret < 0 ? ret : rt_fpatch_object(obj);
}

/* libutrace.so itself: its sanitizer:* events (sanitizer.c), no sites. */
static int object_read_events(struct rt_object *obj)
{
	struct utrace_elf *elf;
	uint64_t size = 0;

	if (utrace_elf_open(obj->path, &elf) < 0)
		return 0;
	obj->keys = object_section(obj, elf, "__utrace_event_keys", &size);
	obj->nr_keys = obj->keys ? (uint32_t)(size / sizeof(struct utrace_event_key)) : 0;
	utrace_elf_close(elf);
	return 0;
}

int rt_object_send(struct rt_object *obj)
{
	size_t plen = strlen(obj->path) + 1;
	struct utrace_msg_object *om;
	struct utrace_msg_sites *sm;
	int ret;

	om = malloc(sizeof(*om) + plen);
	sm = malloc(sizeof(*sm) + UTRACE_SITES_PER_MSG * sizeof(uint64_t));
	if (!om || !sm) {
		free(om);
		free(sm);
		return -ENOMEM;
	}
	om->hdr.type = UTRACE_MSG_OBJECT;
	om->hdr.size = (uint32_t)(sizeof(*om) + plen);
	om->obj = obj->index;
	om->flags = obj->flags;
	om->id_base = obj->id_base;
	om->nr_sites = obj->nr_sites;
	om->bias = obj->bias;
	memcpy(om->path, obj->path, plen);
	ret = rt_send(om, om->hdr.size, -1);
	for (uint32_t first = 0; ret >= 0 && first < obj->nr_sites; first += UTRACE_SITES_PER_MSG) {
		uint32_t cnt = obj->nr_sites - first;

		if (cnt > UTRACE_SITES_PER_MSG)
			cnt = UTRACE_SITES_PER_MSG;
		sm->hdr.type = UTRACE_MSG_SITES;
		sm->hdr.size = (uint32_t)(sizeof(*sm) + cnt * sizeof(uint64_t));
		sm->obj = obj->index;
		sm->first = first;
		sm->count = cnt;
		sm->reserved = 0;
		for (uint32_t i = 0; i < cnt; i++) {
			uint64_t a = obj->sites[first + i];

			sm->vaddr[i] = a ? a - obj->bias : 0;
		}
		ret = rt_send(sm, sm->hdr.size, -1);
	}
	free(om);
	free(sm);
	return ret;
}

/* Receive the recorder's selection for obj into rt.site_flags. */
int rt_object_select(struct rt_object *obj)
{
	struct utrace_msg_select *sel = malloc(UTRACE_MSG_MAX);
	uint32_t got = 0;
	int ret = sel ? 0 : -ENOMEM;

	while (ret >= 0 && got < obj->nr_sites) {
		ret = rt_recv(sel, UTRACE_MSG_MAX, NULL);
		if (ret < 0)
			break;
		if (sel->hdr.type != UTRACE_MSG_SELECT || sel->obj != obj->index ||
		    (sel->kind != UTRACE_SELECT_STACK && sel->first != got) ||
		    sel->first > obj->nr_sites || sel->count > obj->nr_sites - sel->first ||
		    sel->hdr.size < sizeof(*sel) + sel->count) {
			ret = -EPROTO;
			break;
		}
		if (sel->kind == UTRACE_SELECT_STACK) { /* stack_trace_filter's, first */
			for (uint32_t i = 0; i < sel->count; i++)
				rt.stack_sites[obj->id_base + sel->first + i] = sel->flags[i];
			continue;
		}
		for (uint32_t i = 0; i < sel->count; i++)
			rt.site_flags[obj->id_base + got + i] = sel->flags[i];
		got += sel->count;
	}
	free(sel);
	return ret;
}

/* Receive the recorder's selection for obj and patch the chosen sites. */
static int object_enable(struct rt_object *obj)
{
	struct rt_poke *pokes = malloc((size_t)obj->nr_sites * sizeof(*pokes));
	size_t npokes = 0, nsled = 0;
	int ret = pokes ? rt_object_select(obj) : -ENOMEM;

	if (ret < 0)
		goto out;

	if (obj->flags & UTRACE_OBJ_FPATCH) { /* entries: func_patch.c */
		ret = rt_fpatch_enable(obj, pokes);
		goto out;
	}
	/* gcc's five 1-byte NOPs become one 5-byte NOP first: only then can
	 * a site be switched on and off while threads run (insn.h). */
	for (uint32_t i = 0; i < obj->nr_sites; i++) {
		uint8_t *p = (uint8_t *)(uintptr_t)obj->sites[i];

		if (p && insn_is_nop1x5(p)) {
			pokes[nsled].addr = p;
			memcpy(pokes[nsled].bytes, insn_nop5, INSN_SITE_SIZE);
			nsled++;
		}
	}
	ret = rt_text_poke_batch(pokes, nsled);
	if (ret < 0)
		goto out;

	for (uint32_t i = 0; i < obj->nr_sites; i++) {
		uint8_t *p = (uint8_t *)(uintptr_t)obj->sites[i];
		uint64_t stub =
		    (uint64_t)(uintptr_t)obj->stubs + RT_STUB_HEADER + (uint64_t)i * INSN_STUB_SIZE;

		if (!p || !rt_site_patched(obj->id_base + i, rt.site_flags[obj->id_base + i]))
			continue;
		insn_rel32(pokes[npokes].bytes, INSN_CALL, (uint64_t)(uintptr_t)p, stub);
		pokes[npokes].addr = p;
		npokes++;
	}
	ret = rt_text_poke_batch(pokes, npokes);
out:
	free(pokes);
	return ret;
}

struct scan_ctx {
	int err;
	struct rt_object *added;
};

static int scan_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan_ctx *ctx = data;
	static char self_anchor;
	char exe[4096];
	const char *path = info->dlpi_name;
	struct rt_object *obj;
	uint64_t lo = UINT64_MAX, hi = 0;
	bool self;
	int ret;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (hi <= lo)
		return 0;
	/* ourselves and the vDSO are not traced; we are an object (of
	 * events, no call sites) when a sanitizer's report can be one */
	self = (uintptr_t)&self_anchor >= lo && (uintptr_t)&self_anchor < hi;
	if (self && !rt_sanitizer_present())
		return 0;
	if (!path || !*path) {
		/* the main program */
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n <= 0)
			return 0;
		exe[n] = 0;
		path = exe;
	} else {
		/* dlopen("./libx.so") keeps the name it was given; the recorder
		 * reads the file from another directory.  No file at all: the
		 * vDSO (linux-vdso.so.1). */
		if (!realpath(path, exe))
			return 0;
		path = exe;
	}
	if (object_find(info->dlpi_addr, path))
		return 0;

	obj = calloc(1, sizeof(*obj));
	if (!obj || !(obj->path = strdup(path))) {
		free(obj);
		ctx->err = -ENOMEM;
		return 1;
	}
	obj->bias = info->dlpi_addr;
	obj->lo = lo;
	obj->hi = hi;
	obj->index = rt.nr_objects++;
	if (!rt.objects)
		obj->flags |= UTRACE_OBJ_MAIN;
	ret = self ? object_read_events(obj) : object_read_sections(obj);
	if (!ret && obj->nr_sites)
		ret = stubs_create(obj);
	if (ret < 0) {
		/* Not traceable, but still named for symbol lookups. */
		free(obj->sites);
		obj->sites = NULL;
		obj->nr_sites = 0;
		rt_log("cannot trace an object (no room for its sites or stubs); it runs untraced");
	}
	/* append: keeps the main program first */
	struct rt_object **pp = &rt.objects;

	while (*pp)
		pp = &(*pp)->next;
	*pp = obj;
	if (!ctx->added)
		ctx->added = obj;
	return 0;
}

/* fn(arg) with the objects lock held: the list stays as it is (no
 * registration, no dlclose) meanwhile (inproc_probe_live.c). */
int rt_objects_locked(int (*fn)(void *arg), void *arg)
{
	int ret;

	rt_objects_lock();
	ret = fn(arg);
	rt_objects_unlock();
	return ret;
}

/* For the live thread: the list stays as it is and no object is
 * unmapped meanwhile.  Never from inside dlopen or dlclose. */
void rt_objects_lock(void)
{
	rt_text_pin();
	pthread_mutex_lock(&objects_lock);
}

void rt_objects_unlock(void)
{
	pthread_mutex_unlock(&objects_lock);
	rt_text_unpin();
}

/* Find objects not seen yet, tell the recorder, enable what it selects. */
int rt_objects_scan(void)
{
	struct scan_ctx ctx = {0};
	int ret = 0;

	pthread_mutex_lock(&objects_lock);
	/* the first registration of this image (no live channel yet): the
	 * stack tracer as the recording has it now; later, the live
	 * channel's changes (rt_objects_live_apply) */
	if (!rt.objects)
		rt.stack_on = __atomic_load_n(&rt.ctl->stack.enabled, __ATOMIC_ACQUIRE) != 0;
	dl_iterate_phdr(scan_one, &ctx);
	for (struct rt_object *o = ctx.added; o && ret >= 0; o = o->next) {
		ret = rt_object_send(o);
		if (ret >= 0 && o->nr_sites)
			ret = object_enable(o);
	}
	if (ret >= 0 && ctx.added)
		ret = rt_events_register(ctx.added);
	if (ret >= 0 && ctx.added && rt.cfg.nr_inproc_probes)
		ret = rt_inproc_probes_register(ctx.added);
	if (ret >= 0 && ctx.added && rt.cfg.nr_inproc_probes)
		rt_inproc_probes_live();
	if (ret >= 0 && ctx.added && rt_objects_added_hook)
		ret = rt_objects_added_hook(ctx.added);
	pthread_mutex_unlock(&objects_lock);
	if (ctx.err < 0)
		ret = ctx.err;
	/* without a connection the objects cannot be registered, but the
	 * threads already traced go on */
	if (ret < 0 && rt.sock < 0 && rt.conn_lost)
		rt_conn_lost_say();
	else if (ret < 0)
		rt_disable("cannot register the program's objects with the recorder");
	return ret;
}

/* ---- live changes (live.c) ------------------------------------------ */

/* One SELECT of the live channel: new flags for some sites of an object;
 * nothing is patched before rt_objects_live_apply. */
int rt_objects_live_select(const struct utrace_msg_select *sel, uint32_t size)
{
	struct rt_object *o;
	int ret = -EPROTO;

	pthread_mutex_lock(&objects_lock);
	for (o = rt.objects; o && o->index != sel->obj; o = o->next)
		;
	if (o && size >= sizeof(*sel) + sel->count && sel->first <= o->nr_sites &&
	    sel->count <= o->nr_sites - sel->first) {
		uint8_t *to = sel->kind == UTRACE_SELECT_STACK ? rt.stack_sites : rt.site_flags;

		for (uint32_t i = 0; i < sel->count; i++)
			to[o->id_base + sel->first + i] = sel->flags[i];
		ret = 0;
	}
	pthread_mutex_unlock(&objects_lock);
	return ret;
}

/*
 * The stubs' far jump (insn_make_farjmp: ff 25 00000000, then the 8-byte
 * target at +6) points at one tracer's trampoline.  The target is within
 * the first cache line of the page-aligned region, so one 8-byte store
 * changes it atomically for a thread jumping through it (x86 makes
 * unaligned accesses inside a cache line atomic); RWX, never RW, as
 * text_poke.c does, since other threads may execute the page meanwhile.
 */
static int stubs_retarget(struct rt_object *o, uint32_t tracer)
{
	void *tramp = stubs_tramp(o, tracer);

	if (!o->stubs || o->flags & UTRACE_OBJ_LIBCALL) /* plt.c's own layout */
		return 0;
	if (mprotect(o->stubs, RT_STUB_HEADER, PROT_READ | PROT_WRITE | PROT_EXEC) < 0)
		return -errno;
	__atomic_store_n((uint64_t *)(void *)(o->stubs + 6), (uint64_t)(uintptr_t)tramp,
			 __ATOMIC_RELEASE);
	return mprotect(o->stubs, RT_STUB_HEADER, PROT_READ | PROT_EXEC) < 0 ? -errno : 0;
}

/*
 * An object whose function entries are patched (func_patch.c): its entry
 * i, once patched, stays `jmp slot_i`; what the tracer switches is the
 * slot's `call stub_i`, a compiler site of its own: the call, or a 5-byte
 * NOP (the function then runs its displaced instructions untraced).  A
 * thread that meets the batch's int3 there is resumed after it, at those
 * instructions: the call skipped once, as at a NOP site.  An entry that
 * the filter selects for the first time becomes `jmp slot_i` in the same
 * batch, as at registration (text_poke.c's resume hook), unless it takes
 * an int3 (rt_fpatch_live_int3 writes it after the batch) or has one now
 * (its jmp is inproc_probe_opt.c's to write).  Entries are never put back: no
 * thread can be inside bytes we would restore.
 */
static size_t live_pokes_fpatch(struct rt_object *o, struct rt_poke *pokes, uint32_t tracer)
{
	size_t n = 0;

	for (uint32_t i = 0; i < o->nr_sites; i++) {
		uint8_t *entry = (uint8_t *)(uintptr_t)o->sites[i], want[INSN_SITE_SIZE];
		uint8_t *slot = (uint8_t *)(uintptr_t)rt_fpatch_slot(o, i);
		uint64_t stub = (uint64_t)(uintptr_t)o->stubs + RT_STUB_HEADER +
				(uint64_t)i * INSN_STUB_SIZE;
		bool on = rt_site_patched(o->id_base + i, tracer != UTRACE_TRACER_NOP
							      ? rt.site_flags[o->id_base + i]
							      : 0);

		if (!entry || !slot || !o->stubs)
			continue;
		if (on)
			insn_rel32(want, INSN_CALL, (uint64_t)(uintptr_t)slot, stub);
		else
			memcpy(want, insn_nop5, INSN_SITE_SIZE);
		if (memcmp(slot, want, INSN_SITE_SIZE)) {
			pokes[n].addr = slot;
			memcpy(pokes[n++].bytes, want, INSN_SITE_SIZE);
		}
		insn_rel32(want, INSN_JMP, (uint64_t)(uintptr_t)entry, (uint64_t)(uintptr_t)slot);
		if (on && rt_fpatch_live_jmp(o, i) && memcmp(entry, want, INSN_SITE_SIZE)) {
			pokes[n].addr = entry;
			memcpy(pokes[n++].bytes, want, INSN_SITE_SIZE);
		}
	}
	return n;
}

static size_t live_pokes(struct rt_poke *pokes, uint32_t tracer)
{
	size_t n = 0;

	for (struct rt_object *o = rt.objects; o; o = o->next) {
		if (o->flags & UTRACE_OBJ_LIBCALL) /* GOT slots: plt.c's hook */
			continue;
		if (o->flags & UTRACE_OBJ_FPATCH) {
			n += live_pokes_fpatch(o, pokes + n, tracer);
			continue;
		}
		for (uint32_t i = 0; i < o->nr_sites; i++) {
			uint8_t *p = (uint8_t *)(uintptr_t)o->sites[i], want[INSN_SITE_SIZE];
			uint64_t stub = (uint64_t)(uintptr_t)o->stubs + RT_STUB_HEADER +
					(uint64_t)i * INSN_STUB_SIZE;

			bool traced;

			if (!p || !o->stubs)
				continue;
			traced = rt_site_patched(o->id_base + i,
						 tracer != UTRACE_TRACER_NOP
						     ? rt.site_flags[o->id_base + i]
						     : 0);
			/* a probe's site keeps calling its slot */
			if (rt_ipp_site_retarget((uint64_t)(uintptr_t)p, traced ? stub : 0))
				continue;
			if (traced)
				insn_rel32(want, INSN_CALL, (uint64_t)(uintptr_t)p, stub);
			else
				memcpy(want, insn_nop5, INSN_SITE_SIZE);
			if (!memcmp(p, want, INSN_SITE_SIZE))
				continue;
			pokes[n].addr = p;
			memcpy(pokes[n].bytes, want, INSN_SITE_SIZE);
			n++;
		}
	}
	return n;
}

/*
 * The end of a live change: the stubs jump to the new tracer's trampoline,
 * then every site whose bytes differ from what its flags want is patched
 * in one batch, then the GOT slots of hooked library calls are set
 * (plt.c).  Switching away from function_graph leaves hooked frames
 * hooked: they return through utrace_graph_return as before.
 */
int rt_objects_live_apply(const struct utrace_msg_tracer *t)
{
	uint32_t tracer = t->tracer;
	uint32_t graph_live = t->flags & (UTRACE_CFG_GRAPH_FUNCS | UTRACE_CFG_GRAPH_RETVAL);
	bool stack_on = __atomic_load_n(&rt.ctl->stack.enabled, __ATOMIC_ACQUIRE) != 0, stack_off;
	struct rt_poke *pokes;
	size_t total = 0;
	int ret = 0;

	rt_objects_lock();
	/* an entry-patched object may want two pokes a site: the slot's
	 * call and the entry's jmp */
	for (struct rt_object *o = rt.objects; o; o = o->next)
		total += (o->flags & UTRACE_OBJ_FPATCH ? 2 : 1) * (size_t)o->nr_sites;
	pokes = malloc((total ? total : 1) * sizeof(*pokes));
	if (!pokes) {
		rt_objects_unlock();
		return -ENOMEM;
	}
	if (stack_on && !rt.stack_on) {
		/* the stack tracer's trampoline first, which calls the
		 * tracer's handler for the tracer's sites: then its sites */
		rt.stack_on = true;
		for (struct rt_object *o = rt.objects; o && ret >= 0; o = o->next)
			ret = stubs_retarget(o, tracer);
	} else if (!rt.stack_on && tracer != UTRACE_TRACER_NOP && tracer != rt.cfg.tracer) {
		for (struct rt_object *o = rt.objects; o && ret >= 0; o = o->next)
			ret = stubs_retarget(o, tracer);
	}
	if (ret >= 0) {
		/* set_graph_function: a thread outside every root frame stops
		 * recording at its next entry, and starts again in a root;
		 * funcgraph-retval: the next exits carry rax, or not */
		__atomic_store_n(&rt.cfg.flags,
				 (rt.cfg.flags & ~(uint32_t)(UTRACE_CFG_GRAPH_FUNCS |
							     UTRACE_CFG_GRAPH_RETVAL)) |
				     graph_live,
				 __ATOMIC_RELAXED);
		/* max_graph_depth: checked at each entry; deeper frames
		 * already pushed return as before */
		__atomic_store_n(&rt.cfg.max_depth, t->max_depth, __ATOMIC_RELAXED);
		/* tracing_thresh: checked at each exit (fgraph.c); a frame
		 * entered before the change ends with the new rule */
		__atomic_store_n(&rt.tsc_thresh,
				 t->thresh_us ? ((uint64_t)t->thresh_us * rt.cfg.tsc_per_us_q16 >> 16 ?: 1)
					      : 0,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&rt.graph_fast,
				 !rt.tsc_thresh && !t->max_depth && !graph_live &&
				     !(rt.cfg.flags & UTRACE_CFG_GRAPH_RETADDR),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&rt.cfg.tracer, tracer, __ATOMIC_RELEASE);
		/* the stack tracer off: its sites first, then the tracer's
		 * trampoline (the stack tracer's calls the tracer's handler
		 * meanwhile) */
		stack_off = !stack_on && rt.stack_on;
		if (stack_off)
			rt.stack_on = false;
		ret = rt_text_poke_batch(pokes, live_pokes(pokes, tracer));
		for (struct rt_object *o = rt.objects;
		     o && ret >= 0 && stack_off && tracer != UTRACE_TRACER_NOP; o = o->next)
			ret = stubs_retarget(o, tracer);
	}
	/* entries too short for a jmp: their int3 (func_patch.c) */
	for (struct rt_object *o = rt.objects;
	     o && ret >= 0 && (tracer != UTRACE_TRACER_NOP || rt.stack_on); o = o->next)
		if (o->flags & UTRACE_OBJ_FPATCH && o->stubs)
			ret = rt_fpatch_live_int3(o);
	/* library calls (--libcall): their GOT slots, not code */
	for (struct rt_object *o = rt.objects; o && ret >= 0; o = o->next)
		if (o->flags & UTRACE_OBJ_LIBCALL && o->stubs && rt_objects_libcall_live_hook)
			ret = rt_objects_libcall_live_hook(o, tracer);
	rt_objects_unlock();
	free(pokes);
	return ret;
}

/* A new attach (attach.c): the objects are registered again from
 * scratch, with the new recorder's ids.  The old stub regions and detour
 * slots stay mapped: a thread may still be returning through one. */
void rt_objects_forget(void)
{
	pthread_mutex_lock(&objects_lock);
	while (rt.objects) {
		struct rt_object *o = rt.objects;

		rt.objects = o->next;
		free(o->sites);
		free(o->path);
		free(o);
	}
	rt.nr_objects = 0;
	rt.next_id = 0;
	pthread_mutex_unlock(&objects_lock);
}

/* Fork child: same objects, already patched; the recorder needs to know
 * them for this new process. */
void rt_objects_resend(void)
{
	for (struct rt_object *o = rt.objects; o; o = o->next) {
		o->flags |= UTRACE_OBJ_INHERITED;
		if (rt_object_send(o) < 0)
			break;
	}
}

/* ---- dlopen / dlclose ----------------------------------------------- */

static int unload_mark(struct dl_phdr_info *info, size_t size, void *data)
{
	for (struct rt_object *o = rt.objects; o; o = o->next)
		if (o->bias == info->dlpi_addr)
			o->flags |= 1u << 31; /* still present */
	return 0;
}

/* Forget objects that went away: a library loaded again later gets new
 * ids and fresh patches.  Their stub regions stay mapped, in case a
 * thread is still returning through one. */
void rt_objects_forget_unloaded(void)
{
	pthread_mutex_lock(&objects_lock);
	dl_iterate_phdr(unload_mark, NULL);
	for (struct rt_object **pp = &rt.objects; *pp;) {
		struct rt_object *o = *pp;

		if (o->flags & 1u << 31 || o->flags & UTRACE_OBJ_MAIN) {
			o->flags &= ~(1u << 31);
			pp = &o->next;
			continue;
		}
		*pp = o->next;
		rt_inproc_probes_forget(o->lo, o->hi);
		if (o->fpatch_len)
			rt_fpatch_forget(o->lo, o->hi);
		rt_text_poke_unlog(o->lo, o->hi);
		free(o->fpatch_len);
		free(o->sites);
		free(o->path);
		free(o);
	}
	pthread_mutex_unlock(&objects_lock);
}

static void *(*real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);

__attribute__((visibility("default"))) void *dlopen(const char *file, int mode)
{
	void *h;

	if (!real_dlopen)
		real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	h = real_dlopen(file, mode);
	if (h && rt.sock >= 0 && rt.enabled)
		rt_objects_scan();
	return h;
}

__attribute__((visibility("default"))) int dlclose(void *handle)
{
	int ret;

	if (!real_dlclose)
		real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	rt_text_unmap_begin(); /* text_poke.c: no pinned writer meanwhile */
	ret = real_dlclose(handle);
	if (rt.sock >= 0)
		rt_objects_forget_unloaded();
	rt_text_unmap_end();
	return ret;
}
