#!/bin/bash
# tests/kernel/tracefs.sh BUILD_DIR - utrace record --tracefs DIR: the
# seeds' basic workflow run verbatim against DIR while the program runs
# (tracer switched live, the filter glob obeyed, trace cleared), the
# error cases (unknown tracer: EINVAL and error_log; a glob that names no
# function; a bad tracing_on), tracing_thresh, trace_pipe read by two
# readers who split the records, per_cpu (trace, trace_pipe, stats), the events'
# files (enable, set_event, set_event_pid, filter, trigger, hist, the
# error_log texts),
# snapshot, and no mount left after the program's exit, after Ctrl-C of
# the recorder, and after kill -9 then utrace reset.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cat >"$T/live.c" <<'PROG'
#include <unistd.h>
__attribute__((noinline)) int func_alpha(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int func_beta(int x) { __asm__ volatile(""); return x * 2; }
__attribute__((noinline)) int other_gamma(int x) { __asm__ volatile(""); return x - 1; }
__attribute__((noinline)) void step(void)
{
	volatile int v = 0;
	for (int i = 0; i < 200; i++)
		v = other_gamma(func_beta(func_alpha(v)));
}
int main(int argc, char **argv)
{
	while (access(argv[1], F_OK) != 0) {
		step();
		usleep(1000);
	}
	return 0;
}
PROG
cc -O2 $("$U" cflags) -o "$T/live" "$T/live.c" || { notok "build the program"; exit 1; }

mounted() { grep -q " $T/mnt fuse.utrace " /proc/mounts; }
# start_rec: the recorder in the background (RP), the mount ready
start_rec() {
	rm -f "$T/stop"
	"$U" record -p nop --tracefs "$T/mnt" -o "$T/live.dat" -- "$T/live" "$T/stop" \
		>"$T/rec.out" 2>&1 &
	RP=$!
	for _ in $(seq 100); do [ -f "$T/mnt/current_tracer" ] && return 0; sleep 0.05; done
	return 1
}
# wait_gone: the mount goes within 5 s
wait_gone() {
	for _ in $(seq 100); do mounted || return 0; sleep 0.05; done
	return 1
}
# graph_funcs FILE: the calls of a function_graph trace, "f();" each once
# (the last entry may show as "f() {": its exit is in a sub-buffer that
# is not saved yet)
graph_funcs() {
	grep -v '^#' "$1" | awk -F'|' '{ print $2 }' | tr -d ' ' | sed 's/(){$/();/' | sort -u
}
# funcs FILE: the function names of a function tracer's trace
funcs() { awk '/ <-/ { print $(NF - 1) }' "$1" | sort -u | tr '\n' ' '; }

"$U" record --tracefs "$T/nodir" -o "$T/x.dat" -- true >"$T/nodir.out" 2>&1
check "--tracefs of a missing directory fails with one line" \
	test $? -eq 1 -a "$(cat "$T/nodir.out")" = \
	"utrace record: --tracefs: $T/nodir: No such file or directory"
check "the tracefs is mounted for the recording" start_rec
cd "$T/mnt" || exit 1
check "available_tracers" test "$(cat available_tracers)" = "function_graph function nop"
check "available_filter_functions lists the program's functions" \
	grep -qx func_alpha available_filter_functions
check "current_tracer starts as -p said" test "$(cat current_tracer)" = nop
# README: the kernel's mini-HOWTO, listing only what this tracefs takes
# (the ftrace selftests grep it for features: tests/ftracetest)
check "README is the kernel's tracing mini-HOWTO" test "$(head -1 README)" = "tracing mini-HOWTO:"
check "README lists the probe syntax this tracefs takes" \
	grep -qF 'f[:[<group>/][<event>]] <func-name>[%return] [<args>]' README
check "README does not list what it does not take (symstr, %pd)" \
	sh -c '! grep -qe symstr -e "%pd" README'
check "README lists event probes, which it takes" grep -qF 'e[:[<group>/][<event>]] <attached-group>.<attached-event>' README

# the seeds' workflow, verbatim
echo 0 > tracing_on; echo function > current_tracer; echo 'func*' > set_ftrace_filter; echo > trace; echo 1 > tracing_on
for _ in $(seq 50); do
	cat trace >"$T/trace1"
	grep -q ' <-' "$T/trace1" && break
	sleep 0.1
done
ncpu=$(ls per_cpu | wc -l)
bad=0
for c in $(seq 0 $((ncpu - 1))); do
	cpu=$(printf '%03d' "$c")
	awk '/ <-/' "per_cpu/cpu$c/trace" >"$T/cpu"
	grep -qv "\[$cpu\]" "$T/cpu" && bad=1
done
check "per_cpu/cpuN/trace holds only CPU N's events ($ncpu CPUs)" test "$ncpu" -ge 1 -a "$bad" -eq 0
echo nop > current_tracer
check "trace has the function tracer's header" grep -qx '# tracer: function' "$T/trace1"
check "trace has exactly the functions of the filter glob" \
	test "$(funcs "$T/trace1")" = "func_alpha func_beta "
check "set_ftrace_filter lists the functions the glob selects" \
	test "$(cat set_ftrace_filter | tr '\n' ' ')" = "func_alpha func_beta "
check "current_tracer is nop again" test "$(cat current_tracer)" = nop
echo > trace
sleep 0.3
cat trace >"$T/trace2"
check "after nop and a clear, trace has no calls" test -z "$(funcs "$T/trace2")"

# >> appends to the filter; function_graph switched on live
echo 'other_*' >> set_ftrace_filter
check ">> appends to set_ftrace_filter" \
	test "$(cat set_ftrace_filter | tr '\n' ' ')" = "func_alpha func_beta other_gamma "
echo function_graph > current_tracer; echo > trace
for _ in $(seq 50); do
	cat trace >"$T/trace3"
	grep -q 'other_gamma();' "$T/trace3" && break
	sleep 0.1
done
echo nop > current_tracer
check "function_graph switched on while running" grep -q '|  other_gamma();$' "$T/trace3"
check "function_graph's header" grep -qx '# tracer: function_graph' "$T/trace3"
echo > set_ftrace_filter
check "echo > set_ftrace_filter: all functions again" \
	test "$(cat set_ftrace_filter)" = "#### all functions enabled ####"

# set_graph_function: only below func_beta, switched on live
check "set_graph_function starts empty" \
	test "$(cat set_graph_function)" = "#### all functions enabled ####"
check "set_graph_notrace starts empty" \
	test "$(cat set_graph_notrace)" = "#### no functions disabled ####"
echo func_beta > set_graph_function
check "set_graph_function lists its function" test "$(cat set_graph_function)" = func_beta
echo function_graph > current_tracer; echo > trace
for _ in $(seq 50); do
	cat trace >"$T/trace4"
	grep -q 'func_beta();' "$T/trace4" && break
	sleep 0.1
done
echo nop > current_tracer; echo > set_graph_function
check "with set_graph_function func_beta the graph holds func_beta alone" \
	test "$(graph_funcs "$T/trace4")" = "func_beta();"

# max_graph_depth 1: step() alone, as a leaf
echo 1 > max_graph_depth
check "max_graph_depth reads back" test "$(cat max_graph_depth)" = 1
echo function_graph > current_tracer; echo > trace
for _ in $(seq 80); do
	cat trace >"$T/trace5"
	grep -q 'step();' "$T/trace5" && break
	sleep 0.1
done
echo nop > current_tracer; echo 0 > max_graph_depth
check "with max_graph_depth 1 the graph holds step() alone" \
	test "$(graph_funcs "$T/trace5")" = "step();"
echo -1 > max_graph_depth 2>"$T/err4"
check "max_graph_depth takes a number" grep -q 'Invalid argument' "$T/err4"

# tracing_thresh 500 us: the program's calls last a few us, none is kept
# but those a loaded machine stretched past 500 us (every duration shown
# is at least 500 us)
check "tracing_thresh starts at 0" test "$(cat tracing_thresh)" = 0
echo 500 > tracing_thresh
check "tracing_thresh reads back" test "$(cat tracing_thresh)" = 500
echo function_graph > current_tracer; echo > trace
sleep 1.5
cat trace >"$T/trace_th"
echo nop > current_tracer; echo 0 > tracing_thresh
check "with tracing_thresh 500 no short call is recorded" \
	awk -F'|' '!/^#/ && match($1, /[0-9.]+ us/) { if (substr($1, RSTART, RLENGTH - 3) + 0 < 500) bad = 1 }
		END { exit bad }' "$T/trace_th"
echo soon > tracing_thresh 2>"$T/err7"
check "tracing_thresh takes a number" grep -q 'Invalid argument' "$T/err7"
check "buffer_total_size_kb is buffer_size_kb for the program's one thread" \
	test "$(cat buffer_total_size_kb)" = "$(cat buffer_size_kb)"

# trace_options and options/: the printing of trace
check "trace_options lists what is off with no" grep -qx nofuncgraph-proc trace_options
echo funcgraph-proc > trace_options
check "options/funcgraph-proc follows trace_options" test "$(cat options/funcgraph-proc)" = 1
echo func_alpha > set_ftrace_filter; echo function_graph > current_tracer; echo > trace
for _ in $(seq 50); do
	cat trace >"$T/trace6"
	grep -q ') *live-[0-9]* *|' "$T/trace6" && break
	sleep 0.1
done
echo nop > current_tracer; echo > set_ftrace_filter
check "funcgraph-proc adds the task to each line" grep -q ') *live-[0-9]* *|' "$T/trace6"
echo 0 > options/funcgraph-proc
check "options/funcgraph-proc takes 0" grep -qx nofuncgraph-proc trace_options
echo bogus > trace_options 2>"$T/err6"
check "an unknown option fails with EINVAL" grep -q 'Invalid argument' "$T/err6"

# trace_marker: a print record, readable at once; none while tracing is off
echo 1 > tracing_on
echo hello marker > trace_marker
check "a trace_marker write shows in trace at once" \
	grep -q ' tracing_mark_write: hello marker$' trace
echo 0 > tracing_on
echo quiet > trace_marker 2>"$T/err5"
check "trace_marker while tracing is off fails (EBADF)" grep -q 'Bad file descriptor' "$T/err5"
echo 1 > tracing_on
check "and writes nothing" test -z "$(grep 'tracing_mark_write: quiet' trace)"

# errors
echo foo > current_tracer 2>"$T/err1"
check "an unknown tracer fails with EINVAL" grep -q 'Invalid argument' "$T/err1"
check "error_log says which tracer" grep -q '\] current_tracer: error: No such tracer$' error_log
check "error_log shows the command" grep -qx '  Command: foo' error_log
check "the tracer is unchanged" test "$(cat current_tracer)" = nop
echo > error_log
check "echo > error_log clears it" test ! -s error_log
echo 'nosuch_fn*' > set_ftrace_filter 2>"$T/err2"
check "a glob that names no function fails with EINVAL" grep -q 'Invalid argument' "$T/err2"
echo on > tracing_on 2>"$T/err3"
check "tracing_on takes numbers only" grep -q 'Invalid argument' "$T/err3"
echo 0 > tracing_on
check "tracing_on reads back" test "$(cat tracing_on)" = 0

# trace_pipe: consumed by two readers, who split the records
echo function > current_tracer; echo func_alpha > set_ftrace_filter; echo > trace
cat trace_pipe >"$T/p1" &
P1=$!
cat trace_pipe >"$T/p2" &
P2=$!
echo 1 > tracing_on; sleep 1; echo 0 > tracing_on
prev=
for _ in $(seq 50); do
	sleep 0.3
	now=$(cat "$T/p1" "$T/p2" | wc -c)
	[ "$now" = "$prev" ] && break
	prev=$now
done
kill "$P1" "$P2"
wait "$P1" "$P2" 2>/dev/null
n1=$(grep -c ' <-' "$T/p1")
n2=$(grep -c ' <-' "$T/p2")
nt=$(grep -c ' <-' trace)
check "both readers of trace_pipe got records ($n1, $n2)" test "$n1" -gt 0 -a "$n2" -gt 0
# what trace_pipe consumed is gone from trace, as in the kernel (and
# tracing is off): the readers took it all
check "trace no longer shows what the readers consumed ($n1 + $n2 read, $nt left)" test "$nt" -eq 0
check "trace_pipe has no header" test -z "$(grep '^#' "$T/p1" "$T/p2")"
check "trace_pipe has the trace's lines" grep -q 'func_alpha <-step$' "$T/p1"
check "per_cpu/cpuN/stats has the kernel's lines" \
	test "$(sed 's/:.*//' per_cpu/cpu0/stats | tr '\n' ,)" = \
	"entries,overrun,commit overrun,bytes,oldest event ts,now ts,dropped events,read events,"
tot_e=0 tot_r=0
for c in $(seq 0 $((ncpu - 1))); do
	tot_e=$((tot_e + $(awk '/^entries:/ { print $2 }' "per_cpu/cpu$c/stats")))
	tot_r=$((tot_r + $(awk '/^read events:/ { print $3 }' "per_cpu/cpu$c/stats")))
done
check "trace_pipe read everything: the stats say read ($tot_r), no entries left ($tot_e)" \
	test "$tot_r" -gt 0 -a "$tot_e" -eq 0
# per_cpu/cpuN/trace_pipe: CPU N's lines only, consumed
echo 1 > tracing_on; sleep 0.3; echo 0 > tracing_on
bad=0 got=0
for c in $(seq 0 $((ncpu - 1))); do
	cpu=$(printf '%03d' "$c")
	# O_NONBLOCK: what there is, then EAGAIN ends dd
	dd if="per_cpu/cpu$c/trace_pipe" of="$T/pc" iflag=nonblock bs=64k status=none 2>/dev/null
	got=$((got + $(grep -c ' <-' "$T/pc")))
	grep ' <-' "$T/pc" | grep -qv "\[$cpu\]" && bad=1
	dd if="per_cpu/cpu$c/trace_pipe" of="$T/pc2" iflag=nonblock bs=64k status=none 2>/dev/null
	[ -s "$T/pc2" ] && bad=1
done
check "per_cpu/cpuN/trace_pipe gives CPU N's lines once ($got)" test "$got" -gt 0 -a "$bad" -eq 0
echo nop > current_tracer
cat trace_pipe >"$T/p3" 2>/dev/null &
P3=$!
cd "$T" || exit 1

# unmounted at the program's exit, at Ctrl-C, and by reset after kill -9
touch "$T/stop"
wait "$RP"
rc=$?
check "the recording ends with the program" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/# recorder: /' "$T/rec.out" | tail -5
check "no mount left after the program's exit" wait_gone
# (a child that ended is a zombie until waited for: kill -0 still finds it)
running() { [ -r "/proc/$1/stat" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat")" != Z ]; }
for _ in $(seq 50); do running "$P3" || break; sleep 0.1; done
ended() { ! running "$1"; }
check "a reader blocked in trace_pipe ends with the recording" ended "$P3"
"$U" report --stat -i "$T/live.dat" >"$T/report.out" 2>&1
check "the recording was saved" grep -q "^# total: [0-9]* threads, [1-9][0-9]* records" "$T/report.out"

# switching tracers 300 times while two processes (a fork) of three
# threads each recurse: no crash, both switched
cat >"$T/mt.c" <<'PROG'
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int mid(int x) { __asm__ volatile(""); return leaf(x) * 2; }
__attribute__((noinline)) int rec(int n) { __asm__ volatile(""); return n ? rec(n - 1) + mid(n) : 0; }
static const char *stop;
static void *worker(void *a)
{
	volatile int v = 0;
	while (access(stop, F_OK))
		for (int i = 0; i < 1000; i++)
			v += rec(10);
	return a;
}
int main(int argc, char **argv)
{
	pthread_t t[3];
	int st = 0;
	pid_t p;

	stop = argv[1];
	p = fork();
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	if (p > 0 && (waitpid(p, &st, 0) != p || !WIFEXITED(st)))
		return 99;
	return WEXITSTATUS(st);
}
PROG
cc -O2 -pthread $("$U" cflags) -o "$T/mt" "$T/mt.c" || { notok "build the threaded program"; exit 1; }
rm -f "$T/stop"
"$U" record -p nop --drop -b 256 --tracefs "$T/mnt" -o "$T/mt.dat" -- "$T/mt" "$T/stop" \
	>"$T/mt.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -f "$T/mnt/current_tracer" ] && break; sleep 0.05; done
sleep 0.5
fails=0
for _ in $(seq 100); do
	for t in function_graph function nop; do
		echo $t >"$T/mnt/current_tracer" || fails=$((fails + 1))
	done
done
check "300 live tracer switches all succeed" test "$fails" -eq 0
touch "$T/stop"
wait "$RP"
check "the threaded program and its fork exit normally" test $? -eq 0
"$U" report --stat -i "$T/mt.dat" >"$T/mt.stat" 2>&1
check "threads of both processes wrote records" \
	test "$(awk '!/^#/ && $3 > 0 { print $2 }' "$T/mt.stat" | sort -u | wc -l)" -eq 2

# the program's static tracepoints: available_events, events/SYS/EVENT/
cc -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/kernel" -o "$T/ltp" \
	"$ROOT/tests/kernel/ltp.c" ||
	{ notok "build the tracepoint program"; exit 1; }
rm -f "$T/stop"
"$U" record -e livetp:lt_tick --tracefs "$T/mnt" -o "$T/ltp.dat" -- "$T/ltp" "$T/stop" \
	>"$T/ltp.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -s "$T/mnt/available_events" ] && break; sleep 0.05; done
check "available_events lists the program's event" grep -qx 'livetp:lt_tick' "$T/mnt/available_events"
check "events/ holds its system, its events and the enable files" \
	test "$(ls "$T/mnt/events" | tr '\n' ' ')/$(ls "$T/mnt/events/livetp" | tr '\n' ' ')" = \
	"enable ftrace header_event header_page livetp /enable lt_tick lt_work "
check "its format is the kernel's" grep -qx 'print fmt: "n=%d", REC->n' \
	"$T/mnt/events/livetp/lt_tick/format"
id=$(cat "$T/mnt/events/livetp/lt_tick/id")
check "id is the format's ID ($id)" grep -qx "ID: $id" "$T/mnt/events/livetp/lt_tick/format"
check "an unknown event is not there" test ! -e "$T/mnt/events/livetp/nosuch"
# the events' switches, filter, trigger and hist, the seeds' workflow
# verbatim on a running program: lt_work was not given to -e
cd "$T/mnt" || exit 1
check "events/enable is mixed (X) with one event of two on" test "$(cat events/enable)" = X
check "an event -e did not name reads 0" test "$(cat events/livetp/lt_work/enable)" = 0
check "set_event lists the -e event" test "$(cat set_event)" = livetp:lt_tick
check "filter reads none" test "$(cat events/livetp/lt_work/filter)" = none
check "trigger lists the kernel's available triggers when empty" \
	test "$(cat events/livetp/lt_work/trigger)" = "# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist"
# wait_trace PATTERN: trace has a line matching PATTERN within 10 s
wait_trace() {
	for _ in $(seq 100); do
		cat trace >"$T/etrace"
		grep -q "$1" "$T/etrace" && return 0
		sleep 0.1
	done
	return 1
}
echo 1 > events/livetp/enable
check "events/livetp/enable switched both on" \
	test "$(cat events/livetp/enable) $(cat events/livetp/lt_work/enable) $(cat events/enable)" = "1 1 1"
check "set_event lists both" test "$(cat set_event | tr '\n' ' ')" = "livetp:lt_tick livetp:lt_work "
check "an event switched on live is recorded at once" wait_trace 'lt_work: n=[0-9]* kind='
echo 'kind == 1' > events/livetp/lt_work/filter
check "filter reads back" test "$(cat events/livetp/lt_work/filter)" = "kind == 1"
echo > trace
wait_trace 'lt_work: n=' >/dev/null
sleep 0.5
cat trace >"$T/etrace"
check "with the filter only kind 1 is recorded" \
	test "$(grep -o 'lt_work: n=[0-9]* kind=[0-9]' "$T/etrace" | sed 's/.*kind=//' | sort -u)" = 1
echo 'hist:keys=kind' > events/livetp/lt_work/trigger
check "trigger lists the hist trigger as the kernel prints it" \
	test "$(cat events/livetp/lt_work/trigger)" = \
	"hist:keys=kind:vals=hitcount:sort=hitcount:size=2048 [active]"
sleep 0.5
cat events/livetp/lt_work/hist >"$T/hist1"
check "hist has the kernel's header" grep -qx '# trigger info: hist:keys=kind:vals=hitcount:sort=hitcount:size=2048 \[active\]' "$T/hist1"
check "hist counts every kind (the trigger runs before the filter)" \
	test "$(grep -c '^{ kind: *[0-2] } hitcount: *[1-9][0-9]*$' "$T/hist1")" = 3
h1=$(awk '/Hits:/ { print $2 }' "$T/hist1")
sleep 0.3
h2=$(awk '/Hits:/ { print $2 }' events/livetp/lt_work/hist)
check "hist counts on while the program runs ($h1 < $h2)" test "$h1" -lt "$h2"
echo 'traceoff:3 if n < 0' >> events/livetp/lt_work/trigger
check ">> adds a second trigger" test "$(sed -n 2p events/livetp/lt_work/trigger)" = \
	"traceoff:count=3 if n < 0"
h3=$(awk '/Hits:/ { print $2 }' events/livetp/lt_work/hist)
check "the hist table stays when another trigger is added ($h2 <= $h3)" test "$h2" -le "$h3"
echo 'hist:keys=kind' >> events/livetp/lt_work/trigger 2>"$T/eerr"
check "the same hist trigger twice is EEXIST" grep -q 'File exists' "$T/eerr"
echo '!hist:keys=kind' >> events/livetp/lt_work/trigger
check "!hist:... removes the hist trigger" test "$(cat events/livetp/lt_work/trigger)" = \
	"traceoff:count=3 if n < 0"
check "hist is empty without a hist trigger" test ! -s events/livetp/lt_work/hist
echo 'hist:keys=kind' >> events/livetp/lt_work/trigger
echo > events/livetp/lt_work/trigger
check "echo > trigger removes only the hist triggers (the kernel's)" \
	test "$(cat events/livetp/lt_work/trigger)" = "traceoff:count=3 if n < 0"
echo traceoff:3 > events/livetp/lt_work/trigger 2>"$T/eerr"
check "... so the same traceoff again is EEXIST" grep -q 'File exists' "$T/eerr"
echo '!traceoff:count=3 if n < 0' >> events/livetp/lt_work/trigger
check "! of a trigger in the form the file prints removes it" \
	grep -q '^# Available triggers:' events/livetp/lt_work/trigger
for form in traceon '!traceon:unlimited' 'snapshot:2 if n < 0' '!snapshot:count=0' \
	'enable_event:livetp:lt_tick' '!enable_event:livetp:lt_tick:unlimited if n > 1'; do
	echo "$form" >> events/livetp/lt_work/trigger
done
check "! takes :unlimited, :count=N, a target and an if FILTER, as the kernel" \
	grep -q '^# Available triggers:' events/livetp/lt_work/trigger

# errors: the kernel's error_log texts, with the caret under the column
echo > error_log
echo 'nosuch == 1' > events/livetp/lt_work/filter 2>"$T/eerr"
check "a bad filter fails with EINVAL" grep -q 'Invalid argument' "$T/eerr"
check "error_log has the filter's parse error" \
	grep -q '\] event filter parse error: error: Field not found$' error_log
check "error_log shows the filter" grep -qx '  Command: nosuch == 1' error_log
# the kernel's parse_pred positions are one past its index: past the
# unknown name (ftracetest's tracing-error-log.tc), at the operator
check "the caret is one past the unknown field's name, as the kernel's" \
	test "$(tail -1 error_log)" = "$(printf '%18s^' '')"
check "the filter reads the kernel's parse_error" \
	test "$(sed -n 3p events/livetp/lt_work/filter)" = "parse_error: Field not found"
echo 'kind = 1' > events/livetp/lt_work/filter 2>/dev/null
# "  Command: " is 11 columns: '=' is the 6th of the filter (the kernel's
# caret one past it), nosuch the 11th of the trigger
check "the caret is one past the bad operator's index, as the kernel's" \
	test "$(tail -1 error_log)" = "$(printf '%17s^' '')"
echo 0 > events/livetp/lt_work/filter
check "echo 0 > filter clears it" test "$(cat events/livetp/lt_work/filter)" = none
echo 'hist:keys=nosuch' >> events/livetp/lt_work/trigger 2>"$T/eerr"
check "a bad hist trigger fails with EINVAL" grep -q 'Invalid argument' "$T/eerr"
check "error_log has the hist error" \
	grep -q '\] hist:livetp:lt_work: error: Couldn.t find field$' error_log
check "its caret is under the field" \
	test "$(tail -1 error_log)" = "$(printf '%21s^' '')"
echo 'bogus' >> events/livetp/lt_work/trigger 2>"$T/eerr"
check "an unknown trigger command fails with EINVAL" grep -q 'Invalid argument' "$T/eerr"
echo 2 > events/livetp/lt_work/enable 2>"$T/eerr"
check "enable takes 0 or 1 only" grep -q 'Invalid argument' "$T/eerr"

# set_event: > replaces, ! removes, SYS:* and NAME, an unknown one fails
echo 'livetp:lt_tick' > set_event
check "> set_event replaces the list" test "$(cat set_event)" = livetp:lt_tick
echo '!livetp:lt_tick' >> set_event
check "!SYS:EVENT switches it off" test -z "$(cat set_event)"
check "events/enable reads 0 with every event off" test "$(cat events/enable)" = 0
echo 'livetp:*' >> set_event
check "SYS:* switches the system on" test "$(cat events/livetp/enable)" = 1
echo '!lt_work' >> set_event
check "a bare event name switches that event" test "$(cat set_event)" = livetp:lt_tick
echo 'nosuch:event' >> set_event 2>"$T/eerr"
check "an event that does not exist is EINVAL" grep -q 'Invalid argument' "$T/eerr"

# snapshot: the kernel's help when there is none; echo 1 takes one, a
# copy that stays as it was; echo 2 clears it, echo 0 frees it.  The
# snapshot triggers above allocated it, as the kernel's
# register_snapshot_trigger does, and their removal left it so.
check "a snapshot trigger allocated the snapshot" grep -qx '# \* Snapshot is allocated \*' snapshot
echo 0 > snapshot
check "freed, snapshot has the kernel's help" \
	test "$(sed -n 4p snapshot) $(grep -c '^# echo [012] > snapshot : ' snapshot)" = \
	"# * Snapshot is freed * 3"
echo 1 > snapshot
cat snapshot >"$T/snap1"
check "echo 1 > snapshot takes one, printed as trace" \
	test "$(head -1 "$T/snap1")" = "# tracer: $(cat current_tracer)" -a \
	-n "$(grep 'lt_tick: n=' "$T/snap1")"
sleep 0.3
cat snapshot >"$T/snap2"
check "the snapshot does not change while tracing goes on" cmp -s "$T/snap1" "$T/snap2"
echo 2 > snapshot
check "echo 2 > snapshot clears it" grep -qx '# \* Snapshot is allocated \*' snapshot
echo 0 > snapshot
check "echo 0 > snapshot frees it" grep -qx '# \* Snapshot is freed \*' snapshot
echo on > snapshot 2>"$T/eerr"
check "snapshot takes numbers only" grep -q 'Invalid argument' "$T/eerr"
echo 1 > events/livetp/lt_work/enable

# set_event_pid: only the threads listed have their events recorded
check "set_event_pid starts empty" test -z "$(cat set_event_pid)"
tid=
for p in $(pgrep -f "$T/ltp $T/stop"); do
	[ "$(readlink "/proc/$p/exe")" = "$T/ltp" ] && tid=$p
done
echo 999999 > set_event_pid
check "set_event_pid reads back" test "$(cat set_event_pid)" = 999999
echo > trace
sleep 1.5
check "with another thread listed, the program's events are not recorded" \
	test -z "$(grep 'lt_work: n=' trace)"
echo "$tid" >> set_event_pid
check ">> set_event_pid adds the program's thread ($tid)" \
	test "$(cat set_event_pid | tr '\n' ' ')" = "999999 $tid "
check "its events are recorded again" wait_trace 'lt_work: n='
echo > set_event_pid
check "echo > set_event_pid empties it" test -z "$(cat set_event_pid)"
echo me > set_event_pid 2>"$T/eerr"
check "set_event_pid takes thread ids only" grep -q 'Invalid argument' "$T/eerr"
cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
"$U" report -i "$T/ltp.dat" >"$T/ltp.rep" 2>&1
check "the event was recorded under that format" grep -q 'lt_tick: n=' "$T/ltp.rep"
check "the snapshot taken through the tracefs is in the recording" \
	test "$("$U" report --snapshot -i "$T/ltp.dat" 2>/dev/null | grep -c 'lt_tick: n=')" -gt 0
check "the event switched on live was recorded and decodes" \
	grep -q 'lt_work: n=[0-9]* kind=[0-2]' "$T/ltp.rep"

start_rec || notok "mount for the Ctrl-C case"
kill -INT "$RP"
check "no mount left after Ctrl-C" wait_gone
touch "$T/stop"
wait "$RP"

start_rec || notok "mount for the kill -9 case"
kill -9 "$RP"
{ wait "$RP"; } 2>/dev/null
RP=
touch "$T/stop"
check "kill -9 of the recorder leaves a dead mount" mounted
"$U" reset >"$T/reset.out" 2>&1
check "utrace reset says it unmounted it" grep -q "unmounted the tracefs at $T/mnt" "$T/reset.out"
check "no mount left after utrace reset" wait_gone
exit 0
