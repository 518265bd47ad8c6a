#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/kevents.sh [BUILD_DIR]   (BUILD_DIR defaults to build; needs root)
#
# Kernel events: what recording the syscalls of a syscall-heavy command
# costs that command, utrace against perf record (and trace-cmd record when
# it can run on this machine), side by side in the same run.
#
# Workload: dd if=/dev/zero of=/dev/null bs=1 count=$KEV_COUNT (200000):
# one read and one write per byte, 400000+ syscalls.  The exact number is
# counted once with strace -c -f before the timed runs.
#
# Cases (one run of each per round, $KEV_ROUNDS rounds (5), interleaved,
# the order rotated every round; median over the rounds):
#
#   plain      dd ...                                    (untraced)
#   ut_raw     utrace record --no-libcall -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o F -- dd ...
#   perf_raw   perf record   -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o F -- dd ...
#   ut_sc      utrace record --no-libcall -e syscalls:sys_enter_read -e syscalls:sys_exit_read
#                            -e syscalls:sys_enter_write -e syscalls:sys_exit_write -o F -- dd ...
#   perf_sc    perf record   (the same four events) -o F -- dd ...
#   tc_raw     trace-cmd record -F -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o F dd ...
#              (only if trace-cmd can run here, see below)
#
# Every recorder runs with its defaults (utrace: 2048 KB per CPU kernel
# buffer, drained every 10 ms; perf: its default mmap size, -c 1 for
# tracepoints).  Traces are written to bench/out/kevents/, on the same file
# system for every tool; `sync` runs (untimed) before every timed run.
#
# Times:
#   dd s       the copy time dd prints itself ("copied, X s"): the workload's
#              own elapsed time, from after its start-up to its end, so
#              neither the exec nor the recorder's start-up and shutdown
#              are in it
#   wall s     the whole recorder command (bash `time`, %R)
#   cpu s      user + system time of the recorder command and all its
#              children, dd included (bash `time`, %U + %S)
#   ns/event   (dd s(case) - dd s(plain)) / (4 x KEV_COUNT): the medians,
#              per sys_enter or sys_exit event of dd's copy loop (the
#              2 x KEV_COUNT data syscalls, each with an enter and an exit)
#
# Events and losses, checked after every timed run (untimed), on the text
# of the trace (`utrace report -i F`, `perf script --ns`, `trace-cmd
# report`; see COUNT_AWK):
#   events     every sys_enter / sys_exit record.  utrace's include the few
#              syscalls of the forked child before its exec and those of
#              libutrace.so's start-up in dd (utrace record preloads it);
#              perf enables its events at the exec.
#   data       dd's data syscalls, read(0, buf, 1) and write(1, buf, 1):
#              exactly 2 x KEV_COUNT if no event was lost.  A shortfall is
#              a loss even if the tool reported none.
#   lost       what the tool says it lost: utrace, the "CPU:N [LOST N
#              EVENTS]" markers of its report and the recorder's "K kernel
#              pages (L with events lost)"; perf, the LOST_SAMPLES counts of
#              `perf report --stats` and record's "Processed N events and
#              lost M chunks".
#   duplicated perf script lines equal to the line before, timestamp to the
#              ns included: records perf wrote twice (seen with perf 6.1 on
#              this kernel); they are not counted as data syscalls.
# strace -c -f counts dd's syscalls once, for the record.
#
# trace-cmd: trace-cmd record (3.1.x) opens set_ftrace_pid (and later
# set_ftrace_filter) whenever it runs a command; where those files cannot be
# opened (a kernel or sandbox that locks the function tracer's files) it
# crashes with SIGSEGV in its forked child and records nothing, leaving
# the top-level buffer's events enabled.  So the case runs only if
# set_ftrace_pid can be read.
#
# Output: bench/out/kevents/results.md (also printed) and every log.
# Knobs: KEV_ROUNDS [5]  KEV_COUNT [200000]  KEV_SC [1]: 0 skips the *_sc cases.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
B=${1:-build}
ROUNDS=${KEV_ROUNDS:-5}
COUNT=${KEV_COUNT:-200000}
DO_SC=${KEV_SC:-1}

