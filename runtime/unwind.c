/* SPDX-License-Identifier: MIT */
/*
 * unwind.c - keeping the shadow stack true when frames vanish without
 * returning: longjmp, C++ exceptions, pthread_exit.
 *
 * A hooked frame's return address on the program's stack points at
 * utrace_graph_return (or utrace_graph_return_keepflags), which has no
 * unwind information.  An unwinder
 * (C++ throw, pthread_exit's forced unwind, backtrace()) walking through
 * it would stop, and terminate the program.  So before any unwinding
 * starts, every real return address of the thread is put back
 * (rt_fgraph_unhook_all); when the exception is caught
 * (__cxa_begin_catch), the frames below the catch are gone and recorded
 * as ended, and the live ones are hooked again.
 *
 * Exceptions nest: a destructor run by the unwinder of one exception may
 * throw and catch another inside itself.  The inner catch must not hook
 * the frames the outer unwinder has still to walk, so the thread counts
 * the exceptions raised and not yet caught (t->exceptions): frames are
 * hooked again only when the last one is caught.  Until then the frames
 * stay unhooked; those that return meanwhile do so straight to their
 * callers, and the next exit that finds its slot deeper in the shadow
 * stack ends them (fgraph.c).
 *
 * longjmp needs no unhooking: it does not walk the stack.  Its target
 * stack pointer is in the jmp_buf (mangled with the thread's pointer
 * guard, as glibc does on x86-64: rol 0x11 after xor with %fs:0x30);
 * every frame below it is popped and recorded as ended now.
 *
 * These functions interpose the libc/libgcc ones through LD_PRELOAD and
 * call the real ones via dlsym(RTLD_NEXT).
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdnoreturn.h>

#include "runtime/rt.h"

#define RT_EXPORT __attribute__((visibility("default")))

/*
 * The real function: the next definition after us.  Dlopen'ed by an
 * attach (late_bind.c), "after us" is only our own dependencies (libc):
 * libgcc_s's and libstdc++'s functions are then found in the global
 * scope, which does not hold us (never ourselves: that would loop).
 */
void *rt_next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	Dl_info self, at;

	if (p || !(p = dlsym(RTLD_DEFAULT, name)))
		return p;
	if (dladdr((void *)rt_next, &self) && dladdr(p, &at) && at.dli_fbase == self.dli_fbase)
		return NULL;
	return p;
}

static uint64_t jmpbuf_sp(const void *env)
{
	uint64_t v, guard;

	/* glibc x86-64: __jmp_buf[6] is the mangled stack pointer */
	__builtin_memcpy(&v, (const uint64_t *)env + 6, sizeof(v));
	__asm__("movq %%fs:0x30, %0" : "=r"(guard));
	v = (v >> 0x11) | (v << (64 - 0x11));
	return v ^ guard;
}

static void before_longjmp(const void *env)
{
	struct rt_thread *t = &rt_self;
	uint64_t sp = jmpbuf_sp(env);

	if (t->stack && !(t->state & RT_TS_BUSY))
		rt_fstack_switch_to(t, sp); /* out of a coroutine (fgraph_stacks.c) */
	if (rt_fgraph_depth(t))
		rt_fgraph_unwind_to(t, sp);
}

#define RT_LONGJMP(name)                                                                           \
	RT_EXPORT noreturn void name(struct __jmp_buf_tag env[1], int val)                         \
	{                                                                                          \
		static void (*real)(struct __jmp_buf_tag *, int);                                  \
		if (!real)                                                                         \
			real = (void (*)(struct __jmp_buf_tag *, int))rt_next(#name);              \
		before_longjmp(env);                                                               \
		real(env, val);                                                                    \
		__builtin_unreachable();                                                           \
	}

RT_LONGJMP(longjmp)
RT_LONGJMP(_longjmp)
RT_LONGJMP(siglongjmp)
RT_LONGJMP(__longjmp_chk)

/* ---- C++ exceptions (the Itanium ABI, libgcc_s + libstdc++) --------- */

struct _Unwind_Exception;
typedef int _Unwind_Reason_Code;

/*
 * Before a raise; whether it counted the exception.  libgcc's
 * _Unwind_Resume_or_Rethrow calls _Unwind_RaiseException through its PLT,
 * that is through us again: that one hop is not a new exception.  (A
 * raise that finds its handler never returns to its caller: it jumps to
 * the landing pads, and a destructor there may raise a new exception of
 * its own, which must count.)
 */
void (*rt_unwind_unhook_more)(void); /* inproc_probes.c: its return hooks too */

static bool before_unwind(void)
{
	struct rt_thread *t = &rt_self;
	void (*more)(void) = rt_unwind_unhook_more;

	if (t->rethrow_hop) {
		t->rethrow_hop = 0;
		return false;
	}
	t->exceptions++;
	if (rt_fgraph_depth(t)) {
		rt_fgraph_unhook_all(t);
		t->state |= RT_TS_UNWINDING;
	}
	if (more) /* after fgraph's: it may put back a return probe's hook */
		more();
	return true;
}

/* The last exception in flight is gone: frames above sp are hooked
 * again; with others still unwinding, nothing is. */
static void exception_done(struct rt_thread *t, uint64_t sp)
{
	if (t->exceptions)
		t->exceptions--;
	if (t->exceptions)
		return;
	t->state &= ~RT_TS_UNWINDING;
	if (rt_fgraph_depth(t))
		rt_fgraph_rehook_above(t, sp);
}

/* A raise returned: no handler was found, nothing was unwound. */
static void after_failed_unwind(bool counted)
{
	struct rt_thread *t = &rt_self;

	if (counted)
		exception_done(t, 0);
}

RT_EXPORT _Unwind_Reason_Code _Unwind_RaiseException(struct _Unwind_Exception *e)
{
	static _Unwind_Reason_Code (*real)(struct _Unwind_Exception *);
	_Unwind_Reason_Code r;
	bool counted;

	if (!real)
		real = (_Unwind_Reason_Code(*)(struct _Unwind_Exception *))rt_next(
		    "_Unwind_RaiseException");
	counted = before_unwind();
	r = real(e);
	after_failed_unwind(counted);
	return r;
}

RT_EXPORT _Unwind_Reason_Code _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
	static _Unwind_Reason_Code (*real)(struct _Unwind_Exception *);
	struct rt_thread *t = &rt_self;
	_Unwind_Reason_Code r;
	bool counted;

	if (!real)
		real = (_Unwind_Reason_Code(*)(struct _Unwind_Exception *))rt_next(
		    "_Unwind_Resume_or_Rethrow");
	counted = before_unwind();
	t->rethrow_hop = 1;
	r = real(e);
	t->rethrow_hop = 0;
	after_failed_unwind(counted);
	return r;
}

