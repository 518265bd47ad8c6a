#!/bin/bash
# tests/kernel/live_toggle.sh BUILD_DIR - 1,000 switches of current_tracer
# each way (function_graph -> nop -> function_graph ..., nop last: the
# file's tracer is then function_graph, which report prints) through the
# live tracefs while a
# program of 4 threads runs (bench/many_funcs.sh: 1,000 functions, each
# thread calling all of them in a loop): every write succeeds, the program
# neither crashes nor computes differently (its output is the untraced
# run's), and the trace is balanced: each call is whole (an entry and its
# exit, "fN();"), none cut by a switch (an entry without its exit, an
# exit without its entry), nothing lost.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ -c /dev/fuse ] || unsupported "no /dev/fuse"
command -v fusermount3 >/dev/null || [ "$(id -u)" -eq 0 ] || unsupported "no fusermount3"
need_built "$U"

N=${LIVE_TOGGLES:-1000}
T=$(mktemp -d) || exit 1
RP=
cleanup() {
	touch "$T/stop"
	[ -n "$RP" ] && kill -9 "$RP" 2>/dev/null
	grep -q " $T/mnt fuse.utrace " /proc/mounts && umount -l "$T/mnt" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
mkdir "$T/mnt"
bash "$ROOT/bench/many_funcs.sh" 1000 4 2000 >"$T/many.c"
cc -O1 -pthread $("$U" cflags) -o "$T/many" "$T/many.c" || { notok "build the program"; exit 1; }
"$T/many" "$T/many.c" >"$T/plain.out" 2>&1 # the stop file exists: no pass

"$U" record -p function_graph --tracefs "$T/mnt" -o "$T/live.dat" -- "$T/many" "$T/stop" \
	>"$T/prog.out" 2>"$T/rec.err" &
RP=$!
for _ in $(seq 100); do [ -f "$T/mnt/current_tracer" ] && break; sleep 0.05; done
for _ in $(seq 100); do grep -q '^f999$' "$T/mnt/available_filter_functions" && break; sleep 0.05; done
fail=0
for _ in $(seq "$N"); do
	echo nop >"$T/mnt/current_tracer" || fail=$((fail + 1))
	echo function_graph >"$T/mnt/current_tracer" || fail=$((fail + 1))
done
echo nop >"$T/mnt/current_tracer" || fail=$((fail + 1))
check "$N switches each way, every write succeeded" test "$fail" -eq 0
check "the program still runs" kill -0 "$RP"
touch "$T/stop"
wait "$RP"
rc=$?
RP=
check "the program ended normally" test "$rc" -eq 0
# the untraced run made no pass: the line is the same but for nothing
check "the program's output is the untraced run's" cmp -s "$T/plain.out" "$T/prog.out"
check "nothing was lost" grep -q ' records (0 lost) from ' "$T/rec.err"
"$U" report -i "$T/live.dat" >"$T/report" 2>&1
calls=$(grep -c '|  *f[0-9]*();$' "$T/report")
cut=$(grep -c -e '|  *f[0-9]*() {$' -e '} /\* f[0-9]* \*/' "$T/report")
opens=$(grep -c '|  *[a-z_0-9]*() {$' "$T/report")
closes=$(grep -c '|  *}' "$T/report")
check "the trace holds the calls ($calls) made while function_graph was on" test "$calls" -gt 1000
check "no call of f0 ... f999 cut by a switch ($cut)" test "$cut" -eq 0
check "every frame opened is closed ($opens, $closes)" test "$opens" -eq "$closes" -a "$opens" -gt 0
