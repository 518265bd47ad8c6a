# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-longrun.sh - longrun.c: first_func, 200000 x filler,
# slow (5 ms), the_end
# Must hold: braces balance; first_func, slow, the_end present.

e2e_test "longrun -- longrun"

check_longrun() {
	expect_balanced "$CFG longrun braces balance"
	expect_func "$CFG longrun first_func" first_func count 1 depth 1
	expect_func "$CFG longrun the_end" the_end count 1 depth 1
	expect_func "$CFG longrun slow" slow count 1 depth 1
}
