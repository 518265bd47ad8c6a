#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/run.sh [BUILD_DIR]   (run by `make bench`; BUILD_DIR defaults to build)
#
# Measures what tracing costs, utrace against uftrace, on two workloads:
# bench/fib.c (pure call overhead) and bench/callheavy.c (many small
# functions of various depths).  Each workload is built three ways:
#
#   NAME.plain   -O2                          (no instrumentation)
#   NAME.utrace  -O2 $(utrace cflags)         (patchable NOP at each entry)
#   NAME.pg      -O2 -pg                      (mcount calls, for uftrace)
#
# and run, side by side in the same run:
#
#   plain        NAME.plain
#   nop          NAME.utrace, not traced (the NOPs only)
#   graph        utrace record -p function_graph -- NAME.utrace
#   function     utrace record -p function -- NAME.utrace
#   filtered     utrace record -l main -- NAME.utrace   (nothing else traced)
#   uftrace      uftrace record NAME.pg                 (function graph)
#
# Traced cases run at the "trace" size (a few million calls); the plain,
# nop and filtered cases also run at the "long" size (a few hundred ms of
# work) because percentages of a 5 ms run only measure process start-up.
# The long cases are repeated with every build at -falign-functions=64
# (NAME.plain64, NAME.utrace64): the 5 entry bytes shift the code, and in
# a tiny function that can move a branch or a ret across a 64-byte fetch
# boundary, which costs more than the NOP itself; with aligned functions
# both builds have the same layout luck.
# Every traced case also runs at a tiny size (fib 1, callheavy 0) so that
# the fixed start-up cost of each tracer can be removed from its per-call
# figure ("marginal" column).
#
# Figures:
#   ns/call     = (T(traced) - T(plain)) / calls            (end to end)
#   marginal    = ((T(traced) - T(traced, tiny)) - (T(plain) - T(plain, tiny)))
#                 / (calls - calls(tiny))
#   overhead %  = (T(case) - T(plain)) / T(plain) * 100     (long size)
#   bytes/call  = trace file size / calls; for uftrace the sum of the
#                 uftrace.data/*.dat files / the calls uftrace recorded
#
# Calls are counted, not guessed: fib makes 2*fib(N+1)-1 calls to fib()
# plus one to main (computed below), and every count is checked against
# the number of calls in `utrace report` (one "name() {" or "name();"
# line per call) and in `uftrace report`; a shortfall means lost events.
#
# Every timed run writes a fresh trace (the untimed --prepare step logs the
# size of the previous run's trace, then deletes it): a run whose trace is
# more than 1% smaller than the largest one lost events and is flagged.
#
# Timing: hyperfine (--runs $BENCH_RUNS, --warmup $BENCH_WARMUP, median),
# or a bash loop with date +%s%N if hyperfine is missing.  The long-size
# cases, whose differences are a few percent, run interleaved instead
# (bash loop, $BENCH_RUNS_LONG rounds of one run of each case, after one
# warm-up round; see time_interleaved).  The machine is a noisy VM: no
# figure is pass/fail.
#
# Output: bench/out/results.md (also printed), raw data under bench/out/.
#
# Environment knobs (defaults in brackets):
#   BENCH_RUNS [5]  BENCH_RUNS_LONG [10]  BENCH_WARMUP [1]  FIB_N [30]  FIB_LONG [38]
#   CH_SCALE [1]  CH_LONG [40]  UTRACE_BUFKB [tool default]  CC [gcc]
#   BENCH_WAIT_IDLE [unset: start at once] seconds to wait for an idle machine
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
B=${1:-build}
CC=${CC:-gcc}
RUNS=${BENCH_RUNS:-5}
RUNS_LONG=${BENCH_RUNS_LONG:-10}
WARMUP=${BENCH_WARMUP:-1}
FIB_N=${FIB_N:-30}
FIB_LONG=${FIB_LONG:-38}
CH_SCALE=${CH_SCALE:-1}
CH_LONG=${CH_LONG:-40}
BUFKB=${UTRACE_BUFKB:-}

OUT=bench/out
BIN=$OUT/bin
DATA=$OUT/data
JSON=$OUT/json
RES=$OUT/results.md
rm -rf "$OUT"
mkdir -p "$BIN" "$DATA" "$JSON"
# -pg programs write gmon.out at exit; keep it out of the source tree.
export GMON_OUT_PREFIX=$ROOT/$DATA/gmon

START=$(date +%s)
log() { printf '%s\n' "$*" >&2; }

