#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_fork.sh BUILD_DIR - set_event_notrace_pid and the
# options event-fork and function-fork of `utrace record --tracefs DIR`
# (lib/tracefs/live_pids.c, live_options.c, lib/record/recorder_livepid.c,
# runtime/trace_events.c), on a program that forks a child now and then;
# parent and children fire the same events and call the same functions.
# set_event_notrace_pid with the parent leaves its events out and keeps
# the children's; with event-fork on, the children forked from then on
# join that list (their events go too) and leave it when they exit;
# set_event_pid with the parent and event-fork: the children's events are
# recorded, without event-fork they are not; set_ftrace_pid with the
# parent and function-fork: the children's function lines are there,
# without it not.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cat >"$T/fk.c" <<'PROG'
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#define CREATE_TRACE_POINTS
#include "lt_events.h"
__attribute__((noinline)) int child_work(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int parent_work(int x) { __asm__ volatile(""); return x * 3; }
int main(int argc, char **argv)
{
	char path[4096];
	FILE *f;
	volatile int v = 0;

	snprintf(path, sizeof(path), "%s.pid", argv[1]);
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	for (int n = 0; access(argv[1], F_OK); n++) {
		trace_lt_tick(n);
		v = parent_work(v);
		if (n % 20 == 0) {
			pid_t c = fork();

			if (c == 0) {
				for (int k = 0; k < 5; k++) {
					trace_lt_work(n, 1);
					v = child_work(v);
					usleep(1000);
				}
				_exit(0);
			}
			if (c > 0)
				waitpid(c, NULL, 0);
		}
		usleep(1000);
	}
	return 0;
}
PROG
cc -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/kernel" -o "$T/fk" "$T/fk.c" ||
	{ notok "build the program"; exit 1; }

"$U" record -p function -e livetp:lt_tick -e livetp:lt_work --tracefs "$T/mnt" -o "$T/fk.dat" \
	-- "$T/fk" "$T/stop" >"$T/rec.out" 2>&1 &
RP=$!
check "the tracefs is mounted, the program started" \
	until_ok 100 test -s "$T/stop.pid" -a -f "$T/mnt/set_event_notrace_pid" || exit 1
P=$(cat "$T/stop.pid")
cd "$T/mnt" || { notok "mounted"; exit 1; }

# got: after a clear, trace read again until it has PATTERN lines
# (a few rounds of forks), into $T/tr
got() {
	echo > trace
	for _ in $(seq 60); do
		cat trace >"$T/tr"
		[ "$(grep -c -- "$1" "$T/tr")" -ge "${2:-3}" ] && return 0
		sleep 0.1
	done
	return 1
}
# of_parent / of_children PATTERN: the lines of $T/tr with PATTERN of the
# parent, of another process
of_parent() { grep -- "$1" "$T/tr" | grep -c -- "-$P "; }
of_children() { grep -- "$1" "$T/tr" | grep -vc -- "-$P "; }

check "the options are there, off" \
	test "$(cat options/event-fork)/$(cat options/function-fork)" = "0/0"
check "trace_options lists them" \
	test "$(grep -c -x -e noevent-fork -e nofunction-fork trace_options)" = 2
check "set_event_notrace_pid starts empty" test -z "$(cat set_event_notrace_pid)"
echo "$P" > set_event_notrace_pid
check "set_event_notrace_pid reads back" test "$(cat set_event_notrace_pid)" = "$P"
check "the children's events are still recorded" got 'lt_work: n='
check "with the parent in set_event_notrace_pid its events are not" \
	test "$(of_parent 'lt_tick: n=')" -eq 0
echo 1 > options/event-fork
check "event-fork reads 1" test "$(cat options/event-fork)" = 1
check "trace_options says so" grep -qx event-fork trace_options
# a child forked before event-fork was on is not in the list and keeps its
# events until it exits, as in the kernel: the window starts once those
# children are gone (on a loaded machine one may outlive the clear)
for c in $(pgrep -P "$P"); do
	for _ in $(seq 100); do kill -0 "$c" 2>/dev/null || break; sleep 0.05; done
done
echo > trace
sleep 1.5
cat trace >"$T/tr"
check "with event-fork a child of a notrace thread has no events either" \
	test "$(grep -c 'lt_work: n=\|lt_tick: n=' "$T/tr")" -eq 0
notrace_is_p() { test "$(cat set_event_notrace_pid)" = "$P"; }
check "the children that exited left the list again (one may be running)" until_ok 50 notrace_is_p

echo > set_event_notrace_pid
echo "$P" > set_event_pid
check "set_event_pid and event-fork: the children's events are recorded" got 'lt_work: n='
parent_ticks() { cat trace >"$T/tr"; test "$(of_parent 'lt_tick: n=')" -gt 0; }
check "... and the parent's" until_ok 50 parent_ticks
echo 0 > options/event-fork
echo nofunction-fork > trace_options
# the children forked while it was on stay listed until they exit, as in
# the kernel: the window starts once the list is the parent alone
pid_is_p() { test "$(cat set_event_pid)" = "$P"; }
until_ok 50 pid_is_p
echo > trace
sleep 1.5
cat trace >"$T/tr"
check "without event-fork they are not" test "$(of_children 'lt_work: n=')" -eq 0
echo > set_event_pid

echo "$P" > set_ftrace_pid
echo function-fork > trace_options
check "function-fork reads 1" test "$(cat options/function-fork)" = 1
check "set_ftrace_pid and function-fork: the children's calls are traced" got 'child_work <-'
echo 0 > options/function-fork
ftrace_is_p() { test "$(cat set_ftrace_pid)" = "$P"; }
until_ok 50 ftrace_is_p
echo > trace
sleep 1.5
cat trace >"$T/tr"
check "without function-fork they are not" test "$(of_children 'child_work <-')" -eq 0
check "... the parent's are" test "$(of_parent 'parent_work <-')" -gt 0
echo 2 > options/event-fork 2>"$T/err"
check "an option takes 0 or 1" grep -q 'Invalid argument' "$T/err"

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the recording ends well" test $? -eq 0
