# SPDX-License-Identifier: MIT
#
# tests/e2e/t/flt-thresh.sh - record --thresh 1000 on longrun 20000
# Must hold: slow kept; filler, first_func, the_end dropped.

e2e_test "flt-thresh --thresh 1000 -- longrun 20000"

# --thresh 1000: a call is kept when it lasted 1000 us or more.  The short
# calls (20002 of about 50 ns) are dropped, but on a busy machine one may
# be preempted for longer than the threshold and is rightly kept: the
# check is that every short call kept lasted the threshold, and that
# nearly all were dropped (a preemption is rare among calls this short).
check_flt_thresh() {
	local got
	expect_func "$CFG $TEST slow() (5 ms) kept" slow count 1
	got=$(awk '/(filler|first_func|the_end)(\(\);| \*\/)/ {
			n++; if (!match($0, /[0-9]+\.[0-9]+ us/) || substr($0, RSTART, RLENGTH - 3) + 0 < 1000) bad++
		} END { print n + 0, bad + 0 }' "$REP")
	set -- $got
	t "$([ "$2" -eq 0 ] && [ "$1" -le 200 ]; echo $?)" "$CFG $TEST short calls dropped" \
		"$1 short calls kept (at most 200 of 20002, each preempted), $2 of them shorter than 1000 us" \
		"report: $REP"
}
