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
# exit without its entry), nothing lost.  Then the same switches for a
# program whose function entries are patched (built without utrace's
# flags), and for one whose library calls are hooked (--libcall).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

N=${LIVE_TOGGLES:-1000}
live_tmp
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

# A program built without utrace's flags: its function entries are
# patched (FPATCH); the switches move each detour slot's call (and patch
# the entries a filter selects later).  Tracer and filter switched live,
# the output checked as above.  The recording starts with -l func_alpha,
# so func_beta's entry is first patched by a live change.
cat >"$T/plain.c" <<'PROG'
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int func_alpha(int x) { __asm__ volatile("nop; nop; nop; nop; nop; nop"); return x * 3 + 1; }
__attribute__((noinline)) int func_beta(int x) { __asm__ volatile("nop; nop; nop; nop; nop; nop"); return x * 2 + 5; }
int main(int argc, char **argv)
{
	volatile int v = 0;
	long n = 0, bad = 0;

	while (access(argv[1], F_OK) != 0) {
		int w = 0;

		for (int i = 0; i < 100; i++) {
			v = func_beta(func_alpha(v));
			w = (w * 3 + 1) * 2 + 5;
		}
		bad += v != w;
		v = 0;
		n++;
		usleep(500);
	}
	printf("wrong passes %ld\n", bad);
	return 0;
}
PROG
cc -O2 -o "$T/plain" "$T/plain.c" || { notok "build the uninstrumented program"; exit 1; }
"$T/plain" "$T/plain.c" >"$T/plain0.out"
rm -f "$T/stop"
"$U" record -p function -l func_alpha --no-libcall --tracefs "$T/mnt" -o "$T/plain.dat" -- "$T/plain" "$T/stop" \
	>"$T/plain.out" 2>"$T/plain.err" &
RP=$!
for _ in $(seq 100); do grep -q func_beta "$T/mnt/available_filter_functions" 2>/dev/null && break; sleep 0.05; done
# calls ON: the function trace shows the calls (after a clear) of FUNCS
calls() { awk '/ <-/ { print $(NF - 1) }' "$T/mnt/trace" | sort -u | tr '\n' ' '; }
calls_are() { [ "$(calls)" = "$1" ]; }
wait_calls() { until_ok 50 calls_are "$1"; }
echo nop >"$T/mnt/current_tracer" 2>"$T/fp.err"
check "an entry-patched program takes current_tracer nop" test ! -s "$T/fp.err"
echo >"$T/mnt/trace"
sleep 0.3
check "under nop its functions write nothing" test -z "$(calls)"
echo func_beta >"$T/mnt/set_ftrace_filter"
echo function >"$T/mnt/current_tracer"
echo >"$T/mnt/trace"
check "a function the filter selects later (its entry patched live) alone" wait_calls "func_beta "
echo nop >"$T/mnt/current_tracer"
echo >"$T/mnt/set_ftrace_filter"
fail=0
for _ in $(seq 200); do
	echo function_graph >"$T/mnt/current_tracer" || fail=$((fail + 1))
	echo nop >"$T/mnt/current_tracer" || fail=$((fail + 1))
done
check "200 switches each way of its entries, every write succeeded" test "$fail" -eq 0
echo function >"$T/mnt/current_tracer"
echo >"$T/mnt/trace"
check "function again: both functions" wait_calls "func_alpha func_beta "
touch "$T/stop"
wait "$RP"
rc=$?
RP=
check "the entry-patched program ended normally, its output the untraced run's" \
	test "$rc" -eq 0 -a "$(cat "$T/plain.out")" = "$(cat "$T/plain0.out")"

# Library calls (--libcall): their GOT slots lead to the stubs or to the
# targets, switched live, and a filter selects among them.  (The calls
# are counted; the file names them.)
cat >"$T/lc.c" <<'PROG'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long bad = 0;
	char buf[64];

	while (access(argv[1], F_OK) != 0) {
		for (int i = 0; i < 50; i++) {
			snprintf(buf, sizeof(buf), "%d", i);
			bad += atoi(buf) != i || strlen(buf) == 0;
		}
		usleep(500);
	}
	printf("wrong calls %ld\n", bad);
	return 0;
}
PROG
cc -O2 -o "$T/lc" "$T/lc.c" || { notok "build the library-call program"; exit 1; }
"$T/lc" "$T/lc.c" >"$T/lc0.out"
rm -f "$T/stop"
"$U" record -p function --libcall --tracefs "$T/mnt" -o "$T/lc.dat" -- "$T/lc" "$T/stop" \
	>"$T/lc.out" 2>"$T/lc.err" &
RP=$!
for _ in $(seq 100); do [ -f "$T/mnt/current_tracer" ] && break; sleep 0.05; done
nrec() { grep -c ' <-' "$T/mnt/trace"; }
has_recs() { [ "$(nrec)" -gt 0 ]; }
some() { until_ok 50 has_recs; }
check "library calls traced from the start" some
echo nop >"$T/mnt/current_tracer" 2>"$T/lc1.err"
check "a --libcall program takes current_tracer nop" test ! -s "$T/lc1.err"
echo >"$T/mnt/trace"
sleep 0.3
check "under nop its library calls write nothing" test "$(nrec)" -eq 0
fail=0
for _ in $(seq 200); do
	echo function_graph >"$T/mnt/current_tracer" || fail=$((fail + 1))
	echo nop >"$T/mnt/current_tracer" || fail=$((fail + 1))
done
check "200 switches each way of its GOT slots, every write succeeded" test "$fail" -eq 0
echo function >"$T/mnt/current_tracer"
echo >"$T/mnt/trace"
check "function again: its library calls are traced" some
check "available_filter_functions lists its library calls" \
	grep -qx 'snprintf \[lc\]' "$T/mnt/available_filter_functions"
echo snprintf >"$T/mnt/set_ftrace_filter" 2>"$T/lc2.err"
check "set_ftrace_filter takes a library call's name" test ! -s "$T/lc2.err"
sleep 0.5
touch "$T/stop"
wait "$RP"
rc=$?
RP=
check "the --libcall program ended normally, its output the untraced run's" \
	test "$rc" -eq 0 -a "$(cat "$T/lc.out")" = "$(cat "$T/lc0.out")"
check "the file names its library calls" \
	sh -c "'$U' report -i '$T/lc.dat' | grep -q ' snprintf <-main'"
# the file's last calls: after the filter, snprintf's alone
"$U" report -i "$T/lc.dat" | awk '/ <-/ { print $(NF - 1) }' | tail -200 | sort -u >"$T/lc.last"
check "after the filter only snprintf is traced" test "$(cat "$T/lc.last")" = snprintf
