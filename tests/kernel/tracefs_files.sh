#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_files.sh BUILD_DIR - the files of `utrace record
# --tracefs` that the kernel's ftracetest looks for (issue 23, group G),
# each doing what it says:
#   buffer_size_kb       reads the size of a new buffer; a write sizes the
#                        buffers of threads that start after it (their
#                        memfd mapping in /proc/PID/maps), the running
#                        ones keep theirs; 0 or a word is EINVAL;
#                        per_cpu/cpuN/buffer_size_kb the same
#   tracing_cpumask      every CPU's bit set; a mask of CPU 0 alone leaves
#                        only [000] lines, 0 leaves none, all CPUs again
#                        brings the others back; a CPU past the last is
#                        EINVAL
#   options/             the kernel's other options, each at the value
#                        that says what utrace does: stacktrace 0 takes 0,
#                        refuses 1 (EOPNOTSUPP); markers 1; both listed in
#                        trace_options
#   kprobe_profile       a line per kprobe event, "  %-44s %15lu %15lu":
#                        0 hits when defined, its records once enabled,
#                        gone when removed
#   dynamic_events       without a group, p: goes to kprobes, f: to
#                        fprobes (the kernel's defaults)
#   events/header_page   utrace's sub-buffer: the data's offset and size
#                        end at UTRACE_SUBBUF_SIZE (common/rb_abi.h)
#   events/header_event, events/ftrace/EVENT/{format,id}
#                        as the running kernel's tracefs prints them, when
#                        there is one (its events/ftrace/ lists the events)
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cat >"$T/p.c" <<'PROG'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static char go[4096];
static const char *stop;
__attribute__((noinline)) int work_a(int x) { __asm__ volatile(""); return x + 1; }
static void *worker(void *arg)
{
	volatile int v = 0;

	while (access(stop, F_OK) != 0) {
		for (int i = 0; i < 2000; i++)
			v = work_a(v);
		usleep(200);
	}
	return NULL;
}
int main(int argc, char **argv)
{
	pthread_t t[3];
	FILE *f;

	stop = argv[1];
	snprintf(go, sizeof(go), "%s.go", stop);
	pthread_create(&t[0], NULL, worker, NULL);
	pthread_create(&t[1], NULL, worker, NULL);
	if ((f = fopen(argv[2], "w"))) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	while (access(go, F_OK) != 0 && access(stop, F_OK) != 0)
		usleep(1000);
	pthread_create(&t[2], NULL, worker, NULL); /* after the write */
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
PROG
cc -O2 -pthread $("$U" cflags) -o "$T/p" "$T/p.c" || { notok "build the program"; exit 1; }

"$U" record -p function -l work_a --tracefs "$T/mnt" -o "$T/p.dat" -- "$T/p" "$T/stop" "$T/pid" \
	>"$T/rec.out" 2>"$T/rec.err" &
RP=$!
until_ok 100 test -s "$T/pid" -a -f "$T/mnt/buffer_size_kb"
P=$(cat "$T/pid")
cd "$T/mnt" || exit 1
# bufs: the sizes in KiB of the buffers (memfd mappings) of the program
bufs() { awk '/utrace-buffer/ { split($1, a, "-"); print (strtonum("0x" a[2]) - strtonum("0x" a[1])) / 1024 }' "/proc/$P/maps" | sort -n | uniq -c; }
# at least two buffers made (counted again at each try)
two_bufs() { test "$(bufs | awk '{ n += $1 } END { print n + 0 }')" -ge 2; }
until_ok 100 two_bufs
ORIG=$(cat buffer_size_kb)
check "buffer_size_kb reads the size of a buffer made now ($ORIG KiB)" \
	test "$ORIG" -gt 0 -a "$(bufs | awk '{ print $2 }' | sort -n | tail -1)" -le $((ORIG + 64))
NEW=$((ORIG * 2))
echo $NEW >buffer_size_kb
check "a write of $NEW: it reads $NEW" test "$(cat buffer_size_kb)" -eq $NEW
check "per_cpu/cpu0/buffer_size_kb reads it too" test "$(cat per_cpu/cpu0/buffer_size_kb)" -eq $NEW
touch "$T/stop.go"
until_ok 100 sh -c "awk '/utrace-buffer/' /proc/$P/maps | grep -q ." >/dev/null
check "a thread started after it gets a buffer of $NEW KiB (mapped $(bufs | tr '\n' ' '))" \
	until_ok 100 sh -c "awk '/utrace-buffer/ { split(\$1, a, \"-\"); if ((strtonum(\"0x\" a[2]) - strtonum(\"0x\" a[1])) / 1024 >= $NEW) f = 1 } END { exit !f }' /proc/$P/maps"
check "the running threads keep theirs" \
	test "$(awk '/utrace-buffer/ { split($1, a, "-"); if ((strtonum("0x" a[2]) - strtonum("0x" a[1])) / 1024 < '$NEW') n++ } END { print n + 0 }' /proc/$P/maps)" -ge 2
echo $ORIG >per_cpu/cpu0/buffer_size_kb
check "a write of per_cpu/cpu0/buffer_size_kb sizes the same" test "$(cat buffer_size_kb)" -eq "$ORIG"
echo 0 >buffer_size_kb 2>"$T/err"
check "0: EINVAL" grep -q 'Invalid argument' "$T/err"
echo big >buffer_size_kb 2>"$T/err"
check "a word: EINVAL" grep -q 'Invalid argument' "$T/err"

NC=$(ls -d per_cpu/cpu* | wc -l)
ALL=$(cat tracing_cpumask)
check "tracing_cpumask: every CPU's bit ($ALL for $NC CPUs)" \
	test "$((16#${ALL//,/}))" -eq $(((1 << NC) - 1))
if [ "$NC" -ge 2 ]; then
	echo 1 >tracing_cpumask
	check "a write of 1 reads 1" test "$(cat tracing_cpumask)" = 1
	echo >trace
	check "... trace: lines of CPU 0 only" \
		until_ok 100 sh -c "cat trace >'$T/tr'; grep -q 'work_a' '$T/tr' && ! grep 'work_a' '$T/tr' | grep -vq '\\[000\\]'"
	echo 0 >tracing_cpumask
	echo >trace
	sleep 0.5
	cat trace >"$T/tr"
	check "0: no line" test "$(grep -c work_a "$T/tr")" -eq 0
	echo "$ALL" >tracing_cpumask
	echo >trace
	check "every CPU again: lines of another CPU" \
		until_ok 100 sh -c "cat trace >'$T/tr'; grep 'work_a' '$T/tr' | grep -vq '\\[000\\]'"
fi
printf '%x\n' $((1 << NC)) >tracing_cpumask 2>"$T/err"
check "a CPU past the last: EINVAL" grep -q 'Invalid argument' "$T/err"
check "... the mask unchanged" test "$(cat tracing_cpumask)" = "$ALL"
check "options/stacktrace reads 0" test "$(cat options/stacktrace)" = 0
check "... echo 0 is taken" sh -c 'echo 0 > options/stacktrace'
echo 1 >options/stacktrace 2>"$T/err"
check "... echo 1 is refused: EOPNOTSUPP" grep -q 'not supported' "$T/err"
echo stacktrace >trace_options 2>"$T/err"
check "... also through trace_options" grep -q 'not supported' "$T/err"
check "trace_options lists nostacktrace and markers" \
	sh -c 'grep -qx nostacktrace trace_options && grep -qx markers trace_options'
# event-fork and function-fork: 0 at first, as the kernel's
# (tests/kernel/tracefs_fork.sh: the children joining the lists)
check "options/event-fork and options/function-fork read 0" \
	test "$(cat options/event-fork)" = 0 -a "$(cat options/function-fork)" = 0
check "options/markers reads 1" test "$(cat options/markers)" = 1
check "kprobe_profile: empty" test -z "$(cat kprobe_profile)"
echo 'p:myprof work_a' >kprobe_events
check "a kprobe defined: its line with 0 hits, the kernel's layout" \
	test "$(cat kprobe_profile)" = "$(printf '  %-44s %15u %15u' myprof 0 0)"
echo 1 >events/kprobes/myprof/enable
check "enabled: its hits count" \
	until_ok 100 sh -c "awk '\$1 == \"myprof\" && \$2 > 0 && \$3 == 0 { f = 1 } END { exit !f }' kprobe_profile"
echo 0 >events/kprobes/myprof/enable
echo >kprobe_events
check "removed: no line" test -z "$(cat kprobe_profile)"
echo 'p work_a' >>dynamic_events
echo 'f work_a' >>dynamic_events
check "dynamic_events: p without a group is in kprobes" test -d events/kprobes/p_work_a_0
check "... f in fprobes" test -d events/fprobes/work_a__entry
echo >dynamic_events
SUB=$(awk '$2 == "UTRACE_SUBBUF_SIZE" { sub(/u$/, "", $3); print $3 }' "$ROOT/common/rb_abi.h")
HP=$(sed -n 's/^\tfield: char data;\toffset:\([0-9]*\);\tsize:\([0-9]*\);.*/\1 + \2/p' events/header_page)
check "events/header_page: the data ends at the sub-buffer's end ($HP = $SUB)" \
	test -n "$HP" -a "$((HP))" = "$SUB"
check "events/ lists header_page, header_event and ftrace" \
	sh -c 'ls events | grep -qx header_page && ls events | grep -qx header_event && ls events | grep -qx ftrace'
check "events/ftrace/print/format: its buf field, as ftracetest's trace_marker.tc reads it" \
	grep -q '^	field:char buf\[\];	offset:16;' events/ftrace/print/format
check "events/ftrace/function/id reads 1, print/id 5; funcgraph_entry has none" \
	sh -c 'test "$(cat events/ftrace/function/id)" = 1 -a "$(cat events/ftrace/print/id)" = 5 &&
		! test -e events/ftrace/funcgraph_entry/id'
find_tracefs
if [ -n "$TR" ] && [ -d "$TR/events/ftrace" ]; then
	check "events/header_event is the kernel's" cmp -s events/header_event "$TR/events/header_event"
	check "events/ftrace/ lists the kernel's events" \
		test "$(ls events/ftrace | tr '\n' ' ')" = "$(ls "$TR/events/ftrace" | tr '\n' ' ')"
	DIFF=
	for e in $(ls "$TR/events/ftrace"); do
		cmp -s "events/ftrace/$e/format" "$TR/events/ftrace/$e/format" || DIFF="$DIFF $e/format"
		if [ -e "$TR/events/ftrace/$e/id" ]; then
			cmp -s "events/ftrace/$e/id" "$TR/events/ftrace/$e/id" || DIFF="$DIFF $e/id"
		fi
	done
	check "events/ftrace/*/format and id are the kernel's (differ:${DIFF:- none})" test -z "$DIFF"
fi
cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the recording ended normally" test $? -eq 0
