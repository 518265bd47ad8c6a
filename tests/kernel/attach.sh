#!/bin/bash
# tests/kernel/attach.sh BUILD_DIR - utrace record -P: attaching to running
# processes and detaching from them (lib/session/session_attach.c, lib/attach/,
# runtime/attach.c).
#
#   - a multi-threaded computation (tests/kernel/kattach.c), built with
#     `utrace cflags` and without, attached to and detached from
#     ATTACH_LOOPS times (default 100) while it computes: every attach
#     saves records, its results equal their untraced recomputation, it
#     exits 0;
#   - after the last detach, the code of every object it maps equals the
#     object's file (/proc/PID/mem against the file, byte for byte);
#   - in-process probes (entry and return) fetch their arguments in an
#     attached process, and go with the detach;
#   - a probe's faulting reads in an attached process do not reach a
#     SIGSEGV handler the program sets while attached;
#   - --tracefs: current_tracer switches an attached process's sites;
#   - a library the program dlcloses while attached: the detach puts
#     every other byte back (kattach_dl.c);
#   - a recorder killed with SIGKILL: the process is put back alike;
#   - a child forked while attached puts its code back at once;
#   - bash (a malloc of its own, which the runtime's thread then runs) is
#     attached to and put back;
#   - an attached bash that executes another program: the recorder says so
#     and ends;
#   - -P of a thread's id traces that thread only;
#   - a server (kattach_srv.c) answering a client during attaches and
#     detaches loses and changes no answer;
#   - the refusals: no such process, another tracer, traced by utrace
#     record already, a static program, a seccomp filter, the
#     runtime not visible in the process's mount namespace, a process of
#     another user, one that is not dumpable.
# Needs ptrace: UNSUPPORTED where utrace cannot attach at all.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U" "$B/libutrace.so"
command -v python3 >/dev/null || unsupported "python3 (to compare /proc/PID/mem with the files)"
N=${ATTACH_LOOPS:-100}
T=$(mktemp -d) || exit 1
chmod 755 "$T"
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
CC=${CC:-cc}
CF=$("$U" cflags)
$CC -O2 $CF -o "$T/kcf" "$ROOT/tests/kernel/kattach.c" -lpthread &&
	$CC -O2 -o "$T/kplain" "$ROOT/tests/kernel/kattach.c" -lpthread &&
	$CC -O2 $CF -o "$T/srv" "$ROOT/tests/kernel/kattach_srv.c" -lpthread &&
	$CC -O2 $CF -o "$T/kdl" "$ROOT/tests/kernel/kattach_dl.c" -ldl &&
	$CC -O2 $CF -fPIC -shared -I "$ROOT/tests/progs" -o "$T/libkplug.so" "$ROOT/tests/progs/plugin.c" ||
	{ notok "build the test programs"; exit 1; }

# start NAME CMD...: runs CMD in the background, its pid in TP, once it
# wrote "ready" on stderr
start() {
	local name=$1
	shift
	"$@" >"$T/$name.out" 2>"$T/$name.err" &
	TP=$!
	PIDS+=("$TP")
	for _ in $(seq 200); do
		grep -q ready "$T/$name.err" 2>/dev/null && return 0
		sleep 0.02
	done
	return 1
}

start probe "$T/kplain" 2 || { notok "the test program starts"; exit 1; }
if ! "$U" record -P "$TP" --duration 0.05 -o "$T/probe.dat" >"$T/probe.log" 2>&1; then
	kill -9 "$TP"
	grep -q 'ptrace' "$T/probe.log" && unsupported "ptrace: $(tail -1 "$T/probe.log")"
	notok "a first attach works: $(tail -1 "$T/probe.log")"
	exit 1
fi
kill -USR1 "$TP"

# same_code PID: every file-backed executable mapping equals its file
same_code() {
	python3 - "$1" <<'PY'
import sys
pid = sys.argv[1]
bad = 0
with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb") as mem:
    for line in maps:
        f = line.split()
        if len(f) < 6 or "x" not in f[1] or not f[5].startswith("/"):
            continue
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        off = int(f[2], 16)
        with open(f[5], "rb") as obj:
            obj.seek(off)
            want = obj.read(hi - lo)
        mem.seek(lo)
        got = mem.read(len(want))
        if got != want:
            n = sum(a != b for a, b in zip(got, want))
            print(f"{f[5]}: {n} bytes differ", file=sys.stderr)
            bad += 1
sys.exit(bad != 0)
PY
}

