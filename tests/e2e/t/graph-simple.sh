# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-simple.sh - simple.c: main -> a -> b, a -> c
# Must hold: golden; main at depth 0, a at 1, b and c at 2; braces balance.
# The golden: tests/e2e/golden/simple.txt.

e2e_test "simple -- simple"

check_simple() {
	check_golden simple
	expect_func "$CFG simple main at depth 0" main depth 0 count 1
	expect_func "$CFG simple a nested in main" a depth 1 count 1
	expect_func "$CFG simple b nested in a" b depth 2 count 1
	expect_func "$CFG simple c nested in a" c depth 2 count 1
	expect_balanced "$CFG simple braces balance"
}