OUT=bench/out/kevents
RES=$OUT/results.md
rm -rf "$OUT"
mkdir -p "$OUT/log" "$OUT/tool"
START=$(date +%s)
log() { printf '%s\n' "$*" >&2; }
die() { log "kevents: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (kernel tracepoints through tracefs and perf)"
TRACEFS=/sys/kernel/tracing
if [ ! -e "$TRACEFS/events" ]; then
	mount -t tracefs nodev "$TRACEFS" || die "cannot mount tracefs at $TRACEFS"
fi

# A snapshot of the tool, so that a rebuild of $B during the run changes nothing.
cp "$B/utrace" "$B/libutrace.so" "$OUT/tool/" 2>/dev/null
UT=$OUT/tool/utrace
[ -x "$UT" ] || die "$B/utrace is missing (run make)"
HAVE_PERF=0
command -v perf >/dev/null 2>&1 && perf --version >/dev/null 2>&1 && HAVE_PERF=1
[ $HAVE_PERF = 1 ] || log "kevents: perf not usable: perf cases skipped"
HAVE_TC=0
if command -v trace-cmd >/dev/null 2>&1; then
	if { : <"$TRACEFS/set_ftrace_pid"; } 2>/dev/null; then
		HAVE_TC=1
	else
		TC_WHY="$TRACEFS/set_ftrace_pid cannot be opened here; trace-cmd record crashes (SIGSEGV) without it"
		log "kevents: trace-cmd skipped: $TC_WHY"
	fi
else
	TC_WHY="not installed"
fi

W=(dd if=/dev/zero of=/dev/null bs=1 count="$COUNT")
WS="dd if=/dev/zero of=/dev/null bs=1 count=$COUNT"
RAW_EV=(-e raw_syscalls:sys_enter -e raw_syscalls:sys_exit)
SC_EV=(-e syscalls:sys_enter_read -e syscalls:sys_exit_read -e syscalls:sys_enter_write -e syscalls:sys_exit_write)

# ---- the syscalls dd makes (strace, once) ------------------------------------
S_TOTAL=0 S_READ=0 S_WRITE=0
if command -v strace >/dev/null 2>&1; then
	strace -c -f -o "$OUT/log/strace.txt" "${W[@]}" 2>/dev/null
	S_TOTAL=$(awk '$NF == "total" { print $4 }' "$OUT/log/strace.txt")
	S_READ=$(awk '$NF == "read" { print $4 }' "$OUT/log/strace.txt")
	S_WRITE=$(awk '$NF == "write" { print $4 }' "$OUT/log/strace.txt")
else
	log "kevents: strace not installed: expected counts unknown"
fi
: "${S_TOTAL:=0}" "${S_READ:=0}" "${S_WRITE:=0}"
log "kevents: dd makes $S_TOTAL syscalls (strace -c): $S_READ read, $S_WRITE write (+ exit_group)"

# ---- cases ---------------------------------------------------------------------
CASES=(plain ut_raw)
[ $HAVE_PERF = 1 ] && CASES+=(perf_raw)
[ $HAVE_TC = 1 ] && CASES+=(tc_raw)
if [ "$DO_SC" = 1 ]; then
	CASES+=(ut_sc)
	[ $HAVE_PERF = 1 ] && CASES+=(perf_sc)
fi

# file of case $1
trace_file() {
	case $1 in
	ut_*) echo "$OUT/$1.dat" ;;
	perf_*) echo "$OUT/$1.data" ;;
	tc_*) echo "$OUT/$1.dat" ;;
	*) echo /dev/null ;;
	esac
}

