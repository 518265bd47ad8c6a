// SPDX-License-Identifier: MIT
//
// libcall_exc.cc - C++ exceptions thrown from inside library calls, for
// --libcall (tests/e2e/t/lc-*.sh): vector::at throws from libstdc++
// (std::__throw_out_of_range_fmt, called through the PLT), __cxa_throw
// is itself a library call, and the catch runs __cxa_begin_catch /
// __cxa_end_catch through the PLT too.  Each hooked frame the exception
// passes must unwind (its real return address back) and end.  Last, a
// thread leaves through pthread_exit (a library call that never returns:
// a forced unwind) from under objects whose destructors call printf.
#include <pthread.h>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

static int depth_throw(int n)
{
	if (!n)
		throw std::runtime_error("deep");
	return depth_throw(n - 1) + 1;
}

struct Note {
	int n;
	~Note() { std::printf("unwound %d\n", n); }
};

static void leave(int n);
static void (*volatile leave_next)(int) = leave; // no recursion to see through

static void leave(int n)
{
	Note note{n};

	if (!n)
		pthread_exit(nullptr);
	leave_next(n - 1);
	std::printf("not reached %d\n", n);
}

static void *thread_leave(void *)
{
	leave(2);
	return nullptr;
}

int main()
{
	pthread_t t;
	std::vector<int> v(3);
	int caught = 0;

	for (int i = 0; i < 3; i++) {
		try {
			v.at(5 + i) = 1;
		} catch (const std::out_of_range &) {
			caught++;
		}
		try {
			depth_throw(i);
		} catch (const std::exception &e) {
			std::printf("caught %s at %d\n", e.what(), i);
		}
	}
	std::string s = "out_of_range x";
	s += std::to_string(caught);
	std::printf("%s\n", s.c_str());
	if (pthread_create(&t, nullptr, thread_leave, nullptr) || pthread_join(t, nullptr))
		return 1;
	std::printf("joined\n");
	return 0;
}