RT_EXPORT _Unwind_Reason_Code _Unwind_ForcedUnwind(struct _Unwind_Exception *e, void *stop,
						   void *arg)
{
	static _Unwind_Reason_Code (*real)(struct _Unwind_Exception *, void *, void *);

	if (!real)
		real = (_Unwind_Reason_Code(*)(struct _Unwind_Exception *, void *, void *))rt_next(
		    "_Unwind_ForcedUnwind");
	before_unwind(); /* a forced unwind ends the thread: nothing after */
	return real(e, stop, arg);
}

/* The catch: our caller's stack pointer is our CFA; every frame whose
 * return slot lies below it was unwound. */
RT_EXPORT void *__cxa_begin_catch(void *exc)
{
	static void *(*real)(void *);
	struct rt_thread *t = &rt_self;

	uint64_t sp = (uint64_t)(uintptr_t)__builtin_frame_address(0) + 16;

	if (!real)
		real = (void *(*)(void *))rt_next("__cxa_begin_catch");
	/* the frames below the catch are gone, whatever else is in flight */
	t->rethrow_hop = 0;
	if (rt_fgraph_depth(t))
		rt_fgraph_unwind_to(t, sp);
	exception_done(t, sp);
	return real(exc);
}

/* ---- stack walks that return: backtrace(), _Unwind_Backtrace ------- */

/* Unhooks the thread's frames for a walk that comes back, unless an
 * exception in flight has them unhooked already; true if it did. */
static bool walk_begin(struct rt_thread *t)
{
	if (!rt_fgraph_depth(t) || t->exceptions)
		return false;
	rt_fgraph_unhook_all(t);
	return true;
}

/* Every frame is still alive after the walk: all hooked again. */
static void walk_end(struct rt_thread *t, bool unhooked)
{
	if (unhooked)
		rt_fgraph_rehook_above(t, 0);
}

/*
 * glibc's backtrace() calls libgcc through a pointer of its own, which no
 * interposition of _Unwind_Backtrace sees: it is interposed itself.  The
 * walk starts at its caller, which is this function: that first frame is
 * left out, so the program gets the frames it would get untraced.
 */
#define BT_LOCAL 128

RT_EXPORT int backtrace(void **buffer, int size)
{
	static int (*real)(void **, int);
	struct rt_thread *t = &rt_self;
	void *local[BT_LOCAL + 1];
	bool unhooked;
	int n;

	if (!real)
		real = (int (*)(void **, int))rt_next("backtrace");
	if (size <= 0)
		return 0;
	unhooked = walk_begin(t);
	if (size <= BT_LOCAL) {
		n = real(local, size + 1);
		n = n > 0 ? n - 1 : 0;
		__builtin_memcpy(buffer, local + 1, (size_t)n * sizeof(*buffer));
	} else { /* a deep request: our frame costs it its deepest entry */
		n = real(buffer, size);
		if (n > 0)
			__builtin_memmove(buffer, buffer + 1, (size_t)--n * sizeof(*buffer));
	}
	walk_end(t, unhooked);
	return n;
}

typedef _Unwind_Reason_Code (*rt_unwind_trace_fn)(void *ctx, void *arg);

RT_EXPORT _Unwind_Reason_Code _Unwind_Backtrace(rt_unwind_trace_fn fn, void *arg)
{
	static _Unwind_Reason_Code (*real)(rt_unwind_trace_fn, void *);
	struct rt_thread *t = &rt_self;
	_Unwind_Reason_Code r;
	bool unhooked;

	if (!real)
		real = (_Unwind_Reason_Code(*)(rt_unwind_trace_fn, void *))rt_next(
		    "_Unwind_Backtrace");
	unhooked = walk_begin(t);
	r = real(fn, arg);
	walk_end(t, unhooked);
	return r;
}

/* pthread_exit unwinds with libgcc through a pointer glibc looked up
 * itself, which no interposition sees: unhook before it starts. */
RT_EXPORT noreturn void pthread_exit(void *retval)
{
	static void (*real)(void *);
	struct rt_thread *t = &rt_self;

	if (!real)
		real = (void (*)(void *))rt_next("pthread_exit");
	if (rt_fgraph_depth(t)) {
		rt_fgraph_unhook_all(t);
		rt_fgraph_unwind_to(t, UINT64_MAX);
	}
	t->state &= ~RT_TS_UNWINDING;
	t->exceptions = 0;
	real(retval);
	__builtin_unreachable();
}
