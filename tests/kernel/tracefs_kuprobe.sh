#!/bin/bash
# tests/kernel/tracefs_kuprobe.sh BUILD_DIR - the live tracefs's
# kprobe_events and uprobe_events on a running program: the seeds' lines
# (p:, r:, cat, enable, -:, `>`) on the program's own functions and on its
# libc's malloc at a file offset computed here from nm and the program
# headers; each file listing its own kind in the kernel's show format,
# dynamic_events listing both; the records' values (arguments, return
# values, the probed address where libc is mapped); a probe on a library
# not loaded yet armed when the program dlopens it; `>` refused (EBUSY)
# while one is on; bad lines failing with the kernel's error_log text and
# caret; and the final file decoding the uprobes' records.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"
command -v nm >/dev/null && command -v readelf >/dev/null || unsupported "no nm or readelf"

live_tmp
# func_alpha(7, 1000..1002), func_beta(x) = 2x (1007..1009 -> 2014..2018),
# malloc(4000..4002); lib_gamma(42) once $T/load exists (dlopen)
cat >"$T/lib.c" <<'PROG'
__attribute__((noinline)) int lib_gamma(int v) { __asm__ volatile(""); return v + 1; }
PROG
cat >"$T/kup.c" <<'PROG'
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((noinline)) int func_alpha(int x, long y) { __asm__ volatile(""); return x + (int)y; }
__attribute__((noinline)) int func_beta(int x) { __asm__ volatile(""); return x * 2; }
int main(int argc, char **argv)
{
	int (*gamma)(int) = 0;
	volatile int v = 0;

	while (access(argv[1], F_OK) != 0) {
		if (!gamma && access(argv[2], F_OK) == 0) {
			void *h = dlopen(argv[3], RTLD_NOW);
			gamma = h ? (int (*)(int))dlsym(h, "lib_gamma") : 0;
		}
		for (int i = 0; i < 50; i++) {
			char *volatile p = malloc(4000 + i % 3);
			v = func_beta(func_alpha(7, 1000 + i % 3));
			if (gamma)
				v = gamma(42);
			free(p);
		}
		usleep(2000);
	}
	return 0;
}
PROG
cc -O2 -fPIC -shared -o "$T/libkup.so" "$T/lib.c" &&
	cc -O2 $("$U" cflags) -o "$T/kup" "$T/kup.c" -ldl || { notok "build the program"; exit 1; }

