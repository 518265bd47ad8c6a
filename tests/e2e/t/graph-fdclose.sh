# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-fdclose.sh - fdclose.c: closes fds 3..1023 in a loop
# (all EBADF), closefrom(3), close_range(3, ~0U, 0), dup2/dup3 of a pipe
# onto every fd from 5 to 1023, traced calls after each step and in a new
# thread
# Must hold: stdout identical (every close EBADF, every dup works); work as
# many times as the program counted (600), in both tracers; phase 6 times;
# no lost events; no connection lost.

e2e_test "fdclose -- fdclose"

# The program closed every descriptor it did not open, through libc: the
# runtime's socket must have survived, so every call is in the report
# (as many as the program counted), in both tracers, and nothing says a
# connection was lost.
check_fdclose() {
	local want n
	want=$(sed -n 's/^sum .*, \([0-9]*\) calls of work$/\1/p' "$RES/t.out")
	expect_balanced "$CFG $TEST braces balance"
	expect_nolost "$CFG $TEST no lost events"
	expect_func "$CFG $TEST every call of work the program counted (${want:-?})" work count "${want:-600}"
	expect_func "$CFG $TEST phase 6 times, in main and the thread" phase count 6 mind 1 maxd 2
	t "$(! grep -q "closed utrace's connection" "$RES/t.err" "$RES/rep.err"; echo $?)" \
		"$CFG $TEST the connection stayed open" "$(grep "connection" "$RES/t.err" "$RES/rep.err")"
	function_run fdclose
	n=$(awk '$1 == "fcall" && $2 == "work" { n += $NF } END { print n + 0 }' "$RES/fn.facts")
	t "$([ "$n" = "${want:-600}" ]; echo $?)" "$CFG $TEST every call of work (-p function)" \
		"$n work lines, the program counted ${want:-?}" "report: $RES/fn.txt"
}