# run_case CASE ROUND: one timed run; appends "dd wall cpu" to $OUT/CASE.times
run_case() {
	local c=$1 r=$2 f lg tf
	f=$(trace_file "$c")
	lg=$OUT/log/$c.$r.log
	tf=$OUT/log/$c.$r.time
	# never remove /dev/null (the untraced case's "file"): as root that
	# replaces the device with a regular file for everyone
	[ "$f" = /dev/null ] || rm -rf "$f" "$f".cpu* 2>/dev/null
	sync
	TIMEFORMAT='%R %U %S'
	case $c in
	plain) { time "${W[@]}" >"$lg" 2>&1; } 2>"$tf" ;;
	# --no-libcall: kernel events only, as perf records (dd has no call
	# sites, so its library calls would be traced by default)
	ut_raw) { time "$UT" record --no-libcall "${RAW_EV[@]}" -o "$f" -- "${W[@]}" >"$lg" 2>&1; } 2>"$tf" ;;
	ut_sc) { time "$UT" record --no-libcall "${SC_EV[@]}" -o "$f" -- "${W[@]}" >"$lg" 2>&1; } 2>"$tf" ;;
	perf_raw) { time perf record "${RAW_EV[@]}" -o "$f" -- "${W[@]}" >"$lg" 2>&1; } 2>"$tf" ;;
	perf_sc) { time perf record "${SC_EV[@]}" -o "$f" -- "${W[@]}" >"$lg" 2>&1; } 2>"$tf" ;;
	tc_raw) { time trace-cmd record -F "${RAW_EV[@]}" -o "$f" "${W[@]}" >"$lg" 2>&1; } 2>"$tf" ;;
	esac
	local dd_s
	dd_s=$(sed -n 's/.* copied, \([0-9.e+-]*\) s,.*/\1/p' "$lg" | tail -1)
	[ -n "$dd_s" ] || { log "kevents: $c round $r: no dd timing in $lg"; dd_s=NA; }
	awk -v d="$dd_s" '{ printf "%s %s %.3f\n", d, $1, $2 + $3 }' "$tf" >>"$OUT/$c.times"
}

# The text of a trace (utrace report, perf script, trace-cmd report) ->
# "enter=.. exit=.. data=.. dup=.. lostrec=..":
#   enter/exit  sys_enter/sys_exit lines (raw_syscalls), or sys_enter_*/
#               sys_exit_* lines (syscalls:*), all of them
#   data        dd's data syscalls among them: read(0, buf, 1) and
#               write(1, buf, 1); exactly 2 x KEV_COUNT if nothing was lost
#   dup         lines equal to the line before (perf script prints the
#               timestamp to the ns, so these are records written twice;
#               only counted with -v dedup=1)
#   lostrec     the sum of the "[LOST N EVENTS]" markers (+1 per
#               "[LOST EVENTS]")
COUNT_AWK='
dedup && $0 == prev { dup++; next }
{ prev = $0 }
/\[LOST [0-9]+ EVENTS\]/ { n = $0; sub(/.*\[LOST /, "", n); lost += n + 0; next }
/\[LOST EVENTS\]/ { lost++; next }
/sys_enter: +NR / { en++
	if ($0 ~ /sys_enter: +NR 0 \(0, [0-9a-f]+, 1,/ || $0 ~ /sys_enter: +NR 1 \(1, [0-9a-f]+, 1,/) data++
	next }
/sys_exit: +NR / { xn++; next }
/sys_enter_(read|write): / { en++
	if ($0 ~ /sys_enter_read: +fd: 0x0+, buf: 0x[0-9a-f]+, count: 0x0*1([^0-9a-f]|$)/ ||
	    $0 ~ /sys_enter_write: +fd: 0x0*1, buf: 0x[0-9a-f]+, count: 0x0*1([^0-9a-f]|$)/) data++
	next }
/sys_exit_(read|write): / { xn++; next }
END { printf "enter=%d exit=%d data=%d dup=%d lostrec=%d", en, xn, data, dup, lost }'

# count_case CASE ROUND: untimed; appends "KEY=VALUE..." to $OUT/CASE.counts:
#   the COUNT_AWK keys, lost (what the tool itself reports as lost), and
#   bytes (trace size)
count_case() {
	local c=$1 r=$2 f lg line
	f=$(trace_file "$c")
	lg=$OUT/log/$c.$r.log
	case $c in
	ut_*)
		line=$("$UT" report -i "$f" 2>"$OUT/log/$c.$r.report.err" | awk -v dedup=0 "$COUNT_AWK")
		# the recorder's "K kernel pages (L with events lost)"
		local pg
		pg=$(sed -n 's/^utrace record: \([0-9]*\) kernel pages (\([0-9]*\) with events lost).*/pages=\1 pages_lost=\2/p' "$lg")
		line="$line $pg"
		line="$line lost=$(echo "$line" | sed -n 's/.*lostrec=\([0-9]*\).*/\1/p')"
		;;
	perf_*)
		line=$(perf script --ns -F cpu,time,event,trace -i "$f" 2>/dev/null | awk -v dedup=1 "$COUNT_AWK")
		# perf's own loss count: the LOST_SAMPLES of each event (their sum
		# is the lost records of the PERF_RECORD_LOST chunks)
		perf report --stats -i "$f" >"$OUT/log/$c.$r.stats" 2>&1
		local pl chunks
		pl=$(awk '/stats:$/ { ev = 1; next } ev && /LOST_SAMPLES events:/ { s += $NF } END { print s + 0 }' "$OUT/log/$c.$r.stats")
		chunks=$(sed -n 's/.*Processed [0-9]* events and lost \([0-9]*\) chunks.*/\1/p' "$lg" | tail -1)
		line="$line lost=$pl chunks_lost=${chunks:-0}"
		;;
	tc_*)
		line=$(trace-cmd report -i "$f" 2>/dev/null | awk -v dedup=0 "$COUNT_AWK")
		line="$line lost=$(echo "$line" | sed -n 's/.*lostrec=\([0-9]*\).*/\1/p')"
		;;
	*) line="enter=0 exit=0 data=0 lost=0" ;;
	esac
	[ "$f" != /dev/null ] && line="$line bytes=$(du -cb "$f" "$f".cpu* 2>/dev/null | awk 'END { print $1 }')"
	echo "$line" >>"$OUT/$c.counts"
}

