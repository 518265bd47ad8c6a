# SPDX-License-Identifier: MIT
#
# tests/e2e/t/lc-errno.sh - --libcall on errno.c: what graph-errno.sh checks
# holds with the library calls hooked too (they are leaves between)

e2e_test "lc-errno --libcall -- errno"

check_lc_errno() { check_errno; }