# Percentage of all CPUs busy over 2 seconds (from /proc/stat): other
# work on this machine makes every figure noisier, so it is reported.
cpu_busy() {
	local a b
	a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat)
	sleep 2
	b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat)
	echo "$a $b" | awk '{ busy = $3 - $1; idle = $4 - $2; printf "%.0f", busy * 100 / (busy + idle + 0.001) }'
}
# BENCH_WAIT_IDLE=SECONDS: wait (up to that long) for the machine to be
# less than 15% busy before starting.
BUSY=$(cpu_busy)
if [ -n "${BENCH_WAIT_IDLE:-}" ]; then
	while [ "$BUSY" -ge 15 ] && [ $(($(date +%s) - START)) -lt "$BENCH_WAIT_IDLE" ]; do
		log "bench: machine ${BUSY}% busy, waiting"
		sleep 8
		BUSY=$(cpu_busy)
	done
fi
LOAD_START="$(cut -d' ' -f1-3 /proc/loadavg), ${BUSY}% CPU busy just before"
START=$(date +%s)

# ---- tools ------------------------------------------------------------------

# Run a snapshot of the tool (utrace + the libutrace.so beside it), so that
# a rebuild of $B during the run cannot change or break what is measured.
UT=$OUT/tool/utrace
mkdir -p "$OUT/tool"
cp "$B/utrace" "$B/libutrace.so" "$OUT/tool/" 2>/dev/null
HAVE_UT=0
UT_CFLAGS=
if [ -x "$UT" ] && [ -f "$OUT/tool/libutrace.so" ] && UT_CFLAGS=$("$UT" cflags 2>/dev/null) && [ -n "$UT_CFLAGS" ]; then
	HAVE_UT=1
else
	log "bench: $B/utrace or $B/libutrace.so is missing, or 'utrace cflags' fails: utrace cases skipped"
fi
HAVE_UF=0
command -v uftrace >/dev/null 2>&1 && HAVE_UF=1
[ $HAVE_UF = 1 ] || log "bench: uftrace not installed (apt-get install -y uftrace): uftrace cases skipped"
HAVE_HF=0
command -v hyperfine >/dev/null 2>&1 && HAVE_HF=1
[ $HAVE_HF = 1 ] || log "bench: hyperfine not installed: timing with a bash loop"

BOPT=
[ -n "$BUFKB" ] && BOPT="-b $BUFKB "

