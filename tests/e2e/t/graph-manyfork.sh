# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-manyfork.sh - manyfork.c: 300 children, each calling
# work()
# Must hold: work traced in all 300 children.

e2e_test "manyfork -- manyfork"

check_manyfork() {
	expect_func "$CFG $TEST work traced in all 300 children" work count 300
}
