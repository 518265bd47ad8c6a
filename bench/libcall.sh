#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/libcall.sh [BUILD_DIR]   (BUILD_DIR defaults to build)
#
# What one hooked library call costs (--libcall, runtime/plt.c): a loop of
# N calls through the PLT to lc_leaf() in a shared library
# (bench/libcall_loop.c, bench/libcall_leaf.c; built without utrace's
# flags), in the same run:
#
#   baseline         the program alone
#   utrace graph     utrace record -l lc_leaf -- PROG      (function_graph, the default)
#   utrace function  utrace record -p function -l lc_leaf -- PROG
#   utrace site      the same loop, lc_leaf's library built with `utrace
#                    cflags`: its call site hooked, not the PLT (the cost a
#                    library call is compared with; --libcall is off there)
#   uftrace          uftrace record --force -- PROG       (its PLT hooking, the
#                    default; --force: the program has no -pg)
#
# The program times its own loop (wall and thread CPU per call), so the
# tracers' start-up is not counted; "added" is the CPU time over the
# baseline.  The counts are checked: utrace's records must be 2 (graph) or
# 1 (function) per call of the loop and its warm-up, uftrace's report must
# show every call of lc_leaf.
#
# Knobs: LIBCALL_RUNS (3 interleaved rounds, median reported), LIBCALL_N
# (10000000), CC (gcc).  Timings are never pass/fail.
. "$(dirname "$0")/lib.sh"
RUNS=${LIBCALL_RUNS:-3}
N=${LIBCALL_N:-10000000}
bench_tmp

"$CC" -O2 -fPIC -shared "$ROOT/bench/libcall_leaf.c" -o "$OUT/liblcleaf.so" ||
	die "cannot build bench/libcall_leaf.c"
P=$OUT/libcall_loop
"$CC" -std=gnu11 -O2 -I"$ROOT/bench" "$ROOT/bench/libcall_loop.c" -o "$P" -L"$OUT" -llcleaf \
	-Wl,-rpath,"$OUT" || die "cannot build bench/libcall_loop.c"
mkdir -p "$OUT/site"
"$CC" -O2 -fPIC -shared $("$U" cflags) "$ROOT/bench/libcall_leaf.c" -o "$OUT/site/liblcleaf.so" ||
	die "cannot build bench/libcall_leaf.c with utrace cflags"
PS=$OUT/site/libcall_loop
"$CC" -std=gnu11 -O2 -I"$ROOT/bench" "$ROOT/bench/libcall_loop.c" -o "$PS" -L"$OUT/site" -llcleaf \
	-Wl,-rpath,"$OUT/site" || die "cannot build bench/libcall_loop.c"
HAVE_UF=0
command -v uftrace >/dev/null && HAVE_UF=1
[ "$HAVE_UF" = 1 ] || echo "libcall.sh: uftrace not installed: its case is skipped" >&2

nsev() { sed -n 's/.* ns\/event=\([0-9.]*\) cpu_ns\/event=\([0-9.]*\).*/\1 \2/p' "$1"; }
calls() { echo $(($1 + $1 / 100)); }
verdict() { [ "$2" = "$3" ] && echo exact || echo "wrong:$2/$3"; }

run_base() {
	"$P" "$N" >"$OUT/base.out" && echo "baseline $(nsev "$OUT/base.out")" >>"$OUT/times"
}

run_utrace() { # case per-call-records program record-options...
	local c=$1 per=$2 p=$3
	shift 3
	"$U" record "$@" -l lc_leaf -o "$OUT/u.dat" -- "$p" "$N" >"$OUT/u.out" 2>"$OUT/u.err" ||
		{ cat "$OUT/u.err" >&2; return; }
	echo "$c $(nsev "$OUT/u.out")" >>"$OUT/times"
	echo "$c $(verdict "$c" "$(sed -n 's/^utrace record: \([0-9]*\) records.*/\1/p' "$OUT/u.err")" \
		"$((per * $(calls "$N")))")" >>"$OUT/counts"
}

run_uftrace() {
	rm -rf "$OUT/uf"
	uftrace record --force -d "$OUT/uf" -- "$P" "$N" >"$OUT/f.out" 2>"$OUT/f.err" ||
		{ cat "$OUT/f.err" >&2; return; }
	echo "uftrace $(nsev "$OUT/f.out")" >>"$OUT/times"
	echo "uftrace $(verdict uftrace "$(uftrace report -d "$OUT/uf" 2>/dev/null |
		awk '$NF == "lc_leaf" { print $(NF - 1) }')" "$(calls "$N")")" >>"$OUT/counts"
}

: >"$OUT/times"
: >"$OUT/counts"
for r in $(seq "$RUNS"); do
	run_base
	run_utrace graph 2 "$P"
	run_utrace function 1 "$P" -p function
	run_utrace site 2 "$PS" --no-libcall
	[ "$HAVE_UF" = 1 ] && run_uftrace
done

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
base_cpu=$(awk '$1 == "baseline" { print $3 }' "$OUT/times" | median)
echo "libcall.sh: N=$N calls of lc_leaf through the PLT, $RUNS rounds, medians; $(date -u '+%F %R') load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-18s %12s %12s %14s %8s  %s\n' case "ns/call" "cpu ns/call" "added cpu ns" "vs utrace" counts
ugraph=""
for c in baseline graph function site uftrace; do
	grep -q "^$c " "$OUT/times" || continue
	wall=$(awk -v c="$c" '$1 == c { print $2 }' "$OUT/times" | median)
	cpu=$(awk -v c="$c" '$1 == c { print $3 }' "$OUT/times" | median)
	added=$(awk -v a="$cpu" -v b="$base_cpu" 'BEGIN { printf "%.1f", a - b }')
	[ "$c" = graph ] && ugraph=$added
	ratio=-
	[ "$c" = uftrace ] && [ -n "$ugraph" ] &&
		ratio=$(awk -v a="$added" -v b="$ugraph" 'BEGIN { printf "%.2fx", a / b }')
	cnt=$(awk -v c="$c" '$1 == c { print $2 }' "$OUT/counts" | sort | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = ", " }')
	name=$c
	case $c in graph | function | site) name="utrace $c" ;; esac
	printf '%-18s %12s %12s %14s %8s  %s\n' "$name" "$wall" "$cpu" "$added" "$ratio" "${cnt:--}"
done
bench_floors
