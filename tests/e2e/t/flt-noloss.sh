# SPDX-License-Identifier: MIT
#
# tests/e2e/t/flt-noloss.sh - record -b 64 on longrun 400000 (no-loss, the
# default)
# Must hold: nothing lost: filler exactly 400000 times at depth 1,
# first_func and the_end once, braces balance.

e2e_test "flt-noloss -b 64 -- longrun 400000"

# The same 64 KB buffer by default (no-loss): the program waits for the
# recorder, every call is saved.
check_flt_noloss() {
	expect_nolost "$CFG $TEST nothing lost with a 64 KB buffer"
	expect_func "$CFG $TEST every filler() call saved" filler count 400000 depth 1
	expect_func "$CFG $TEST first_func() saved" first_func count 1
	expect_func "$CFG $TEST the_end() saved" the_end count 1
	expect_balanced "$CFG $TEST braces balance"
}