# loop NAME BIN: N attaches of BIN while it computes
loop() {
	local name=$1 bin=$2 i fails=0 empty=0 recs
	start "$name" "$bin" 4 || { notok "$name: starts"; return; }
	for i in $(seq "$N"); do
		if ! "$U" record -P "$TP" --duration 0.05 -o "$T/$name.dat" >"$T/$name.log" 2>&1; then
			fails=$((fails + 1))
			[ $fails -eq 1 ] && echo "# $name attach $i: $(tail -2 "$T/$name.log")"
			continue
		fi
		recs=$(sed -n 's/.*: \([0-9]*\) records (.*/\1/p' "$T/$name.log")
		if [ "${recs:-0}" -eq 0 ]; then
			empty=$((empty + 1))
			echo "# $name attach $i saved no records: $(tr '\n' ' ' <"$T/$name.log")"
		fi
	done
	check "$name: $N attaches and detaches succeed ($fails failed)" test $fails -eq 0
	check "$name: every attach saved records ($empty did not)" test $empty -eq 0
	check "$name: the code equals the files after the last detach" same_code "$TP"
	kill -USR1 "$TP"
	wait "$TP"
	check "$name: exits 0" test $? -eq 0
	local bad=0 lines=0 id r h
	while read -r _ id r _ h; do
		lines=$((lines + 1))
		[ "$("$bin" -v "${id%:}" "$r")" = "$h" ] || bad=$((bad + 1))
	done <"$T/$name.out"
	check "$name: its results equal an untraced computation" test $lines -eq 4 -a $bad -eq 0
}
loop cflags "$T/kcf"
loop plain "$T/kplain"

# in-process probes on an attached process: an entry and a return probe
# of step() fetch their arguments while the workers run; detach takes
# them out with the rest
for bin in kcf kplain; do
	start "p$bin" "$T/$bin" 4 || { notok "p$bin: starts"; continue; }
	"$U" record -P "$TP" --duration 0.2 -p nop -o "$T/p$bin.dat" \
		--probe 'p:att/st step x=%di:u64 i=%si:s64' --probe 'r:att/st_ret step r=$retval:u64' \
		-e att:st -e att:st_ret >"$T/p$bin.log" 2>&1
	rc=$?
	check "$bin: -P with in-process probes ($(tail -1 "$T/p$bin.log"))" test $rc -eq 0
	"$U" report -i "$T/p$bin.dat" >"$T/p$bin.txt" 2>&1
	n=$(grep -c ' st: (step+0x0/0x[0-9a-f]*) x=[0-9]* i=[0-9]*$' "$T/p$bin.txt")
	r=$(grep -c ' st_ret: ([a-z_]*+0x[0-9a-f]* <- step) r=[0-9]*$' "$T/p$bin.txt")
	check "$bin: the probes fetched their arguments ($n entries, $r returns)" test "$n" -gt 0 -a "$r" -gt 0
	check "$bin: the code equals the files after detach" same_code "$TP"
	kill -USR1 "$TP"
	wait "$TP"
	check "$bin: exits 0 after the probes came and went" test $? -eq 0
done

# a probe's faulting reads in an attached process are not the program's:
# a SIGSEGV handler it sets while attached (signal(), bound to the
# runtime's by late_bind.c) gets only its own fault
cat >"$T/segv.c" <<'PROG'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static volatile sig_atomic_t go;
static volatile long *volatile bad = (long *)16;
static void on(int s) { (void)s; go = 1; }
static void own(int s) { (void)s; printf("own handler\n"); exit(3); }
__attribute__((noinline)) long hit(volatile long *p, long x)
{
	__asm__ volatile("" : : "r"(p) : "memory");
	return x + 1;
}
int main(void)
{
	long n = 0;

	signal(SIGUSR2, on);
	fprintf(stderr, "ready\n");
	while (!go)
		n = hit(bad, n), usleep(1000);
	signal(SIGSEGV, own);
	for (int i = 0; i < 5; i++)
		hit(bad, i);
	printf("hits done\n");
	fflush(stdout);
	*bad = 1;
	return 0;
}
PROG
$CC -O2 $CF -o "$T/segv" "$T/segv.c" || notok "build segv"
start segv "$T/segv"
"$U" record -P "$TP" -p nop -o "$T/segv.dat" --probe 'p:att/sv hit v=+0(%di):u64 x=%si:u64' \
	-e att:sv >"$T/segv.log" 2>&1 &
