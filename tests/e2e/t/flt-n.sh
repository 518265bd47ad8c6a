# SPDX-License-Identifier: MIT
#
# tests/e2e/t/flt-n.sh - record -n a
# Must hold: main, b, c and main's library call printf (--libcall, the
# default); b directly under main.

e2e_test "flt-n -n a -- simple"

check_flt_n() {
	expect_names "$CFG $TEST a hidden" "b c main printf"
	expect_func "$CFG $TEST b directly under main" b count 1 depth 1
}
