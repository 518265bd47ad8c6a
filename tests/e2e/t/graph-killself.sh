# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-killself.sh - killself.c segv|abrt|kill: NULL store,
# abort(), raise(SIGKILL) two frames down
# Must hold: status 139/134/137 from both runs; the trace is readable and
# has before_death x3 and die.

e2e_test "killself-segv -- killself segv"
e2e_test "killself-abrt -- killself abrt"
e2e_test "killself-kill -- killself kill"

check_killself() {
	expect_balanced "$CFG $TEST no unmatched exits" open-ok
	expect_func "$CFG $TEST calls before the signal" before_death count 3 depth 1
	expect_func "$CFG $TEST die() traced" die count 1 depth 2
}

check_killself_segv() { check_killself; }

check_killself_abrt() { check_killself; }

check_killself_kill() { check_killself; }
