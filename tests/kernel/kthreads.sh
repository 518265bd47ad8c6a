#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/kthreads.sh BUILD_DIR - the kernel follows the command's new
# tasks itself (options/event-fork, lib/kernel/kernel_follow.c), against
# the real kernel.  The records are read back with kdump
# (tests/kernel/kdump.c, built here against libutrace-tool.a).
#
#   - kthreads (tests/kernel/kthreads.c) starts 14 threads one after
#     another, each writes 4093 bytes once and ends: all 14
#     sys_enter_write records, from 14 threads (none the main one), of
#     kthreads' process.  Threads joined from a poll of /proc were missed
#     (0 to 2 of 14 recorded).
#   - without -c, `sh -c './kthreads; true'` records sh's events only:
#     none of kthreads' (its exec, its threads' writes, their scheduling
#     but the switches to sh, their task_newtask records), although the
#     kernel follows the fork;
#     sh's own task_newtask for kthreads stays when -e asks for it
#   - with -c, kthreads' exec and its 14 writes
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
say() { sed 's/^/#   /' "$@"; }

need_built "$U" "$B/libutrace-tool.a"
need_root "kernel events need root (tracefs instances)"
find_tracefs
if [ -z "$TR" ] || [ ! -d "$TR/instances" ]; then
	unsupported "no tracefs with instances"
fi
for e in syscalls/sys_enter_write sched/sched_process_exec sched/sched_switch task/task_newtask; do
	[ -d "$TR/events/$e" ] || unsupported "the kernel has no $e event"
done
[ -e "$TR/options/event-fork" ] || unsupported "the kernel has no options/event-fork"

T=$(mktemp -d) || exit 1
trap "rm -rf \"$T\"" EXIT INT TERM
export XDG_RUNTIME_DIR=$T/run
mkdir "$XDG_RUNTIME_DIR"
CC=${CC:-cc}
SAN=
nm "$B/libutrace-tool.a" 2>/dev/null | grep -q __asan_init && SAN=-fsanitize=address,undefined
if ! $CC $SAN -std=gnu11 -O2 -D_GNU_SOURCE -I"$ROOT" -I"$ROOT/include" -o "$T/kdump" \
	"$ROOT/tests/kernel/kdump.c" "$B/libutrace-tool.a" -ltraceevent -ldw -lelf -lz -lstdc++ -ldl \
	-lpthread -lm 2>"$T/cc.err" ||
	! $CC -O2 -pthread -o "$T/kthreads" "$ROOT/tests/kernel/kthreads.c" 2>>"$T/cc.err"; then
	notok "build tests/kernel/kdump.c and kthreads.c"
	say "$T/cc.err"
	exit 1
fi
WRITE='K sys_enter_write: fd: 0x[0-9a-f]*, buf: 0x[0-9a-f]*, count: 0x00000ffd$'

# ---- 14 short threads ---------------------------------------------------------
(cd "$T" && "$U" record -o kt.dat -e syscalls:sys_enter_write -f 'count == 4093' \
	-- ./kthreads 2>kt.err)
rc=$?
"$T/kdump" "$T/kt.dat" >"$T/kt.txt" 2>&1
pid=$(sed -n 's/^utrace record: pid \([0-9]*\): .*/\1/p' "$T/kt.err" | head -n 1)
grep "$WRITE" "$T/kt.txt" | awk '{ print $3 }' >"$T/kt.who"
n=$(wc -l <"$T/kt.who")
tids=$(sed 's/.*-//' "$T/kt.who" | sort -u | grep -vcx "${pid:-x}")
if [ $rc -eq 0 ] && [ "$n" -eq 14 ] && [ "$tids" -eq 14 ] && [ -n "$pid" ]; then
	ok "14 threads that each write once and end: 14 writes recorded, from 14 threads"
else
	notok "14 threads that each write once and end: 14 writes recorded, from 14 threads (got $n from $tids, rc $rc)"
	say "$T/kt.err"
	say "$T/kt.who"
fi

# ---- the scope without and with -c ----------------------------------------------
for c in "" -c; do
	(cd "$T" && "$U" record $c -o ch.dat -e sched:sched_process_exec -e sched:sched_switch \
		-e task:task_newtask -e syscalls:sys_enter_write -f 'count == 4093' \
		-- sh -c './kthreads; true' 2>ch$c.err)
	echo $? >"$T/ch$c.rc"
	"$T/kdump" "$T/ch.dat" >"$T/ch$c.txt" 2>&1
done
shpid=$(sed -n 's/.* sh-\([0-9]*\) K sched_process_exec: filename=[^ ]*\/sh .*/\1/p' "$T/ch.txt")
if [ "$(cat "$T/ch.rc")" -eq 0 ] && [ -n "$shpid" ] &&
	[ "$(grep -c "$WRITE" "$T/ch.txt")" -eq 0 ] &&
	[ -z "$(grep ' kthreads-[0-9]* K ' "$T/ch.txt" | grep -v " K sched_switch: .* next_pid=$shpid ")" ] &&
	! grep -q 'sched_process_exec: filename=./kthreads' "$T/ch.txt" &&
	[ "$(grep -c " sh-$shpid K task_newtask: pid=[0-9]* comm=sh " "$T/ch.txt")" -eq 1 ] &&
	[ "$(grep -c ' K task_newtask:' "$T/ch.txt")" -eq 1 ]; then
	ok "without -c: sh's events only (its fork of kthreads), none of kthreads' process"
else
	notok "without -c: sh's events only (its fork of kthreads), none of kthreads' process"
	say "$T/ch.err"
	grep -v ' > \| < ' "$T/ch.txt" | grep -v sched_switch | head -n 30 | say
fi
if [ "$(cat "$T/ch-c.rc")" -eq 0 ] && [ "$(grep -c "$WRITE" "$T/ch-c.txt")" -eq 14 ] &&
	grep -q 'kthreads-[0-9]* K sched_process_exec: filename=./kthreads' "$T/ch-c.txt" &&
	[ "$(grep -c ' kthreads-[0-9]* K task_newtask:' "$T/ch-c.txt")" -eq 14 ]; then
	ok "with -c: kthreads' exec, its 14 thread starts and 14 writes"
else
	notok "with -c: kthreads' exec, its 14 thread starts and 14 writes"
	say "$T/ch-c.err"
fi
