# SPDX-License-Identifier: MIT
#
# tests/e2e/t/fg-retval.sh - funcgraph-retval (and -retval-hex at report
# time) on dwarfargs.c, without the arguments

e2e_test "fg-retval -O funcgraph-retval -- dwarfargs"

check_fg_retval() {
	expect_balanced "$CFG $TEST braces balance"
	expect_line "$CFG $TEST no arguments without funcgraph-args" '\|  main\(\) \{$'
	# walk's printf (--libcall, the default) nests in it: the value on its return
	expect_line "$CFG $TEST walk's return" "\\|    \\} /\\* walk = $(sed -n 's/^total=\([0-9]*\) .*/\1/p' "$RES/u.out") \\*/\$"
	"$UTRACE" report -O funcgraph-retval-hex -i "$RES/trace.dat" >"$RES/hex.txt" 2>&1
	local REP=$RES/hex.txt
	expect_line "$CFG $TEST funcgraph-retval-hex" \
		"\\|    \\} /\\* walk = 0x$(printf %x "$(sed -n 's/^total=\([0-9]*\) .*/\1/p' "$RES/u.out")") \\*/\$"
}
