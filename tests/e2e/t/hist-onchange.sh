# SPDX-License-Identifier: MIT
#
# tests/e2e/t/hist-onchange.sh - onchange($k).save(...) on hist.c keyed by
# word
# The golden: tests/e2e/golden/hist-onchange.txt.

e2e_test "hist-onchange -v -e hist:hist_req -R hist:keys=word:k=id:onchange(\$k).save(bytes,word):sort=word -- hist"

# onchange($k).save(bytes,word) keyed by word: id changes at each new id
# of the firing order (0..5 in main, 6 in a thread, 7 in a fork child, one
# table), so every word's last change is to 7, with bytes 700 + its first
# index in the word list.
check_hist_onchange() {
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	check_golden_raw hist-onchange "$RES/hist.txt"
}
