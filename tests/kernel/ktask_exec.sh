#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/ktask_exec.sh BUILD_DIR - a kernel record's task is named as
# the kernel's trace names it: by what the task is called after its exec,
# for its records before the exec too (lib/kernel/kernel_tasks.c
# kt_exec_start: the instance's hidden sched_process_exec renames the
# task).  A subshell opens a file, waits half a second (its record is
# read meanwhile, while it is still sh), then execs cat: the kernel's own
# instance names all its records cat-PID; so must `utrace record -c -e`
# (report), and the live tracefs's trace.  The hidden event leaves no
# record and no format behind.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
need_root "kernel events need root (tracefs instances)"
find_tracefs
if [ -z "$TR" ] || [ ! -r "$TR/events/syscalls/sys_enter_openat/id" ] ||
	[ ! -r "$TR/events/sched/sched_process_exec/id" ]; then
	unsupported "no tracefs with syscalls and sched events"
fi
need_fuse
live_tmp # T, T/mnt for the live part; removed at the end
not() { ! "$@"; }
CMD='( exec 3</etc/hostname; sleep 0.5; exec cat /etc/hostname ) >/dev/null'

# first_other FILE: the first task (NAME-PID) of FILE's lines that is not
# the first line's (the command's shell): the subshell, before its exec
first_other() { awk 'NR == 1 { first = $1 } $1 != first { print $1; exit }' "$1"; }

# the kernel's own naming, in an instance of our own
I=$TR/instances/ktask-exec-$$ # (not utrace-*: utrace reset removes those of dead owners)
if mkdir "$I" 2>/dev/null && echo 0 >"$I/tracing_on" && echo 1 >"$I/options/event-fork" &&
	echo 1 >"$I/events/syscalls/sys_enter_openat/enable"; then
	# (on only once its pid is the one followed: others' events stay out)
	bash -c "echo \$\$ >'$I/set_event_pid'; echo 1 >'$I/tracing_on'; exec sh -c '$CMD'"
	echo 0 >"$I/tracing_on"
	# (the kernel prints a syscall's event as the call: sys_openat(...))
	grep -v '^#' "$I/trace" | grep ' sys_openat(' | awk '{ print $1 }' >"$T/kernel"
	check "the kernel's trace names the subshell's records before its exec cat" \
		test "$(first_other "$T/kernel" | sed 's/-[0-9]*$//')" = cat
	rmdir "$I"
else
	rmdir "$I" 2>/dev/null
	notok "an instance of our own for the kernel's naming"
fi

"$U" record -p nop -c -e syscalls:sys_enter_openat -o "$T/k.dat" -- sh -c "$CMD" >"$T/rec.out" 2>&1
check "utrace record ends well" test $? = 0
"$U" report -i "$T/k.dat" 2>/dev/null | grep ' sys_enter_openat: ' | awk '{ print $1 }' >"$T/utrace"
check "utrace names them as the kernel does: cat, before the exec too" \
	test "$(first_other "$T/utrace" | sed 's/-[0-9]*$//')" = cat
# after_sleep FILE NAME: NAME has records after sleep's first (its exec's)
after_sleep() { awk -v n="$2" '/^sleep-/ { s = 1 } s && $1 == n { f = 1 } END { exit !f }' "$1"; }
check "... the same task after its exec (the subshell's records before and after: one name)" \
	after_sleep "$T/utrace" "$(first_other "$T/utrace")"
"$U" report -i "$T/k.dat" 2>/dev/null >"$T/all"
check "... the hidden sched_process_exec left no record" not grep -q 'sched_process_exec' "$T/all"

# the live tracefs: trace read while the command runs
"$U" record -p nop -c -e syscalls:sys_enter_openat --tracefs "$T/mnt" -o "$T/l.dat" -- \
	sh -c "$CMD; while [ ! -f '$T/stop' ]; do sleep 0.05; done" >"$T/live.out" 2>&1 &
RP=$!
until_ok 100 test -s "$T/mnt/available_events"
until_ok 100 grep -q ' sys_enter_openat: .*' "$T/mnt/trace"
sleep 1
grep ' sys_enter_openat: ' "$T/mnt/trace" | awk '{ print $1 }' >"$T/live"
check "the live trace names them cat too" \
	test "$(first_other "$T/live" | sed 's/-[0-9]*$//')" = cat
touch "$T/stop"
wait "$RP"
check "the live recording ends well" test $? = 0
RP=
exit 0
