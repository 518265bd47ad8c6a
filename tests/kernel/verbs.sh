#!/bin/bash
# tests/kernel/verbs.sh BUILD_DIR - trace-cmd's verbs over the live
# tracefs (docs/utrace-start.md ...): utrace start runs a program in the
# background into buffers only (the recorder's file holds no records
# while it runs), show prints its trace and trace_pipe, stop and restart
# switch tracing_on (a stopped session's buffers do not change), extract
# saves them as a utrace.dat report reads (while running, and after the
# program ended), reset ends the session (mount gone, program running on
# untraced) and frees an ended one's buffers; utrace stream prints a
# short program's whole call graph (its library calls by name) and ends
# as it ended.  Each check
# would fail without its verb.  The session directory is one of our own
# (XDG_RUNTIME_DIR), so other recordings are not touched.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

T=$(mktemp -d) || exit 1
export XDG_RUNTIME_DIR=$T/run
S=$T/run/utrace
mkdir -p "$XDG_RUNTIME_DIR"
cleanup() {
	touch "$T/stop"
	"$U" reset >/dev/null 2>&1
	grep -q " $S/tracefs fuse.utrace " /proc/mounts && umount -l "$S/tracefs" 2>/dev/null
	sleep 0.2
	rm -rf "$T"
}
trap cleanup EXIT
cat >"$T/prog.c" <<'PROG'
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int func_alpha(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int func_beta(int x) { __asm__ volatile(""); return x * 2; }
int main(int argc, char **argv)
{
	volatile int v = 0;
	long passes = 0;

	while (access(argv[1], F_OK) != 0) {
		for (int i = 0; i < 100; i++)
			v = func_beta(func_alpha(v));
		passes++;
		usleep(1000);
	}
	printf("done %d\n", passes > 0);
	return 0;
}
PROG
cat >"$T/short.c" <<'PROG'
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) * 2; }
int main(void) { int v = 0; for (int i = 0; i < 5; i++) v = mid(v); printf("v=%d\n", v); return 3; }
PROG
cc -O2 $("$U" cflags) -o "$T/prog" "$T/prog.c" &&
	cc -O2 $("$U" cflags) -o "$T/short" "$T/short.c" || { notok "build the programs"; exit 1; }
mounted() { grep -q " $S/tracefs fuse.utrace " /proc/mounts; }
has_calls() { "$U" show >"$T/show" 2>&1 && grep -q 'func_beta <-main' "$T/show"; }

"$U" stop >"$T/none.out" 2>&1
check "stop without a session fails with one line" test $? -eq 1 -a \
	"$(cat "$T/none.out")" = "utrace stop: no tracing session runs (start one with utrace start -- COMMAND)"
"$U" start -o "$T/x.dat" -- "$T/prog" "$T/stop" >"$T/o.out" 2>&1
check "start refuses -o (nothing is saved until extract)" \
	test $? -eq 2 -a -n "$(grep -- '-o .*utrace extract -o FILE' "$T/o.out")"

"$U" start -p function -b 64 -- "$T/prog" "$T/stop" >"$T/start.out" 2>&1
check "start returns at once with the mount's place" test $? -eq 0 -a -n \
	"$(grep -x "utrace start: $T/prog runs traced in the background (recorder [0-9]*); tracefs at $S/tracefs" "$T/start.out")"
check "the tracefs is mounted at the default place" mounted
RPID=$(sed -n 's/.*(recorder \([0-9]*\)).*/\1/p' "$T/start.out")
"$U" start -- "$T/prog" "$T/stop" >"$T/again.out" 2>&1
check "a second start fails while one runs" \
	test $? -eq 1 -a -n "$(grep 'a session runs' "$T/again.out")"
check "show prints the function trace of the running program" until_ok 50 has_calls
check "show's header is the kernel's" grep -qx '# tracer: function' "$T/show"
check "show --current_tracer" test "$("$U" show --current_tracer)" = function
check "show -f names the file" test "$("$U" show -f --tracing_on | head -1)" = "$S/tracefs/tracing_on"
spool=$(stat -c %s "$S/spool-$RPID.dat")
n=$(grep -c 'func_beta <-main' "$T/show")
check "buffers only: the recorder's file holds no records ($spool bytes, $n calls shown)" \
	test "$spool" -lt 16384 -a "$n" -gt 100
timeout 2 "$U" show -p >"$T/pipe" 2>&1
check "show -p prints trace_pipe as it comes" grep -q 'func_alpha <-main' "$T/pipe"
check "trace_pipe has no header" test -z "$(grep '^#' "$T/pipe")"

