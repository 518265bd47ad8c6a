#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_pid.sh BUILD_DIR - set_ftrace_pid,
# set_ftrace_notrace_pid and trace_clock of `utrace record --tracefs DIR`
# (lib/tracefs/live_pids.c, live_clock.c, runtime/trace_pid.c), on a program
# whose two threads call the same functions: with one thread's id in
# set_ftrace_pid only its function lines are in trace, under function and
# function_graph; set_ftrace_notrace_pid leaves that one out; "no pid"
# when empty; EINVAL on a bad word; `echo > set_ftrace_pid` brings both
# back; `echo $$ > set_ftrace_pid` (a pid that is no traced thread, as the
# seeds do) leaves no function line.  The same for a program built without
# utrace's flags (its entries patched) and for its library calls
# (--libcall).  trace_clock reads "[local] global mono x86-tsc", x86-tsc prints the
# counter, a bad name is EINVAL.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cat >"$T/pt.c" <<'PROG'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
static const char *stop;
__attribute__((noinline)) int work_a(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int work_b(int x) { __asm__ volatile(""); return x * 3; }
/* deep(n) is n calls down; the bottom sleeps: a frame hooked for a long
 * time while the lists change */
__attribute__((noinline)) int deep(int n)
{
	if (!n) {
		usleep(2000);
		return 1;
	}
	return deep(n - 1) + 1;
}
static void *worker(void *arg)
{
	char path[4096], buf[32];
	long bad = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", stop, (const char *)arg);
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%ld\n", (long)syscall(SYS_gettid));
		fclose(f);
	}
	while (access(stop, F_OK) != 0) {
		volatile int v = 0;
		for (int i = 0; i < 300; i++) {
			v = work_b(work_a(v));
			snprintf(buf, sizeof(buf), "%d", i);
			bad += atoi(buf) != i;
		}
		bad += deep(5) != 6;
		usleep(300);
	}
	return (void *)bad;
}
int main(int argc, char **argv)
{
	pthread_t t[2];
	void *r[2];

	stop = argv[1];
	pthread_create(&t[0], NULL, worker, "1");
	pthread_create(&t[1], NULL, worker, "2");
	pthread_join(t[0], &r[0]);
	pthread_join(t[1], &r[1]);
	printf("wrong %ld\n", (long)r[0] + (long)r[1]);
	return 0;
}
PROG
cc -O2 -pthread $("$U" cflags) -o "$T/pt" "$T/pt.c" || { notok "build the program"; exit 1; }
cc -O2 -pthread -o "$T/plain" "$T/pt.c" || { notok "build the uninstrumented program"; exit 1; }

# start PROG OPTIONS...: the recorder of PROG in the background (RP), the
# mount ready and both threads' ids known (A, Bt)
start() {
	local prog=$1
	shift
	rm -f "$T/stop" "$T/stop.1" "$T/stop.2"
	"$U" record "$@" --tracefs "$T/mnt" -o "$T/pt.dat" -- "$prog" "$T/stop" \
		>"$T/rec.out" 2>"$T/rec.err" &
	RP=$!
	for _ in $(seq 100); do
		[ -f "$T/mnt/current_tracer" ] && [ -s "$T/stop.1" ] && [ -s "$T/stop.2" ] && break
		sleep 0.05
	done
	A=$(cat "$T/stop.1" 2>/dev/null)
	Bt=$(cat "$T/stop.2" 2>/dev/null)
	[ -n "$A" ] && [ -n "$Bt" ] && [ -f "$T/mnt/current_tracer" ]
}
# stop: the program told to end, the recorder waited for; its status
stop() {
	touch "$T/stop"
	wait "$RP"
	local rc=$?
	RP=
	return $rc
}
# lines TID: the function lines of thread TID in trace (the function
# tracer's "comm-TID [cpu]", function_graph's funcgraph-proc "comm-TID")
lines() { grep -c -- "-$1 " "$T/tr"; }
anyfunc() { grep -c -e ' <-' -e '|  [a-z_]*(' "$T/tr"; }
# only WANT OTHER: after a clear, trace gets WANT's lines (a few
# sub-buffers of them: OTHER's would show by then) and none of OTHER's.
# Twice: the first window may still end a call OTHER entered before the
# list changed (its return goes through the hook, as in the kernel), or
# hold a record OTHER wrote while it was preempted between its look at
# the list and the write (seen once under a load of 20).
only() {
	local k
	for k in 1 2; do
		echo >"$T/mnt/trace"
		for _ in $(seq 80); do
			cat "$T/mnt/trace" >"$T/tr"
			[ "$(lines "$1")" -gt 3000 ] && break
			sleep 0.1
		done
	done
	[ "$(lines "$1")" -gt 3000 ] && [ "$(lines "$2")" -eq 0 ]
}
# both: after a clear, trace gets lines of both threads
both() {
	echo >"$T/mnt/trace"
	for _ in $(seq 80); do
		cat "$T/mnt/trace" >"$T/tr"
		[ "$(lines "$A")" -gt 0 ] && [ "$(lines "$Bt")" -gt 0 ] && return 0
		sleep 0.1
	done
	return 1
}

