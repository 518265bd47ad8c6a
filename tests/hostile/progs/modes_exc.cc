// SPDX-License-Identifier: MIT
/*
 * modes_exc.cc - C++ exceptions thrown through functions that carry
 * entry and return probes (tests/hostile/modes.sh probes ex_mid): 3000
 * calls of ex_outer, which calls ex_mid, which calls ex_throw; every
 * third call throws, caught in ex_outer (through ex_mid) or, every
 * fifth, in main (through ex_outer too).  Prints (on stderr) how often
 * ex_mid was called and returned; the probes' hits are checked against them.
 */
#include <cstdio>
#include <stdexcept>

static volatile int zero;
static long calls_mid, calls_outer, returns_mid;

__attribute__((noinline)) int ex_throw(int i)
{
	if ((i + zero) % 3 == 0)
		throw std::runtime_error(i % 5 == 0 ? "far" : "near");
	return i * 7;
}

__attribute__((noinline)) int ex_mid(int i)
{
	calls_mid++;
	int r = ex_throw(i);
	return r + 1;
}

__attribute__((noinline)) int ex_outer(int i)
{
	calls_outer++;
	try {
		int r = ex_mid(i);
		returns_mid++;
		return r;
	} catch (const std::runtime_error &e) {
		if (e.what()[0] == 'f')
			throw;
		return -1;
	}
}

int main()
{
	long sum = 0, far = 0;

	for (int i = 0; i < 3000; i++) {
		try {
			sum += ex_outer(i);
		} catch (const std::exception &e) {
			far++;
		}
	}
	std::printf("result %ld far %ld\n", sum, far);
	std::fprintf(stderr, "calls ex_mid %ld returns %ld ex_outer %ld\n", calls_mid, returns_mid,
		     calls_outer);
	return 0;
}
