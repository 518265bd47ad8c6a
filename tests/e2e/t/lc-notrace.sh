# SPDX-License-Identifier: MIT
#
# tests/e2e/t/lc-notrace.sh - --libcall -n on libcall.c: -n hides library
# calls by name

e2e_test "lc-notrace --libcall -n str* -n *printf -- libcall"

check_lc_notrace() {
	expect_absent "$CFG $TEST -n hides library calls by name" strlen printf snprintf
	expect_func "$CFG $TEST the others stay" qsort count 1 depth 1
	expect_func "$CFG $TEST the callback stays" cmp_len mincount 2 depth 2
}
