#!/bin/bash
# tests/kernel/tracefs_read.sh BUILD_DIR - a read of utrace's tracefs holds
# every record committed before it (issue 23 A): a call the program made
# just before the read is in trace, per_cpu/cpuN/trace and trace_pipe at
# the first read, though its thread's 16 KiB sub-buffer is far from full
# (the recorder saves the committed part of the sub-buffer being written,
# lib/record/recorder_drain.c rec_drain_partial); a sub-buffer saved again
# longer replaces its first copy, in the live reads and in the file (each
# call once); and trace_pipe consumes: what it read is gone from trace
# (00basic/trace_pipe.tc).  Each check reads once: no polling until a
# sub-buffer fills.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cat >"$T/prog.c" <<'PROG'
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int one_call(int x) { __asm__ volatile(""); return x + 1; }
/* argv[1]/go appears: one call, then go becomes done (the call's record
 * is committed before the rename); argv[1]/stop: the end */
int main(int argc, char **argv)
{
	char go[4096], done[4096], stop[4096];
	int v = 0;

	snprintf(go, sizeof(go), "%s/go", argv[1]);
	snprintf(done, sizeof(done), "%s/done", argv[1]);
	snprintf(stop, sizeof(stop), "%s/stop", argv[1]);
	while (access(stop, F_OK) != 0) {
		if (access(go, F_OK) == 0) {
			v = one_call(v);
			rename(go, done);
		}
		usleep(1000);
	}
	return v < 0;
}
PROG
cc -O2 $("$U" cflags) -o "$T/prog" "$T/prog.c" || { notok "build the program"; exit 1; }

# fire: one call of one_call, made (and acknowledged) before it returns
fire() {
	rm -f "$T/done"
	touch "$T/go"
	until_ok 200 test -e "$T/done"
}
# calls FILE: the one_call lines in FILE
calls() { grep -c ' one_call <-' "$1"; }
# cpu_calls: the one_call lines of every per_cpu/cpuN/trace, read once each
cpu_calls() {
	local n=0 c
	for c in per_cpu/cpu*/trace; do n=$((n + $(grep -c ' one_call <-' "$c"))); done
	echo "$n"
}

"$U" record -p nop --tracefs "$T/mnt" -o "$T/r.dat" -- "$T/prog" "$T" >"$T/rec.out" 2>&1 &
RP=$!
until_ok 100 test -f "$T/mnt/current_tracer" || { notok "the tracefs is mounted"; exit 1; }
cd "$T/mnt" || exit 1
echo one_call >set_ftrace_filter && echo function >current_tracer ||
	{ notok "trace one_call with the function tracer"; exit 1; }

fire
cat trace >"$T/t1"
check "a call made just before the read is in trace, at the first read" test "$(calls "$T/t1")" = 1
fire
fire
cat trace >"$T/t2"
check "two calls more: trace shows the three, each once (the sub-buffer saved again replaces its first copy)" \
	test "$(calls "$T/t2")" = 3
check "per_cpu/cpuN/trace show the three calls between them" test "$(cpu_calls)" = 3
timeout 10 head -n 1 trace_pipe >"$T/p1"
check "trace_pipe gives the oldest call at once" grep -q ' one_call <-' "$T/p1"
cat trace >"$T/t3"
check "what trace_pipe consumed is gone from trace" test "$(calls "$T/t3")" = 0
fire
cat trace >"$T/t4"
check "a call after what trace_pipe consumed is in trace" test "$(calls "$T/t4")" = 1
timeout 10 head -n 1 trace_pipe >"$T/p2"
check "trace_pipe gives that call, not the consumed ones again" \
	test "$(calls "$T/p2")" = 1 -a "$(calls "$T/t4")" = 1
cd / || exit 1
touch "$T/stop"
wait "$RP"
RP=
"$U" report -i "$T/r.dat" >"$T/report" 2>&1
check "the file holds each of the four calls once, and counts them once" \
	test "$(calls "$T/report")" = 4 -a \
	"$(grep -c '^# entries-in-buffer/entries-written: 4/4 ' "$T/report")" = 1

# A tracer chosen live past the first: the file ends with a META tracer
# naming the most capable one the recording had, so report prints it all
# in function_graph's format, though the recording started with nop and
# ended with it (it printed the graph's calls as function lines under
# "# tracer: nop").
rm -f "$T/stop"
"$U" record -p nop --tracefs "$T/mnt" -o "$T/g.dat" -- "$T/prog" "$T" >"$T/rec2.out" 2>&1 &
RP=$!
until_ok 100 test -f "$T/mnt/current_tracer" || { notok "the tracefs is mounted again"; exit 1; }
cd "$T/mnt" || exit 1
echo one_call >set_ftrace_filter && echo function_graph >current_tracer
fire
echo nop >current_tracer
cd / || exit 1
touch "$T/stop"
wait "$RP"
RP=
"$U" report -i "$T/g.dat" >"$T/g.report" 2>&1
check "function_graph chosen live: report prints the graph format, the call as one line" \
	test "$(head -1 "$T/g.report")" = "# tracer: function_graph" -a \
	"$(grep -c '|  one_call();$' "$T/g.report")" = 1
