# SPDX-License-Identifier: MIT
#
# tests/e2e/t/tp-tracepoints.sh - tracepoints.c: utrace tracepoints
# (tests/progs/tp.h) compiled in but not enabled
# Must hold: no event recorded without -e (the jump labels stay NOPs); step
# traced 5 times.

e2e_test "tracepoints -- tracepoints"

check_tracepoints() {
	# not enabled: the jump labels stay NOPs, nothing is recorded
	count_lines "$CFG $TEST no event without -e" 'tp_(value|begin|end):' 0
	expect_func "$CFG $TEST step traced" step count 5 depth 2
}