log "kevents: cases: ${CASES[*]}; $ROUNDS rounds"
BUSY_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
# warm-up: page cache, perf's first-run set-up (not counted)
"${W[@]}" >/dev/null 2>&1
n=${#CASES[@]}
for ((r = 1; r <= ROUNDS; r++)); do
	for ((i = 0; i < n; i++)); do
		c=${CASES[$(((i + r - 1) % n))]}
		run_case "$c" "$r"
		count_case "$c" "$r"
	done
	log "kevents: round $r/$ROUNDS done ($(($(date +%s) - START)) s)"
done
BUSY_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- results -------------------------------------------------------------------
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) { print "NA"; exit } if (NR % 2) print a[(NR + 1) / 2]; else printf "%.6f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
col() { awk -v k="$2" '{ print $k }' "$OUT/$1.times" | grep -v NA | median; }
# key=value field $2 of every round of case $1, as "min-max" (or one value)
kv_range() {
	tr ' ' '\n' <"$OUT/$1.counts" | sed -n "s/^$2=//p" | sort -g |
		awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR == 0) print "-"; else if (lo == hi) print lo; else print lo "-" hi }'
}
kv_sum() { tr ' ' '\n' <"$OUT/$1.counts" | sed -n "s/^$2=//p" | awk '{ s += $1 } END { print s + 0 }'; }

