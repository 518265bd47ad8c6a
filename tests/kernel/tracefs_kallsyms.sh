#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_kallsyms.sh BUILD_DIR - the traced program's symbols
# as the kernel's /proc/kallsyms (utrace.kallsyms) and what the kernel
# does with them: utrace.kallsyms lists the program's functions at their
# run-time addresses with nm's letters and a library's with [LIB];
# kprobe_events probes an address (`p:NAME 0xADDR`, listed as written)
# and SYMBOL+OFFS past the function's end (the next function), refuses a
# symbol of two static functions; a %pS field prints as the kernel's
# SYM+0xOFF/0xSIZE and FIELD.function filters by the function holding it
# (by name or address).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cat >"$T/ks_ev.h" <<'HDR'
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ks
#if !defined(KS_EV_H) || defined(TRACE_HEADER_MULTI_READ)
#define KS_EV_H
#include <utrace/tracepoint.h>
TRACE_EVENT(ks_site,
	TP_PROTO(unsigned long cs, int n),
	TP_ARGS(cs, n),
	TP_STRUCT__entry(__field(unsigned long, call_site) __field(int, n)),
	TP_fast_assign(__entry->call_site = cs; __entry->n = n;),
	TP_printk("call_site=%pS n=%d", (void *)__entry->call_site, __entry->n)
);
#endif
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ks_ev
#include <utrace/define_trace.h>
HDR
cat >"$T/ks.c" <<'PROG'
#include <unistd.h>
#define CREATE_TRACE_POINTS
#include "ks_ev.h"
__attribute__((noinline)) int func_a(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int func_b(int x) { __asm__ volatile(""); return x + 2; }
__attribute__((noinline, used)) static int dup_fn(int x) { return x * 3; }
int dup2_call(int x);
int main(int argc, char **argv)
{
	volatile int v = 0;
	while (access(argv[1], F_OK) != 0) {
		v += func_a(1) + func_b(2) + dup2_call(3);
		trace_ks_site((unsigned long)func_a + 4, 1);
		trace_ks_site((unsigned long)func_b, 2);
		usleep(2000);
	}
	return 0;
}
PROG
cat >"$T/ks2.c" <<'PROG'
__attribute__((noinline, used)) static int dup_fn(int x) { return x * 5; }
int dup2_call(int x) { return dup_fn(x); }
PROG
cc -O2 $("$U" cflags) -I"$T" -o "$T/ks" "$T/ks.c" "$T/ks2.c" || { notok "build the program"; exit 1; }
"$U" record -p nop --tracefs "$T/mnt" -o "$T/ks.dat" -- "$T/ks" "$T/stop" >"$T/rec.out" 2>&1 &
RP=$!
for _ in $(seq 100); do grep -qs ' func_a$' "$T/mnt/utrace.kallsyms" && break; sleep 0.05; done
cd "$T/mnt" || exit 1

pid=$(pgrep -f "^$T/ks ")
A=$(awk '$3 == "func_a" { print $1 }' utrace.kallsyms)
B=$(awk '$3 == "func_b" { print $1 }' utrace.kallsyms)
base=$(awk -v p="$T/ks" '$6 == p { print $1; exit }' "/proc/$pid/maps" | cut -d- -f1)
nm_a=$(nm "$T/ks" | awk '$3 == "func_a" { print $1 }')
check "utrace.kallsyms: func_a T at its run-time address (load base + nm's)" \
	test -n "$A" -a "$((0x${A:-0}))" = "$((0x$base + 0x$nm_a))" -a \
	"$(awk '$3 == "func_a" { print $2 }' utrace.kallsyms)" = T
check "utrace.kallsyms: a static function is t, each of its two" \
	test "$(grep -c '^[0-9a-f]\{16\} t dup_fn$' utrace.kallsyms)" = 2
check "utrace.kallsyms: a library's symbols with [LIB]" \
	grep -q '^[0-9a-f]\{16\} [TW] malloc	\[libc\.so\.6\]$' utrace.kallsyms

check "README lists the kernel's <memaddr> place" \
	grep -qF 'place: [<module>:]<symbol>[+<offset>]|<memaddr>' README
echo "p:kprobes/at 0x$A" >>kprobe_events
check "p:NAME 0xADDR is taken, listed as written" grep -qx "p:kprobes/at 0x$A" kprobe_events
echo 1 >events/kprobes/at/enable
check "its records name the function holding the address" \
	trace_shows "$T/t1" ' at: (func_a+0x0/0x[0-9a-f]*)$'
echo 0 >events/kprobes/at/enable
echo "p:kprobes/nx func_a+$((0x$B - 0x$A))" >>kprobe_events
echo 1 >events/kprobes/nx/enable
check "SYMBOL+OFFS past the function's end probes the next function" \
	trace_shows "$T/t2" ' nx: (func_b+0x0/0x[0-9a-f]*)$'
echo 0 >events/kprobes/nx/enable
echo >error_log
echo 'p:kprobes/d dup_fn' >>kprobe_events 2>/dev/null
check "a symbol of two static functions is refused, the kernel's error" \
	errlog_is trace_kprobe "The symbol is not unique" "p:kprobes/d dup_fn" 12

echo >trace
echo 1 >events/ks/ks_site/enable
check "a %pS field prints as the kernel's SYM+0xOFF/0xSIZE" \
	trace_shows "$T/t3" ' ks_site: call_site=func_a+0x4/0x[0-9a-f]* n=1$'
echo 0 >events/ks/ks_site/enable
echo 'call_site.function == func_a' >events/ks/ks_site/filter
echo >trace
echo 1 >events/ks/ks_site/enable
trace_shows "$T/t4" ' n=1$' >/dev/null
sleep 0.1
echo 0 >events/ks/ks_site/enable
cat trace >"$T/t4"
check "call_site.function == NAME keeps the records of that function only" \
	test -n "$(grep ' ks_site: ' "$T/t4")" -a -z "$(grep ' ks_site: ' "$T/t4" | grep -v 'n=1$')"
echo "call_site.function != $(printf '0x%x' $((0x$A + 2)))" >events/ks/ks_site/filter
echo >trace
echo 1 >events/ks/ks_site/enable
trace_shows "$T/t5" ' n=2$' >/dev/null
sleep 0.1
echo 0 >events/ks/ks_site/enable
cat trace >"$T/t5"
check "call_site.function != ADDRESS drops the function holding it" \
	test -n "$(grep ' ks_site: ' "$T/t5")" -a -z "$(grep ' ks_site: ' "$T/t5" | grep -v 'n=2$')"
echo 'call_site.function == no_such_fn' >events/ks/ks_site/filter 2>/dev/null
check "an unknown function is the kernel's error" grep -q 'Function not found' error_log

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the program and the recording end well" test $? -eq 0
RP=
exit 0