"$U" stop
check "stop: tracing_on 0" test "$("$U" show --tracing_on)" = 0
# the same records at the same times, byte for byte, as the kernel's:
# every read converts the rings' clock with the recording's start pair
# (a new pair per read moved times by a few ns, and so trace_pipe's
# consumed time: the last record it read came back, 1 run in 10 under
# load).  A thread that was past its tracing_on check when stop came
# still writes its record: under load it may be preempted there for a
# while, so s1 is a read that equals the one a second before it.
"$U" show >"$T/s0"
for _ in $(seq 10); do
	sleep 1
	"$U" show >"$T/s1"
	cmp -s "$T/s0" "$T/s1" && break
	mv "$T/s1" "$T/s0"
done
sleep 0.5
"$U" show >"$T/s2"
if cmp -s "$T/s1" "$T/s2"; then
	ok "stopped: the buffers do not change"
else
	notok "stopped: the buffers do not change"
	diff "$T/s1" "$T/s2" | head -8 | sed 's/^/#   /'
fi
last=$(grep -v '^#' "$T/pipe" | tail -1)
check "trace no longer shows what trace_pipe read" test -n "$last" -a -z "$(grep -Fx -- "$last" "$T/s2")"
"$U" extract -o "$T/e1.dat"
check "extract while running: a utrace.dat report reads" \
	sh -c "'$U' report -i '$T/e1.dat' | grep -q 'func_alpha <-main'"
"$U" restart
check "restart: tracing_on 1" test "$("$U" show --tracing_on)" = 1
check "restarted: new records" until_ok 50 sh -c "'$U' show > '$T/s3'; ! cmp -s '$T/s1' '$T/s3'"

"$U" reset >"$T/reset.out" 2>&1
check "reset ends the session" grep -qx \
	"utrace reset: ended the utrace start session (recorder $RPID, tracefs at $S/tracefs)" "$T/reset.out"
check "reset: the mount is gone" test -z "$(mounted && echo yes)"
running() { pgrep -f "^$T/prog $T/stop" >/dev/null; }
gone() { ! running; }
check "reset: the program runs on" running
touch "$T/stop"
check "and ends" until_ok 50 gone
check "reset leaves no session file" test ! -e "$S/session" -a ! -e "$S/last.dat"

# a session whose program ended: its buffers as they were then
rm -f "$T/stop"
"$U" start -- "$T/prog" "$T/stop" >/dev/null 2>&1
sleep 0.3
touch "$T/stop"
until_ok 50 test -e "$S/last.dat"
unmounted() { ! mounted; }
until_ok 50 unmounted
"$U" extract -o "$T/e2.dat"
check "extract after the program ended" \
	sh -c "'$U' report -i '$T/e2.dat' | grep -q 'func_alpha();'"
"$U" reset >"$T/reset2.out"
check "reset frees an ended session's buffers" test ! -e "$S/last.dat" -a -n \
	"$(grep 'freed the buffers' "$T/reset2.out")"

# a recorder killed: reset removes its dead mount and its files
rm -f "$T/stop"
"$U" start -- "$T/prog" "$T/stop" >"$T/start3.out" 2>&1
RPID=$(sed -n 's/.*(recorder \([0-9]*\)).*/\1/p' "$T/start3.out")
kill -9 "$RPID"
# dead, not dying: a SIGKILL takes effect when the kernel next runs the
# task, which on a loaded machine may be after a fixed sleep (then reset
# found a live recorder and asked it to end)
reaped() { [ ! -e "/proc/$RPID" ] || grep -q '^State:.*Z' "/proc/$RPID/status" 2>/dev/null; }
until_ok 100 reaped
"$U" reset >"$T/reset3.out" 2>&1
if [ -z "$(mounted && echo yes)" ] && grep -q "unmounted the tracefs at $S/tracefs" "$T/reset3.out"; then
	ok "after kill -9 of the recorder, reset unmounts its tracefs"
else
	notok "after kill -9 of the recorder, reset unmounts its tracefs"
	sed 's/^/#   /' "$T/reset3.out"
fi
if [ ! -e "$S/session" ] && [ ! -e "$S/spool-$RPID.dat" ]; then
	ok "and removes its session's files"
else
	notok "and removes its session's files"
	ls "$S" | sed 's/^/#   /'
fi
touch "$T/stop"

"$U" stream --libcall -- "$T/short" >"$T/stream" 2>&1
check "stream ends as the command ended" test $? -eq 3
check "stream prints the command's output" grep -qx 'v=62' "$T/stream"
check "stream prints every call as it comes (5 mid, 5 leaf)" test \
	"$(grep -c '|    mid() {' "$T/stream") $(grep -c 'leaf();' "$T/stream")" = "5 5"
check "stream names the library call as report does (printf, not a nearby symbol)" \
	grep -q '|    printf();' "$T/stream"
check "stream leaves nothing behind" test -z "$(ls "$S" | grep stream)"
