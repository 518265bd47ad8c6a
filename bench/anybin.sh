#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/anybin.sh [BUILD_DIR]   (BUILD_DIR defaults to build)
#
# Programs built without utrace cflags (issue 13), in one run:
#
# 1. Coverage on distribution binaries (sort -n, gzip -c, bash -c, python3
#    with a loop, gdb -batch: C++): functions whose entries utrace record patches / the
#    functions it finds (the recorder's notice; how many of them with an
#    int3 where a jmp is not safe), beside uftrace's `uftrace
#    record -P .` (its "dynamic patch stats": patched / total) on the same
#    command; each traced run's stdout and exit status are compared with
#    an untraced run (for both tracers).
# 2. Cost of function_graph on patched entries against compiler-made call
#    sites: bench/callheavy.c built with `utrace cflags` and without, both
#    -O2, each run untraced and under `utrace record` (ANYBIN_RUNS rounds,
#    interleaved, median); the added time per call, from the number of
#    function calls the trace holds.
#
# Knobs: ANYBIN_RUNS (5), ANYBIN_SCALE (callheavy's SCALE, 2), CC (gcc).
# Timings are never pass/fail; a changed output or status is reported.
. "$(dirname "$0")/lib.sh"
RUNS=${ANYBIN_RUNS:-5}
SCALE=${ANYBIN_SCALE:-2}
bench_tmp
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
UFT=$(command -v uftrace)

seq 20000 | awk '{ print ($1 * 7919) % 20011 }' >"$OUT/in.txt"
printf 's = 0\nfor i in range(200000):\n    s += i * i\nprint(s)\n' >"$OUT/loop.py"
CMDS=("sort -n $OUT/in.txt" "gzip -c $OUT/in.txt" "bash -c 'for i in 1 2 3; do echo \$i; done'"
	"$PY $OUT/loop.py")
# a C++ program with exceptions, if installed
command -v gdb >/dev/null && CMDS+=("gdb -nx -batch -ex 'print 6*7'")

# same CMD TRACED_OUT TRACED_STATUS: "same" or what differs
same() {
	local ust
	eval "$1" >"$OUT/u.out" 2>/dev/null
	ust=$?
	if [ "$ust" != "$3" ]; then echo "status $ust/$3"
	elif ! cmp -s "$OUT/u.out" "$2"; then echo "stdout differs"
	else echo same; fi
}

echo "## Coverage: functions patched at their entry / found"
echo
echo "| command | utrace patched / found | % | of them int3 | output | uftrace -P . patched / total | % | output |"
echo "|---|---|---|---|---|---|---|---|"
for c in "${CMDS[@]}"; do
	eval "$U record -o $OUT/t.dat -- $c" >"$OUT/t.out" 2>"$OUT/t.err"
	st=$?
	us=$(same "$c" "$OUT/t.out" $st)
	read -r up uf < <(sed -n 's/.* \([0-9]*\) of \([0-9]*\) functions patched at their entry.*/\1 \2/p' \
		"$OUT/t.err" | awk '{ p += $1; f += $2 } END { print p + 0, f + 0 }')
	ui=$(sed -n 's/.*functions patched at their entry (\([0-9]*\) with int3.*/\1/p' "$OUT/t.err" |
		awk '{ n += $1 } END { print n + 0 }')
	fp=""; ft=""; fs="(not installed)"
	if [ -n "$UFT" ]; then
		eval "$UFT record -d $OUT/uft -P . --no-libcall --debug-domain dynamic:3 $c" \
			>"$OUT/f.out" 2>"$OUT/f.err"
		st=$?
		fs=$(same "$c" "$OUT/f.out" $st)
		sed 's/\x1b\[[0-9;]*m//g' "$OUT/f.err" >"$OUT/f.log"
		fp=$(awk '/dynamic: +patched:/ { p += $3 } END { print p + 0 }' "$OUT/f.log")
		ft=$(awk '/dynamic: +patched:|dynamic: +failed:|dynamic: +skipped:/ { t += $3 } END { print t + 0 }' "$OUT/f.log")
	fi
	pct() { [ "${2:-0}" -gt 0 ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", 100 * a / b }' || echo -; }
	printf '| `%s` | %s / %s | %s | %s | %s | %s / %s | %s | %s |\n' "${c/$OUT\//}" "$up" "$uf" \
		"$(pct "$up" "$uf")" "$ui" "$us" "${fp:--}" "${ft:--}" "$(pct "${fp:-0}" "${ft:-0}")" "$fs"
done

echo
echo "## Cost: function_graph on patched entries vs compiler sites (callheavy $SCALE, -O2)"
echo
$CC -O2 $("$U" cflags) -o "$OUT/heavy.cf" "$ROOT/bench/callheavy.c" || die "cannot build callheavy"
$CC -O2 -o "$OUT/heavy.bare" "$ROOT/bench/callheavy.c" || die "cannot build callheavy"
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(((t1 - t0) / 1000)); }
for v in cf bare; do : >"$OUT/$v.base"; : >"$OUT/$v.traced"; done
for ((r = 0; r < RUNS; r++)); do
	for v in cf bare; do
		ms "$OUT/heavy.$v" "$SCALE" >>"$OUT/$v.base"
		ms "$U" record -o "$OUT/$v.dat" -- "$OUT/heavy.$v" "$SCALE" >>"$OUT/$v.traced"
	done
done
med() { sort -n "$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "| build | calls traced | untraced ms | traced ms | added ns/call |"
echo "|---|---|---|---|---|"
for v in cf bare; do
	calls=$("$U" report -i "$OUT/$v.dat" 2>/dev/null | grep -cE '\);$|\) \{$')
	b=$(med "$OUT/$v.base")
	t=$(med "$OUT/$v.traced")
	per=$(awk -v b="$b" -v t="$t" -v n="$calls" 'BEGIN { printf "%.1f", n ? (t - b) * 1000 / n : 0 }')
	eval "per_$v=$per"
	printf '| %s | %s | %.1f | %.1f | %s |\n' "$([ $v = cf ] && echo 'utrace cflags (call sites)' || echo 'no flags (patched entries)')" \
		"$calls" "$(awk -v x="$b" 'BEGIN { print x / 1000 }')" "$(awk -v x="$t" 'BEGIN { print x / 1000 }')" "$per"
done
echo
awk -v a="$per_bare" -v b="$per_cf" 'BEGIN { if (b > 0) printf "patched / sites: %.2fx (goal 1.3x)\n", a / b }'
bench_floors
