# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-exitcode.sh - exitcode.c: exit(3) two frames down
# Must hold: status 3; run, finish, compute present.

e2e_test "exitcode -- exitcode"

check_exitcode() {
	expect_balanced "$CFG exitcode no unmatched exits" open-ok
	expect_func "$CFG exitcode compute traced" compute count 1 depth 2
	expect_func "$CFG exitcode run traced" run count 1 depth 1
	expect_func "$CFG exitcode finish (calls exit) traced" finish count 1 depth 2
}
