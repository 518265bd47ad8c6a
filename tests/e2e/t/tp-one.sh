# SPDX-License-Identifier: MIT
#
# tests/e2e/t/tp-one.sh - record -e tp:tp_value -f id>=3: an event filter
# keeps two, the other events stay off

e2e_test "tp-one -e tp:tp_value -f id>=3 -- tracepoints"

check_tp_one() {
	count_lines "$CFG $TEST filter id>=3 keeps two" '/\* tp_value: id=[34] name=(three|four) \*/$' 2
	count_lines "$CFG $TEST other events off" 'tp_(begin|end):' 0
}
