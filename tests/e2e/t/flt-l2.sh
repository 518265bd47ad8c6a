# SPDX-License-Identifier: MIT
#
# tests/e2e/t/flt-l2.sh - record -l a -l c
# Must hold: only a and c, c nested in a.

e2e_test "flt-l2 -l a -l c -- simple"

check_flt_l2() {
	expect_names "$CFG $TEST only a and c shown" "a c"
	expect_func "$CFG $TEST c nested in a" c count 1 depth 1
}
