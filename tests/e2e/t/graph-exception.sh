# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-exception.sh - exception.cc: C++ exception thrown 5
# frames deep, destructors calling traced code while unwinding (one of them
# by a tail call at -O2), catch and throw;, a local try/catch x3
# Must hold: braces balance; ~Guard twice, dtor_work at depths 5 and 6,
# tail_dtor_work at 6 and 7; handle, local_catch, throws_runtime, after_all
# at the right depths.

e2e_test "exception -- exception"

check_exception() {
	expect_balanced "$CFG exception braces balance"
	expect_func "$CFG exception thrown twice 5 frames deep" thrower count 2
	expect_func "$CFG exception destructor ran during unwinding" Guard::~Guard count 2
	expect_func "$CFG exception dtor_work nested in the destructor" dtor_work count 2 mind 5 maxd 6
	expect_func "$CFG exception tail-calling destructor ran" TailGuard::~TailGuard count 2 mind 5 maxd 6
	expect_func "$CFG exception tail_dtor_work nested in its destructor" tail_dtor_work count 2 mind 6 maxd 7
	expect_func "$CFG exception handle() under rethrower" handle count 1 depth 2
	expect_func "$CFG exception local catch" local_catch count 3 depth 1
	expect_func "$CFG exception throws_runtime under local_catch" throws_runtime count 3 depth 2
	expect_func "$CFG exception after_all back under main" after_all count 1 depth 1
}
