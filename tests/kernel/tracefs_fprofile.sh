#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_fprofile.sh BUILD_DIR - the function profiler of
# `utrace record --tracefs DIR` (lib/tracefs/live_fprofile.c,
# lib/report/fprofile.c): function_profile_enabled reads 0 and takes
# numbers only; trace_stat/functionN, one per CPU, holds the header only
# before the first profile; with the profiler on under the nop tracer the
# program's calls are counted (the two functions it calls in turn have
# the same hits, give or take the calls cut by the window's ends), each
# line's average is its time over its hits, trace shows no function line;
# off, the tables stop changing; set_ftrace_filter limits them; under the
# function tracer trace goes on showing function lines.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cat >"$T/fp.c" <<'PROG'
#include <unistd.h>
__attribute__((noinline)) int func_alpha(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int func_beta(int x) { __asm__ volatile(""); return x * 2; }
int main(int argc, char **argv)
{
	volatile int v = 0;

	while (access(argv[1], F_OK) != 0) {
		for (int i = 0; i < 50; i++)
			v = func_beta(func_alpha(v));
		usleep(1000);
	}
	return 0;
}
PROG
cc -O2 $("$U" cflags) -o "$T/fp" "$T/fp.c" || { notok "build the program"; exit 1; }

"$U" record -p nop --tracefs "$T/mnt" -o "$T/fp.dat" -- "$T/fp" "$T/stop" >"$T/rec.out" 2>&1 &
RP=$!
check "the tracefs is mounted" until_ok 100 test -f "$T/mnt/function_profile_enabled" || exit 1
cd "$T/mnt" || exit 1
NCPU=$(ls per_cpu | wc -l)
HEAD='  Function                               Hit    Time            Avg             s^2'

# stat: every CPU's table in one file, $T/st
stat() { cat trace_stat/function* >"$T/st"; }
# hits FUNC: FUNC's hits over every CPU in $T/st
hits() { awk -v f="$1" '$1 == f { n += $2 } END { print n + 0 }' "$T/st"; }

check "function_profile_enabled reads 0" test "$(cat function_profile_enabled)" = 0
check "trace_stat has a table per CPU ($NCPU)" \
	test "$(ls trace_stat | tr '\n' ' ')" = "$(seq -f 'function%g' 0 $((NCPU - 1)) | tr '\n' ' ')"
check "before any profile a table is the header only" \
	test "$(cat trace_stat/function0)" = "$HEAD
  --------                               ---    ----            ---             ---"
echo x > function_profile_enabled 2>"$T/err"
check "a word is EINVAL" grep -q 'Invalid argument' "$T/err"

echo 1 > function_profile_enabled
check "function_profile_enabled reads 1" test "$(cat function_profile_enabled)" = 1
counted() { stat; [ "$(hits func_alpha)" -gt 200 ]; }
check "under nop the program's calls are counted" until_ok 50 counted
a=$(hits func_alpha) b=$(hits func_beta)
check "func_alpha and func_beta have the same hits, but for the window's ends ($a, $b)" \
	test $((a - b)) -le 2 -a $((b - a)) -le 2
check "each line's average is its time over its hits" \
	awk '$1 ~ /^func_/ { t = $3; a = $5; if (a < t / $2 - 0.01 || a > t / $2 + 0.01) bad = 1 }
	     END { exit bad }' "$T/st"
cat trace >"$T/tr"
check "trace shows no function line under nop" test "$(grep -c 'func_alpha' "$T/tr")" -eq 0
check "the tracer stays nop" test "$(cat current_tracer)" = nop

echo 0 > function_profile_enabled
stat
cp "$T/st" "$T/st0"
sleep 0.5
stat
check "off, the tables stop changing" cmp -s "$T/st" "$T/st0"

echo func_beta > set_ftrace_filter
echo 1 > function_profile_enabled
beta_only() { stat; [ "$(hits func_beta)" -gt 50 ]; }
check "on again, with a filter: its function is counted" until_ok 50 beta_only
check "... and it alone, the tables started over" test "$(hits func_alpha)" -eq 0

echo > set_ftrace_filter
echo function > current_tracer
echo > trace
sleep 0.3
cat trace >"$T/tr"
check "under the function tracer trace shows the calls as function lines" \
	grep -q ' func_alpha$' "$T/tr"
check "... not function_graph's" test "$(grep -v '^#' "$T/tr" | grep -c '|')" -eq 0
echo 0 > function_profile_enabled
echo > trace
sleep 0.3
cat trace >"$T/tr"
check "off, the function tracer's own lines" grep -q ' func_alpha <-main' "$T/tr"

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the recording ends well" test $? -eq 0
