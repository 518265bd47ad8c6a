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
	esac
}
