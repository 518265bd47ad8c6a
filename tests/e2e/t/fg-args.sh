# SPDX-License-Identifier: MIT
#
# tests/e2e/t/fg-args.sh - funcgraph-args and funcgraph-retval on
# dwarfargs.c: the values the program printed
# The golden: tests/e2e/golden/fg-args.txt; --no-libcall: the program's
# own arguments are the subject, and its library calls differ between
# compilers (clang -O0 copies a struct with memcpy()).  fg-retval.sh has
# them: walk's printf() nested in it.

e2e_test "fg-args -O funcgraph-args -O funcgraph-retval --no-libcall -- dwarfargs"

check_fg_args() {
	local count total scale
	count=$(sed -n 's/^count=\([0-9]*\) .*/\1/p' "$RES/u.out")
	total=$(sed -n 's/^total=\([0-9]*\) .*/\1/p' "$RES/u.out")
	scale=$(sed -n 's/.* scale=\([0-9]*\)$/\1/p' "$RES/u.out")
	expect_balanced "$CFG $TEST braces balance"
	expect_line "$CFG $TEST main's argc, argv" '\|  main\(argc=1, argv=0x[0-9a-f]+\) \{$'
	expect_line "$CFG $TEST walk(count=$count) = $total" \
		"\\|    walk\\(p=0x[0-9a-f]+, count=$count, buf=0x[0-9a-f]+\\); /\\* = $total \\*/\$"
	expect_line "$CFG $TEST scale(n=3) = $scale" \
		"\\|    scale\\(n=3, label=0x[0-9a-f]+\\); /\\* = $scale \\*/\$"
	expect_line "$CFG $TEST main's return" '\|  \} /\* main = 0 \*/$'
	# addresses change from run to run (ASLR): masked for the golden
	sed -E 's/0x[0-9a-f]+/0xADDR/g' "$REP" >"$RES/rep-noaddr.txt"
	local REP=$RES/rep-noaddr.txt
	check_golden fg-args
}
