# SPDX-License-Identifier: MIT
#
# tests/e2e/t/flt-l.sh - record -l 'b*' on simple
# Must hold: only b, at depth 0.

e2e_test "flt-l -l b* -- simple"

check_flt_l() {
	expect_names "$CFG $TEST only b shown" "b"
	expect_func "$CFG $TEST b at the top" b count 1 depth 0
}
