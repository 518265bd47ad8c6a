# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-tailcall.sh - tailcall.c: at -O2 return f(x) is a jmp: a
# chain, a 1000-deep mutual recursion, through a pointer, into libc
# Must hold: braces balance; tc_leaf at depth 4 under tc3/tc2/tc1, is_even
# 890 and is_odd 889 calls.

e2e_test "tailcall -- tailcall"

check_tailcall() {
	expect_balanced "$CFG tailcall braces balance"
	expect_func "$CFG tailcall tc1 from main" tc1 count 2 depth 1
	expect_func "$CFG tailcall chain tc1 -> tc2 -> tc3 -> tc_leaf" tc_leaf count 2 depth 4
	expect_func "$CFG tailcall mutual recursion is_even" is_even count 890
	expect_func "$CFG tailcall mutual recursion is_odd" is_odd count 889
	expect_func "$CFG tailcall through a function pointer" target count 1 depth 2
	expect_func "$CFG tailcall into libc" to_libc count 1 depth 1
}