LIBC=$(ldd "$T/kup" | awk '$1 ~ /^libc\.so/ { print $3 }')
[ -f "$LIBC" ] || unsupported "no libc.so.6 found by ldd"
# malloc's vaddr, and its file offset through the PT_LOAD that holds it
MVA=$(nm -D --defined-only "$LIBC" | awk '$3 ~ /^malloc(@|$)/ { print $1; exit }')
[ -n "$MVA" ] || unsupported "no malloc in $LIBC's dynamic symbols"
MOFF=$(readelf -lW "$LIBC" | awk -v va=$((16#$MVA)) '$1 == "LOAD" {
	off = strtonum($2); v = strtonum($3); sz = strtonum($5)
	if (va >= v && va < v + sz) { printf "%x", va - v + off; exit } }')
[ -n "$MOFF" ] || unsupported "malloc's file offset not found"

"$U" record -p nop --tracefs "$T/mnt" -o "$T/kup.dat" -- \
	"$T/kup" "$T/stop" "$T/load" "$T/libkup.so" >"$T/rec.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -f "$T/mnt/uprobe_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1
# empty FILE: FILE is read (the mount answers) and has nothing
empty() {
	local c
	c=$(cat "$1") && test -z "$c"
}
# lacks FILE PATTERN: FILE is read and no line has PATTERN
lacks() {
	local c
	c=$(cat "$1") && ! grep -q "$2" <<<"$c"
}

check "kprobe_events and uprobe_events start empty" empty kprobe_events
check "... uprobe_events too" empty uprobe_events
# the seeds' kprobe_events lines on the program's functions
echo 'p:myprobe func_alpha x=%di:s32 y=%si:s64' >kprobe_events
check "a probe is written to kprobe_events" test $? -eq 0
echo 'r:myretprobe func_beta ret=$retval:s64' >>kprobe_events
check "a return probe is appended" test $? -eq 0
check "kprobe_events lists them as the kernel (group kprobes)" test "$(cat kprobe_events)" = \
	'p:kprobes/myprobe func_alpha x=%di:s32 y=%si:s64
r:kprobes/myretprobe func_beta ret=$retval:s64'
check "events/kprobes/myprobe has the event files" \
	test "$(ls events/kprobes/myprobe | tr '\n' ' ')" = "enable filter format hist id trigger "
echo 1 >events/kprobes/myprobe/enable
echo 1 >events/kprobes/myretprobe/enable
check "the kprobe's records come" trace_shows "$T/t1" ' myprobe: '
trace_shows "$T/t1" ' myretprobe: ' >/dev/null
grep ' myprobe: ' "$T/t1" >"$T/kp"
check "every myprobe record has x=7 y=1000..1002 ($(wc -l <"$T/kp"))" \
	test -s "$T/kp" -a -z "$(grep -v 'myprobe: (func_alpha+0x0/0x[0-9a-f]*) x=7 y=100[012]$' "$T/kp")"
grep ' myretprobe: ' "$T/t1" >"$T/kr"
check "every myretprobe record has ret=2014..2018 ($(wc -l <"$T/kr"))" \
	test -s "$T/kr" -a -z "$(grep -v 'myretprobe: (main+0x[0-9a-f]* <- func_beta) ret=201[468]$' "$T/kr")"

# the seeds' uprobe_events lines: libc's malloc at its file offset
echo "p:malloc_call $LIBC:0x$MOFF size=%di:u64" >>uprobe_events
check "a uprobe at $LIBC:0x$MOFF is added" test $? -eq 0
echo "r:malloc_ret $LIBC:0x$MOFF ret=\$retval:x64" >>uprobe_events
check "a return uprobe is added" test $? -eq 0
echo "p:alpha_u $T/kup:func_alpha x=%di:s32" >>uprobe_events
check "a uprobe at PATH:SYMBOL of the program is added" test $? -eq 0
AOFF=$(grep '^p:uprobes/alpha_u ' uprobe_events | sed 's/.*:0x\([0-9a-f]*\) .*/\1/')
check "uprobe_events lists them as the kernel (group uprobes, 0x%016lx)" \
	test "$(cat uprobe_events)" = "$(printf 'p:uprobes/malloc_call %s:0x%016x size=%%di:u64
r:uprobes/malloc_ret %s:0x%016x ret=$retval:x64
p:uprobes/alpha_u %s:0x%s x=%%di:s32' "$LIBC" $((16#$MOFF)) "$LIBC" $((16#$MOFF)) "$T/kup" "$AOFF")"
check "kprobe_events still lists the kprobes only" test "$(cat kprobe_events | wc -l)" = 2
check "dynamic_events lists all five" test "$(cat dynamic_events | wc -l)" = 5
check "events/uprobes/ holds them" \
	test "$(ls events/uprobes | tr '\n' ' ')" = "alpha_u enable malloc_call malloc_ret "
check "the uprobe's format is the kernel's" \
	grep -qF 'print fmt: "(0x%lx) size=%Lu", REC->__probe_ip, REC->size' \
	events/uprobes/malloc_call/format
for e in malloc_call malloc_ret alpha_u; do echo 1 >"events/uprobes/$e/enable"; done
echo >trace
check "the uprobes' records come" trace_shows "$T/t2" ' malloc_ret: '
trace_shows "$T/t2" ' alpha_u: ' >/dev/null
# where libc's malloc is in the program: its first mapping's start + vaddr
PID=$(pgrep -f "^$T/kup ")
BASE=$(awk -v f="$(readlink -f "$LIBC")" '$6 == f && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' \
	"/proc/$PID/maps")
AT=$(printf '%x' $((16#$BASE + 16#$MVA)))
grep ' malloc_call: ' "$T/t2" >"$T/mc"
check "malloc_call records carry malloc's address (0x$AT) and the program's sizes" \
	grep -q "malloc_call: (0x$AT) size=400[012]$" "$T/mc"
check "every malloc_call record is at 0x$AT ($(wc -l <"$T/mc"))" \
	test -z "$(grep -v "malloc_call: (0x$AT) size=[0-9]*$" "$T/mc")"
check "malloc_ret records: (0x$AT <- CALLER) ret=0xADDR" \
	grep -q "malloc_ret: (0x$AT <- 0x[0-9a-f]*) ret=0x[0-9a-f]*$" "$T/t2"
grep ' alpha_u: ' "$T/t2" >"$T/au"
check "every alpha_u record has x=7 ($(wc -l <"$T/au"))" \
	test -s "$T/au" -a -z "$(grep -v 'alpha_u: (0x[0-9a-f]*) x=7$' "$T/au")"

# a library no process has loaded yet: accepted, armed at its dlopen
echo "p:gamma $T/libkup.so:lib_gamma v=%di:s32" >>uprobe_events
check "a uprobe on a library not loaded yet is accepted" test $? -eq 0
echo 1 >events/uprobes/gamma/enable
echo >trace
sleep 0.2
check "it records nothing before the library is loaded" lacks trace ' gamma: '
touch "$T/load"
check "it fires once the program dlopens the library" trace_shows "$T/t3" ' gamma: '
check "with the argument the program passes (v=42)" \
	test -z "$(grep ' gamma: ' "$T/t3" | grep -v 'gamma: (0x[0-9a-f]*) v=42$')"

# -: and >
{ : >uprobe_events; } 2>"$T/busy.err"
check "> uprobe_events while one is enabled fails with EBUSY" \
	grep -q 'Device or resource busy' "$T/busy.err"
check "... and removes nothing" test "$(cat uprobe_events | wc -l)" = 4
echo '-:malloc_call' >>kprobe_events 2>/dev/null
check "-: in kprobe_events does not find a uprobe" grep -q '^p:uprobes/malloc_call ' uprobe_events
for e in malloc_call malloc_ret alpha_u gamma; do echo 0 >"events/uprobes/$e/enable"; done
echo '-:uprobes/malloc_call' >>uprobe_events
check "-:GRP/EVENT removes a disabled uprobe" test $? -eq 0
check "it leaves uprobe_events" lacks uprobe_events malloc_call
check "... and events/" test -d events/uprobes -a ! -e events/uprobes/malloc_call
echo >uprobe_events
check "> uprobe_events removes every uprobe once none is enabled" empty uprobe_events
check "... and no kprobe" test "$(cat kprobe_events | wc -l)" = 2
echo >trace
check "the program runs on after the removals" trace_shows "$T/t4" ' myprobe: '
check "nothing of the removed uprobes is recorded" \
	test -z "$(grep ' malloc_call: \| malloc_ret: \| alpha_u: \| gamma: ' "$T/t4")"

# bad lines: EINVAL, the kernel's error_log text and caret
echo >error_log
bad='p:bad /no/such/file:0x10'
echo "$bad" >>uprobe_events 2>"$T/e1"
check "a missing file fails with EINVAL" grep -q 'Invalid argument' "$T/e1"
check "error_log: Failed to find the given file, caret under the path" \
	errlog_is trace_uprobe 'Failed to find the given file' "$bad" 6
bad="p:bad $LIBC:0x${MOFF}%ret"
echo "$bad" >>uprobe_events 2>/dev/null
check "error_log: Invalid probed address suffix, caret under it" \
	errlog_is trace_uprobe 'Invalid probed address suffix' "$bad" $((9 + ${#LIBC} + ${#MOFF}))
bad="p:bad $LIBC:0x12zz"
echo "$bad" >>uprobe_events 2>/dev/null
check "error_log: Invalid uprobe offset, caret under it" \
	errlog_is trace_uprobe 'Invalid uprobe offset' "$bad" $((7 + ${#LIBC}))
bad='p:bad func_alpha x=%zz'
echo "$bad" >>kprobe_events 2>"$T/e2"
check "a bad register in kprobe_events fails with EINVAL" grep -q 'Invalid argument' "$T/e2"
check "error_log: Invalid register name" errlog_is trace_kprobe 'Invalid register name' "$bad" 19
bad='r5000:bad func_beta'
echo "$bad" >>kprobe_events 2>/dev/null
check "error_log: Maxactive is too big, caret at 1" errlog_is trace_kprobe 'Maxactive is too big' "$bad" 1
bad='p:bad no_such_function_xyz'
echo "$bad" >>kprobe_events 2>/dev/null
check "error_log: Invalid probed address or symbol" \
	errlog_is trace_kprobe 'Invalid probed address or symbol' "$bad" 6
n=$(wc -l <error_log)
echo 'f:bad func_alpha' >>kprobe_events 2>"$T/e3"
check "an fprobe line in kprobe_events: EINVAL, no error_log entry" \
	test "$(grep -c 'Invalid argument' "$T/e3")" = 1 -a "$(wc -l <error_log)" = "$n"
check "no bad line was added" lacks dynamic_events bad
echo 'r10:maxret func_beta' >>kprobe_events
check "r10: is taken and listed with its maxactive" grep -qx 'r10:kprobes/maxret func_beta' kprobe_events

for e in myprobe myretprobe; do echo 0 >"events/kprobes/$e/enable"; done
echo >kprobe_events
check "> kprobe_events removes them all once none is enabled" empty kprobe_events
check "dynamic_events is empty" empty dynamic_events

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the program and the recording end well" test $? -eq 0
RP=
"$U" report -i "$T/kup.dat" >"$T/rep" 2>&1
check "the file decodes the uprobes' records" grep -q "malloc_call: (0x$AT) size=400[012]$" "$T/rep"
check "and the library's" grep -q 'gamma: (0x[0-9a-f]*) v=42$' "$T/rep"
exit 0
