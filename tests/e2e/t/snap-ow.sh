# SPDX-License-Identifier: MIT
#
# tests/e2e/t/snap-ow.sh - the flight recorder on snap.c: --overwrite with a
# 64 KB buffer and snapshot triggers
# The golden: tests/e2e/golden/snap-two.txt.

e2e_test "snap-ow -p nop --overwrite -b 64 -e snap:snap_tick -- snap 20000"

# snap_ids FILE: "first last count" of the snap_tick ids in FILE
snap_ids() {
	sed -n 's/.*snap_tick: id=\([0-9]*\).*/\1/p' "$1" |
		awk 'NR == 1 { f = $1 } { l = $1; n++ } END { print f + 0, l + 0, n + 0 }'
}

# The flight recorder: --overwrite with a 64 KB buffer keeps a few
# thousand of the 20000 ticks; snapshot:1 at id 15000 keeps the ones
# right before it, every one (the thread waits for the copy), and the
# trace goes on to the end.
check_snap_ow() {
	local st ids f l n
	"$UTRACE" report --snapshot -i "$RES/trace.dat" >"$RES/none.txt" 2>"$RES/none.err"
	st=$?
	t "$([ $st = 1 ] && [ ! -s "$RES/none.txt" ] && grep -q 'holds no snapshot' "$RES/none.err"
		echo $?)" "$CFG $TEST report --snapshot without one: says so, status 1" "status $st" \
		"$(cat "$RES/none.err")"
	"$UTRACE" record -p nop --overwrite -b 64 -o "$RES/ow.dat" -e snap:snap_tick \
		-R 'snapshot:1 if id == 15000' -- "$BIN/snap" 20000 >/dev/null 2>"$RES/ow.err" </dev/null
	"$UTRACE" report --snapshot -i "$RES/ow.dat" >"$RES/ow.txt" 2>>"$RES/ow.err"
	st=$?
	read -r f l n <<<"$(snap_ids "$RES/ow.txt")"
	t "$([ $st = 0 ] && [ "$l" = 14999 ] && [ "$f" -gt 5000 ] && [ $((l - f + 1)) = "$n" ] &&
		[ "$(grep -c '^# tracer: nop$' "$RES/ow.txt")" = 1 ] && ! grep -q '^#####' "$RES/ow.txt"
		echo $?)" "$CFG $TEST snapshot at id 15000: ids $f..14999, every one, the older overwritten" \
		"status $st, ids $f..$l ($n)" "$(cat "$RES/ow.err")"
	"$UTRACE" report -i "$RES/ow.dat" >"$RES/ow.rep" 2>/dev/null
	read -r f l n <<<"$(snap_ids "$RES/ow.rep")"
	t "$([ "$l" = 19999 ]; echo $?)" "$CFG $TEST recording went on after the snapshot: the trace ends at 19999" \
		"ids $f..$l ($n)"
	# :2 of three firings, without --overwrite: two snapshots, a line each
	"$UTRACE" record -o "$RES/two.dat" -e snap:snap_tick \
		-R 'snapshot:2 if id == 100 || id == 200 || id == 300' -- "$BIN/snap" 400 \
		>/dev/null 2>"$RES/two.err" </dev/null
	"$UTRACE" report --snapshot -i "$RES/two.dat" >"$RES/two.txt" 2>>"$RES/two.err"
	grep -E '^#####|^# tracer|snap_tick: id=(0|99|199|299) ' "$RES/two.txt" | mask >"$RES/two.golden"
	check_golden_raw snap-two "$RES/two.golden"
	# each snapshot's last tick: the one right before the id that fired it
	t "$([ "$(awk '/^#####/ { if (l != "") printf "%s ", l; l = "" }
			/snap_tick: id=/ { sub(/.*id=/, ""); l = $1 + 0 }
			END { print l }' "$RES/two.txt")" = "99 199" ]; echo $?)" \
		"$CFG $TEST snapshot:2: two, ending right before ids 100 and 200" \
		"$(grep -E '^#####' "$RES/two.txt")" "$(cat "$RES/two.err")"
}
