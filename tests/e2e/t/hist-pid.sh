# SPDX-License-Identifier: MIT
#
# tests/e2e/t/hist-pid.sh - hist:keys=common_pid on hist.c with -p nop:
# main, its thread and its fork child each under their own pid

e2e_test "hist-pid -p nop -v -e hist:hist_req -R hist:keys=common_pid -- hist"

# common_pid is the firing thread's: main (ids 0-5: 210 hits), its thread
# (70) and its fork child (80) each have their own entry, with no tracer
# (no ring buffer ever made) as with one
check_hist_pid() {
	local got
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	got=$(sed -n 's/^{ common_pid: *[0-9]* } hitcount: *\([0-9]*\)$/\1/p' "$RES/hist.txt" | sort -n | tr '\n' ' ')
	t "$([ "$got" = "70 80 210 " ]; echo $?)" \
		"$CFG $TEST main, its thread and its fork child each under their own pid" "got: $got"
}
