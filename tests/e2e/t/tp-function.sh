# SPDX-License-Identifier: MIT
#
# tests/e2e/t/tp-function.sh - record -p function with two tracepoints:
# event lines in the function tracer's layout

e2e_test "tp-function -p function -e tp:tp_begin -e tp:tp_end -- tracepoints"

check_tp_function() {
	count_lines "$CFG $TEST event lines in the function layout" \
		'^ +tracepoints-[0-9]+ +\[[0-9]{3}\] \.\.\.\.\. +[0-9]+\.[0-9]{6}: tp_(begin: a=5 b=-1|end: a=5 b=20)$' 2
	count_lines "$CFG $TEST marker line" ': tracing_mark_write: sum=20$' 1
}