R=$!
for _ in $(seq 200); do grep -q attached "$T/segv.log" && break; sleep 0.02; done
sleep 0.1
kill -USR2 "$TP"
wait "$TP"
rc=$?
wait $R
check "a SIGSEGV handler set while attached: exit 3 from it ($rc)" test $rc -eq 3
check "a SIGSEGV handler set while attached: it ran for the program's fault only" \
	test "$(cat "$T/segv.out")" = "$(printf 'hits done\nown handler')"
"$U" report -i "$T/segv.dat" >"$T/segv.txt" 2>&1
n=$(grep -c ' sv: (hit+0x0/0x[0-9a-f]*) v=0 x=[0-9]*$' "$T/segv.txt")
check "a SIGSEGV handler set while attached: the probe's reads gave 0 ($n)" test "$n" -ge 5

# --tracefs on an attached process: current_tracer switches its sites
# while it runs; the mount goes with the detach
if [ -c /dev/fuse ]; then
	mkdir -p "$T/mnt"
	start live "$T/kcf" 4 || notok "live: starts"
	"$U" record -P "$TP" -p nop --tracefs "$T/mnt" -o "$T/live.dat" >"$T/live.log" 2>&1 &
	R=$!
	for _ in $(seq 100); do grep -q attached "$T/live.log" && break; sleep 0.05; done
	check "--tracefs with -P: current_tracer reads nop" test "$(cat "$T/mnt/current_tracer")" = nop
	echo function_graph >"$T/mnt/current_tracer"
	sleep 0.3
	echo nop >"$T/mnt/current_tracer"
	kill -INT $R
	wait $R
	rc=$?
	check "--tracefs with -P: the recording ends well ($(tail -1 "$T/live.log"))" test $rc -eq 0
	check "--tracefs with -P: the mount is gone" test -z "$(grep " $T/mnt fuse.utrace " /proc/mounts)"
	"$U" report -i "$T/live.dat" >"$T/live.txt" 2>&1
	# (the file's tracer is then function_graph, the most it had: report
	# prints the calls as the graph's lines)
	check "--tracefs with -P: the switch traced the running threads" \
		grep -qE '\|  +mix\(\)( \{|;)$' "$T/live.txt"
	check "--tracefs with -P: the code equals the files after detach" same_code "$TP"
	kill -USR1 "$TP"
	wait "$TP"
	check "--tracefs with -P: the program exits 0" test $? -eq 0
else
	echo "# no /dev/fuse: --tracefs with -P not checked"
fi

# a library dlclose'd while attached (the program's dlclose is not the
# runtime's then): the detach forgets it and puts every other byte back,
# writing nothing where the library was
start dl "$T/kdl" "$T/libkplug.so" || notok "dlclose: starts"
"$U" record -P "$TP" --duration 1.5 -o "$T/dl.dat" >"$T/dl.log" 2>&1 &
R=$!
for _ in $(seq 200); do grep -q attached "$T/dl.log" && break; sleep 0.02; done
sleep 0.2
kill -USR1 "$TP"
for _ in $(seq 200); do grep -q closed "$T/dl.err" && break; sleep 0.02; done
wait $R
rc=$?
check "dlclose while attached: the recording ends well (status $rc)" test $rc -eq 0
check "dlclose while attached: the detach put every byte back ($(grep detach: "$T/dl.log" | head -1))" \
	eval '! grep -q "could not be put back" "$T/dl.log"'
"$U" report -i "$T/dl.dat" >"$T/dl.txt" 2>&1
check "dlclose while attached: plugin_helper was traced before" grep -q plugin_helper "$T/dl.txt"
check "dlclose while attached: the code equals the files after detach" same_code "$TP"
kill -USR2 "$TP"
wait "$TP"
check "dlclose while attached: the program exits 0" test $? -eq 0

# a recorder killed: the runtime sees its socket close and puts the
# process back alike; it can be attached to again
start killed "$T/kcf" 4 || notok "killed: starts"
"$U" record -P "$TP" -o "$T/killed.dat" >"$T/killed.log" 2>&1 &
R=$!
for _ in $(seq 200); do grep -q attached "$T/killed.log" && break; sleep 0.02; done
kill -9 $R
wait $R 2>/dev/null
sleep 0.3
check "a killed recorder: the code equals the files again" same_code "$TP"
"$U" record -P "$TP" --duration 0.05 -o "$T/killed2.dat" >"$T/killed2.log" 2>&1
check "a killed recorder: the process can be attached to again" test $? -eq 0
kill -USR1 "$TP"
wait "$TP"
check "a killed recorder: the process exits 0" test $? -eq 0

