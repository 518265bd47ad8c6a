# SPDX-License-Identifier: MIT
#
# tests/e2e/t/lc-graph.sh - --libcall on libcall.c: its functions and its
# library calls nest together (main -> qsort -> cmp_len -> strlen)

e2e_test "lc-graph --libcall -- libcall"

check_lc_graph() {
	expect_balanced "$CFG $TEST braces balance" open-ok
	expect_func "$CFG $TEST printf under main" printf count 3 depth 1
	expect_func "$CFG $TEST qsort under main" qsort count 1 depth 1
	expect_func "$CFG $TEST qsort calls back into the program" cmp_len mincount 2 depth 2
	expect_func "$CFG $TEST the callback's library call nested" strlen mincount 4 maxd 3
	expect_func "$CFG $TEST libm on doubles, in main and a new thread" pow count 2
	expect_func "$CFG $TEST malloc" malloc count 1 depth 1
	expect_func "$CFG $TEST free" free count 1 depth 1
	expect_func "$CFG $TEST longjmp out of a library call" longjmp count 1
	expect_func "$CFG $TEST exit, which never returns" exit count 1 depth 1
	expect_func "$CFG $TEST main's own code after the longjmp" puts mincount 3 depth 1
	expect_absent "$CFG $TEST setjmp (returns twice) left alone" setjmp _setjmp
}
