// SPDX-License-Identifier: MIT
//
// coro_cxx20.cc - C++20 coroutines (stackless: their frames live on the
// heap and are resumed on the caller's stack) with an exception thrown in
// a coroutine and caught by its resumer.  Known counts: cx_gen 4, cx_next
// 4 * (N + 1) + 1, cx_value 4 * N, cx_fail 1.
#include <coroutine>
#include <cstdio>
#include <stdexcept>

#define N 500

struct gen {
	struct promise_type {
		int value = 0;
		gen get_return_object() { return gen{std::coroutine_handle<promise_type>::from_promise(*this)}; }
		std::suspend_always initial_suspend() noexcept { return {}; }
		std::suspend_always final_suspend() noexcept { return {}; }
		std::suspend_always yield_value(int v) { value = v; return {}; }
		void return_void() {}
		void unhandled_exception() { throw; }
	};
	std::coroutine_handle<promise_type> h;
	explicit gen(std::coroutine_handle<promise_type> h) : h(h) {}
	gen(gen &&o) noexcept : h(o.h) { o.h = {}; }
	~gen() { if (h) h.destroy(); }
};

__attribute__((noinline)) int cx_value(int k, int i)
{
	return (k + 1) * 1000003 % 7919 + i;
}

__attribute__((noinline)) void cx_fail(int i)
{
	if (i == 3)
		throw std::runtime_error("three");
}

gen cx_gen(int k, int n)
{
	for (int i = 0; i < n; i++)
		co_yield cx_value(k, i);
	if (k == 3)
		cx_fail(k);
}

__attribute__((noinline)) bool cx_next(gen &g)
{
	g.h.resume();
	return !g.h.done();
}

int main()
{
	gen g[4] = {cx_gen(0, N), cx_gen(1, N), cx_gen(2, N), cx_gen(3, N)};
	long sum = 0;
	bool live = true;

	while (live) {
		live = false;
		for (auto &x : g)
			try {
				if (x.h && !x.h.done() && cx_next(x)) {
					sum += x.h.promise().value;
					live = true;
				}
			} catch (const std::exception &e) {
				std::printf("caught: %s\n", e.what());
			}
	}
	gen last = cx_gen(9, 0);
	cx_next(last);
	std::printf("result: %ld\n", sum);
	return 0;
}
