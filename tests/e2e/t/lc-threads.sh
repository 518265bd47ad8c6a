# SPDX-License-Identifier: MIT
#
# tests/e2e/t/lc-threads.sh - --libcall on threads.c: what graph-threads.sh
# checks holds with the library calls hooked too (they are leaves between)

e2e_test "lc-threads --libcall -- threads"

check_lc_threads() { check_threads; }
