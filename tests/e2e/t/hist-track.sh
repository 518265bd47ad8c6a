# SPDX-License-Identifier: MIT
#
# tests/e2e/t/hist-track.sh - the kernel documentation's onchange() and
# onmax() examples on track.c's kernel-like events (tcp_probe, the wakeup
# latency, a char[16] synthetic field)
# The goldens: tests/e2e/golden/hist-track.txt and hist-track-wakeup.txt.

e2e_test "hist-track -v -e ksim:tcp_probe -R hist:keys=dport:cwnd=snd_cwnd:onchange(\$cwnd).save(snd_wnd,srtt,rcv_wnd):onchange(\$cwnd).snapshot() -- track"

# The kernel documentation's onchange() and onmax() examples on track.c's
# kernel-like user events.  tcp_probe: each port's last change of
# snd_cwnd with the fields saved then (a golden).  The wakeup latency:
# sched_waking's ts0 per pid, sched_switch's onmax($wakeup_lat).save(...)
# for cyclictest's three pids, whose max is at least the longest sleep
# (5 ms) and whose saved fields are the switch's (a golden once the
# latencies, which the machine decides, are taken out).
check_hist_track() {
	local d=$RES bad
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	check_golden_raw hist-track "$RES/hist.txt"
	# onchange($cwnd).snapshot(): each change for the whole table took one
	"$UTRACE" report --snapshot -i "$RES/trace.dat" >"$d/snap.txt" 2>"$d/snap.err"
	t "$([ "$(grep -c '^##### snapshot [0-9]* of [0-9]*: ksim:tcp_probe at ' "$d/snap.txt")" -ge 1 ]
		echo $?)" "$CFG $TEST onchange().snapshot(): report --snapshot lists them" \
		"$(head -3 "$d/snap.txt")" "$(cat "$d/snap.err")"
	"$UTRACE" record -o "$d/wk.dat" -p nop \
		-v -e ksim:sched_waking -R 'hist:keys=pid:ts0=common_timestamp.usecs if comm=="cyclictest"' \
		-v -e ksim:sched_switch -R 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmax($wakeup_lat).save(next_comm,prev_pid,prev_prio,prev_comm) if next_comm=="cyclictest"' \
		-- "$BIN/track" >/dev/null 2>"$d/wk.err" </dev/null
	"$UTRACE" report --hist -i "$d/wk.dat" >"$d/wk.hist" 2>&1
	bad=$(awk '/^\tmax: / && ($2 < 5000 || $2 > 5000000) { print "max " $2 }
		/^\tmax: / { n++ } END { if (n != 3) print n " max lines" }' "$d/wk.hist")
	t "$([ -z "$bad" ]; echo $?)" "$CFG $TEST onmax(\$wakeup_lat): each pid's max >= 5 ms" \
		"$bad" "$(cat "$d/wk.err")"
	sed -E 's/^\tmax: +[0-9]+/\tmax: N/' "$d/wk.hist" >"$d/wk.hist.n"
	check_golden_raw hist-track-wakeup "$d/wk.hist.n"
	# the doc's `wakeup_new_test pid_t pid; char comm[16]`: a char[16]
	# synthetic field filled from sched_switch's next_comm, once per pid
	# (its next_prio changes from 0 once)
	"$UTRACE" record -o "$d/wn.dat" -p nop --synthetic 'wakeup_new_test pid_t pid; char comm[16]' \
		-e synthetic:wakeup_new_test \
		-v -e ksim:sched_switch -R 'hist:keys=next_pid:p=next_prio:onchange($p).trace(wakeup_new_test,next_pid,next_comm)' \
		-- "$BIN/track" >/dev/null 2>"$d/wn.err" </dev/null
	"$UTRACE" report -i "$d/wn.dat" 2>&1 | grep -o 'wakeup_new_test: .*' >"$d/wn.rep"
	t "$(printf 'wakeup_new_test: pid=%s comm=%s\n' 3001 cyclictest 3002 cyclictest \
		3003 cyclictest 4000 bash | cmp -s - "$d/wn.rep"; echo $?)" \
		"$CFG $TEST char[16] synthetic field: each pid's comm, as the kernel prints it" \
		"$(cat "$d/wn.rep")" "$(cat "$d/wn.err")"
}
