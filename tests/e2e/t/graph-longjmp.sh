# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-longjmp.sh - longjmp.c: longjmp out of 6 frames to main,
# 3 times out of 5 frames back into a traced function that called setjmp,
# siglongjmp out of a signal handler
# Must hold: braces balance; after_longjmp and after_siglongjmp at depth 1,
# after_in_catcher at depth 2, catcher returns normally 3 times.

e2e_test "longjmp -- longjmp"

check_longjmp() {
	expect_balanced "$CFG longjmp braces balance"
	expect_func "$CFG longjmp frames jumped over" jump_down count 21
	expect_func "$CFG longjmp after_longjmp back under main" after_longjmp count 1 depth 1
	expect_func "$CFG longjmp after_in_catcher under catcher" after_in_catcher count 3 depth 2
	expect_func "$CFG longjmp catcher returns normally" catcher count 3 depth 1
	expect_func "$CFG longjmp siglongjmp out of a handler" on_usr1 count 1
	expect_func "$CFG longjmp after_siglongjmp back under main" after_siglongjmp count 1 depth 1
}
