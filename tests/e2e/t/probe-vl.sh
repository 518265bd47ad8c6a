# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probe-vl.sh - utrace probe -V / -L on dwarfargs (one test per
# configuration) against this configuration's golden,
# tests/e2e/golden/probe-vl-CONFIG.txt, and perf probe's output (gcc, where
# perf is installed)

e2e_cfg probe-vl - check_probe_vl

# utrace probe -V / -L on dwarfargs (this configuration's DWARF) against
# this configuration's golden (what a probe sees differs with the compiler
# and -O), and against perf probe's own output where perf is installed.
check_probe_vl() {
	local prog=$BIN/dwarfargs line g=$GOLDEN/probe-vl-$CFG.txt
	RES=$OUT/$CFG/probe-vl
	mkdir -p "$RES"
	line=$(grep -n 'total += p->len' "$PROGS/dwarfargs.c" | cut -d: -f1)
	{
		"$UTRACE" probe -V walk -x "$prog"
		"$UTRACE" probe -V "dwarfargs.c:$line" -- "$prog"
		"$UTRACE" probe -L walk -x "$prog"
		"$UTRACE" probe -L scale -x "$prog"
	} >"$RES/vl.txt" 2>&1
	sed "s|$PROGS/|PROGS/|g" "$RES/vl.txt" >"$RES/masked.txt"
	if [ "${UTRACE_GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$RES/masked.txt" "$g"
		ok "$CFG probe-vl golden (updated $g)"
	elif diff -u "$g" "$RES/masked.txt" >"$RES/golden.diff"; then
		ok "$CFG probe-vl golden"
	else
		nok "$CFG probe-vl golden" "$(head -30 "$RES/golden.diff")"
	fi
	# perf 6.1 reads clang's DWARF 5 file 0 wrong (and crashes on -L): gcc only
	if command -v perf >/dev/null && [ "$(config_cc "$CFG")" = gcc ]; then
		{
			perf probe -x "$prog" -V walk
			perf probe -x "$prog" -V "dwarfargs.c:$line"
			perf probe -x "$prog" -L walk
			perf probe -x "$prog" -L scale
		} >"$RES/perf.txt" 2>&1
		diff -u "$RES/perf.txt" "$RES/vl.txt" >"$RES/perf.diff"
		t $? "$CFG probe-vl same as perf probe -V/-L" "$(head -30 "$RES/perf.diff")"
	fi
}
