#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_stack.sh BUILD_DIR - the stack tracer of `utrace
# record --tracefs DIR` (runtime/stack_tracer.c, lib/record/recorder_stack.c,
# lib/tracefs/live_stack.c): stack_trace, stack_max_size,
# stack_trace_filter and utrace.stack_tracer_enabled, on a program (built
# with frame pointers) whose recursion of 21 frames of one size ends in
# leaf_lock, and which calls shallow() from main.  Turned on, the deepest
# stack is leaf_lock's at the bottom of the recursion: entry 0 leaf_lock
# itself, then 21 recurse frames of equal size, then main; each Size is
# its Depth less the next one's, stack_max_size entry 0's Depth.  With
# stack_trace_filter set to shallow, the stack measured is shallow's; to
# a function never called, stack_max_size stays at the 0 written.  With
# the function tracer on shallow alone, the stack tracer's other sites
# write no record.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cat >"$T/deep.c" <<'PROG'
#include <unistd.h>
volatile long sink;
__attribute__((noinline)) void leaf_lock(int d) { sink += d; }
__attribute__((noinline)) void shallow(void) { sink++; }
__attribute__((noinline)) void never_called(void) { sink--; }
__attribute__((noinline)) long recurse(int d)
{
	volatile char pad[64];
	long r;

	pad[d % 64] = (char)d;
	if (d == 0) {
		leaf_lock(d);
		return pad[0];
	}
	r = recurse(d - 1);
	__asm__ volatile("" : "+r"(r)); /* no tail recursion made a loop */
	return r + pad[d % 64];
}
int main(int argc, char **argv)
{
	while (access(argv[1], F_OK)) {
		recurse(20);
		shallow();
		if (argc > 2)
			never_called();
		usleep(1000);
	}
	return 0;
}
PROG
cc -O2 -fno-omit-frame-pointer $("$U" cflags) -o "$T/deep" "$T/deep.c" ||
	{ notok "build the program"; exit 1; }

"$U" record -p nop --tracefs "$T/mnt" -o "$T/deep.dat" -- "$T/deep" "$T/stop" \
	>"$T/rec.out" 2>&1 &
RP=$!
check "the tracefs is mounted" until_ok 100 test -f "$T/mnt/available_events" || exit 1
cd "$T/mnt" || { notok "mounted"; exit 1; }

check "the stack tracer's files are there" test -f stack_trace -a -f stack_max_size \
	-a -f stack_trace_filter -a -f utrace.stack_tracer_enabled
check "README lists them as the kernel's" grep -q \
	'^  stack_trace_filter.- Like set_ftrace_filter but limits what stack_trace$' README
check "it is off at first" test "$(cat utrace.stack_tracer_enabled)" = 0
check "stack_trace says so" grep -q '^#  Stack tracer disabled$' stack_trace
check "stack_max_size is 0" test "$(cat stack_max_size)" = 0
check "stack_trace_filter: every function" \
	test "$(cat stack_trace_filter)" = "#### all functions enabled ####"
check "a switch that is no number is refused" sh -c '! echo on > utrace.stack_tracer_enabled'

echo 1 > utrace.stack_tracer_enabled
check "it reads 1" test "$(cat utrace.stack_tracer_enabled)" = 1
deepest() {
	cat stack_trace >"$T/st"
	grep -q '^  0) .*leaf_lock+0x5/' "$T/st" && grep -q ' main+0x' "$T/st"
}
check "the deepest stack is leaf_lock's in the recursion" until_ok 50 deepest
sed -n '1,30p' "$T/st"
check "the header counts its entries" test "$(head -1 "$T/st" | \
	sed -n 's/^        Depth    Size   Location    (\([0-9]*\) entries)$/\1/p')" = \
	"$(grep -c '^ *[0-9]*) ' "$T/st")"
check "the second line is the kernel's" test "$(sed -n 2p "$T/st")" = \
	"        -----    ----   --------"
check "no 'disabled' text while on" sh -c "! grep -q disabled '$T/st'"
check "entry 1 is the caller, recurse" grep -q '^  1) .* recurse+0x' "$T/st"
check "the recursion's 21 frames" test "$(grep -c ' recurse+0x' "$T/st")" -eq 21
check "the frames of recurse(1..20) have one size" \
	test "$(grep ' recurse+0x' "$T/st" | tail -20 | awk '{ print $3 }' | sort -u | wc -l)" -eq 1
check "each Size is its Depth less the next Depth, the last its Depth" awk '
	BEGIN { n = 0 }
	/^ *[0-9]+\) / { d[n] = $2; s[n] = $3; n++ }
	END { if (n < 23) exit 1
	      for (i = 0; i < n; i++) if (s[i] != (i + 1 < n ? d[i] - d[i + 1] : d[i])) exit 1 }' "$T/st"
check "the lines have the kernel's layout" awk '
	/^ *[0-9]+\) / { if ($0 !~ /^ *[0-9]+\) +[0-9]+ +[0-9]+   [^ ]/ ||
	                    substr($0, 1, 4) !~ /^ *[0-9]+\)$/) exit 1 }' "$T/st"
check "stack_max_size is entry 0's depth" \
	test "$(cat stack_max_size)" = "$(awk '$1 == "0)" { print $2 }' "$T/st")"
D0=$(cat stack_max_size)

echo shallow > stack_trace_filter
check "stack_trace_filter lists shallow" test "$(cat stack_trace_filter)" = shallow
echo 0 > stack_max_size
shallowest() {
	cat stack_trace >"$T/st2"
	grep -q '^  0) .*shallow+0x5/' "$T/st2"
}
check "with the filter, the stack measured is shallow's" until_ok 50 shallowest
check "entry 1 is main" grep -q '^  1) .* main+0x' "$T/st2"
check "it is less deep" test "$(cat stack_max_size)" -lt "$D0"
check "a bad expression is refused" sh -c '! echo "no_such_function_x" >> stack_trace_filter'
check "... and the list kept" test "$(cat stack_trace_filter)" = shallow
echo never_called > stack_trace_filter
echo 0 > stack_max_size
sleep 0.3
check "a function never called measures nothing: stack_max_size stays 0" \
	test "$(cat stack_max_size)" = 0
check "the frames stay until a deeper stack comes, as the kernel's" \
	grep -q '^  0) .*shallow+0x5/' stack_trace

# the tracer's own filter beside the stack tracer's sites
echo > stack_trace_filter
echo shallow > set_ftrace_filter
echo function > current_tracer
echo > trace
sleep 0.3
cat trace >"$T/tr"
check "the function tracer writes shallow's calls" grep -q ' shallow <-main' "$T/tr"
check "... and no call of a function only the stack tracer patched" \
	sh -c "! grep -q -e ' recurse <-' -e ' leaf_lock <-' '$T/tr'"
echo 0 > stack_max_size
check "the stack tracer still measures the other functions" until_ok 50 deepest
echo 0 > utrace.stack_tracer_enabled
check "it reads 0" test "$(cat utrace.stack_tracer_enabled)" = 0
echo 0 > stack_max_size
sleep 0.3
check "off, nothing is measured" test "$(cat stack_max_size)" = 0
echo > trace
sleep 0.3
check "the function tracer goes on alone" grep -q ' shallow <-main' trace
check "... with its filter" sh -c "! grep -q ' recurse <-' trace"
echo nop > current_tracer

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the recording ends well" test $? -eq 0
