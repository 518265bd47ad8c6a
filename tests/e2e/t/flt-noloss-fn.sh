# SPDX-License-Identifier: MIT
#
# tests/e2e/t/flt-noloss-fn.sh - record -p function -b 64 on longrun 400000
# Must hold: nothing lost: a line for each of the 400004 calls (its own:
# --no-libcall, the count is of the program's functions).

e2e_test "flt-noloss-fn -p function -b 64 --no-libcall -- longrun 400000"

# -p function: 12 bytes a call, one line a call (main first_func filler
# slow the_end)
check_flt_noloss_fn() {
	expect_nolost "$CFG $TEST nothing lost with a 64 KB buffer"
	t "$([ "$(fact flines)" = 400004 ]; echo $?)" "$CFG $TEST a line for each of the 400004 calls" \
		"$(fact flines) function lines" "report: $REP"
}
