#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_multiprobe.sh BUILD_DIR - a probe appended to an
# event of kprobe_events (the kernel's multiprobe, ftracetest's
# kprobe_multiprobe.tc): `p:kprobes/two func_a ...` then `p:kprobes/two
# func_b ...` make one event of two points, each listed on its own line,
# the event's format the kernel's (its print fmt names the location by
# __probe_ip), each record naming the point it hit; `-:EVENT POINT`
# removes that point alone, `-:EVENT` the rest; another argument type is
# refused.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cat >"$T/mp.c" <<'PROG'
#include <unistd.h>
__attribute__((noinline)) int func_a(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int func_b(int x) { __asm__ volatile(""); return x + 2; }
int main(int argc, char **argv)
{
	volatile int v = 0;
	while (access(argv[1], F_OK) != 0) {
		v += func_a(1) + func_b(2);
		usleep(2000);
	}
	return 0;
}
PROG
cc -O2 $("$U" cflags) -o "$T/mp" "$T/mp.c" || { notok "build the program"; exit 1; }
"$U" record -p nop --tracefs "$T/mnt" -o "$T/mp.dat" -- "$T/mp" "$T/stop" >"$T/rec.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -s "$T/mnt/available_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1

echo 'p:kprobes/two func_a v=%di:s32' >>kprobe_events
echo 'p:kprobes/two func_b v=%di:s32' >>kprobe_events 2>"$T/err"
check "a second point is appended to the event, each listed" \
	test "$(cat kprobe_events)" = "p:kprobes/two func_a v=%di:s32
p:kprobes/two func_b v=%di:s32"
check "the event is one event" test "$(grep -c '^kprobes:two$' available_events)" = 1
check "its print fmt names the location by __probe_ip, as the kernel's" \
	grep -qF 'print fmt: "(%lx) v=%d", REC->__probe_ip, REC->v' events/kprobes/two/format

echo 1 >events/kprobes/two/enable
trace_shows "$T/t1" ' two: (func_b+' >/dev/null
trace_shows "$T/t1" ' two: (func_a+' >/dev/null
check "each record names the point it hit, with its argument" \
	test -n "$(grep ' two: (func_a+0x0/0x[0-9a-f]*) v=1$' "$T/t1")" -a \
	-n "$(grep ' two: (func_b+0x0/0x[0-9a-f]*) v=2$' "$T/t1")" -a \
	-z "$(grep ' two: ' "$T/t1" | grep -v ' two: (func_a+0x0/0x[0-9a-f]*) v=1$' |
		grep -v ' two: (func_b+0x0/0x[0-9a-f]*) v=2$')"
echo 0 >events/kprobes/two/enable

echo 'p:kprobes/two func_a v=%di:u8' >>kprobe_events 2>"$T/err"
check "a point with another argument type is refused" grep -q 'File exists' "$T/err"
echo '-:kprobes/two func_a' >>kprobe_events
check "-:EVENT POINT removes that point alone" \
	test "$(cat kprobe_events)" = "p:kprobes/two func_b v=%di:s32"
echo >trace
echo 1 >events/kprobes/two/enable
trace_shows "$T/t2" ' two: (func_b+' >/dev/null
sleep 0.2
cat trace >"$T/t2"
check "the event goes on at the other point only" \
	test -n "$(grep ' two: (func_b+' "$T/t2")" -a -z "$(grep ' two: (func_a+' "$T/t2")"
echo 0 >events/kprobes/two/enable
echo '-:kprobes/two' >>kprobe_events
check "-:EVENT removes the rest" test -z "$(cat kprobe_events)" -a ! -d events/kprobes/two

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the program and the recording end well" test $? -eq 0
RP=
exit 0
