#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/tracepoint.sh [BUILD_DIR]   (BUILD_DIR defaults to build)
#
# What a static tracepoint costs, utrace against LTTng-UST, in the same run.
# One event with two int fields, called in a loop:
#
#   bench/tracepoint_baseline.c  the loop with no tracepoint
#   bench/tracepoint_utrace.c    trace_bench_two(i, i * 2)       (bench/tracepoint_events.h)
#   bench/tracepoint_lttng.c     tracepoint(bench_lttng, bench_two, i, i * 2)  (bench/lttng_tp.h)
#
# Each program times its own loop with clock_gettime and prints ns/event,
# so process start-up and the tracers' set-up are not counted (see
# bench/tracepoint_loop.h): wall-clock time (CLOCK_MONOTONIC) and the
# thread's CPU time (CLOCK_THREAD_CPUTIME_ID), both reported.  On a loaded
# machine the wall figure includes the time the program waited for a CPU;
# the CPU figure does not (page faults count in both).  Neither includes the
# CPU time of the consumer (utrace's recorder, lttng-consumerd), which runs
# in another process.  Cases, run interleaved (one run of each case
# per round, $TP_RUNS rounds), the median of the rounds reported:
#
#   baseline         the loop alone                                   N_OFF iterations
#   utrace off       tracepoint_utrace, not traced                     N_OFF
#   utrace off (rt)  utrace record -p nop: runtime loaded, event off  N_OFF
#   utrace on        utrace record -p nop -e bench:bench_two           N_ON
#                    (-p nop: a program without call sites gets --libcall
#                    by default, which would record its libc calls too)
#   utrace on (big)  the same with -b big enough for the whole run     N_ON
#   utrace on (null) default -b, trace written to /dev/null (diagnostic:
#                    the recorder's disk writes out of the way)        N_ON
#   lttng off        tracepoint_lttng, session daemon up, no session   N_OFF
#   lttng on         a session with bench_lttng:* enabled in channel ch
#                    (--subbuf-size=8M --num-subbuf=8)                 N_ON
#
# utrace's default per-thread buffer is 8 MiB; at full speed the program
# writes ~20 bytes per event faster than the recorder can save them, so the
# "utrace on" case can lose records: the script reports the count, and the
# "utrace on (big)" case (-b sized to hold every record: no loss, but every
# page of the buffer is touched for the first time during the loop) gives
# the lossless figure.  "utrace on (null)" shows the cost when the recorder
# keeps up with the default buffer (nothing is kept).  LTTng's discarded events come from `lttng list`.
#
# Knobs (environment): TP_RUNS (5), TP_N_ON (10000000), TP_N_OFF
# (200000000), CC (gcc), TP_OUT (a temporary directory for the traces,
# removed at the end).  Needs lttng-tools and liblttng-ust-dev; without them
# the LTTng cases are skipped.  Starting lttng-sessiond needs root (or a
# per-user session daemon); a daemon started here is stopped at the end.
# Timings are never pass/fail.
. "$(dirname "$0")/lib.sh"

RUNS=${TP_RUNS:-5}
N_ON=${TP_N_ON:-10000000}
N_OFF=${TP_N_OFF:-200000000}
BIN=$BUILD/bench-tracepoint
OUT=${TP_OUT:-}
SESSION=utrace-tp-bench-$$
SESSION_UP=0
SESSIOND_PID=


if [ -z "$OUT" ]; then
	OUT=$(mktemp -d /tmp/utrace-tp-bench.XXXXXX) || die "mktemp failed"
	RM_OUT=1
else
	mkdir -p "$OUT" || die "cannot create $OUT"
	RM_OUT=0
fi

