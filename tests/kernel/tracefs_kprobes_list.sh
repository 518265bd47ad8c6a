#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_kprobes_list.sh BUILD_DIR - utrace.kprobes_list and
# utrace.kprobes-optimization of `utrace record --tracefs DIR` (the
# kernel's debugfs kprobes/list and sysctl debug.kprobes-optimization;
# runtime/inproc_probe_state.c, lib/record/recorder_kprobes.c,
# lib/tracefs/live_kprobes.c), on a program whose work() is called every
# millisecond by one thread while another sleeps.
#
# Three probes on work: at its entry (the compiler's call site: [FTRACE]),
# a return probe (type r, its entry's site: [FTRACE]), and one at work+5,
# the instruction after the site's 5 bytes, which the tool proves a jmp
# safe for ([OPTIMIZED]).  Each line is the kernel's report_probe layout,
# its address utrace.kallsyms' work (+5), [DISABLED] until the events are
# enabled.  The list says what the text is: the program's own bytes, read
# from /proc/PID/mem, are a call (e8) at the entry, a jmp (e9) at work+5
# once [OPTIMIZED] (the jmp is written after the helper proved no thread
# in its way).  With the switch at 0, the write returns with work+5 an
# int3 again (cc) and listed with no flag, still counting its hits; a
# probe added at that point then is an int3 too; at 1, it is a jmp again.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cat >"$T/kp.c" <<'PROG'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
volatile long sink;
__attribute__((noinline)) long work(long x) { sink += x; return sink; }
static void *sleeper(void *arg) { (void)arg; for (;;) sleep(1); return NULL; }
int main(int argc, char **argv)
{
	pthread_t th;
	FILE *f = fopen(argv[2], "w");

	(void)argc;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	pthread_create(&th, NULL, sleeper, NULL);
	while (access(argv[1], F_OK)) {
		work(1);
		usleep(1000);
	}
	return 0;
}
PROG
cc -O2 -pthread $("$U" cflags) -o "$T/kp" "$T/kp.c" || { notok "build the program"; exit 1; }
# work: the 5-byte site, then a 7-byte load of sink (rip-relative)
check "work starts with the site and a 7-byte instruction" sh -c \
	"objdump -d '$T/kp' | awk '/<work>:/ { f = 1; next } f && NF == 0 { exit } f' | sed -n 6p |
	grep -q 'mov .*(%rip),'"

"$U" record -p nop --tracefs "$T/mnt" -o "$T/kp.dat" -- "$T/kp" "$T/stop" "$T/pid" \
	>"$T/rec.out" 2>&1 &
RP=$!
check "the tracefs is mounted" until_ok 100 test -f "$T/mnt/available_events" || exit 1
check "the program said its pid" until_ok 50 test -s "$T/pid" || exit 1
P=$(cat "$T/pid")
cd "$T/mnt" || { notok "mounted"; exit 1; }

check "the files are there" test -f utrace.kprobes_list -a -f utrace.kprobes-optimization
check "optimization is 1 at first" test "$(cat utrace.kprobes-optimization)" = 1
check "no probe, an empty list" test -z "$(cat utrace.kprobes_list)"
check "2 is refused (0 to 1)" sh -c '! echo 2 > utrace.kprobes-optimization'
check "no number is refused" sh -c '! echo on > utrace.kprobes-optimization'

W=$(awk '$3 == "work" { print $1 }' utrace.kallsyms)
check "utrace.kallsyms has work" test -n "$W"
W5=$(printf '%016x' $((0x$W + 5)))
bytes() { # bytes ADDRESS(hex): the program's first byte there, in hex
	dd if="/proc/$P/mem" bs=1 skip=$((0x$1)) count=1 2>/dev/null | od -An -tx1 | tr -d ' \n'
}
check "the program's bytes can be read" test "$(bytes "$W5")" = 48

echo 'p:kpent work' >kprobe_events
echo 'r:kpret work' >>kprobe_events
check "work+5 is accepted" sh -c "echo 'p:kpmid work+5' >> kprobe_events"
cat utrace.kprobes_list >"$T/list"
cat "$T/list"
check "three lines" test "$(wc -l <"$T/list")" = 3
check "the entry: the site, disabled" grep -qx "$W  k  work+0x0    \[DISABLED\]\[FTRACE\]" "$T/list"
check "the return probe: r, at the entry's site" \
	grep -qx "$W  r  work+0x0    \[DISABLED\]\[FTRACE\]" "$T/list"
mid_is() { grep -qx "$W5  k  work+0x5    $1" utrace.kprobes_list; }
check "work+5: jump-optimised, disabled" until_ok 100 mid_is '\[DISABLED\]\[OPTIMIZED\]'
check "the site calls its slot" test "$(bytes "$W")" = e8
check "work+5 is a jmp in the text" until_ok 100 sh -c "test \"\$(dd if=/proc/$P/mem bs=1 \
	skip=$((0x$W5)) count=1 2>/dev/null | od -An -tx1 | tr -d ' \n')\" = e9"

echo 1 >events/kprobes/enable
check "enabled: no [DISABLED]" mid_is '\[OPTIMIZED\]'
check "the entry too" grep -qx "$W  k  work+0x0    \[FTRACE\]" utrace.kprobes_list
check "the jmp counts hits" trace_shows "$T/t1" ' kpmid: '

echo 0 >utrace.kprobes-optimization
check "optimization reads 0" test "$(cat utrace.kprobes-optimization)" = 0
# the write returned once every process took its jmps back
check "work+5: an int3, no flag" mid_is ''
check "work+5 is an int3 in the text" test "$(bytes "$W5")" = cc
check "the site is not touched" grep -qx "$W  k  work+0x0    \[FTRACE\]" utrace.kprobes_list
echo >trace
check "the int3 counts hits" trace_shows "$T/t2" ' kpmid: '
echo 0 >events/kprobes/kpmid/enable
echo '-:kpmid' >>kprobe_events
check "removed: work+5 has its byte back" until_ok 100 sh -c "test \"\$(dd if=/proc/$P/mem bs=1 \
	skip=$((0x$W5)) count=1 2>/dev/null | od -An -tx1 | tr -d ' \n')\" = 48"
check "... and no line" sh -c "! grep -q 'work+0x5' utrace.kprobes_list"
echo 'p:kpmid2 work+5' >>kprobe_events
echo 1 >events/kprobes/kpmid2/enable
sleep 0.5
check "a probe added at 0 is an int3" mid_is ''
check "... in the text" test "$(bytes "$W5")" = cc
echo >trace
check "... that counts hits" trace_shows "$T/t3" ' kpmid2: '

echo 1 >utrace.kprobes-optimization
check "optimization reads 1" test "$(cat utrace.kprobes-optimization)" = 1
check "at 1, work+5 is jump-optimised again" until_ok 100 mid_is '\[OPTIMIZED\]'
check "... a jmp in the text" until_ok 100 sh -c "test \"\$(dd if=/proc/$P/mem bs=1 \
	skip=$((0x$W5)) count=1 2>/dev/null | od -An -tx1 | tr -d ' \n')\" = e9"
echo >trace
check "... that counts hits" trace_shows "$T/t4" ' kpmid2: '

echo 0 >events/kprobes/enable
echo >kprobe_events
check "no probe left, an empty list" until_ok 50 reads_as utrace.kprobes_list ""

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the recording ends well" test $? -eq 0
