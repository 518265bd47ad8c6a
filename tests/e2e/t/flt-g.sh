# SPDX-License-Identifier: MIT
#
# tests/e2e/t/flt-g.sh - record -g a
# Must hold: only a's subtree: a (depth 0), b, c.

e2e_test "flt-g -g a -- simple"

check_flt_g() {
	expect_names "$CFG $TEST only a's subtree" "a b c"
	expect_func "$CFG $TEST a at the top" a count 1 depth 0
	expect_balanced "$CFG $TEST braces balance"
}