DD0=$(col plain 1)
EV=$((4 * COUNT))  # enter + exit of dd's 2 x COUNT data syscalls
DATA=$((2 * COUNT))
{
	echo "# Kernel events: dd's syscalls, utrace vs perf record"
	echo
	echo "Command: \`bench/kevents.sh $B\`, $ROUNDS rounds interleaved, medians."
	echo "Workload: \`$WS\`: $S_TOTAL syscalls by strace -c ($S_READ read, $S_WRITE write), $DATA of them"
	echo "the data read(0, buf, 1) / write(1, buf, 1): $EV sys_enter + sys_exit events in dd's copy loop."
	echo "Machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), Linux $(uname -r);"
	echo "load average before/after: $BUSY_BEFORE / $BUSY_AFTER."
	if [ $HAVE_TC = 1 ]; then
		tcv=$(trace-cmd --version 2>&1 | sed -n 's/.*version \([^ ]*\).*/\1/p' | head -1)
	else
		tcv="skipped ($TC_WHY)"
	fi
	echo "Peers: $(perf --version 2>/dev/null || echo 'perf: none'); trace-cmd: $tcv."
	echo
	echo "| case | dd s | +ns/event | wall s | cpu s | events recorded | data syscalls recorded (of $DATA) | lost (tool's count, all rounds) | duplicated | bytes/event |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for c in "${CASES[@]}"; do
		dd=$(col "$c" 1)
		wall=$(col "$c" 2)
		cpu=$(col "$c" 3)
		if [ "$c" = plain ]; then
			echo "$c $dd 0" >>"$OUT/summary.txt"
			echo "| $c | $dd | - | $wall | $cpu | - | - | - | - | - |"
			continue
		fi
		nspe=$(awk -v a="$dd" -v b="$DD0" -v e="$EV" 'BEGIN { if (a != "NA" && b != "NA") printf "%.1f", (a - b) * 1e9 / e; else print "NA" }')
		rec=$(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } print v["enter"] + v["exit"] }' "$OUT/$c.counts" |
			sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print (lo == hi) ? lo : lo "-" hi }')
		lost=$(kv_sum "$c" lost)
		case $c in
		ut_*) lost="$lost ($(kv_sum "$c" pages_lost) pages with losses)" ;;
		perf_*) lost="$lost ($(kv_sum "$c" chunks_lost) chunks)" ;;
		esac
		bytes=$(tr ' ' '\n' <"$OUT/$c.counts" | sed -n 's/^bytes=//p' | median)
		bpe=$(awk -v b="${bytes:-0}" -v e="$(echo "$rec" | sed 's/.*-//')" 'BEGIN { if (e > 0) printf "%.1f", b / e; else print "NA" }')
		echo "$c $dd $nspe" >>"$OUT/summary.txt"
		echo "| $c | $dd | $nspe | $wall | $cpu | $rec | $(kv_range "$c" data) | $lost | $(kv_sum "$c" dup) | $bpe |"
	done
	echo
	echo "dd s: dd's own copy time (median); +ns/event: (dd s - dd s of plain) / $EV;"
	echo "wall s / cpu s: the whole recorder command, cpu = user + sys of it and dd (medians);"
	echo "events recorded: sys_enter + sys_exit records in the trace, per round (min-max)"
	echo "(utrace's include the ~70 syscalls of the forked child before its exec and"
	echo "of libutrace.so's start-up in dd; perf's start at the exec);"
	echo "data syscalls: dd's read(0, buf, 1) + write(1, buf, 1) sys_enter records, distinct;"
	echo "duplicated: perf script lines identical to the one before, to the ns (all rounds)."
	echo
	for v in raw sc; do
		u=$(awk -v c="ut_$v" '$1 == c' "$OUT/summary.txt")
		p=$(awk -v c="perf_$v" '$1 == c' "$OUT/summary.txt")
		[ -n "$u" ] && [ -n "$p" ] || continue
		echo "$u $p" | awk -v v="$v" '{ printf "- %s: perf/utrace = %.2f in overhead per event, %.2f in dd time\n", v, ($3 + 0 != 0) ? $6 / $3 : 0, ($2 + 0 != 0) ? $5 / $2 : 0 }'
	done
	echo
	for c in ut_raw ut_sc; do
		[ -f "$OUT/$c.counts" ] || continue
		ul=$(kv_sum "$c" lost)
		upl=$(kv_sum "$c" pages_lost)
		short=$(tr ' ' '\n' <"$OUT/$c.counts" | sed -n 's/^data=//p' | awk -v e="$DATA" '$1 != e { n++ } END { print n + 0 }')
		if [ "$ul" = 0 ] && [ "$upl" = 0 ] && [ "$short" = 0 ]; then
			echo "- goal 1, $c (no event lost, default buffer): met: 0 lost, all $DATA data syscalls recorded in each of $ROUNDS rounds"
		else
			echo "- goal 1, $c (no event lost, default buffer): NOT met: $ul events lost, $upl pages with losses, $short rounds without all $DATA data syscalls"
		fi
	done
	for v in raw sc; do
		awk -v v="$v" '$1 == "ut_" v { u = $2 } $1 == "perf_" v { p = $2 } END {
			if (u == "" || p == "") exit
			if (u + 0 <= p + 0) printf "- goal 2, %s (cost <= perf record): met: dd %s s under utrace, %s s under perf record\n", v, u, p
			else printf "- goal 2, %s (cost <= perf record): NOT met: dd %s s under utrace, %s s under perf record\n", v, u, p }' "$OUT/summary.txt"
	done
	echo
	echo "Every round's figures: bench/out/kevents/*.times (dd s, wall s, cpu s) and *.counts."
	echo
	bash "$ROOT/bench/floors.sh" || echo "floors: not measured"
} >"$RES"
cat "$RES"
log "kevents: $(($(date +%s) - START)) s"
