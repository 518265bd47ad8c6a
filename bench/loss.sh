#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/loss.sh [BUILD_DIR]   (BUILD_DIR defaults to build)
#
# Issue 8, "nothing lost by default": a long recording whose trace file is
# on a disk, utrace with its defaults against utrace --drop (the old
# default) and uftrace, side by side on the same program, with the disk's
# own write speed measured in the same run.
#
# Workload: bench/fib.c, fib($LOSS_N) (36: 48,315,634 calls, main
# included), built plain, with `utrace cflags` and with -pg (uftrace).
#
# Cases (one run of each per round, $LOSS_ROUNDS rounds (5); median over
# the rounds):
#
#   plain        fib.plain N
#   fn           utrace record -p function -o F -- fib.utrace N  (default: no-loss)
#   fn_drop      utrace record -p function --drop -o F -- fib.utrace N
#   graph        utrace record -o F -- fib.utrace N              (function_graph)
#   graph_drop   utrace record --drop -o F -- fib.utrace N
#   uftrace      uftrace record -d D fib.pg N                   (its defaults)
#   dd_sync      dd if=/dev/zero of=F bs=1M count=$LOSS_DD_MB conv=fdatasync
#                (the disk: page cache and the device, flushed)
#   dd_cache     the same without conv=fdatasync (what a write() into the
#                page cache of this file system costs: what the recorder does)
#
# F and D are in $LOSS_DIR (bench/out/loss, on the same file system as the
# tree: the figures are for a disk only if that is not a tmpfs, which the
# results say).  Each recording overwrites the previous one's file, as a
# user recording again overwrites utrace.dat (uftrace renames its previous
# directory to uftrace.data.old): the writeback of the previous trace then
# competes with the next recording, the condition in which records were
# lost.  LOSS_SYNC=1 runs `sync` (untimed) before every run instead.  The
# order of the four utrace recordings changes every round (rotated, and
# reversed every other round), so that each follows each other one; uftrace
# runs last, after a `sync`, and is followed by one (its 1.5 GB would
# otherwise be written back during the next recording).  With LOSS_BG=1 (the default) every round is run a
# second time while another program writes to the same disk (a loop of
# buffered 1 GiB dd writes, started before the round and killed after it).
#
# Figures per case (medians):
#   wall s       the whole command, start to end
#   ns/call      (wall - wall(plain)) / calls
#   records      records in the file (utrace: its summary; uftrace: the
#                calls of fib in `uftrace report`, x2 for entry and exit)
#   lost         records the tool lost: utrace, the summary's lost count and
#                the shortfall against the exact count (one record a call
#                with -p function, two with function_graph); uftrace, the
#                shortfall of fib calls in its report, x2.  Every run is
#                listed under "Runs", the worst loss in the table.
#   MB/s         trace bytes / wall: the rate the recorder saved at
#   Mrec/s       records / wall
#   waited s     utrace: the time the traced thread spent waiting for the
#                recorder on a full buffer (the summary's "waited X s"):
#                what no-loss cost; --drop never waits
#
# Knobs: LOSS_N [36]  LOSS_ROUNDS [5]  LOSS_DIR [bench/out/loss]
#        LOSS_BG [1]  LOSS_DD_MB [2048]  LOSS_UFTRACE [1]  LOSS_SYNC [0]  CC [gcc]
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B
CC=${CC:-gcc}
N=${LOSS_N:-36}
ROUNDS=${LOSS_ROUNDS:-5}
DIR=${LOSS_DIR:-$ROOT/bench/out/loss}
BG=${LOSS_BG:-1}
DD_MB=${LOSS_DD_MB:-2048}
UF=${LOSS_UFTRACE:-1}
SYNC=${LOSS_SYNC:-0}
command -v uftrace >/dev/null 2>&1 || UF=0

log() { printf '%s\n' "$*" >&2; }
rm -rf "$DIR"
mkdir -p "$DIR/bin" "$DIR/runs"
RES=$DIR/results.md
RUNS=$DIR/runs.txt
: >"$RUNS"
export GMON_OUT_PREFIX=$DIR/gmon

# a copy of the tool, so that a rebuild during the run changes nothing
mkdir -p "$DIR/tool"
cp "$B/utrace" "$B/libutrace.so" "$DIR/tool/" || exit 1
UT=$DIR/tool/utrace