# ---- compiler call sites (utrace cflags) --------------------------------
check "the tracefs is mounted, both threads started" start "$T/pt" -p function
cd "$T/mnt" || exit 1
check "set_ftrace_pid reads 'no pid' at start" test "$(cat set_ftrace_pid)" = "no pid"
check "set_ftrace_notrace_pid reads 'no pid' at start" \
	test "$(cat set_ftrace_notrace_pid)" = "no pid"
check "with no list both threads' calls are traced ($A, $Bt)" both
echo "$A" > set_ftrace_pid
check "set_ftrace_pid reads back the id" test "$(cat set_ftrace_pid)" = "$A"
check "function: set_ftrace_pid $A, only its lines" only "$A" "$Bt"
echo "$Bt" >> set_ftrace_pid
check ">> set_ftrace_pid adds" test "$(cat set_ftrace_pid | tr '\n' ' ')" = "$A $Bt "
check "with both listed, both traced" both
echo "$Bt" > set_ftrace_pid
check "> starts the list over" test "$(cat set_ftrace_pid)" = "$Bt"
check "function: set_ftrace_pid $Bt, only its lines" only "$Bt" "$A"
echo function_graph > current_tracer; echo funcgraph-proc > trace_options
check "function_graph: only its lines" only "$Bt" "$A"
echo > set_ftrace_pid
check "echo > set_ftrace_pid: 'no pid' again" test "$(cat set_ftrace_pid)" = "no pid"
check "function_graph: both threads again" both
echo "$A" > set_ftrace_notrace_pid
check "set_ftrace_notrace_pid reads back" test "$(cat set_ftrace_notrace_pid)" = "$A"
check "function_graph: set_ftrace_notrace_pid $A, only the other's lines" only "$Bt" "$A"
echo nofuncgraph-proc > trace_options; echo function > current_tracer
check "function: set_ftrace_notrace_pid $A, only the other's lines" only "$Bt" "$A"
echo "$A" > set_ftrace_pid
echo > trace
sleep 1
cat trace >"$T/tr"
check "a thread in both lists is left out (notrace wins): no line" test "$(anyfunc)" -eq 0
echo > set_ftrace_notrace_pid
check "notrace emptied: the set_ftrace_pid thread alone" only "$A" "$Bt"
echo abc > set_ftrace_pid 2>"$T/err"
check "a word that is no number: EINVAL" grep -q 'Invalid argument' "$T/err"
check "... after the open emptied the list, as the kernel's" \
	test "$(cat set_ftrace_pid)" = "no pid"
echo "$A" > set_ftrace_pid
echo "$Bt -3" >> set_ftrace_pid 2>"$T/err"
check "a negative id: EINVAL, the list kept" \
	test "$(grep -c 'Invalid argument' "$T/err")" -eq 1 -a "$(cat set_ftrace_pid)" = "$A"
