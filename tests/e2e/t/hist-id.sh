# SPDX-License-Identifier: MIT
#
# tests/e2e/t/hist-id.sh - hist:keys=id:vals=bytes on hist.c (soft-enabled:
# -v): every id's hits and bytes exact, from main, a thread and a fork child
# The golden: tests/e2e/golden/hist-id.txt.

e2e_test "hist-id -v -e hist:hist_req -R hist:keys=id:vals=bytes -- hist"

# hist.c fires id k 10 * (k + 1) times with bytes 100 * k + j, j = 0, 1, ...:
# every entry of keys=id:vals=bytes must say so, and the totals add up
check_hist_id() {
	local bad
	count_lines "$CFG $TEST soft-enabled: no hist_req record" 'hist_req:' 0
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	check_golden_raw hist-id "$RES/hist.txt"
	bad=$(awk '/^\{ id: / { k = $3; h = $6; b = $8; n++; want = 10 * (k + 1)
			if (h != want || b != 100 * k * want + want * (want - 1) / 2) print "id " k ": " h " hits, bytes " b }
		/^    Hits: / { hits = $2 } /^    Entries: / { ent = $2 } /^    Dropped: / { drop = $2 }
		END { if (n != 8 || hits != 360 || ent != 8 || drop != 0) print n " entries, Hits " hits ", Entries " ent ", Dropped " drop }' "$RES/hist.txt")
	if [ -z "$bad" ]; then
		ok "$CFG $TEST every id's hits and bytes exact, from main, a thread and a fork child"
	else
		nok "$CFG $TEST every id's hits and bytes exact" "$bad" "hist: $RES/hist.txt"
	fi
}
