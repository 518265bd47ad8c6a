# SPDX-License-Identifier: MIT
#
# tests/e2e/t/tp-all.sh - record -e tp on tracepoints.c: every tracepoint,
# as function_graph comments

e2e_test "tp-all -e tp -- tracepoints"

check_tp_all() {
	count_lines "$CFG $TEST tp_value events as graph comments" '\| +/\* tp_value: id=[0-4] name=(zero|one|two|three|four) \*/$' 5
	# main 0, run 1, step 2: an event inside step is at depth 3
	count_lines "$CFG $TEST tp_value inside step" '\|        /\* tp_value: id=2 name=two \*/$' 1
	count_lines "$CFG $TEST class events" '/\* tp_(begin: a=5 b=-1|end: a=5 b=20) \*/$' 2
	count_lines "$CFG $TEST utrace_printf text" '/\* sum=20 \*/$' 1
	expect_balanced "$CFG $TEST braces balance"
}
