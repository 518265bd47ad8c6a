# SPDX-License-Identifier: MIT
#
# tests/e2e/t/lc-exc.sh - --libcall on libcall_exc.cc: exceptions thrown
# from inside library calls

e2e_test "lc-exc --libcall -- libcall_exc"

check_lc_exc() {
	expect_balanced "$CFG $TEST braces balance" open-ok
	expect_func "$CFG $TEST libstdc++ throws from inside a library call" \
		std::__throw_out_of_range_fmt count 3
	expect_func "$CFG $TEST __cxa_throw, a library call that throws" __cxa_throw count 3
	expect_func "$CFG $TEST each catch ends in main" __cxa_end_catch count 6 depth 1
	expect_func "$CFG $TEST calls after the catches still nest" printf mincount 5
	expect_func "$CFG $TEST pthread_exit, a forced unwind" pthread_exit count 1
}
