# SPDX-License-Identifier: MIT
#
# tests/e2e/t/flt-tid.sh - record -T 1
# Must hold: no function lines (pid 1 is none of the program's threads).

e2e_test "flt-tid -T 1 -- simple"

check_flt_tid() {
	# pid 1 is never one of the program's threads: nothing is recorded
	if [ "$(fact lines)" = 0 ] && [ "$(fact flines)" = 0 ]; then
		ok "$CFG $TEST other threads not traced"
	else
		nok "$CFG $TEST other threads not traced" "$(fact lines) graph lines, $(fact flines) function lines" "report: $REP"
	fi
}