# The untimed step before each timed run: log the size of the previous
# run's trace (a file, or the *.dat files of a uftrace data directory),
# then remove it so that every run writes a new one.  After the last run
# (-k) the size is logged and the trace kept for inspection.
PREP=$BIN/prep.sh
cat >"$PREP" <<'PREP_EOF'
#!/bin/sh
# prep.sh [-k] SIZES_LOG PATH...   (-k: keep PATH, only log its size)
keep=
[ "$1" = -k ] && keep=1 && shift
log=$1
shift
for p; do
	if [ -d "$p" ]; then
		cat "$p"/*.dat 2>/dev/null | wc -c >>"$log"
	elif [ -e "$p" ]; then
		stat -c %s "$p" >>"$log"
	fi
	[ -n "$keep" ] || rm -rf "$p" "$p.old"
done
PREP_EOF
chmod +x "$PREP"

# ---- build ------------------------------------------------------------------

CMDS_LOG=$DATA/commands.txt
: >"$CMDS_LOG"
build() { # name
	local n=$1
	echo "$CC -std=gnu11 -O2 -o $BIN/$n.plain bench/$n.c" >>"$CMDS_LOG"
	$CC -std=gnu11 -O2 -o "$BIN/$n.plain" "bench/$n.c" || exit 1
	if [ $HAVE_UT = 1 ]; then
		echo "$CC -std=gnu11 -O2 $UT_CFLAGS -o $BIN/$n.utrace bench/$n.c" >>"$CMDS_LOG"
		# shellcheck disable=SC2086
		$CC -std=gnu11 -O2 $UT_CFLAGS -o "$BIN/$n.utrace" "bench/$n.c" || exit 1
		echo "$CC -std=gnu11 -O2 -falign-functions=64 -o $BIN/$n.plain64 bench/$n.c" >>"$CMDS_LOG"
		$CC -std=gnu11 -O2 -falign-functions=64 -o "$BIN/$n.plain64" "bench/$n.c" || exit 1
		echo "$CC -std=gnu11 -O2 -falign-functions=64 $UT_CFLAGS -o $BIN/$n.utrace64 bench/$n.c" >>"$CMDS_LOG"
		# shellcheck disable=SC2086
		$CC -std=gnu11 -O2 -falign-functions=64 $UT_CFLAGS -o "$BIN/$n.utrace64" "bench/$n.c" || exit 1
	fi
	if [ $HAVE_UF = 1 ]; then
		echo "$CC -std=gnu11 -O2 -pg -o $BIN/$n.pg bench/$n.c" >>"$CMDS_LOG"
		$CC -std=gnu11 -O2 -pg -o "$BIN/$n.pg" "bench/$n.c" || exit 1
	fi
}
build fib
build callheavy

# ---- timing -----------------------------------------------------------------

# time_case KEY RUNS TRACE CMD: median and stddev (ms) into $DATA/KEY.time,
# raw samples (seconds) into $DATA/KEY.samples, the size of each run's
# TRACE (file or uftrace directory; may be empty) into $DATA/KEY.sizes.
time_case() {
	local key=$1 runs=$2 trace=$3 cmd=$4 i t0 t1 prep=true
	echo "[$key] $cmd" >>"$CMDS_LOG"
	: >"$DATA/$key.sizes"
	[ -n "$trace" ] && prep="$PREP $DATA/$key.sizes $trace"
	[ -n "$trace" ] && rm -rf "$trace" "$trace.old"
	if [ $HAVE_HF = 1 ]; then
		if ! hyperfine -N --style none --runs "$runs" --warmup "$WARMUP" \
			--prepare "$prep" --export-json "$JSON/$key.json" "$cmd" \
			>"$DATA/$key.hyperfine" 2>&1; then
			log "bench: [$key] failed: $cmd (see $DATA/$key.hyperfine)"
			echo "n/a n/a" >"$DATA/$key.time"
			return 1
		fi
		tr -d ' \n\t' <"$JSON/$key.json" | grep -o '"times":\[[^]]*\]' | head -1 |
			sed 's/.*\[//; s/\]//' | tr ',' '\n' >"$DATA/$key.samples"
	else
		: >"$DATA/$key.samples"
		for ((i = 0; i < WARMUP + runs; i++)); do
			$prep >/dev/null 2>&1
			t0=$(date +%s%N)
			# shellcheck disable=SC2086
			if ! $cmd >/dev/null 2>&1; then
				log "bench: [$key] failed: $cmd"
				echo "n/a n/a" >"$DATA/$key.time"
				return 1
			fi
			t1=$(date +%s%N)
			((i >= WARMUP)) && echo "$(((t1 - t0) / 1000)) " | awk '{printf "%.6f\n", $1 / 1e6}' >>"$DATA/$key.samples"
		done
	fi
	[ -n "$trace" ] && "$PREP" -k "$DATA/$key.sizes" "$trace"
	summarize "$key"
}

# $DATA/KEY.samples (seconds, one a line) -> $DATA/KEY.time (ms: median stddev)
summarize() {
	local key=$1
	sort -g "$DATA/$key.samples" | awk '
		{ v[NR] = $1; s += $1; ss += $1 * $1 }
		END {
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			sd = NR > 1 ? sqrt((ss - s * s / NR) / (NR - 1)) : 0
			printf "%.3f %.3f\n", m * 1000, sd * 1000
		}' >"$DATA/$key.time"
	log "  $(printf '%-26s' "$key") $(cat "$DATA/$key.time") ms (median, stddev)"
}

now_us() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		local t=${EPOCHREALTIME/[.,]/}
		echo "${t#0}"
	else
		echo $(($(date +%s%N) / 1000))
	fi
}

# time_interleaved ROUNDS KEY TRACE CMD [KEY TRACE CMD]...: the overhead
# comparisons differ by a few percent, less than the drift of a shared VM
# over the seconds hyperfine spends on one command; so these cases run in
# rounds, one run of each case per round (the order rotating), after one
# untimed round.  Median and stddev as time_case.
time_interleaved() {
	local rounds=$1 n i j r k t0 t1 rc
	shift
	local -a keys=() traces=() cmds=()
	while [ $# -ge 3 ]; do
		keys+=("$1"); traces+=("$2"); cmds+=("$3")
		echo "[$1] $3" >>"$CMDS_LOG"
		: >"$DATA/$1.samples"
		: >"$DATA/$1.sizes"
		shift 3
	done
	n=${#keys[@]}
	for ((r = 0; r <= rounds; r++)); do
		for ((j = 0; j < n; j++)); do
			i=$(((j + r) % n))
			k=${keys[$i]}
			[ -n "${traces[$i]}" ] && "$PREP" "$DATA/$k.sizes" "${traces[$i]}"
			t0=$(now_us)
			# shellcheck disable=SC2086
			${cmds[$i]} >/dev/null 2>&1
			rc=$?
			t1=$(now_us)
			if [ $rc != 0 ]; then
				log "bench: [$k] failed: ${cmds[$i]}"
				echo "n/a n/a" >"$DATA/$k.time"
				return 1
			fi
			((r > 0)) && awk -v d=$((t1 - t0)) 'BEGIN { printf "%.6f\n", d / 1e6 }' >>"$DATA/$k.samples"
		done
	done
	for ((i = 0; i < n; i++)); do
		[ -n "${traces[$i]}" ] && "$PREP" -k "$DATA/${keys[$i]}.sizes" "${traces[$i]}"
		summarize "${keys[$i]}"
	done
}
tmed() { local v; v=$(cut -d' ' -f1 "$DATA/$1.time" 2>/dev/null); echo "${v:-n/a}"; }
tsd() { local v; v=$(cut -d' ' -f2 "$DATA/$1.time" 2>/dev/null); echo "${v:-n/a}"; }

# ---- checks -----------------------------------------------------------------

# fib(N) makes 2*fib(N+1)-1 calls to fib(); +1 for main.
fib_calls() {
	local n=$1 a=0 b=1 t i
	for ((i = 0; i < n + 1; i++)); do t=$((a + b)); a=$b; b=$t; done
	echo $((2 * a - 1 + 1))
}

# Count the calls of the program's own functions (defined in binary) in a
# utrace report, as check_uftrace counts uftrace's: both record the library
# calls by default (--libcall, uftrace's PLT hooks), which the expected
# count leaves out.  function_graph prints "name() {" or "name();" once per
# call; the function tracer one non-comment line per call, "...: name <-parent".
# Also notes any "lost" mention (record's summary, report's header or a
# LOST marker in the stream).
check_utrace() { # key tracer file binary
	local key=$1 tracer=$2 file=$3 bin=$4
	nm --defined-only "$bin" | awk '$2 ~ /^[Tt]$/ { print $3 }' | sort -u >"$DATA/$key.syms"
	"$UT" report -i "$file" 2>"$DATA/$key.report.err" | awk -v tracer="$tracer" \
		-v head="$DATA/$key.report.head" -v lostf="$DATA/$key.report.lost" \
		-v syms="$DATA/$key.syms" '
		BEGIN { while ((getline s < syms) > 0) own[s] = 1 }
		NR <= 40 { print > head }
		/LOST|[Ll]ost/ { print > lostf }
		/^#/ || /^[ \t]*$/ { next }
		tracer == "function_graph" {
			if (match($0, /[A-Za-z_.$][A-Za-z0-9_.$@]*\(\) *(\{|;)/) &&
			    substr($0, RSTART, index(substr($0, RSTART), "(") - 1) in own)
				n++
			next
		}
		{ sub(/^.*: /, ""); if ($1 in own) n++ }
		END { print n + 0 }' >"$DATA/$key.report.calls"
	cat "$DATA/$key.report.calls"
}

# Sum of the Calls column of uftrace report: all (libc calls included) and
# only the functions defined in the program itself.
check_uftrace() { # key dir binary
	local key=$1 dir=$2 bin=$3
	nm --defined-only "$bin" | awk '$2 ~ /^[Tt]$/ { print $3 }' | sort -u >"$DATA/$key.syms"
	uftrace report -d "$dir" -f call -s call 2>"$DATA/$key.report.err" >"$DATA/$key.report"
	awk -v syms="$DATA/$key.syms" '
		BEGIN { while ((getline s < syms) > 0) own[s] = 1 }
		$1 ~ /^[0-9]+$/ && $2 !~ /^linux:/ { all += $1; if ($2 in own) mine += $1 }
		END { print all + 0, mine + 0 }' "$DATA/$key.report"
}

LOST_NOTES=
note_lost() { LOST_NOTES="$LOST_NOTES
- $*"; }
declare -A BAD  # case key -> timed runs lost events: its timings are not valid
declare -A VBAD # case key -> the untimed verification run lost events

# Sum of the lost-event counts a text mentions ("N lost", "N records lost",
# "[LOST N EVENTS]", "N events lost").
lostnum() {
	grep -oiE '[0-9]+ (records |events )?lost|lost [0-9]+ events' "$@" 2>/dev/null |
		grep -oE '[0-9]+' | awk '{ s += $1 } END { print s + 0 }'
}

# After the timed runs of KEY: flag the runs whose trace is more than 1%
# smaller than the largest (verification run included: size REF).
check_sizes() { # key ref
	local key=$1 ref=$2 n
	n=$(awk -v ref="$ref" '{ v[NR] = $1; if ($1 > max) max = $1 }
		END { if (ref > max) max = ref; for (i in v) if (v[i] < 0.99 * max) bad++; print bad + 0 }' "$DATA/$key.sizes")
	if [ "$n" -gt 0 ]; then
		note_lost "[$key] $n of $(wc -l <"$DATA/$key.sizes") timed runs (warm-up included) wrote a trace more than 1% smaller than the others: lost events (sizes: $(tr '\n' ' ' <"$DATA/$key.sizes"))"
		BAD[$key]="lost events in $n timed runs"
	fi
}

# verify KEY CMD...: one untimed run, output compared with the plain build's.
verify() {
	local key=$1
	shift
	"$@" >"$DATA/$key.out" 2>"$DATA/$key.err"
	local rc=$?
	if [ $rc != 0 ]; then
		log "bench: [$key] exit status $rc: $* (stderr in $DATA/$key.err)"
		note_lost "[$key] exited with status $rc"
		return 1
	fi
	if ! grep -qF "$EXPECT" "$DATA/$key.out"; then
		log "bench: [$key] output differs from the plain build"
		note_lost "[$key] program output differs from the plain build"
	fi
	if [ "$(lostnum "$DATA/$key.err")" -gt 0 ]; then
		note_lost "[$key] verification run: $(grep -iE 'lost' "$DATA/$key.err" | head -3 | tr '\n' ' ')"
		VBAD[$key]="lost events"
	fi
	return 0
}

# The trace size for bytes/call: the largest of the verification run's
# and the timed runs' traces (a run that lost events writes less).  If the
# verification run lost events and no timed run wrote more, every run lost
# events and bytes/call is not valid.
best_size() { # key
	local key=$1 v=${R[$1.size]} m
	m=$(sort -n "$DATA/$key.sizes" | tail -1)
	num "$v" || v=0
	if num "$m" && [ "$m" -gt "$v" ]; then
		R[$key.size]=$m
		[ -n "${VBAD[$key]:-}" ] && [ "$m" -gt $((v + v / 100)) ] && R[$key.size.ok]=1
	fi
	[ -n "${VBAD[$key]:-}" ] && [ -z "${R[$key.size.ok]:-}" ] && SIZEBAD[$key]=1
	return 0
}
declare -A SIZEBAD
num() { [[ $1 =~ ^-?[0-9.]+$ ]]; }

# ---- run one workload -------------------------------------------------------

# Results, per workload W: R_<W>_<figure>
declare -A R

run_workload() { # W ARG_TRACE ARG_TINY ARG_LONG
	local w=$1 a=$2 a0=$3 al=$4 key f calls calls0
	log "bench: $w ($w $a traced, $w $al for overheads, $w $a0 for start-up)"
	EXPECT=$("$BIN/$w.plain" "$a")
	R[$w.expect]=$EXPECT

	# calls: fib from its formula; callheavy from the traces (below)
	if [ "$w" = fib ]; then
		calls=$(fib_calls "$a")
		calls0=$(fib_calls "$a0")
	else
		calls=
		calls0=1
	fi

	time_case "$w.plain" "$RUNS" "" "$BIN/$w.plain $a"
	time_case "$w.plain.tiny" "$RUNS" "" "$BIN/$w.plain $a0"

	if [ $HAVE_UT = 1 ]; then
		local cases="graph:function_graph function:function"
		for c in $cases; do
			key=${c%%:*}
			local tracer=${c#*:}
			f=$DATA/$w.$key.dat
			verify "$w.$key" "$UT" record -p "$tracer" $BOPT-o "$f" -- "$BIN/$w.utrace" "$a"
			R[$w.$key.size]=$(stat -c %s "$f" 2>/dev/null || echo n/a)
			R[$w.$key.count]=$(check_utrace "$w.$key" "$tracer" "$f" "$BIN/$w.utrace")
			if [ "$(lostnum "$DATA/$w.$key.report.lost")" -gt 0 ]; then
				note_lost "[$w.$key] verification report: $(head -3 "$DATA/$w.$key.report.lost" | tr '\n' ' ')"
				VBAD[$w.$key]="lost events"
			fi
			time_case "$w.$key" "$RUNS" "$f" "$UT record -p $tracer $BOPT-o $f -- $BIN/$w.utrace $a"
			check_sizes "$w.$key" "${R[$w.$key.size]}"
			best_size "$w.$key"
			time_case "$w.$key.tiny" "$RUNS" "$f.tiny" "$UT record -p $tracer $BOPT-o $f.tiny -- $BIN/$w.utrace $a0"
		done
		EXPECT=$("$BIN/$w.plain" "$al")
		f=$DATA/$w.filtered.dat
		verify "$w.filtered" "$UT" record -l main $BOPT-o "$f" -- "$BIN/$w.utrace" "$al"
		R[$w.filtered.size]=$(stat -c %s "$f" 2>/dev/null || echo n/a)
		time_case "$w.filtered.tiny" "$RUNS" "$f.tiny" "$UT record -l main $BOPT-o $f.tiny -- $BIN/$w.utrace $a0"
		time_interleaved "$RUNS_LONG" \
			"$w.plain.long" "" "$BIN/$w.plain $al" \
			"$w.nop.long" "" "$BIN/$w.utrace $al" \
			"$w.filtered.long" "$f" "$UT record -l main $BOPT-o $f -- $BIN/$w.utrace $al" \
			"$w.plain64.long" "" "$BIN/$w.plain64 $al" \
			"$w.nop64.long" "" "$BIN/$w.utrace64 $al" \
			"$w.filtered64.long" "$f.64" "$UT record -l main $BOPT-o $f.64 -- $BIN/$w.utrace64 $al"
		EXPECT=${R[$w.expect]}
	else
		time_case "$w.plain.long" "$RUNS_LONG" "" "$BIN/$w.plain $al"
	fi

	if [ $HAVE_UF = 1 ]; then
		local d=$DATA/$w.uftrace.data
		verify "$w.uftrace" uftrace record -d "$d" "$BIN/$w.pg" "$a"
		R[$w.uftrace.size]=$(cat "$d"/*.dat 2>/dev/null | wc -c)
		read -r R[$w.uftrace.all] R[$w.uftrace.own] <<<"$(check_uftrace "$w.uftrace" "$d" "$BIN/$w.pg")"
		if grep -qi 'lost' "$DATA/$w.uftrace.report" "$DATA/$w.uftrace.err" 2>/dev/null; then
			note_lost "[$w.uftrace] uftrace reports lost records"
			VBAD[$w.uftrace]="lost events"
		fi
		time_case "$w.uftrace" "$RUNS" "$d" "uftrace record -d $d $BIN/$w.pg $a"
		check_sizes "$w.uftrace" "${R[$w.uftrace.size]}"
		best_size "$w.uftrace"
		time_case "$w.uftrace.tiny" "$RUNS" "$d.tiny" "uftrace record -d $d.tiny $BIN/$w.pg $a0"
	fi

	# callheavy: the calls are those of the program's own functions as
	# counted by uftrace (an independent tracer), else by utrace's graph.
	if [ -z "$calls" ]; then
		if [ $HAVE_UF = 1 ] && [ "${R[$w.uftrace.own]:-0}" -gt 0 ]; then
			calls=${R[$w.uftrace.own]}
			R[$w.calls.src]="uftrace report, program functions"
		elif [ $HAVE_UT = 1 ]; then
			calls=${R[$w.graph.count]}
			R[$w.calls.src]="utrace report (function_graph)"
		fi
	else
		R[$w.calls.src]="2*fib(N+1)-1 + main"
	fi
	R[$w.calls]=${calls:-0}
	R[$w.calls0]=$calls0
	if [ $HAVE_UT = 1 ]; then
		for key in graph function; do
			if [ "${R[$w.$key.count]}" != "$calls" ]; then
				note_lost "[$w.$key] utrace report shows ${R[$w.$key.count]} calls, expected $calls"
				VBAD[$w.$key]=${VBAD[$w.$key]:-"call count differs"}
			fi
		done
	fi
	if [ $HAVE_UF = 1 ] && [ "${R[$w.uftrace.own]}" != "$calls" ]; then
		note_lost "[$w.uftrace] uftrace report shows ${R[$w.uftrace.own]} calls of program functions, expected $calls"
		VBAD[$w.uftrace]=${VBAD[$w.uftrace]:-"call count differs"}
	fi
}

[ $HAVE_UT = 1 ] || note_lost "utrace cases NOT RUN ($B/utrace missing or not working): every utrace figure is n/a"
[ $HAVE_UF = 1 ] || note_lost "uftrace cases NOT RUN (uftrace not installed)"
run_workload fib "$FIB_N" 1 "$FIB_LONG"
run_workload callheavy "$CH_SCALE" 0 "$CH_LONG"

# ---- figures ----------------------------------------------------------------

calc() { awk "BEGIN { x = $1; if (x != x) print \"n/a\"; else printf \"%.${2:-1}f\", x }" 2>/dev/null || echo n/a; }
# ns per call, end to end: (T - Tplain) / calls, times in ms
nspc() { # w case calls
	local t p
	t=$(tmed "$1.$2"); p=$(tmed "$1.plain")
	num "$t" && num "$p" && [ "$3" -gt 0 ] 2>/dev/null && calc "($t - $p) * 1e6 / $3" || echo n/a
}
marg() { # w case calls calls0
	local t t0 p p0
	t=$(tmed "$1.$2"); t0=$(tmed "$1.$2.tiny"); p=$(tmed "$1.plain"); p0=$(tmed "$1.plain.tiny")
	num "$t" && num "$t0" && num "$p" && num "$p0" && [ "$3" -gt 0 ] 2>/dev/null &&
		calc "(($t - $t0) - ($p - $p0)) * 1e6 / ($3 - $4)" || echo n/a
}
pct() { # w case [plain]
	local t p
	t=$(tmed "$1.$2.long"); p=$(tmed "$1.${3:-plain}.long")
	num "$t" && num "$p" && calc "($t - $p) * 100 / $p" 2 || echo n/a
}
# the same with the tracer's start-up (filtered run on the tiny size, less
# the plain tiny run) taken out of the traced time
pct_su() { # w case [plain]
	local t p t0 p0
	t=$(tmed "$1.$2.long"); p=$(tmed "$1.${3:-plain}.long")
	t0=$(tmed "$1.filtered.tiny"); p0=$(tmed "$1.plain.tiny")
	num "$t" && num "$p" && num "$t0" && num "$p0" &&
		calc "($t - ($t0 - $p0) - $p) * 100 / $p" 2 || echo n/a
}
bpc() { # size calls
	num "$1" && [ "$2" -gt 0 ] 2>/dev/null && calc "$1 / $2" 2 || echo n/a
}
ratio() { num "$1" && num "$2" && calc "$1 / $2" 2 || echo n/a; }
startup() { # w case: fixed cost of the tracer, ms
	local t0 p0
	t0=$(tmed "$1.$2.tiny"); p0=$(tmed "$1.plain.tiny")
	num "$t0" && num "$p0" && calc "$t0 - $p0" 2 || echo n/a
}

for w in fib callheavy; do
	c=${R[$w.calls]}
	R[$w.ns.graph]=$(nspc $w graph "$c")
	R[$w.ns.function]=$(nspc $w function "$c")
	R[$w.ns.uftrace]=$(nspc $w uftrace "${R[$w.uftrace.all]:-0}")
	R[$w.mg.graph]=$(marg $w graph "$c" "${R[$w.calls0]}")
	R[$w.mg.function]=$(marg $w function "$c" "${R[$w.calls0]}")
	R[$w.mg.uftrace]=$(marg $w uftrace "${R[$w.uftrace.all]:-0}" "${R[$w.calls0]}")
	R[$w.su.graph]=$(startup $w graph)
	R[$w.su.function]=$(startup $w function)
	R[$w.su.uftrace]=$(startup $w uftrace)
	R[$w.pct.nop]=$(pct $w nop)
	R[$w.pct.filtered]=$(pct $w filtered)
	R[$w.pct.filtered.su]=$(pct_su $w filtered)
	R[$w.pct.nop64]=$(pct $w nop64 plain64)
	R[$w.pct.filtered64]=$(pct $w filtered64 plain64)
	R[$w.pct.filtered64.su]=$(pct_su $w filtered64 plain64)
	R[$w.su.filtered]=$(startup $w filtered)
	R[$w.bpc.graph]=$(bpc "${R[$w.graph.size]:-}" "$c")
	R[$w.bpc.function]=$(bpc "${R[$w.function.size]:-}" "$c")
	R[$w.bpc.uftrace]=$(bpc "${R[$w.uftrace.size]:-}" "${R[$w.uftrace.all]:-0}")
	R[$w.ratio.ns]=$(ratio "${R[$w.ns.uftrace]}" "${R[$w.ns.graph]}")
	R[$w.ratio.mg]=$(ratio "${R[$w.mg.uftrace]}" "${R[$w.mg.graph]}")
	R[$w.ratio.bpc]=$(ratio "${R[$w.bpc.uftrace]}" "${R[$w.bpc.graph]}")
	# mark the figures of cases that lost events
	for c in graph function uftrace; do
		for fig in ns mg su; do
			[ -n "${BAD[$w.$c]:-}" ] && R[$w.$fig.$c]="${R[$w.$fig.$c]} (!)"
		done
		[ -n "${SIZEBAD[$w.$c]:-}" ] && R[$w.bpc.$c]="${R[$w.bpc.$c]} (!)"
	done
	if [ -n "${BAD[$w.filtered]:-}" ]; then
		for fig in pct.filtered pct.filtered.su pct.filtered64 pct.filtered64.su; do
			R[$w.$fig]="${R[$w.$fig]} (!)"
		done
	fi
	for fig in ratio.ns ratio.mg; do
		[ -n "${BAD[$w.graph]:-}${BAD[$w.uftrace]:-}" ] && R[$w.$fig]="${R[$w.$fig]} (!)"
	done
	[ -n "${SIZEBAD[$w.graph]:-}${SIZEBAD[$w.uftrace]:-}" ] && R[$w.ratio.bpc]="${R[$w.ratio.bpc]} (!)"
done

# ---- results.md -------------------------------------------------------------

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
rev=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
dirty=$(git status --porcelain 2>/dev/null | grep -qv '^??' && echo " + uncommitted changes")
elapsed=$(($(date +%s) - START))
g() { echo "${R[$1]:-n/a}"; }
row() { # label goal key
	printf '| %s | %s | %s | %s |\n' "$1" "$2" "$(g fib.$3)" "$(g callheavy.$3)"
}
{
	echo "# utrace benchmark results"
	echo
	echo "Generated by \`bench/run.sh $B\` (\`make bench\`) on $(date -u '+%Y-%m-%d %H:%M UTC'), utrace $rev$dirty."
	echo
	echo "- machine: $(nproc) CPUs, $cpu, Linux $(uname -r), $(uname -m)"
	echo "- compiler: $($CC --version | head -1)"
	echo "- peers: $( [ $HAVE_UF = 1 ] && uftrace --version 2>/dev/null | head -1 || echo 'uftrace: not installed'); $( [ $HAVE_HF = 1 ] && hyperfine --version || echo 'hyperfine not installed (bash loop)')"
	echo "- timing: wall clock; median of $RUNS runs after $WARMUP warm-up run(s) ($( [ $HAVE_HF = 1 ] && echo "hyperfine -N" || echo "bash loop")); the *.long cases: median of $RUNS_LONG interleaved rounds after one warm-up round (bash loop); noisy 2-core VM, nothing here is pass/fail"
	echo "- sizes: fib $FIB_N (traced), fib $FIB_LONG (overheads), fib 1 (start-up); callheavy $CH_SCALE (traced), callheavy $CH_LONG (overheads), callheavy 0 (start-up)"
	echo "- utrace: $B/utrace and $B/libutrace.so as built at the start of the run, copied to $OUT/tool/; buffer: ${BUFKB:+-b $BUFKB}${BUFKB:-tool default}"
	echo "- full run took ${elapsed} s"
	echo "- machine load (loadavg 1/5/15 min): at start $LOAD_START; at end $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "## Calls"
	echo
	echo "| workload | traced calls | counted by | utrace graph report | utrace function report | uftrace (program / all) |"
	echo "|---|---|---|---|---|---|"
	for w in fib callheavy; do
		echo "| $w | $(g $w.calls) | $(g $w.calls.src) | $(g $w.graph.count) | $(g $w.function.count) | $(g $w.uftrace.own) / $(g $w.uftrace.all) |"
	done
	echo
	echo "## Figures"
	echo
	echo "ns/call = (T(traced) - T(plain)) / calls, end to end (tracer start-up and trace writing included)."
	echo "Marginal = the same with each tracer's start-up cost (its run on the tiny size) subtracted."
	echo "Overheads are on the long size ($RUNS_LONG runs), against the plain (uninstrumented) build;"
	echo "\"start-up removed\" subtracts the fixed cost of \`utrace record -l main\` measured on the tiny size;"
	echo "\"aligned builds\" compare NAME.utrace64 with NAME.plain64, both built with -falign-functions=64."
	echo "(!) marks a figure from a case whose timed runs lost events (see the last section): it is not valid."
	echo "Bytes/call use the largest trace of the case (verification or timed run), i.e. one without lost events."
	echo
	echo "| figure | goal | fib | callheavy |"
	echo "|---|---|---|---|"
	row "utrace function_graph, ns/call" "<= 25" ns.graph
	row "utrace function_graph, marginal ns/call" "" mg.graph
	row "utrace function, ns/call" "<= 12" ns.function
	row "utrace function, marginal ns/call" "" mg.function
	row "uftrace (graph, -pg), ns/call" "(~50-70)" ns.uftrace
	row "uftrace, marginal ns/call" "" mg.uftrace
	row "**ratio uftrace / utrace graph, ns/call**" "" ratio.ns
	row "ratio uftrace / utrace graph, marginal" "" ratio.mg
	row "start-up: utrace graph, ms" "" su.graph
	row "start-up: utrace function, ms" "" su.function
	row "start-up: uftrace, ms" "" su.uftrace
	row "start-up: utrace -l main, ms" "" su.filtered
	row "not selected (-l main) vs plain, %" "<= 2" pct.filtered
	row "not selected (-l main) vs plain, start-up removed, %" "<= 2" pct.filtered.su
	row "NOPs only (untraced -fpatchable build) vs plain, %" "" pct.nop
	row "aligned builds: not selected vs plain, %" "" pct.filtered64
	row "aligned builds: not selected vs plain, start-up removed, %" "<= 2" pct.filtered64.su
	row "aligned builds: NOPs only vs plain, %" "" pct.nop64
	row "utrace function_graph, bytes/call" "<= 8" bpc.graph
	row "utrace function, bytes/call" "" bpc.function
	row "uftrace, bytes/call" "(32)" bpc.uftrace
	row "**ratio uftrace / utrace graph, bytes/call**" "" ratio.bpc
	echo
	echo "## Timings (ms, median and stddev; $RUNS runs by hyperfine, *.long: $RUNS_LONG interleaved rounds)"
	echo
	echo "| case | median | stddev | command |"
	echo "|---|---|---|---|"
	grep '^\[' "$CMDS_LOG" | while read -r k cmd; do
		k=${k#[}; k=${k%]}
		echo "| $k | $(tmed "$k") | $(tsd "$k") | \`$cmd\` |"
	done
	echo
	echo "Trace files (trace size): utrace graph $(g fib.graph.size) / $(g callheavy.graph.size) bytes, utrace function $(g fib.function.size) / $(g callheavy.function.size) bytes, uftrace $(g fib.uftrace.size) / $(g callheavy.uftrace.size) bytes (fib / callheavy)."
	echo
	echo "## Lost events and other problems"
	echo
	if [ -n "$LOST_NOTES" ]; then
		echo "${LOST_NOTES#
}"
	else
		echo "None: every trace that was taken holds exactly the expected number of calls, and neither recorder reported lost events."
	fi
	echo
	echo "## Build commands"
	echo
	echo '```'
	grep -v '^\[' "$CMDS_LOG"
	echo '```'
	echo
	bash "$ROOT/bench/floors.sh" || echo "floors: not measured"
} >"$RES"
rm -f "$DATA"/gmon.*
cat "$RES"
