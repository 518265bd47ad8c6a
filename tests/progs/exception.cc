// SPDX-License-Identifier: MIT
//
// exception.cc - C++ exceptions unwinding through traced frames.
//
// The unwinder walks the stack by return address; a function_graph tracer
// has replaced those with its return trampoline, so it must make the
// unwinder see the real ones and close the frames it skips.
//
//  1. level1 -> ... -> level5 -> thrower throws Error(1), 5 traced frames
//     below main's try; level3 holds a Guard whose destructor calls
//     traced functions (dtor_work) during the unwinding, level4 a TailGuard
//     whose destructor tail-calls tail_dtor_work at -O2.  Caught in main.
//  2. rethrower() catches Error(2) thrown the same way, calls handle(),
//     and rethrows with `throw;`; main catches it again.
//  3. A std::runtime_error thrown and caught inside one traced function
//     (local_catch), from a callee that throws, three times in a loop.
//  4. More calls afterwards (after_all), which must nest under main().
#include <cstdio>
#include <stdexcept>

#include "progs.h"

struct Error {
	int code;
};

static int dtor_calls;

TRACED int dtor_leaf(int x)
{
	BARRIER();
	return x + 1;
}

TRACED void dtor_work(int id)
{
	dtor_calls += dtor_leaf(id) - id;
	BARRIER();
}

TRACED int tail_dtor_work(int id)
{
	dtor_calls += 100;
	BARRIER();
	return id;
}

struct Guard {
	int id;
	explicit Guard(int i) : id(i) {}
	TRACED ~Guard()
	{
		dtor_work(id);
		BARRIER();
	}
};

// At -O2 this destructor's call is a tail call (jmp tail_dtor_work), made
// from a cleanup landing pad in the middle of the unwinding.
struct TailGuard {
	int id;
	explicit TailGuard(int i) : id(i) {}
	TRACED ~TailGuard() { tail_dtor_work(id); }
};

TRACED void thrower(int code)
{
	BARRIER();
	throw Error{code};
}

TRACED void level5(int code)
{
	thrower(code);
	BARRIER();
}

TRACED void level4(int code)
{
	TailGuard g(code);
	level5(code);
	BARRIER();
}

TRACED void level3(int code)
{
	Guard g(code);
	level4(code);
	BARRIER();
}

TRACED void level2(int code)
{
	level3(code);
	BARRIER();
}

TRACED void level1(int code)
{
	level2(code);
	BARRIER();
}

TRACED int handle(const Error &e)
{
	BARRIER();
	return e.code * 10;
}

TRACED void rethrower(int code)
{
	try {
		level1(code);
	} catch (const Error &e) {
		std::printf("rethrower: caught %d, handle = %d, rethrowing\n", e.code, handle(e));
		throw;
	}
}

TRACED int throws_runtime(int i)
{
	if (i >= 0)
		throw std::runtime_error("runtime error");
	return i;
}

TRACED int local_catch(int i)
{
	try {
		return throws_runtime(i);
	} catch (const std::runtime_error &e) {
		return 1000 + i;
	}
}

TRACED int after_all(int x)
{
	BARRIER();
	return x * 7;
}

int main()
{
	try {
		level1(opaque(1));
		std::printf("not reached\n");
	} catch (const Error &e) {
		std::printf("main: caught %d, dtor_calls = %d\n", e.code, dtor_calls);
	}

	try {
		rethrower(opaque(2));
		std::printf("not reached\n");
	} catch (const Error &e) {
		std::printf("main: caught rethrown %d, dtor_calls = %d\n", e.code, dtor_calls);
	}

	for (int i = 0; i < 3; i++)
		std::printf("local_catch(%d) = %d\n", i, local_catch(opaque(i)));

	std::printf("after_all = %d\n", after_all(opaque(6)));
	return 0;
}
