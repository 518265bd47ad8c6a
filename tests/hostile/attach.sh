#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/attach.sh - `utrace record -P` on a program built without
# utrace's flags gets the same jmp detours as the program started under
# utrace (issue 21, item 9), not an int3 (a signal per call, 30 times the
# cost):
#   - while attached, fib's entry in the process's memory is a jmp (e9),
#     never an int3 (cc);
#   - every complete round (mark ... done) of the attached trace holds
#     exactly the fib calls the program counted itself;
#   - the cost of a round while attached (the time from mark to done in
#     the trace) is within a factor of that of the same program started
#     under `utrace record` in the same test (a ratio, measured now);
#   - the program's output and exit status equal an untraced run's, and
#     the report says in words that (and when) the process was attached to.
# gcc -O0, gcc -O2 and clang -O2; -p function and function_graph.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"
command -v python3 >/dev/null || unsupported "python3 (to read /proc/PID/mem)"

N=18		 # fib(18): 8361 calls a round
PAUSE=10000	 # us between rounds: the trace stays small
RATIO=${ATTACH_COST_RATIO:-4} # attached round / started round, at most

# entry_addr PID BIN FUNC: where FUNC's entry (after an endbr64) is in
# process PID, in decimal
entry_addr() {
	python3 - "$@" <<'PY'
import struct, subprocess, sys
pid, path, func = sys.argv[1], sys.argv[2], sys.argv[3]
with open(path, "rb") as f:
    etype = struct.unpack("<H", f.read(18)[16:18])[0]
vaddr = base = None
for line in subprocess.run(["nm", path], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if len(f) == 3 and f[2] == func and f[1] in "tT":
        vaddr = int(f[0], 16)
with open(f"/proc/{pid}/maps") as maps:
    for line in maps:
        f = line.split()
        if len(f) >= 6 and f[5] == path and int(f[2], 16) == 0:
            base = int(f[0].split("-")[0], 16)
            break
if vaddr is None or base is None:
    sys.exit(1)
addr = vaddr + (base if etype == 3 else 0)
with open(f"/proc/{pid}/mem", "rb") as mem:
    mem.seek(addr)
    if mem.read(4) == b"\xf3\x0f\x1e\xfa":
        addr += 4
print(addr)
PY
}

# byte_at PID ADDR: the byte at ADDR of process PID now, in hex
byte_at() {
	dd if="/proc/$1/mem" bs=1 count=1 skip="$2" iflag=skip_bytes status=none 2>/dev/null |
		od -An -tx1 | tr -d ' '
}

# windows REPORT C: "FULL BAD MEDIAN_US" over the complete rounds of a
# report (-p function with timestamps, or function_graph): FULL rounds,
# BAD of them without exactly C fib entries, the median time of a round
# (function only)
windows() {
	awk -v c="$2" '
	/ mark <-| mark\(\);/ { open = 1; n = 0; t0 = $4 + 0; next }
	/ done <-| done\(\);/ { if (open) { full++; bad += n != c; d[full] = ($4 - t0) * 1e6 } open = 0; next }
	/ fib <-| fib\(\)/ { n++ }
	END {
		m = 0
		if (full) { asort(d); m = d[int((full + 1) / 2)] }
		printf "%d %d %.1f\n", full, bad, m
	}' "$1"
}

# attach_run NAME MODE: attach to $W/NAME with MODE for 2 s; checks the
# entry bytes while attached, the rounds, the output; echoes the median
attach_run() {
	local name=$1 mode=$2 bin=$W/$1 p r at byte full bad med calls
	"$bin" $N $PAUSE >"$W/$name.a.out" 2>"$W/$name.a.err" &
	p=$!
	if ! until_ok 100 grep -qs ready "$W/$name.a.err" || ! at=$(entry_addr $p "$bin" fib); then
		notok "$name: the program starts"
		kill -9 $p
		return 1
	fi
	# shellcheck disable=SC2086 # a mode is a list of options
	"$U" record $mode -P $p --duration 2 -o "$W/$name.dat" >"$W/$name.rec" 2>&1 &
	r=$!
	until_ok 100 grep -q "attached to $p" "$W/$name.rec"
	byte=$(byte_at $p "$at")
	wait $r
	check "$name $mode: the attach worked ($(tail -1 "$W/$name.rec"))" test $? -eq 0
	check "$name $mode: fib's entry is a jmp while attached (got ${byte:-nothing}, cc is an int3)" \
		test "$byte" = e9
	kill -USR1 $p
	wait $p
	echo $? >"$W/$name.a.rc"
	"$bin" $N 0 3 >"$W/$name.u.out" 2>/dev/null
	echo 0 >"$W/$name.u.rc"
	calls=$(awk '/^calls/ { print $2 }' "$W/$name.a.out")
	same_run "$name $mode: output and exit status as untraced" "$W/$name.u" "$W/$name.a"
	"$U" report -i "$W/$name.dat" >"$W/$name.txt" 2>"$W/$name.rep"
	read -r full bad med < <(windows "$W/$name.txt" "$calls")
	check "$name $mode: every complete round has exactly $calls fib entries ($bad of $full do not)" \
		test "$full" -ge 3 -a "$bad" -eq 0
	check "$name $mode: report says the process was attached to ($(tail -1 "$W/$name.rep"))" \
		grep -q "notice: process $p was attached to (record -P) at [0-9.]*:" "$W/$name.rep"
	ATT_MED=$med
}

# started_median NAME: the median round of $W/NAME started under utrace
started_median() {
	local name=$1 full bad med
	"$U" record -p function -o "$W/$name.s.dat" -- "$W/$name" $N $PAUSE 60 >/dev/null 2>&1
	"$U" report -i "$W/$name.s.dat" >"$W/$name.s.txt" 2>/dev/null
	read -r full bad med < <(windows "$W/$name.s.txt" 0)
	echo "$med"
}

for cfg in "gcc -O0" "gcc -O2" "clang -O2"; do
	read -r cc opt <<<"$cfg"
	command -v "$cc" >/dev/null || { echo "# no $cc"; continue; }
	name=fib_${cc}${opt}
	# built without the flags: its entries are what utrace patches
	"$cc" "$opt" -g -o "$W/$name" "$HP/attach_fib.c" 2>"$W/$name.build" ||
		{ notok "build $name"; continue; }
	while read -r mode; do
		attach_run "$name" "$mode" || continue
		[ "$mode" = "-p function" ] || continue
		sm=$(started_median "$name")
		check "$name: a round costs at most ${RATIO}x attached what it costs started under utrace ($ATT_MED us against $sm us)" \
			awk -v a="$ATT_MED" -v s="$sm" -v k="$RATIO" 'BEGIN { exit !(s > 0 && a > 0 && a <= k * s) }'
	done < <(printf '%s\n' "-p function" "-p function_graph") # the tracers that patch entries
done

# A thread with a return address inside an entry's first bytes (hold's
# `call *%rdi` at hold + 1 returns to hold + 3): the main thread waits
# there when the process is attached to, a worker calls through there all
# the while.  The jmp must not be written over those bytes (the recorder
# reads the stacks and names the entry; it stays an int3), the other
# entries get theirs, and the program ends normally while attached.
"${CC:-gcc}" -O2 -g -o "$W/inside" "$HP/attach_inside.c" -lpthread 2>"$W/inside.build" ||
	{ notok "build attach_inside"; exit 0; }
while read -r mode; do
	"$W/inside" >"$W/inside.out" 2>"$W/inside.err" &
	p=$!
	if ! until_ok 100 grep -qs ready "$W/inside.err" || ! at=$(entry_addr $p "$W/inside" hold) ||
		! qat=$(entry_addr $p "$W/inside" quick); then
		notok "inside: the program starts"
		kill -9 $p
		continue
	fi
	# shellcheck disable=SC2086 # a mode is a list of options
	"$U" record $mode -P $p --duration 5 -o "$W/inside.dat" >"$W/inside.rec" 2>&1 &
	r=$!
	until_ok 100 grep -q "attached to $p" "$W/inside.rec"
	byte=$(byte_at $p "$at")
	qbyte=$(byte_at $p "$qat")
	kill -USR1 $p # main returns through hold + 3 while attached
	wait $p
	rc=$?
	wait $r
	check "inside $mode: no jmp over a return address (hold's first byte ${byte:-unread}, e9 is a jmp)" \
		test -n "$byte" -a "$byte" != e9
	check "inside $mode: the other entries still get their jmp (quick's first byte ${qbyte:-unread})" \
		test "$qbyte" = e9
	check "inside $mode: the program ends normally while attached (status $rc: $(cat "$W/inside.out"))" \
		test $rc -eq 0 -a "$(cat "$W/inside.out")" = "main back 42"
done < <(printf '%s\n' "-p function" "-p function_graph")
