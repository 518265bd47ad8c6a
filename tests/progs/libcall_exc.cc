// SPDX-License-Identifier: MIT
//
// libcall_exc.cc - C++ exceptions thrown from inside library calls, for
// --libcall (tests/e2e/libcall.sh): vector::at throws from libstdc++
// (std::__throw_out_of_range_fmt, called through the PLT), __cxa_throw
// is itself a library call, and the catch runs __cxa_begin_catch /
// __cxa_end_catch through the PLT too.  Each hooked frame the exception
// passes must unwind (its real return address back) and end.
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

int main()
{
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
	return 0;
}
