#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/stat.sh BUILD_DIR - utrace stat against the real kernel:
# perf_event_open on commands whose counts are known in advance.
#
#   - the report of `utrace stat -- true` and of `-r 3 -- ls` (header,
#     rows, "( +- x% )", footer), on standard error, stdout untouched
#   - page-faults of a program touching N fresh pages >= N, also when a
#     child process of the command touches them (inherit)
#   - context-switches of a program sleeping K times >= K
#   - cycles is <not supported> where the machine has no hardware PMU
#     (a VM), a count where it has one
#   - the command's exit status, signal and exec failure come back
#   - -o FILE; and the layout equals perf stat's when perf is installed
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason" and
# nothing else when perf_event_open is not available (kernel without perf
# events, kernel.perf_event_paranoid forbidding it, a seccomp filter).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
if [ ! -r /proc/sys/kernel/perf_event_paranoid ]; then
	unsupported "no /proc/sys/kernel/perf_event_paranoid (kernel without perf events)"
fi
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" -ne 0 ] && [ "$paranoid" -gt 2 ]; then
	unsupported "kernel.perf_event_paranoid=$paranoid forbids perf_event_open to users"
fi

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

if ! "$U" stat -e task-clock -- true >/dev/null 2>"$T/probe"; then
	if grep -q 'perf_event_open' "$T/probe"; then
		unsupported "$(head -n 1 "$T/probe")"
	fi
	notok "utrace stat -e task-clock -- true fails: $(head -n 1 "$T/probe")"
	exit 1
fi

CC=${CC:-cc}
cat >"$T/touch.c" <<'EOF'
/* touch N [fork]: write to N fresh pages (in a child process with fork) */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, pg = sysconf(_SC_PAGESIZE);
	char *p;
	int st;

	if (argc > 2 && !strcmp(argv[2], "fork")) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid > 0)
			return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	p = mmap(NULL, n * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise(p, n * pg, MADV_NOHUGEPAGE); /* one fault per page */
	for (long i = 0; i < n; i++)
		p[i * pg] = 1;
	return 0;
}
EOF
cat >"$T/sleeper.c" <<'EOF'
/* sleeper K: sleep K times, 5 ms each */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 5;
	struct timespec ts = {0, 5000000};

	for (int i = 0; i < k; i++)
		nanosleep(&ts, NULL);
	return 0;
}
EOF
if ! "$CC" -O1 -o "$T/touch" "$T/touch.c" 2>"$T/cc.err" ||
	! "$CC" -O1 -o "$T/sleeper" "$T/sleeper.c" 2>>"$T/cc.err"; then
	notok "cannot build the test programs with $CC: $(head -n 1 "$T/cc.err")"
	exit 1
fi

# count FILE EVENT: the value column of EVENT's row (EVENT or EVENT:u),
# "<not supported>" / "<not counted>" as such.
count() {
	awk -v ev="$2" '
		$2 == ev || $2 == ev ":u" { print $1; exit }
		$3 == ev || $3 == ev ":u" { print ($1 ~ /^</ ? $1 " " $2 : $1); exit }' "$1"
}
# ge VALUE MIN: VALUE is a number >= MIN
ge() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ]; }

# 1. The default report of one run.
"$U" stat -- true >"$T/o1" 2>"$T/e1"
rc=$?
check "stat -- true exits 0" [ "$rc" -eq 0 ]
check "stat -- true prints nothing on stdout" [ ! -s "$T/o1" ]
check "header names the command" grep -qx " Performance counter stats for 'true':" "$T/e1"
check "task-clock row in msec with CPUs utilized" \
	grep -Eq '^ +[0-9]+\.[0-9]{2} msec task-clock(:u)? +# +[0-9]+\.[0-9]{3} CPUs utilized' "$T/e1"
for ev in context-switches cpu-migrations page-faults; do
	check "$ev row with its rate per second" \
		grep -Eq "^ +[0-9]+      $ev(:u)? +# +[0-9]+\.[0-9]{3} [KMG]?/sec" "$T/e1"
done
check "footer: time elapsed, user, sys" \
	grep -Eq '^ +[0-9]+\.[0-9]{9} seconds time elapsed$' "$T/e1"
check "footer: seconds user and sys" \
	sh -c "grep -Eq '^ +[0-9]+\.[0-9]{9} seconds user$' '$T/e1' &&
	       grep -Eq '^ +[0-9]+\.[0-9]{9} seconds sys$' '$T/e1'"
check "8 default events" [ "$(grep -Ec 'task-clock|context-switches|cpu-migrations|page-faults|cycles|instructions|branches|branch-misses' "$T/e1")" -eq 8 ]

# 2. Hardware events: <not supported> without a PMU (this VM), else counted.
cyc=$(count "$T/e1" cycles)
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ] ||
	[ -e /sys/bus/event_source/devices/armv8_pmuv3_0 ]; then
	check "cycles counted on a machine with a PMU (got '$cyc')" ge "$cyc" 1
else
	check "cycles is <not supported> without a hardware PMU (got '$cyc')" \
		[ "$cyc" = "<not supported>" ]
	check "instructions, branches, branch-misses <not supported> too" \
		[ "$(grep -c '^   <not supported>      ' "$T/e1")" -eq 4 ]
fi

# 3. Repeats: means, the spread, the +- footer.
"$U" stat -r 3 -- ls "$ROOT" >"$T/o2" 2>"$T/e2"
rc=$?
check "stat -r 3 -- ls exits 0" [ "$rc" -eq 0 ]
check "stat -r 3 header says (3 runs)" grep -q "^ Performance counter stats for 'ls $ROOT' (3 runs):$" "$T/e2"
check "stat -r 3 -- ls: the command's output is on stdout, 3 times" \
	[ "$(grep -cx 'Makefile' "$T/o2")" -eq 3 ]
