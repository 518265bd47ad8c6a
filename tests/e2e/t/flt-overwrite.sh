# SPDX-License-Identifier: MIT
#
# tests/e2e/t/flt-overwrite.sh - record --overwrite -b 64 on longrun
# Must hold: the_end kept, first_func overwritten.

e2e_test "flt-overwrite --overwrite -b 64 -- longrun"

check_flt_overwrite() {
	expect_func "$CFG $TEST keeps the last events" the_end count 1
	expect_absent "$CFG $TEST lost the first events" first_func
}
