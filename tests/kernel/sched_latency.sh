#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/sched_latency.sh BUILD_DIR - `utrace sched-latency`: perf
# sched latency's table, made by hist triggers and a synthetic event on
# sched_waking/sched_switch in the recorder.  kwake.c pingpong N: two
# threads hand a byte back and forth N times, each blocking on its pipe:
#
#   - -p: one row per thread (kwake:TID, two of them), perf 6.1's header
#     and rules byte for byte, Switches of each row as many as the
#     wakeup_latency events of that thread in the recording (-o), some
#     and at most 3N together (each blocks once a round, and a loaded
#     machine preempts them some more; this kernel leaves many switches
#     in from the idle task out of tracefs, so no lower bound but one),
#     TOTAL their sum
#   - default: the two merged into one row kwake:(2), as perf merges by name
#   - the command's output and exit status passed on
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
need_root "kernel events need root (tracefs instances)"
find_tracefs
if [ -z "$TR" ] || [ ! -d "$TR/instances" ] || [ ! -d "$TR/events/sched/sched_waking" ] ||
	[ ! -d "$TR/events/sched/sched_stat_runtime" ]; then
	unsupported "no tracefs with instances and sched events"
fi
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
if ! ${CC:-cc} -O2 -pthread -o "$T/kwake" "$ROOT/tests/kernel/kwake.c" 2>"$T/cc.err"; then
	notok "build tests/kernel/kwake.c"
	exit 1
fi
N=200

"$U" sched-latency -p -o "$T/p.dat" -- "$T/kwake" pingpong $N >"$T/p.out" 2>"$T/p.err"
st=$?
check "sched-latency -p: status 0 ($st)" [ "$st" = 0 ]
D=' -------------------------------------------------------------------------------------------------------------------------------------------'
check "sched-latency -p: perf's header" grep -qxF \
	'  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | Max delay start           | Max delay end          |' \
	"$T/p.out"
check "sched-latency -p: perf's rules" [ "$(grep -cxF "$D" "$T/p.out")" = 2 ]
rows=$(grep -c '^  kwake:[0-9]* *|' "$T/p.out")
check "sched-latency -p: two rows kwake:TID (got $rows)" [ "$rows" = 2 ]
check "sched-latency -p: a row's layout" grep -qE \
	'^  kwake:[0-9]+ +\| +[0-9]+\.[0-9]{3} ms \| +[0-9]+ \| avg: +[0-9]+\.[0-9]{3} ms \| max: +[0-9]+\.[0-9]{3} ms \| max start: +[0-9]+\.[0-9]{6} s \| max end: +[0-9]+\.[0-9]{6} s$' \
	"$T/p.out"
"$U" report -i "$T/p.dat" >"$T/p.txt" 2>&1
sum=0
while read -r tid n; do
	ev=$(grep -c "wakeup_latency: lat=[0-9]* pid=$tid\$" "$T/p.txt")
	check "sched-latency -p: kwake:$tid Switches $n = its wakeup_latency events $ev" [ "$n" = "$ev" ]
	sum=$((sum + n))
done < <(sed -n 's/^  kwake:\([0-9]*\) *| *[0-9.]* ms | *\([0-9]*\) |.*/\1 \2/p' "$T/p.out")
check "sched-latency -p: Switches together $sum, between 1 and $((3 * N))" \
	[ "$sum" -ge 1 -a "$sum" -le $((3 * N)) ]
tot=$(sed -n 's/^  TOTAL: *| *[0-9.]* ms | *\([0-9]*\) |$/\1/p' "$T/p.out")
check "sched-latency -p: TOTAL $tot = the rows' $sum" [ "$tot" = "$sum" ]

# the kernel may leave all of one thread's switches in out of tracefs
# (see above): then there is one thread to merge; three runs to see two
for _ in 1 2 3; do
	"$U" sched-latency -- "$T/kwake" pingpong $N >"$T/m.out" 2>"$T/m.err"
	merged=$(sed -n 's/^  kwake:(2) *| *[0-9.]* ms | *\([0-9]*\) |.*/\1/p' "$T/m.out")
	[ -n "$merged" ] && break
done
check "sched-latency: the two threads in one row kwake:(2) (Switches '$merged')" \
	[ "${merged:-0}" -ge 1 ]

printf 'exit 3\n' >"$T/s.sh"
"$U" sched-latency -- sh "$T/s.sh" >"$T/s.out" 2>"$T/s.err"
st=$?
check "sched-latency: the command's exit status passed on ($st)" [ "$st" = 3 ]