check "stat -r 3 task-clock spread ( +- x% )" \
	grep -Eq 'msec task-clock(:u)? .*CPUs utilized +\( \+- *[0-9]+\.[0-9]{2}% \)$' "$T/e2"
check "stat -r 3 footer avg +- stddev with its spread" \
	grep -Eq '^ +[0-9]+\.[0-9]+ \+- [0-9]+\.[0-9]+ seconds time elapsed  \( \+- *[0-9]+\.[0-9]{2}% \)$' "$T/e2"
check "stat -r 3 prints no user/sys (as perf)" sh -c "! grep -q 'seconds user' '$T/e2'"

# 4. Page faults: at least one per page touched.
N=2000
"$U" stat -e page-faults -- "$T/touch" $N 2>"$T/e3"
pf=$(count "$T/e3" page-faults)
check "page-faults of touching $N pages >= $N (got $pf)" ge "$pf" $N
"$U" stat -e page-faults -- "$T/touch" $N fork 2>"$T/e4"
pf=$(count "$T/e4" page-faults)
check "page-faults of a child process touching $N pages >= $N (got $pf)" ge "$pf" $N
"$U" stat -e page-faults -r 3 -- "$T/touch" $N 2>"$T/e5"
pf=$(count "$T/e5" page-faults)
check "page-faults mean over -r 3 >= $N (got $pf)" ge "$pf" $N
"$U" stat -e minor-faults,major-faults,faults -- "$T/touch" $N 2>"$T/e6"
pf=$(count "$T/e6" minor-faults)
check "minor-faults >= $N, aliases accepted (got $pf)" ge "$pf" $N

# 5. Context switches: each sleep switches out at least once.
K=6
"$U" stat -e context-switches,task-clock -- "$T/sleeper" $K 2>"$T/e7"
cs=$(count "$T/e7" context-switches)
if grep -q 'context-switches:u' "$T/e7"; then
	echo "UNSUPPORTED: context-switches counted in user mode only (perf_event_paranoid=$paranoid, not root): switches happen in the kernel"
else
	check "context-switches of $K sleeps >= $K (got $cs)" ge "$cs" $K
fi
check "the sleeper's CPUs utilized is well below 1" \
	grep -Eq 'task-clock(:u)? +# +0\.[0-4][0-9]{2} CPUs utilized' "$T/e7"

# 6. The command's fate is utrace stat's.
"$U" stat -e task-clock -- sh -c 'exit 7' 2>/dev/null
check "exit status 7 comes back" [ $? -eq 7 ]
# (in braces: bash's "Terminated" notice goes to the file as well)
{
	"$U" stat -e task-clock -- sh -c 'kill -TERM $$'
	rc=$?
} 2>"$T/e8"
check "killed by SIGTERM: status 143 (got $rc)" [ "$rc" -eq 143 ]
check "a killed command is still reported" grep -q 'msec task-clock' "$T/e8"
"$U" stat -- "$T/no-such-program" 2>"$T/e9"
rc=$?
check "a missing program: status 127 (got $rc)" [ "$rc" -eq 127 ]
check "a missing program: one line 'utrace stat: cannot run ...'" \
	sh -c "[ \$(wc -l <'$T/e9') -eq 1 ] && grep -q \"^utrace stat: cannot run '$T/no-such-program': No such file or directory\$\" '$T/e9'"
"$U" stat -e no-such-event -- true 2>"$T/e10"
rc=$?
check "an unknown event: status 2, one line (got $rc)" \
	sh -c "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e10') -eq 1 ] && grep -q '^utrace stat: ' '$T/e10'"
out=$("$U" stat -e task-clock -- echo hello 2>/dev/null)
check "the command's stdout is untouched" [ "$out" = hello ]

# 7. -o FILE.
"$U" stat -o "$T/report" -e page-faults -- true 2>"$T/e11"
check "-o FILE: nothing on stderr" [ ! -s "$T/e11" ]
check "-o FILE: '# started on' and the report" \
	sh -c "head -n 1 '$T/report' | grep -q '^# started on ' &&
	       grep -q \"Performance counter stats for 'true':\" '$T/report'"

# 8. Same layout as perf stat (numbers aside) when perf works here.
# numbers (with their padding) become N; K/M/G/sec rates /sec, same width
norm() { sed -E 's/ *[0-9][0-9.,]*/ N/g; s|[KMG]/sec|/sec |g'; }
if command -v perf >/dev/null 2>&1 && perf stat -e task-clock -- true >/dev/null 2>&1; then
	evs=task-clock,context-switches,page-faults,cycles,instructions
	perf stat -e $evs -- true 2>&1 >/dev/null | norm >"$T/perf.txt"
	"$U" stat -e $evs -- true 2>&1 >/dev/null | norm >"$T/utrace.txt"
	check "layout equals perf stat -e $evs" cmp -s "$T/perf.txt" "$T/utrace.txt"
	perf stat -- true 2>&1 >/dev/null | norm >"$T/perf.txt"
	"$U" stat -- true 2>&1 >/dev/null | norm >"$T/utrace.txt"
	check "layout equals perf stat's defaults" cmp -s "$T/perf.txt" "$T/utrace.txt"
	perf stat -r 3 -e task-clock -- "$T/touch" 100 2>&1 >/dev/null | norm >"$T/perf.txt"
	"$U" stat -r 3 -e task-clock -- "$T/touch" 100 2>&1 >/dev/null | norm >"$T/utrace.txt"
	check "layout equals perf stat -r 3" cmp -s "$T/perf.txt" "$T/utrace.txt"
else
	echo "UNSUPPORTED: perf is not installed or cannot count here; layout not compared"
fi
exit 0
