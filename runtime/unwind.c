/* SPDX-License-Identifier: MIT */
/*
 * unwind.c - keeping the shadow stack true when frames vanish without
 * returning: longjmp, C++ exceptions, pthread_exit.
 *
 * A hooked frame's return address on the program's stack points at
 * utrace_graph_return, which has no unwind information.  An unwinder
 * (C++ throw, pthread_exit's forced unwind) walking through it would stop
 * and terminate the program.  So before any unwinding starts, every real
 * return address of the thread is put back (rt_fgraph_unhook_all); when
 * the exception is caught (__cxa_begin_catch), the frames below the catch
 * are gone and recorded as ended, and the live ones are hooked again.
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
#include <stdint.h>
#include <stdnoreturn.h>

#include "runtime/rt.h"

#define RT_EXPORT __attribute__((visibility("default")))

static void *rt_next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
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

	if (t->depth)
		rt_fgraph_unwind_to(t, jmpbuf_sp(env));
}

#define RT_LONGJMP(name)                                                                 \
	RT_EXPORT noreturn void name(struct __jmp_buf_tag env[1], int val)              \
	{                                                                                \
		static void (*real)(struct __jmp_buf_tag *, int);                        \
		if (!real)                                                               \
			real = (void (*)(struct __jmp_buf_tag *, int))rt_next(#name);   \
		before_longjmp(env);                                                     \
		real(env, val);                                                          \
		__builtin_unreachable();                                                 \
	}

RT_LONGJMP(longjmp)
RT_LONGJMP(_longjmp)
RT_LONGJMP(siglongjmp)
RT_LONGJMP(__longjmp_chk)

/* ---- C++ exceptions (the Itanium ABI, libgcc_s + libstdc++) --------- */

struct _Unwind_Exception;
typedef int _Unwind_Reason_Code;

static void before_unwind(void)
{
	struct rt_thread *t = &rt_self;

	if (t->depth) {
		rt_fgraph_unhook_all(t);
		t->state |= RT_TS_UNWINDING;
	}
}

static void after_failed_unwind(void)
{
	struct rt_thread *t = &rt_self;

	/* no handler was found: nothing was unwound, hook everything again */
	t->state &= ~RT_TS_UNWINDING;
	if (t->depth)
		rt_fgraph_rehook_above(t, 0);
}

RT_EXPORT _Unwind_Reason_Code _Unwind_RaiseException(struct _Unwind_Exception *e)
{
	static _Unwind_Reason_Code (*real)(struct _Unwind_Exception *);
	_Unwind_Reason_Code r;

	if (!real)
		real = (_Unwind_Reason_Code(*)(struct _Unwind_Exception *))rt_next(
			"_Unwind_RaiseException");
	before_unwind();
	r = real(e);
	after_failed_unwind();
	return r;
}

RT_EXPORT _Unwind_Reason_Code _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
	static _Unwind_Reason_Code (*real)(struct _Unwind_Exception *);
	_Unwind_Reason_Code r;

	if (!real)
		real = (_Unwind_Reason_Code(*)(struct _Unwind_Exception *))rt_next(
			"_Unwind_Resume_or_Rethrow");
	before_unwind();
	r = real(e);
	after_failed_unwind();
	return r;
}

RT_EXPORT _Unwind_Reason_Code _Unwind_ForcedUnwind(struct _Unwind_Exception *e, void *stop,
						   void *arg)
{
	static _Unwind_Reason_Code (*real)(struct _Unwind_Exception *, void *, void *);

	if (!real)
		real = (_Unwind_Reason_Code(*)(struct _Unwind_Exception *, void *, void *))rt_next(
			"_Unwind_ForcedUnwind");
	before_unwind();
	return real(e, stop, arg);
}

/* The catch: our caller's stack pointer is our CFA; every frame whose
 * return slot lies below it was unwound. */
RT_EXPORT void *__cxa_begin_catch(void *exc)
{
	static void *(*real)(void *);
	struct rt_thread *t = &rt_self;

	if (!real)
		real = (void *(*)(void *))rt_next("__cxa_begin_catch");
	t->state &= ~RT_TS_UNWINDING;
	if (t->depth)
		rt_fgraph_rehook_above(t, (uint64_t)(uintptr_t)__builtin_frame_address(0) + 16);
	return real(exc);
}

/* pthread_exit unwinds with libgcc through a pointer glibc looked up
 * itself, which no interposition sees: unhook before it starts. */
RT_EXPORT noreturn void pthread_exit(void *retval)
{
	static void (*real)(void *);
	struct rt_thread *t = &rt_self;

	if (!real)
		real = (void (*)(void *))rt_next("pthread_exit");
	if (t->depth) {
		rt_fgraph_unhook_all(t);
		rt_fgraph_unwind_to(t, UINT64_MAX);
	}
	t->state &= ~RT_TS_UNWINDING;
	real(retval);
	__builtin_unreachable();
}
