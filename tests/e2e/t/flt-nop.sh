# SPDX-License-Identifier: MIT
#
# tests/e2e/t/flt-nop.sh - record -p nop
# Must hold: no function lines.

e2e_test "flt-nop -p nop -- simple"

check_flt_nop() {
	if [ "$(fact lines)" = 0 ] && [ "$(fact flines)" = 0 ]; then
		ok "$CFG $TEST no function lines"
	else
		nok "$CFG $TEST no function lines" "$(fact lines) graph lines, $(fact flines) function lines" "report: $REP"
	fi
}
