# SPDX-License-Identifier: MIT
#
# tests/e2e/t/lc-dlopen.sh - --libcall on dlopen.c: what graph-dlopen.sh
# checks holds with the library calls hooked too (they are leaves between)

e2e_test "lc-dlopen --libcall -- dlopen"

# The programs of the other tests with their library calls hooked too:
# what they check must hold still (library calls are leaves between).
check_lc_dlopen() { check_dlopen; }
