# SPDX-License-Identifier: MIT
#
# tests/e2e/t/hist-multi.sh - two hist triggers on one recorded event: both
# histograms, and every record too
# The golden: tests/e2e/golden/hist-multi.txt.

e2e_test "hist-multi -e hist:hist_req -R hist:keys=word:sort=word -R hist:keys=bytes.log2:vals=id:sort=bytes -- hist"

# two triggers on a recorded event: both histograms, and every record too
check_hist_multi() {
	count_lines "$CFG $TEST the event is recorded too" '/\* hist_req: id=' 360
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	check_golden_raw hist-multi "$RES/hist.txt"
	t "$(grep -c '^# event histogram$' "$RES/hist.txt" | grep -qx 2; echo $?)" \
		"$CFG $TEST two histograms" "$(head -20 "$RES/hist.txt")"
}
