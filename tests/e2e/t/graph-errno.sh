# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-errno.sh - errno.c: errno across traced calls, from
# syscalls inside callees, on a thread's first traced call, across 20000
# calls
# Must hold: stdout says all checks passed; nop_call 20001 times.

e2e_test "errno -- errno"

check_errno() {
	expect_balanced "$CFG errno braces balance"
	expect_func "$CFG errno 20000-call loop traced" nop_call count 20001
	expect_func "$CFG errno callee in both threads" sees_errno count 2
}
