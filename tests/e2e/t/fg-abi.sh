# SPDX-License-Identifier: MIT
#
# tests/e2e/t/fg-abi.sh - funcgraph-args and -retval on args.c: what integer
# registers hold, "?" for the rest, "..." from the seventh argument on

e2e_test "fg-abi -O funcgraph-args -O funcgraph-retval -- args"

check_fg_abi() {
	local int8
	int8=$(sed -n 's/^int8 = //p' "$RES/u.out")
	expect_balanced "$CFG $TEST braces balance"
	expect_line "$CFG $TEST six integer registers, then ..." \
		"int8\\(a=1, b=2, c=3, d=4, e=5, f=6, \\.\\.\\.\\); /\\* = $int8 \\*/\$"
	expect_line "$CFG $TEST floats are not in integer registers" \
		'mixed\(a=1, b=\?, c=3, d=\?, e=5, f=\?\);$'
	expect_line "$CFG $TEST a result in memory: its address in rdi first" \
		'ret_big\(base=100\); /\* = 0x[0-9a-f]+\(trunc\) \*/$'
	expect_line "$CFG $TEST a struct by value is in memory" 'by_value\(b=\?, k=2\); /\* = -?[0-9]+ \*/$'
	expect_line "$CFG $TEST no return value for a floating-point result" 'ret_ld\(x=\?\);$'
}