# a child forked while attached puts its own code back at once
cat >"$T/forker.c" <<'PROG'
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile sig_atomic_t stop, go;
static void on(int s) { if (s == SIGUSR1) stop = 1; else go = 1; }
__attribute__((noinline)) int work(int x) { return x * 3 + 1; }
int main(void)
{
	volatile int sum = 0;
	pid_t c;

	signal(SIGUSR1, on);
	signal(SIGUSR2, on);
	fprintf(stderr, "ready\n");
	while (!go)
		sum = work(sum), usleep(100);
	if (!(c = fork())) {
		fprintf(stderr, "child %d\n", getpid());
		while (!stop)
			sum = work(sum), usleep(1000);
		_exit(0);
	}
	while (!stop)
		sum = work(sum), usleep(1000);
	kill(c, SIGUSR1);
	waitpid(c, NULL, 0);
	return 0;
}
PROG
$CC -O2 $CF -o "$T/forker" "$T/forker.c" || notok "build forker"
start forker "$T/forker"
"$U" record -P "$TP" -o "$T/fork.dat" >"$T/fork.log" 2>&1 &
R=$!
for _ in $(seq 200); do grep -q attached "$T/fork.log" && break; sleep 0.02; done
kill -USR2 "$TP"
for _ in $(seq 200); do grep -q child "$T/forker.err" && break; sleep 0.02; done
child=$(sed -n 's/^child //p' "$T/forker.err")
check "a child forked while attached: its code equals the files" same_code "$child"
kill -INT $R
wait $R
kill -USR1 "$TP"
wait "$TP"
check "a child forked while attached: both exit 0" test $? -eq 0

# a distribution binary with a malloc of its own (the runtime's thread
# runs the program's patched code)
if [ -x /bin/bash ]; then
	/bin/bash -c 'trap "exit 0" USR1; echo ready >&2; while :; do x=$((x + 1)); done' \
		>"$T/bash.out" 2>"$T/bash.err" &
	TP=$!
	PIDS+=("$TP")
	for _ in $(seq 100); do grep -q ready "$T/bash.err" 2>/dev/null && break; sleep 0.02; done
	fails=0
	for i in 1 2 3; do
		"$U" record -P "$TP" --duration 0.2 -o "$T/bash.dat" >"$T/bash.log" 2>&1 ||
			{ fails=$((fails + 1)); echo "# bash attach $i: $(tail -1 "$T/bash.log")"; }
	done
	check "bash: 3 attaches succeed" test $fails -eq 0
	check "bash: the code equals the files after the detaches" same_code "$TP"
	kill -USR1 "$TP"
	wait "$TP"
	check "bash: exits 0" test $? -eq 0
fi

# an attached process that executes a new program: its runtime goes with
# the old one (an attach does not follow an exec); the recorder says so
# and ends, and the new program runs as untraced.  The recorder sees the
# exec in /proc/PID/stat, which it reads every millisecond or so: the new
# program lives a second, so that a loaded machine cannot reap it first
# (a process gone before the recorder ran again is said to have ended)
if [ -x /bin/bash ]; then
	/bin/bash -c 'trap "exec /bin/sh -c \"sleep 1; echo executed\"" USR1; echo ready >&2; while :; do x=$((x + 1)); done' \
		>"$T/bexec.out" 2>"$T/bexec.err" &
	TP=$!
	PIDS+=("$TP")
	for _ in $(seq 100); do grep -q ready "$T/bexec.err" 2>/dev/null && break; sleep 0.02; done
	timeout 60 "$U" record -P "$TP" -o "$T/bexec.dat" >"$T/bexec.log" 2>&1 &
	R=$!
	until_ok 300 grep -q "attached to $TP" "$T/bexec.log"
	kill -USR1 "$TP"
	wait "$TP"
	st=$?
	wait $R
	check "an attached bash that executes sh: the recorder ends with 0 ($?)" test $? -eq 0
	check "an attached bash that executes sh: it says so ($(tail -1 "$T/bexec.log"))" \
		grep -q "^utrace record: $TP (bash) executed /.*sh: an attach ends at an exec" "$T/bexec.log"
	check "an attached bash that executes sh: sh runs as untraced" \
		test $st -eq 0 -a "$(cat "$T/bexec.out")" = executed
fi

