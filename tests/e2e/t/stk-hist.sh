# SPDX-License-Identifier: MIT
#
# tests/e2e/t/stk-hist.sh - hist:keys=common_stacktrace on snap.c: the chain
# of the shadow stack as the kernel prints a stacktrace key, and from frame
# pointers at -O0
# The golden: tests/e2e/golden/stk-hist.txt.

e2e_test "stk-hist -v -e snap:snap_tick -R hist:keys=common_stacktrace:vals=id -- snap 6"

# hist:keys=common_stacktrace under function_graph: one entry, the chain
# of the shadow stack as the kernel prints a stacktrace key; the -O0
# build's frame pointers give the same chain without function_graph.
check_stk_hist() {
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	check_golden_raw stk-hist "$RES/hist.txt"
	case $CFG in
	*-O0-*)
		"$UTRACE" record -p nop -o "$RES/fp.dat" -v -e snap:snap_tick \
			-R 'hist:keys=stacktrace' -- "$BIN/snap" 6 >/dev/null 2>"$RES/fp.err" </dev/null
		"$UTRACE" report --hist -i "$RES/fp.dat" >"$RES/fp.hist" 2>>"$RES/fp.err"
		t "$(sed -n '/^{ common_stacktrace:$/,/^}/p' "$RES/fp.hist" | sed 's/+0x[0-9a-f]*$//' |
			sed -n 2,5p | tr -d ' ' | tr '\n' ' ' | grep -qx 'snap_inner snap_middle snap_outer main '
			echo $?)" "$CFG $TEST frame pointers: the stacktrace key names the chain" \
			"$(cat "$RES/fp.hist" "$RES/fp.err")" ;;
	*-O2-*) check_stk_filter ;;
	esac
}

# -e EV -f F -R stacktrace: the -e's filter applies before its trigger,
# so a stack is taken for each event recorded, not for every hit (29
# stacks for 1 event before); a trigger's own `if` on top of it.
check_stk_filter() {
	local all ev st own
	"$UTRACE" record -p nop -o "$RES/sf.dat" -e snap:snap_tick -- "$BIN/snap" 6 \
		>/dev/null 2>"$RES/sf.err" </dev/null
	all=$("$UTRACE" report -i "$RES/sf.dat" 2>/dev/null | grep -c ' snap_tick: ')
	"$UTRACE" record -p nop -o "$RES/sf.dat" -e snap:snap_tick -f 'id > 3' -R stacktrace \
		-- "$BIN/snap" 6 >/dev/null 2>>"$RES/sf.err" </dev/null
	"$UTRACE" report -i "$RES/sf.dat" >"$RES/sf.txt" 2>>"$RES/sf.err"
	ev=$(grep -c ' snap_tick: ' "$RES/sf.txt")
	st=$(grep -c '<stack trace>' "$RES/sf.txt")
	t "$([ "$ev" -gt 0 ] && [ "$ev" -lt "$all" ] && [ "$st" -eq "$ev" ]; echo $?)" \
		"$CFG $TEST -f 'id > 3' -R stacktrace: one stack per recorded event ($st stacks, $ev of $all events)" \
		"$(cat "$RES/sf.err")"
	"$UTRACE" record -p nop -o "$RES/sf.dat" -e snap:snap_tick -f 'id > 3' \
		-R 'stacktrace if id > 4' -- "$BIN/snap" 6 >/dev/null 2>>"$RES/sf.err" </dev/null
	own=$("$UTRACE" report -i "$RES/sf.dat" 2>/dev/null | grep -c '<stack trace>')
	t "$([ "$own" -gt 0 ] && [ "$own" -lt "$ev" ]; echo $?)" \
		"$CFG $TEST -f 'id > 3' -R 'stacktrace if id > 4': the two filters together ($own stacks)" \
		"$(cat "$RES/sf.err")"
}
