# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-args.sh - args.c: 8 integer args, 10 double args,
# varargs, results in rax:rdx, xmm0:xmm1, st(0), memory
# Must hold: stdout (the results) identical; every function at depth 1.

e2e_test "args -- args"

check_args() {
	local f
	expect_balanced "$CFG args braces balance"
	for f in int8 dbl10 mixed vsum ret_pair ret_i128 ret_dpair ret_ld ret_big by_value; do
		expect_func "$CFG args $f traced" $f count 1 depth 1
	done
}
