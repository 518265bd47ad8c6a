#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/probes_live.sh - in-process probes added and removed
# through the live tracefs (record --tracefs) while the program runs
# (progs/probes_live.c: 8 threads calling hotfn, the main thread in
# nanosleep, another in poll and read):
#   - rounds of add, enable, disable, remove on hotfn (entry, return,
#     mid-function in turn): every round's probe records, not only the
#     first on a point (a removed entry probe's site is made anew);
#   - points the kernel refuses (inside an instruction, inside the
#     patchable call site) fail with EINVAL and error_log's entry;
#   - none of it interrupts the program's system calls: its sleeps last
#     their whole time, poll and read get no EINTR (its stdout is the
#     untraced run's).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"
need_root "the live tracefs's FUSE mount"
need_fuse
command -v objdump >/dev/null || unsupported "no objdump"

ROUNDS=${PROBES_LIVE_ROUNDS:-30}
build plive probes_live.c gcc -O2 || exit 1
# hotfn's instructions: their offsets and lengths, from the disassembly
objdump -d "$W/plive" | awk -F'\t' '
	/<hotfn>:$/ { split($0, h, " "); base = strtonum("0x" h[1]); on = 1; next }
	on && /^$/ { exit }
	on && NF >= 3 { gsub(/[ :]/, "", $1); a = strtonum("0x" $1); if (n) print last - base, a - last; last = a; n++ }
' >"$W/insns"
# past the 5-byte call site: the second instruction (mid), and a byte
# inside the first instruction longer than one byte (inside)
MID=$(awk '$1 >= 5 && ++k == 2 { print $1; exit }' "$W/insns")
INSIDE=$(awk '$1 >= 5 && $2 >= 2 { print $1 + 1; exit }' "$W/insns")
[ -n "$MID" ] && [ -n "$INSIDE" ] || { notok "hotfn's instructions ($(wc -l <"$W/insns"))"; exit 1; }

run_plain "$W/a" "$W/plive" "$W/stop0" "$W/ready0" &
sleep 0.5
touch "$W/stop0"
wait

live_tmp
trap 'live_cleanup; rm -rf "$W"' EXIT # live_tmp's trap took the place of lib.sh's
"$U" record -p nop --tracefs "$T/mnt" -o "$T/live.dat" -- "$W/plive" "$T/stop" "$T/ready" \
	>"$W/b.out" 2>"$W/b.err" &
RP=$!
until_ok 100 test -f "$T/mnt/kprobe_events" -a -f "$T/ready" || { notok "the recording starts"; exit 1; }
cd "$T/mnt" || exit 1

# add_probe DEF: 0 and nothing on stderr, else 1
add_probe() { echo "$1" 2>"$W/w.err" >>kprobe_events && ! [ -s "$W/w.err" ]; }

# Rounds: each probe records while on, whatever came before on hotfn.
silent=0 failed=0
for i in $(seq "$ROUNDS"); do
	case $((i % 3)) in
	1) def="p:k$i hotfn" ;;
	2) def="r:k$i hotfn" ;;
	0) def="p:k$i hotfn+$MID" ;;
	esac
	: >trace
	if ! add_probe "$def" || ! echo 1 >"events/kprobes/k$i/enable"; then
		failed=$((failed + 1))
		echo "# round $i: '$def' not added or enabled: $(cat "$W/w.err")"
	elif ! trace_shows "$W/t.txt" " k$i: " 300; then # 30 s: a loaded machine
		silent=$((silent + 1))
		echo "# round $i: '$def' recorded nothing"
	fi
	echo 0 >"events/kprobes/k$i/enable" 2>/dev/null
	echo "-:kprobes/k$i" >>kprobe_events 2>/dev/null || failed=$((failed + 1))
	[ $((silent + failed)) -ge 3 ] && break # enough to tell
done
check "$ROUNDS rounds of add, enable, disable, remove on hotfn: every write took" \
	test "$failed" -eq 0
check "each round's probe recorded (entry, return and mid-function in turn)" test "$silent" -eq 0

# Points the kernel refuses, as its kprobe_events does.
for off in "$INSIDE" 2; do
	if add_probe "p:kbad hotfn+$off"; then
		notok "hotfn+$off (not an instruction boundary) refused"
		echo "-:kprobes/kbad" >>kprobe_events
		continue
	fi
	check "hotfn+$off (not an instruction boundary) refused with EINVAL" \
		grep -q 'Invalid argument' "$W/w.err"
	check "hotfn+$off: error_log says so, caret under the point" \
		errlog_is trace_kprobe 'Probe point is not an instruction boundary' "p:kbad hotfn+$off" 7
done
check "no refused point is listed" test "$(grep -c kbad kprobe_events)" -eq 0

cd "$W" || exit 1
touch "$T/stop"
wait "$RP"
echo $? >"$W/b.rc"
RP=
same_run "the program's sleeps, poll and read as untraced while probes came and went" \
	"$W/a" "$W/b"
