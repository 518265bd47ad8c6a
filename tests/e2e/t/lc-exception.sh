# SPDX-License-Identifier: MIT
#
# tests/e2e/t/lc-exception.sh - --libcall on exception.c: what graph-
# exception.sh checks holds with the library calls hooked too (they are
# leaves between)

e2e_test "lc-exception --libcall -- exception"

check_lc_exception() { check_exception; }
