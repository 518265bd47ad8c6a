// SPDX-License-Identifier: MIT
// tests/stress/exceptions.cc - the exception cases that must behave the
// same traced (function_graph hooks every return) and untraced: tail
// calls (one and several in a row) through which an exception passes,
// rethrow and catch (...) then rethrow, std::rethrow_exception on another
// thread, a destructor that throws and catches during another exception's
// unwinding, a destructor that tail-calls, backtrace() while frames are
// hooked (the same number of frames), a library exception through deep
// recursion, pthread_exit from deep frames.  Run by tests/stress/run.sh.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <execinfo.h>
#include <pthread.h>
#include <stdexcept>
#include <string>
#include <thread>
#include <unwind.h>

#define NI __attribute__((noinline))
static volatile int sink;

// 1. tail calls, one and several in a row
NI int thrower(int i) { if (i >= 0) throw i; return i; }
NI int tail1(int i) { return thrower(i + 1); }
NI int tail2(int i) { return tail1(i + 1); }
NI int tail3(int i) { return tail2(i + 1); }
NI int catch_tail(int i) { try { return tail3(i); } catch (int v) { return v; } }

// 2. rethrow, catch(...) then rethrow
NI void rethrower(int i) { try { thrower(i); } catch (...) { sink++; throw; } }
NI int catch_rethrow(int i) { try { rethrower(i); } catch (int v) { return v + 100; } return 0; }

// 3. rethrow_exception on another thread
NI std::exception_ptr make_ptr(int i) { try { thrower(i); } catch (...) { return std::current_exception(); } return nullptr; }
NI int other_thread(std::exception_ptr p) { int r = -1; std::thread t([&] { try { std::rethrow_exception(p); } catch (int v) { r = v; } }); t.join(); return r; }

// 4. a destructor during unwinding throws and catches inside itself
struct Guard { int n; NI ~Guard() { try { thrower(n); } catch (int) { sink++; } } };
NI void with_guard(int i) { Guard g{i}; thrower(i + 1); }
NI int catch_guard(int i) { try { with_guard(i); } catch (int v) { return v; } return 0; }

// 5. a tail call out of a destructor, nested throws
struct Guard2 { int n; NI ~Guard2() { sink += tail1(-10); } };
NI void with_guard2(int i) { Guard2 g{i}; tail3(i); }
NI int catch_guard2(int i) { try { with_guard2(i); } catch (int v) { return v; } return 0; }

// 6. backtrace() while traced frames are hooked shows the real callers
NI int bt_leaf() { void *b[64]; return backtrace(b, 64); }
NI int bt_mid() { return bt_leaf() + sink * 0; }
NI int bt_top() { return bt_mid() + sink * 0; }

// 7. std::exception from the library, deep recursion
NI int deep(int n) { if (!n) throw std::runtime_error("deep"); return deep(n - 1) + 1; }
NI int catch_deep() { try { return deep(500); } catch (const std::exception &e) { return (int)strlen(e.what()); } }

// 8. pthread_exit from deep frames
NI void exit_deep(int n) { if (!n) pthread_exit((void *)42); exit_deep(n - 1); sink++; }
NI long thread_exit() { pthread_t t; void *r; pthread_create(&t, nullptr, [](void *) -> void * { exit_deep(20); return nullptr; }, nullptr); pthread_join(t, &r); return (long)r; }

int main() {
	setvbuf(stdout, nullptr, _IOLBF, 0);
	int n = 0;
	for (int i = 0; i < 3; i++) n += catch_tail(i);
	printf("tail %d\n", n);
	printf("rethrow %d\n", catch_rethrow(5));
	printf("other thread %d\n", other_thread(make_ptr(7)));
	printf("guard %d sink %d\n", catch_guard(1), sink);
	printf("guard2 %d\n", catch_guard2(2));
	printf("backtrace frames %d\n", bt_top());
	printf("deep %d\n", catch_deep());
	printf("pthread_exit %ld\n", thread_exit());
	return 0;
}