"$CC" -std=gnu11 -O2 bench/fib.c -o "$DIR/bin/fib.plain" &&
	"$CC" -std=gnu11 -O2 $("$B/utrace" cflags) bench/fib.c -o "$DIR/bin/fib.utrace" &&
	"$CC" -std=gnu11 -O2 -pg bench/fib.c -o "$DIR/bin/fib.pg" || exit 1
# fib(N) makes 2*fib(N+1)-1 calls to fib, plus main
FIBCALLS=$(awk -v n="$N" 'BEGIN { a = 0; b = 1; for (i = 0; i < n + 1; i++) { t = a + b; a = b; b = t } print 2 * a - 1 }')
CALLS=$((FIBCALLS + 1))

now() { date +%s%N; }

# run_ut KEY TRACER-OPTS...: one utrace recording; logs "KEY wall records lost bytes"
run_ut() {
	local key=$1 t0 t1 rec lost bytes want waited f=$DIR/trace.dat
	shift
	[ "$SYNC" = 1 ] && sync
	t0=$(now)
	"$UT" record "$@" -o "$f" -- "$DIR/bin/fib.utrace" "$N" >/dev/null 2>"$DIR/runs/$key.err"
	t1=$(now)
	read -r rec lost bytes <<<"$(sed -n 's/^utrace record: \([0-9]*\) records (\([0-9]*\) lost).*(\([0-9]*\) bytes)$/\1 \2 \3/p' "$DIR/runs/$key.err")"
	waited=$(sed -n 's/.*the threads waited \([0-9.]*\) s .*/\1/p' "$DIR/runs/$key.err")
	case " $* " in *" -p function "*) want=$CALLS ;; *) want=$((2 * CALLS)) ;; esac
	# a shortfall the summary did not count is a loss too
	[ "${rec:-0}" -lt "$want" ] && [ $((want - ${rec:-0})) -gt "${lost:-0}" ] && lost=$((want - ${rec:-0}))
	echo "${key%%.*} $(((t1 - t0) / 1000)) ${rec:-0} ${lost:-?} ${bytes:-0} ${waited:-0}" >>"$RUNS"
}

