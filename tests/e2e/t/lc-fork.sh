# SPDX-License-Identifier: MIT
#
# tests/e2e/t/lc-fork.sh - --libcall on fork.c: what graph-fork.sh checks
# holds with the library calls hooked too (they are leaves between)

e2e_test "lc-fork --libcall -- fork"

check_lc_fork() { check_fork; }
