# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-fib.sh - fib.c: recursive fib(6)
# Must hold: golden; 25 calls of fib at depths 1-6.
# The golden: tests/e2e/golden/fib.txt.

e2e_test "fib -- fib"

check_fib() {
	check_golden fib
	expect_func "$CFG fib 25 calls of fib" fib count 25 mind 1 maxd 6
	expect_balanced "$CFG fib braces balance"
}
