# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-dlopen.sh - dlopen.c + plugin.c: dlopen, call, dlclose,
# twice
# Must hold: plugin_entry (2) and plugin_helper (4) by name, at depths 2 and
# 3.

e2e_test "dlopen -- dlopen"

check_dlopen() {
	expect_balanced "$CFG dlopen braces balance"
	expect_func "$CFG dlopen plugin_entry named" plugin_entry count 2 depth 2
	expect_func "$CFG dlopen plugin_helper named" plugin_helper count 4 depth 3
	expect_func "$CFG dlopen main's functions around it" after_plugin count 2 depth 1
}
