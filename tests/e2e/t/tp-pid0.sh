# SPDX-License-Identifier: MIT
#
# tests/e2e/t/tp-pid0.sh - record -f common_pid==0: the common fields hold
# the kernel's values, common_pid is never 0

e2e_test "tp-pid0 -e tp:tp_value -f common_pid==0 -- tracepoints"

# common fields hold the kernel's values: common_pid the thread, never 0
check_tp_pid0() {
	count_lines "$CFG $TEST common_pid==0 keeps none" 'tp_value:' 0
}
