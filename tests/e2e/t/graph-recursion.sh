# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-recursion.sh - recursion.c: 100000 deep, in a thread
# with a 256 MiB stack (recorded with -b 4096)
# Must hold: no lost events; recurse 100001 times at depths 1..100001;
# braces balance; also 100001 lines with -p function.

e2e_test "recursion -b 4096 -- recursion"

check_recursion() {
	local n
	expect_nolost "$CFG recursion no lost events"
	expect_func "$CFG recursion 100001 entries" recurse count 100001
	# a report may cap its indentation: only the braces count here
	expect_balanced "$CFG recursion entries = exits" noindent
	# the function tracer's output does not grow with the depth
	FN_OPTS="-b 4096" function_run recursion
	FACTS=$RES/fn.facts REP=$RES/fn.txt
	n=$(awk '$1 == "fcall" && $2 == "recurse" { n += $NF } END { print n + 0 }' "$FACTS")
	t "$([ "$n" = 100001 ]; echo $?)" "$CFG recursion 100001 entries (-p function)" "$n recurse lines" "report: $REP"
	FACTS=$RES/facts REP=$RES/rep.txt
}