echo $$ > set_ftrace_pid
echo > trace
sleep 1.5
cat trace >"$T/tr"
check "echo \$\$ > set_ftrace_pid: no function line from the program" test "$(anyfunc)" -eq 0
echo > set_ftrace_pid
check "cleared: both threads traced again" both
# lists changed many times while function_graph frames are open
# (deep's bottom sleeps): every exit returns where it should
echo function_graph > current_tracer
for _ in $(seq 100); do
	echo "$A" > set_ftrace_pid; echo "$Bt" > set_ftrace_notrace_pid
	echo > set_ftrace_pid; echo > set_ftrace_notrace_pid
done
check "100 changes under function_graph: both threads traced after" both

# ---- trace_clock -------------------------------------------------------
echo function > current_tracer
check "trace_clock lists local, global, mono and x86-tsc, local current" \
	test "$(cat trace_clock)" = "[local] global mono x86-tsc"
echo x86-tsc > trace_clock
check "echo x86-tsc > trace_clock" test "$(cat trace_clock)" = "local global mono [x86-tsc]"
both
check "under x86-tsc the time stamps are counts, not seconds" \
	sh -c "grep ' <-' '$T/tr' | head -50 | grep -qE '\] [.dhHsNX]{5} +[0-9]{6,}: work_'"
check "... and no line has a decimal point there" \
	test -z "$(grep ' <-' "$T/tr" | grep -E '\] [.dhHsNX]{5} +[0-9]+\.[0-9]+: ')"
echo counter > trace_clock 2>"$T/err"
check "a clock not listed: EINVAL" grep -q 'Invalid argument' "$T/err"
check "... the clock unchanged" test "$(cat trace_clock)" = "local global mono [x86-tsc]"
echo mono > trace_clock
both
check "mono again: seconds.microseconds" \
	sh -c "grep ' <-' '$T/tr' | head -50 | grep -qE '\] [.dhHsNX]{5} +[0-9]+\.[0-9]{6}: work_'"
echo global > trace_clock
both
check "global (as local): seconds.microseconds" \
	sh -c "grep ' <-' '$T/tr' | head -50 | grep -qE '\] [.dhHsNX]{5} +[0-9]+\.[0-9]{6}: work_'"
cd "$T" || exit 1
stop
rc=$?
check "the program ended normally, every call right" \
	test "$rc" -eq 0 -a "$(cat "$T/rec.out")" = "wrong 0"
check "no shadow-stack trouble was noticed" test -z "$(grep -i 'shadow stack' "$T/rec.err")"

# ---- entries patched (no utrace flags), and its library calls ----------
check "the uninstrumented program runs under the tracefs" \
	start "$T/plain" -p function -l work_a -l work_b --libcall
cd "$T/mnt" || exit 1
check "patched entries: both threads" both
echo "$A" > set_ftrace_pid
check "patched entries, function: only set_ftrace_pid's thread" only "$A" "$Bt"
echo function_graph > current_tracer; echo funcgraph-proc > trace_options
check "patched entries, function_graph: only set_ftrace_pid's thread" only "$A" "$Bt"
echo > set_ftrace_pid; echo "$A" > set_ftrace_notrace_pid
check "patched entries, function_graph: notrace leaves it out" only "$Bt" "$A"
echo nofuncgraph-proc > trace_options; echo function > current_tracer
echo snprintf > set_ftrace_filter
check "library calls (--libcall): notrace leaves it out" only "$Bt" "$A"
echo > set_ftrace_notrace_pid; echo "$A" > set_ftrace_pid
check "library calls: only set_ftrace_pid's thread" only "$A" "$Bt"
echo > set_ftrace_pid
check "library calls: both again" both
cd "$T" || exit 1
stop
rc=$?
check "the uninstrumented program ended normally, every call right" \
	test "$rc" -eq 0 -a "$(cat "$T/rec.out")" = "wrong 0"
exit 0
