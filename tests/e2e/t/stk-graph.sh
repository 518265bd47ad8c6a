# SPDX-License-Identifier: MIT
#
# tests/e2e/t/stk-graph.sh - stacktrace triggers on snap.c: stacktrace:2
# under function_graph (the shadow stack), and with -p nop from frame
# pointers
# The golden: tests/e2e/golden/stk-graph.txt; --no-libcall: the stacks
# are the subject, and snap's library calls differ between compilers
# (atoi() is strtol() inline at -O2, memset() a builtin).

e2e_test "stk-graph -e snap:snap_tick -R stacktrace:2 --no-libcall -- snap 6"

# snap.c fires snap_tick id 0..N-1 from snap_inner <- snap_middle <-
# snap_outer <- main.  stacktrace:2 under function_graph (the shadow
# stack): the first two events get the block, naming that chain.
check_stk_graph() {
	local st
	check_golden stk-graph
	count_lines "$CFG $TEST stacktrace:2: two stack blocks" '<stack trace>' 2
	count_lines "$CFG $TEST each block names snap_inner first" '^ => snap_inner$' 2
	count_lines "$CFG $TEST each block ends with main" '^ => main \*/$' 2
	# without function_graph: frame pointers, which -O0 keeps
	"$UTRACE" record -p nop -o "$RES/fp.dat" -e snap:snap_tick -R 'stacktrace if id == 3' \
		-- "$BIN/snap" 6 >/dev/null 2>"$RES/fp.err" </dev/null
	"$UTRACE" report -i "$RES/fp.dat" >"$RES/fp.txt" 2>>"$RES/fp.err"
	st=$?
	t "$([ $st = 0 ] && [ "$(grep -c '<stack trace>$' "$RES/fp.txt")" = 1 ] &&
		grep -A1 '<stack trace>$' "$RES/fp.txt" | head -1 | grep -q 'snap_tick.*id=3\|<stack trace>'
		echo $?)" "$CFG $TEST -p nop stacktrace if id == 3: one block" "$(cat "$RES/fp.err")" \
		"$(head -20 "$RES/fp.txt")"
	case $CFG in
	*-O0-*)
		t "$(grep -A4 '<stack trace>$' "$RES/fp.txt" | tail -4 | tr '\n' ' ' |
			grep -qx ' => snap_inner  => snap_middle  => snap_outer  => main '; echo $?)" \
			"$CFG $TEST frame pointers: snap_inner, snap_middle, snap_outer, main" \
			"$(grep -A6 '<stack trace>$' "$RES/fp.txt")" ;;
	esac
}
