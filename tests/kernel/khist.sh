#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/khist.sh BUILD_DIR - hist triggers on kernel events: this
# kernel has none (no CONFIG_HIST_TRIGGERS), so utrace runs them in the
# recorder on the records it reads from tracefs.  A program makes getpgid
# 1000 times and getsid 2000 times as raw system calls (khist.c):
#
#   - soft-enabled (-v -e raw_syscalls:sys_enter -R 'hist:keys=id.syscall'):
#     the histogram says getpgid 1000 and getsid 2000, named as the kernel
#     names them, and the report shows no sys_enter record (no page saved)
#   - recorded and counted (no -v): the same histogram, and the recorded
#     sys_enter events of getpgid are as many as its hitcount
#   - a trigger that names a field the event lacks: the kernel's message,
#     non-zero exit, the command never runs
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
need_root "kernel events need root (tracefs instances)"
find_tracefs
if [ -z "$TR" ] || [ ! -d "$TR/instances" ] || [ ! -d "$TR/events/raw_syscalls/sys_enter" ]; then
	unsupported "no tracefs with instances and raw_syscalls events"
fi
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
if ! ${CC:-cc} -O2 -o "$T/khist" "$ROOT/tests/kernel/khist.c" 2>"$T/cc.err"; then
	notok "build tests/kernel/khist.c"
	exit 1
fi

# count NAME FILE: the hitcount of syscall NAME in a report --hist
count() {
	sed -n "s/^{ id: sys_$1 *\\[ *[0-9]*\\] } hitcount: *\\([0-9]*\\)\$/\\1/p" "$2"
}

"$U" record -o "$T/soft.dat" -v -e raw_syscalls:sys_enter -R 'hist:keys=id.syscall:sort=hitcount' \
	-- "$T/khist" 1000 >"$T/soft.out" 2>"$T/soft.err"
st=$?
"$U" report --hist -i "$T/soft.dat" >"$T/soft.hist" 2>&1
check "soft-enabled kernel hist: the recording ran (status $st)" [ "$st" = 0 ]
check "soft-enabled kernel hist: getpgid 1000 times (got '$(count getpgid "$T/soft.hist")')" \
	[ "$(count getpgid "$T/soft.hist")" = 1000 ]
check "soft-enabled kernel hist: getsid 2000 times (got '$(count getsid "$T/soft.hist")')" \
	[ "$(count getsid "$T/soft.hist")" = 2000 ]
check "soft-enabled kernel hist: the kernel's header" \
	grep -qx '# trigger info: hist:keys=id.syscall:vals=hitcount:sort=hitcount:size=2048 \[active\]' \
	"$T/soft.hist"
"$U" report -i "$T/soft.dat" 2>/dev/null | grep -c 'sys_enter:' >"$T/soft.n"
check "soft-enabled kernel hist: no sys_enter record in the report ($(cat "$T/soft.n"))" \
	[ "$(cat "$T/soft.n")" = 0 ]

"$U" record -o "$T/rec.dat" -e raw_syscalls:sys_enter -R 'hist:keys=id.syscall' \
	-- "$T/khist" 1000 >"$T/rec.out" 2>"$T/rec.err"
"$U" report --hist -i "$T/rec.dat" >"$T/rec.hist" 2>&1
n=$("$U" report -i "$T/rec.dat" 2>/dev/null | grep -c 'sys_enter: NR 121 ')
check "recorded and counted: getpgid 1000 in the histogram (got '$(count getpgid "$T/rec.hist")')" \
	[ "$(count getpgid "$T/rec.hist")" = 1000 ]
check "recorded and counted: 1000 getpgid records in the report (got $n)" [ "$n" = 1000 ]

"$U" record -o "$T/bad.dat" -e raw_syscalls:sys_enter -R 'hist:keys=nosuch' \
	-- "$T/khist" 1 >"$T/bad.out" 2>"$T/bad.err"
st=$?
check "bad kernel trigger: status non-zero ($st), the kernel's message" \
	grep -q "Couldn't find field" "$T/bad.err"
check "bad kernel trigger: nothing ran" [ "$st" != 0 ]