run_uftrace() {
	local key=$1 t0 t1 d=$DIR/uftrace.data calls bytes
	[ "$SYNC" = 1 ] && sync
	t0=$(now)
	uftrace record -d "$d" "$DIR/bin/fib.pg" "$N" >/dev/null 2>"$DIR/runs/$key.err"
	t1=$(now)
	bytes=$(cat "$d"/*.dat 2>/dev/null | wc -c)
	calls=$(uftrace report -d "$d" -f call -s call 2>/dev/null | awk '$2 == "fib" { print $1 }')
	echo "${key%%.*} $(((t1 - t0) / 1000)) $((2 * ${calls:-0})) $((2 * (FIBCALLS - ${calls:-0}))) $bytes" >>"$RUNS"
}

run_plain() {
	local key=$1 t0 t1
	t0=$(now)
	"$DIR/bin/fib.plain" "$N" >/dev/null
	t1=$(now)
	echo "${key%%.*} $(((t1 - t0) / 1000)) 0 0 0" >>"$RUNS"
}

# run_dd KEY [conv=fdatasync]: logs the speed as "KEY us 0 0 bytes"
run_dd() {
	local key=$1 t0 t1
	shift
	rm -f "$DIR/dd.tmp"
	sync
	t0=$(now)
	dd if=/dev/zero of="$DIR/dd.tmp" bs=1M count="$DD_MB" "$@" 2>/dev/null
	t1=$(now)
	echo "${key%%.*} $(((t1 - t0) / 1000)) 0 0 $((DD_MB << 20))" >>"$RUNS"
	rm -f "$DIR/dd.tmp"
	sync
}

BGPID=
bg_start() {
	(while :; do dd if=/dev/zero of="$DIR/bg.tmp" bs=1M count=1024 2>/dev/null; done) &
	BGPID=$!
}
bg_stop() {
	[ -n "$BGPID" ] || return
	kill "$BGPID" 2>/dev/null
	wait "$BGPID" 2>/dev/null
	pkill -P "$BGPID" 2>/dev/null
	BGPID=
	rm -f "$DIR/bg.tmp"
}
trap 'bg_stop; exit 130' INT TERM
cleanup() { rm -rf "$DIR/trace.dat" "$DIR"/uftrace.data*; }

one_case() { # one_case NAME SUFFIX
	case $1 in
	fn) run_ut "fn$2" -p function ;;
	fn_drop) run_ut "fn_drop$2" -p function --drop ;;
	graph) run_ut "graph$2" -p function_graph ;;
	graph_drop) run_ut "graph_drop$2" -p function_graph --drop ;;
	uftrace) [ "$UF" = 1 ] && run_uftrace "uftrace$2" ;;
	esac
}

round() { # round NUMBER SUFFIX (empty, or "_bg")
	local s=$2 cases=(fn fn_drop graph graph_drop) i k
	run_dd "dd_sync$s" conv=fdatasync
	run_dd "dd_cache$s"
	run_plain "plain$s"
	for i in 0 1 2 3; do
		k=$((($1 / 2 + i) % 4))
		[ $(($1 % 2)) = 1 ] && k=$((3 - k))
		one_case "${cases[$k]}" "$s"
	done
	sync
	one_case uftrace "$s"
	sync
}

FSTYPE=$(df -PT "$DIR" | awk 'NR == 2 { print $2 }')
log "loss: fib($N) = $CALLS calls, $ROUNDS rounds, traces in $DIR ($FSTYPE)"
for r in $(seq "$ROUNDS"); do
	log "loss: round $r"
	round "$r" ""
	if [ "$BG" = 1 ]; then
		bg_start
		round "$r" "_bg"
		bg_stop
	fi
done

cleanup

# ---- results

# median FIELD of the runs of case KEY
median() {
	awk -v k="$1" -v f="$2" '$1 == k { print $f }' "$RUNS" | sort -n |
		awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
maxf() { awk -v k="$1" -v f="$2" '$1 == k && $f + 0 > m { m = $f + 0 } END { print m + 0 }' "$RUNS"; }
nlossy() { awk -v k="$1" '$1 == k && $4 + 0 > 0 { n++ } $1 == k { t++ } END { printf "%d of %d", n, t }' "$RUNS"; }

table() { # table SUFFIX TITLE
	local s=$1 k plain wall rec lost bytes
	plain=$(median "plain$s" 2)
	printf '\n### %s\n\n' "$2"
	printf '| case | wall s | ns/call | records | lost (worst run) | runs with loss | MB/s | Mrec/s | waited s |\n'
	printf '|---|---|---|---|---|---|---|---|---|\n'
	for k in plain fn fn_drop graph graph_drop uftrace; do
		wall=$(median "$k$s" 2)
		[ "$wall" = - ] && continue
		rec=$(median "$k$s" 3)
		lost=$(maxf "$k$s" 4)
		bytes=$(median "$k$s" 5)
		awk -v k="$k" -v w="$wall" -v p="$plain" -v c="$CALLS" -v r="$rec" -v l="$lost" \
			-v b="$bytes" -v nl="$(nlossy "$k$s")" -v ws="$(median "$k$s" 6)" 'BEGIN {
			if (k == "plain") { printf "| plain | %.3f | | | | | | | |\n", w / 1e6; exit }
			printf "| %s | %.3f | %.1f | %d | %d | %s | %.0f | %.1f | %s |\n", k, w / 1e6,
				(w - p) * 1000 / c, r, l, nl, b / w, r / w, k == "uftrace" ? "" : ws
		}'
	done
	for k in dd_sync dd_cache; do
		wall=$(median "$k$s" 2)
		awk -v k="$k" -v w="$wall" -v b="$((DD_MB << 20))" 'BEGIN {
			printf "| %s (%d MiB) | %.3f | | | | | %.0f | | |\n", k, b / 1048576, w / 1e6, b / w }'
	done
}

{
	echo "# bench/loss.sh results"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), fib($N) = $CALLS calls, $ROUNDS rounds (medians),"
	echo "traces in $DIR on $(df -P "$DIR" | awk 'NR == 2 { print $1 }') ($FSTYPE), load $(cut -d' ' -f1-3 /proc/loadavg)."
	echo "Command: LOSS_N=$N LOSS_ROUNDS=$ROUNDS LOSS_BG=$BG LOSS_SYNC=$SYNC bench/loss.sh"
	table "" "Disk otherwise idle"
	[ "$BG" = 1 ] && table "_bg" "Another program writing to the same disk (dd loop)"
	echo
	echo "### Runs (case, wall us, records, lost, bytes, waited s)"
	echo
	sed 's/^/    /' "$RUNS"
	echo
	bash "$ROOT/bench/floors.sh" || echo "floors: not measured"
} >"$RES"
cat "$RES"
