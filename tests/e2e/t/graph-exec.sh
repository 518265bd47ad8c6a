# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-exec.sh - exec.c: execs itself from phase1 -> do_exec
# Must hold: documented expectation: **the new image is traced too**:
# phase1, do_exec (left open), then main -> phase2 -> phase2_leaf of the new
# image; main twice.

e2e_test "exec -- exec"

check_exec() {
	expect_func "$CFG exec first image: phase1" phase1 count 1 depth 1
	expect_func "$CFG exec first image: do_exec" do_exec count 1 depth 2
	expect_func "$CFG exec new image traced: phase2" phase2 count 1 depth 1
	expect_func "$CFG exec new image traced: phase2_leaf" phase2_leaf count 2 depth 2
	expect_func "$CFG exec main in both images" main count 2 depth 0
}
