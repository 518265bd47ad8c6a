# SPDX-License-Identifier: MIT
#
# tests/e2e/t/lc-longjmp.sh - --libcall on longjmp.c: what graph-longjmp.sh
# checks holds with the library calls hooked too (they are leaves between)

e2e_test "lc-longjmp --libcall -- longjmp"

check_lc_longjmp() { check_longjmp; }