# -P TID: that thread only
start tid "$T/kcf" 4 || notok "tid: starts"
tid=$(ls "/proc/$TP/task" | sed -n 3p)
"$U" record -P "$tid" --duration 0.1 -o "$T/tid.dat" >"$T/tid.log" 2>&1
"$U" report -i "$T/tid.dat" --stat >"$T/tid.stat" 2>&1
check "-P TID: only that thread is traced" \
	test "$(grep -c -- "-$tid " "$T/tid.stat")" -eq 1 -a "$(grep -c '^# total: 1 thread,' "$T/tid.stat")" -eq 1
kill -USR1 "$TP"

# the server answers during attaches and detaches
start srv "$T/srv" server "$T/srv.sock" || notok "the server starts"
"$T/srv" client "$T/srv.sock" 200000 >"$T/client.out" 2>&1 &
CP=$!
for i in $(seq 10); do
	"$U" record -P "$TP" --duration 0.05 -o "$T/srv.dat" >"$T/srv.log" 2>&1 ||
		echo "# server attach $i: $(tail -1 "$T/srv.log")"
done
wait $CP
rc=$?
check "the client got every answer, right ($(cat "$T/client.out"))" test $rc -eq 0

# refusals: one line, non-zero exit, the process untouched
refused() { # refused WHAT PATTERN PID [RUNAS...]
	local what=$1 pat=$2 pid=$3
	shift 3
	"$@" "$U" record -P "$pid" --duration 0.05 -o "$T/r.dat" >"$T/r.log" 2>&1
	local st=$?
	if [ $st -ne 0 ] && [ "$(wc -l <"$T/r.log")" -eq 1 ] && grep -q "$pat" "$T/r.log"; then
		ok "refused: $what"
	else
		notok "refused: $what (exit $st: $(head -2 "$T/r.log"))"
	fi
}
pid=$(($(cat /proc/sys/kernel/pid_max) - 1))
while kill -0 "$pid" 2>/dev/null; do pid=$((pid - 1)); done
refused "no such process" "no such process" "$pid"

start traced "$T/kplain" 1
python3 -c 'import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
if libc.ptrace(0x4206, int(sys.argv[1]), 0, 0):
    sys.exit(1)
print("ready", file=sys.stderr, flush=True)
time.sleep(60)' "$TP" 2>"$T/tracer.err" &
PIDS+=($!)
for _ in $(seq 100); do grep -q ready "$T/tracer.err" 2>/dev/null && break; sleep 0.02; done
refused "another tracer" "traced already by process" "$TP"

"$U" record -o "$T/pre.dat" -- "$T/kcf" 1 >"$T/pre.out" 2>"$T/pre.err" &
R=$!
PIDS+=("$R")
for _ in $(seq 200); do grep -q ready "$T/pre.err" 2>/dev/null && break; sleep 0.02; done
refused "traced by utrace record already" "traced by utrace already" "$(pgrep -n -P $R)"
kill -USR1 "$(pgrep -n -P $R)"
wait $R

if printf '#include <stdio.h>\n#include <unistd.h>\nint main(void) { fprintf(stderr, "ready\\n"); for (;;) sleep(1); }\n' >"$T/st.c" &&
	$CC -static -o "$T/st" "$T/st.c" 2>/dev/null; then
	start static "$T/st"
	refused "a static program" "no libc with dlopen" "$TP"
else
	echo "# no static libc: the static program refusal is not tried"
fi

KATTACH_SECCOMP=1 start seccomp "$T/kplain" 1
refused "a seccomp filter" "seccomp filter" "$TP"

if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	unshare -m sh -c "mount -t tmpfs none '$B' && exec '$T/kplain' 1" >"$T/ns.out" 2>"$T/ns.err" &
	TP=$!
	PIDS+=("$TP")
	for _ in $(seq 100); do grep -q ready "$T/ns.err" 2>/dev/null && break; sleep 0.02; done
	refused "the runtime not in its mount namespace" "mount namespace" "$TP"
else
	echo "# not root: the mount namespace refusal is not tried"
fi

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	start other "$T/kplain" 1
	refused "a process of another user" "another user" "$TP" \
		setpriv --reuid=65534 --regid=65534 --clear-groups
	KATTACH_NODUMP=1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$T/kplain" 1 >"$T/nd.out" 2>"$T/nd.err" &
	TP=$!
	PIDS+=("$TP")
	for _ in $(seq 100); do grep -q ready "$T/nd.err" 2>/dev/null && break; sleep 0.02; done
	refused "a process that is not dumpable" "not dumpable" "$TP" \
		setpriv --reuid=65534 --regid=65534 --clear-groups
else
	echo "# not root: the other-user and dumpable refusals are not tried"
fi
exit 0
