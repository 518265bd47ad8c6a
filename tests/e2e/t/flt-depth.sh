# SPDX-License-Identifier: MIT
#
# tests/e2e/t/flt-depth.sh - record --max-graph-depth 2
# Must hold: main and a, a as a leaf a();, and main's library call
# printf (--libcall, the default: the depth limits it too).

e2e_test "flt-depth --max-graph-depth 2 -- simple"

check_flt_depth() {
	expect_names "$CFG $TEST two levels" "a main printf"
	if grep -q '^ *[0-9]*) .*|  *a();' "$REP"; then
		ok "$CFG $TEST a() shown as a leaf"
	else
		nok "$CFG $TEST a() shown as a leaf" "no 'a();' line" "report: $REP"
	fi
}
