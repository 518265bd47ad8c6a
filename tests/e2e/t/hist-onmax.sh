# SPDX-License-Identifier: MIT
#
# tests/e2e/t/hist-onmax.sh - onmax($b).save(...) on hist.c, and
# onmax().trace() into synthetic events (u64 and char[] fields)
# The golden: tests/e2e/golden/hist-onmax.txt.

e2e_test "hist-onmax -v -e hist:hist_req -R hist:keys=id:b=bytes:onmax(\$b).save(word,bytes) -- hist"

# onmax($b).save(word,bytes) on hist.c: bytes grows with every firing of
# an id, so each id's max is its last firing's, 100 * k + 10 * (k + 1) - 1,
# saved with that firing's word (words[j % 4]); then the same maximum
# through onmax().trace() into a synthetic event: one record per new max
# (id 0's first bytes, 0, is not above the start, 0), 359 in all.
check_hist_onmax() {
	local d=$RES st n
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	check_golden_raw hist-onmax "$RES/hist.txt"
	"$UTRACE" record -o "$d/tr.dat" -p nop --synthetic 'maxbytes u64 bytes; int id' \
		-e synthetic:maxbytes -R 'hist:keys=id:vals=bytes' \
		-v -e hist:hist_req -R 'hist:keys=id:b=bytes:onmax($b).trace(maxbytes,$b,id)' \
		-- "$BIN/hist" >/dev/null 2>"$d/tr.err" </dev/null
	st=$?
	"$UTRACE" report -i "$d/tr.dat" >"$d/tr.rep" 2>&1
	"$UTRACE" report --hist -i "$d/tr.dat" >"$d/tr.hist" 2>&1
	n=$(grep -c ' maxbytes: bytes=[0-9]* id=[0-7]$' "$d/tr.rep")
	t "$([ "$st" = 0 ] && [ "$n" = 359 ] &&
		grep -q '^{ id:          7 } hitcount:         80  bytes:      59160$' "$d/tr.hist" &&
		grep -q '^{ id:          0 } hitcount:          9  bytes:         45$' "$d/tr.hist"
		echo $?)" "$CFG $TEST onmax().trace(): a synthetic record per new max ($n)" \
		"$(head -20 "$d/tr.hist")" "$(cat "$d/tr.err")"
	# a char[] field: the string copied into each synthetic record
	"$UTRACE" record -o "$d/ts.dat" -p nop --synthetic 'maxword u64 bytes; char[] word; int id' \
		-e synthetic:maxword \
		-v -e hist:hist_req -R 'hist:keys=id:b=bytes:onmax($b).trace(maxword,$b,word,id)' \
		-- "$BIN/hist" >/dev/null 2>"$d/ts.err" </dev/null
	"$UTRACE" report -i "$d/ts.dat" >"$d/ts.rep" 2>&1
	n=$(awk '/ maxword: bytes=[0-9]* word=[a-z]* id=[0-7]$/ {
			split($0, a, /bytes=| word=| id=/); w[0] = "alpha"; w[1] = "beta"
			w[2] = "gamma"; w[3] = "delta"
			if (a[3] == w[(a[2] - 100 * a[4]) % 4]) n++
		} END { print n + 0 }' "$d/ts.rep")
	t "$([ "$n" = 359 ]; echo $?)" \
		"$CFG $TEST char[] synthetic field: each record has its firing's word ($n of 359)" \
		"$(grep -v '^#' "$d/ts.rep" | head -5)" "$(cat "$d/ts.err")"
}