cleanup() {
	if [ "$SESSION_UP" = 1 ]; then
		lttng stop "$SESSION" >/dev/null 2>&1
		lttng destroy "$SESSION" >/dev/null 2>&1
		SESSION_UP=0
	fi
	if [ -n "$SESSIOND_PID" ]; then
		kill "$SESSIOND_PID" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$SESSIOND_PID" 2>/dev/null || break
			sleep 0.3
		done
		SESSIOND_PID=
	fi
	if [ "$RM_OUT" = 1 ]; then
		rm -rf "$OUT"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM


# ---- build --------------------------------------------------------------
mkdir -p "$BIN" || die "cannot create $BIN"
CFLAGS=(-std=gnu11 -O2 -Wall -Wextra)
"$CC" "${CFLAGS[@]}" -I"$ROOT/bench" "$ROOT/bench/tracepoint_baseline.c" -o "$BIN/tp_baseline" ||
	die "cannot build tracepoint_baseline.c"
"$CC" "${CFLAGS[@]}" -I"$ROOT/include" -I"$ROOT/bench" "$ROOT/bench/tracepoint_utrace.c" \
	-o "$BIN/tp_utrace" || die "cannot build tracepoint_utrace.c"
HAVE_LTTNG=0
if command -v lttng >/dev/null && command -v lttng-sessiond >/dev/null; then
	if "$CC" "${CFLAGS[@]}" -I"$ROOT/bench" "$ROOT/bench/tracepoint_lttng.c" -o "$BIN/tp_lttng" \
		-llttng-ust -ldl 2>"$OUT/lttng-build.log"; then
		HAVE_LTTNG=1
	else
		echo "tracepoint.sh: cannot build tracepoint_lttng.c (liblttng-ust-dev missing?):" >&2
		sed 's/^/  /' "$OUT/lttng-build.log" >&2
	fi
else
	echo "tracepoint.sh: lttng-tools not installed: LTTng cases skipped" >&2
fi

if [ "$HAVE_LTTNG" = 1 ] && ! lttng list >/dev/null 2>&1; then
	lttng-sessiond --daemonize --no-kernel >/dev/null 2>"$OUT/sessiond.log" ||
		die "cannot start lttng-sessiond (root needed for the system daemon): $(cat "$OUT/sessiond.log")"
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		lttng list >/dev/null 2>&1 && break
		sleep 0.2
	done
	if [ "$(id -u)" = 0 ] && [ -r /var/run/lttng/lttng-sessiond.pid ]; then
		SESSIOND_PID=$(cat /var/run/lttng/lttng-sessiond.pid)
	elif [ -r "$HOME/.lttng/lttng-sessiond.pid" ]; then
		SESSIOND_PID=$(cat "$HOME/.lttng/lttng-sessiond.pid")
	fi
fi

# the buffer for "utrace on (big)": every record (20 bytes, plus the
# warm-up's 1%) with room to spare, in KiB
BIG_KB=$(((N_ON + N_ON / 100) * 20 / 1024 * 5 / 4 / 1024 * 1024 + 8192))

# ---- one run of each case -----------------------------------------------
# Each run appends "case wall_ns/event cpu_ns/event" to $OUT/times and extras to $OUT/extra.
# "... ns/event=W cpu_ns/event=C" -> "W C"
nsev() { sed -n 's/.* ns\/event=\([0-9.]*\) cpu_ns\/event=\([0-9.]*\).*/\1 \2/p' "$1"; }

run_plain() { # case prog n
	"$BIN/$2" "$3" >"$OUT/o" 2>"$OUT/e" || { cat "$OUT/e" >&2; die "$1: $2 failed"; }
	echo "$1 $(nsev "$OUT/o")" >>"$OUT/times"
}

run_utrace() { # case n output utrace-record-options...
	local c=$1 n=$2 f=$3 rec
	shift 3
	rm -f "$OUT/u.dat"
	"$U" record "$@" -o "$f" -- "$BIN/tp_utrace" "$n" >"$OUT/o" 2>"$OUT/e" ||
		{ cat "$OUT/e" >&2; die "$c: utrace record failed"; }
	echo "$c $(nsev "$OUT/o")" >>"$OUT/times"
	# "utrace record: N records (M lost) from ..."
	rec=$(sed -n 's/^utrace record: \([0-9]*\) records (\([0-9]*\) lost).*/\1 \2/p' "$OUT/e")
	echo "$c records/lost $rec" >>"$OUT/extra"
	rm -f "$OUT/u.dat"
}

run_lttng_on() { # n
	local disc
	rm -rf "$OUT/lttng"
	SESSION_UP=1 # before create: an interrupt during it still destroys the session
	lttng create "$SESSION" --output="$OUT/lttng" >/dev/null || die "lttng create failed"
	lttng enable-channel -u -s "$SESSION" --subbuf-size=8M --num-subbuf=8 ch >/dev/null &&
		lttng enable-event -u -s "$SESSION" -c ch 'bench_lttng:*' >/dev/null &&
		lttng start "$SESSION" >/dev/null || die "lttng session set-up failed"
	"$BIN/tp_lttng" "$1" >"$OUT/o" 2>"$OUT/e" || { cat "$OUT/e" >&2; die "lttng on: tp_lttng failed"; }
	lttng stop "$SESSION" >/dev/null || die "lttng stop failed"
	disc=$(lttng list "$SESSION" | sed -n 's/.*Discarded events: *\([0-9]*\).*/\1/p' | head -1)
	lttng destroy "$SESSION" >/dev/null || die "lttng destroy failed"
	SESSION_UP=0
	echo "lttng_on $(nsev "$OUT/o")" >>"$OUT/times"
	echo "lttng_on discarded ${disc:-?} trace_bytes $(du -sb "$OUT/lttng" | cut -f1)" >>"$OUT/extra"
	rm -rf "$OUT/lttng"
}

: >"$OUT/times"
: >"$OUT/extra"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "tracepoint.sh: $RUNS rounds; N_ON=$N_ON events (enabled cases), N_OFF=$N_OFF (others)" >&2
for round in $(seq 0 "$RUNS"); do
	# round 0 is a warm-up: its figures are dropped
	run_plain baseline tp_baseline "$N_OFF"
	run_plain utrace_off tp_utrace "$N_OFF"
	run_utrace utrace_off_rt "$N_OFF" "$OUT/u.dat" -p nop
	run_utrace utrace_on "$N_ON" "$OUT/u.dat" -p nop -e bench:bench_two
	run_utrace utrace_on_big "$N_ON" "$OUT/u.dat" -p nop -b "$BIG_KB" -e bench:bench_two
	run_utrace utrace_on_null "$N_ON" /dev/null -p nop -e bench:bench_two
	if [ "$HAVE_LTTNG" = 1 ]; then
		run_plain lttng_off tp_lttng "$N_OFF"
		run_lttng_on "$N_ON"
	fi
	if [ "$round" = 0 ]; then
		: >"$OUT/times"
		: >"$OUT/extra"
	fi
	echo "  round $round done" >&2
done

# ---- table --------------------------------------------------------------
# $OUT/times: "case wall cpu" per run; column 2 = wall, 3 = CPU
median() { # case column -> median of its runs
	awk -v c="$1" -v k="$2" '$1 == c { print $k }' "$OUT/times" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) printf "%.2f", v[(NR + 1) / 2];
			else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
runs() { awk -v c="$1" -v k="$2" '$1 == c { printf "%s%.2f", s, $k; s = " " }' "$OUT/times"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }'; }
row() { # label case
	printf '| %s | %s | %s | %s | %s |\n' "$1" "$(median "$2" 2)" "$(median "$2" 3)" "$(runs "$2" 2)" "$(runs "$2" 3)"
}

cpu=$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -1)
virt=$(systemd-detect-virt --vm 2>/dev/null)
[ "$virt" = none ] && virt=
[ -z "$virt" ] && grep -qw hypervisor /proc/cpuinfo && virt="VM"
echo
echo "machine: $cpu, $(nproc) CPUs${virt:+ ($virt guest)}, Linux $(uname -r), load average before/after: $LOAD0 / $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$HAVE_LTTNG" = 1 ] && echo "lttng: $(lttng --version 2>/dev/null | head -1)"
echo "runs: $RUNS (median), N_ON=$N_ON, N_OFF=$N_OFF; utrace on (big): -b $BIG_KB"
echo
echo "| case | wall ns/event | CPU ns/event | runs (wall) | runs (CPU) |"
echo "|---|---|---|---|---|"
row "baseline (no tracepoint)" baseline
row "utrace disabled, untraced" utrace_off
row "utrace disabled, under \`utrace record -p nop\`" utrace_off_rt
[ "$HAVE_LTTNG" = 1 ] && row "LTTng-UST disabled (no session)" lttng_off
row "utrace enabled (\`-p nop -e bench:bench_two\`, default -b)" utrace_on
row "utrace enabled, \`-b $BIG_KB\` (no loss)" utrace_on_big
row "utrace enabled, default -b, \`-o /dev/null\` (diagnostic)" utrace_on_null
[ "$HAVE_LTTNG" = 1 ] && row "LTTng-UST enabled (8 x 8 MiB sub-buffers)" lttng_on
if [ "$HAVE_LTTNG" = 1 ]; then
	echo
	echo "| ratio LTTng / utrace (medians) | wall | CPU |"
	echo "|---|---|---|"
	for p in "disabled, vs utrace untraced;lttng_off;utrace_off" \
		"disabled, vs utrace under -p nop;lttng_off;utrace_off_rt" \
		"enabled, vs utrace default -b;lttng_on;utrace_on" \
		"enabled, vs utrace big -b (no loss);lttng_on;utrace_on_big" \
		"enabled, vs utrace -o /dev/null;lttng_on;utrace_on_null"; do
		IFS=';' read -r label a b <<<"$p"
		echo "| $label | $(ratio "$(median "$a" 2)" "$(median "$b" 2)") | $(ratio "$(median "$a" 3)" "$(median "$b" 3)") |"
	done
fi
echo
echo "records saved / lost (utrace), events discarded (LTTng), per run:"
awk '$2 == "records/lost" { v[$1] = v[$1] " " $3 "/" $4 }
	$2 == "discarded" { v[$1] = v[$1] " " $3 }
	END { for (c in v) print "  " c ":" v[c] }' "$OUT/extra" | sort
expect=$((N_ON + N_ON / 100))
awk -v e="$expect" '$2 == "records/lost" && $1 ~ /^utrace_on/ && ($3 != e || $4 != 0) { bad = 1 }
	END { if (bad) print "NOTE: some utrace enabled runs lost records (expected " e " records, 0 lost): see above" }' "$OUT/extra"
awk '$1 == "lttng_on" && $3 != 0 { bad = 1 } END { if (bad) print "NOTE: LTTng discarded events in some runs: see above" }' "$OUT/extra"
bench_floors
