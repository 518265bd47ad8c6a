# SPDX-License-Identifier: MIT
#
# tests/e2e/t/tp-pid.sh - record -f common_pid!=0&&common_type>=32768: all
# five tp_value events kept

e2e_test "tp-pid -e tp:tp_value -f common_pid!=0&&common_type>=32768 -- tracepoints"

check_tp_pid() {
	count_lines "$CFG $TEST common_pid!=0 and common_type keep all five" '/\* tp_value: id=[0-4] ' 5
}
