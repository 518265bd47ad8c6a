# SPDX-License-Identifier: MIT
#
# tests/e2e/t/lc-signal.sh - --libcall on signal.c: what graph-signal.sh
# checks holds with the library calls hooked too (they are leaves between)

e2e_test "lc-signal --libcall -- signal"

check_lc_signal() { check_signal; }
