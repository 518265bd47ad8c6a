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
	# report -D: an event shows only where its call shows whole, indented
	# as the calls are (main 0, run 1: the event inside step is hidden)
	local n
	"$UTRACE" report -i "$RES/trace.dat" -D 2 >"$RES/d2.txt" 2>&1
	n=$(grep -c 'tp_value: id=2 name=two' "$RES/d2.txt")
	t "$([ "$n" = 0 ]; echo $?)" "$CFG $TEST report -D 2 hides the event inside step (depth 3)" \
		"$n lines: $(grep 'tp_value' "$RES/d2.txt" | head -3)"
	"$UTRACE" report -i "$RES/trace.dat" -D 1 >"$RES/d1.txt" 2>&1
	n=$(grep -c '/\*' "$RES/d1.txt")
	t "$([ "$n" = 0 ] && grep -q 'main();' "$RES/d1.txt"; echo $?)" \
		"$CFG $TEST report -D 1: main as one line, no event" "$(head -8 "$RES/d1.txt")"
}
