#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/stress/run.sh BUILD_DIR - the differential stress test: random C++
# programs (tests/stress/gen.c: calls, tail calls, recursion, throw and
# catch at random depths, rethrow, destructors that throw and catch during
# unwinding, longjmp) built with g++ and clang++ at -O0 and -O2 with
# `utrace cflags`, each run untraced and under utrace record
# (function_graph, and the function tracer for one build): the output and
# the exit status must be the same, and the recording must read back.
#
# Before them, the fixed cases of tests/stress/exceptions*.cc (with
# libstdc++, and libc++ where installed) are compared the same way.
#
# Seeds: STRESS_SEEDS (a list; default 1..16, what CI runs), or
# STRESS_COUNT=N for 1..N (`make stress SEEDS=N`).  A failing seed's
# program is kept in tests/out/stress/ to reproduce: gen SEED > prog.cc.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B
U=$B/utrace
OUT=$ROOT/tests/out/stress
export LC_ALL=C
passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
nok() { echo "not ok - $1"; shift; for l in "$@"; do [ -n "$l" ] && printf '%s\n' "$l" | sed 's/^/#   /'; done; failed=$((failed + 1)); }
finish() { echo "stress: $passed passed, $failed failed"; exit $((failed > 0)); }

if [ -n "${STRESS_SEEDS:-}" ]; then
	seeds=$STRESS_SEEDS
else
	seeds=$(seq 1 "${STRESS_COUNT:-16}")
fi
rm -rf "$OUT"
mkdir -p "$OUT"
if ! cc -O2 -o "$OUT/gen" "$ROOT/tests/stress/gen.c" 2>"$OUT/gen.err"; then
	nok "build tests/stress/gen.c" "$(cat "$OUT/gen.err")"
	finish
fi
cflags=$("$U" cflags)

# compare NAME DIR BINARY ARGS...: the same output and status traced
# (function_graph) as untraced
compare() {
	local name=$1 dir=$2 bin=$3 want got
	shift 3
	{ "$bin" "$@" >"$dir/plain.out" 2>/dev/null; } 2>/dev/null
	want=$?
	{ (cd "$dir" && timeout -k 5 120 "$U" record -o t.dat -- "$bin" "$@" >traced.out 2>traced.err); } 2>/dev/null
	got=$?
	if [ "$got" = "$want" ] && cmp -s "$dir/plain.out" "$dir/traced.out"; then
		ok "$name: same output and status ($want)"
	else
		nok "$name: same output and status" "untraced $want: $(head -3 "$dir/plain.out")" \
			"traced $got: $(head -3 "$dir/traced.out")" \
			"$(grep -v '^utrace record' "$dir/traced.err" | head -3)"
	fi
}

# The fixed cases, with libstdc++ and (clang++ -stdlib=libc++) libc++.
for cxx in g++ clang++ "clang++ -stdlib=libc++"; do
	command -v "${cxx%% *}" >/dev/null || continue
	for opt in -O0 -O2; do
		cfg=$(echo "$cxx$opt" | tr -d ' =' | sed 's/-stdlib/-/')
		d=$OUT/cases/$cfg
		mkdir -p "$d"
		# shellcheck disable=SC2086
		if ! $cxx $opt -pthread $cflags -o "$d/exceptions" "$ROOT/tests/stress/exceptions.cc" \
			2>"$d/cc.err" ||
			! $cxx $opt -pthread -fnon-call-exceptions $cflags -o "$d/exceptions_end" \
				"$ROOT/tests/stress/exceptions_end.cc" 2>>"$d/cc.err"; then
			if [[ $cxx == *libc++* ]] && grep -q "file not found\|cannot find" "$d/cc.err"; then
				echo "UNSUPPORTED: libc++ is not installed"
				continue 2
			fi
			nok "$cfg: build the exception cases" "$(head -5 "$d/cc.err")"
			continue
		fi
		compare "$cfg exceptions" "$d" "$d/exceptions"
		compare "$cfg exceptions ending a thread or in a signal" "$d" "$d/exceptions_end"
		compare "$cfg throw out of noexcept: terminate as untraced" "$d" "$d/exceptions_end" x
	done
done

for seed in $seeds; do
	d=$OUT/$seed
	mkdir -p "$d"
	"$OUT/gen" "$seed" >"$d/prog.cc"
	for cxx in g++ clang++; do
		command -v "$cxx" >/dev/null || continue
		for opt in -O0 -O2; do
			cfg=$cxx$opt
			# shellcheck disable=SC2086 # the flags are a word list
			if ! $cxx $opt $cflags -o "$d/$cfg" "$d/prog.cc" 2>"$d/$cfg.cc.err"; then
				nok "seed $seed $cfg builds" "$(head -5 "$d/$cfg.cc.err")"
				continue
			fi
			{ "$d/$cfg" >"$d/$cfg.out" 2>&1; } 2>/dev/null
			want=$?
			tracers=function_graph
			[ "$cfg" = g++-O2 ] && tracers="function_graph function"
			for tr in $tracers; do
				{ (cd "$d" && timeout -k 5 120 "$U" record -p "$tr" -o "$cfg.$tr.dat" -- \
					"./$cfg" >"$cfg.$tr.out" 2>"$cfg.$tr.err"); } 2>/dev/null
				got=$?
				if [ "$got" = "$want" ] && cmp -s "$d/$cfg.out" "$d/$cfg.$tr.out"; then
					ok "seed $seed $cfg $tr: same output and status ($want)"
				else
					nok "seed $seed $cfg $tr: same output and status" \
						"untraced $want: $(head -2 "$d/$cfg.out")" \
						"traced $got: $(head -2 "$d/$cfg.$tr.out")" \
						"$(grep -v '^utrace record' "$d/$cfg.$tr.err" | head -3)"
					continue
				fi
				if "$U" report -i "$d/$cfg.$tr.dat" >/dev/null 2>"$d/$cfg.$tr.rep.err" &&
					! grep -q "switched off\|not on the shadow stack" "$d/$cfg.$tr.err"; then
					ok "seed $seed $cfg $tr: the recording reads back, tracing stayed on"
				else
					nok "seed $seed $cfg $tr: the recording reads back, tracing stayed on" \
						"$(head -3 "$d/$cfg.$tr.rep.err" "$d/$cfg.$tr.err")"
				fi
				rm -f "$d/$cfg.$tr.dat"
			done
		done
	done
done
finish
