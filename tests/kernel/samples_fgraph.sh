#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/samples_fgraph.sh BUILD_DIR - sampled call chains under the
# default tracer (function_graph), whose return trampoline stands in every
# traced frame's return address while the call runs: the report puts the
# callers back from the ENTRY records' return addresses
# (lib/tracefile/dat_samples_graph.c), as the kernel's unwinders do with
# ftrace_graph_ret_addr().
#
# tests/kernel/kchain.c built with `utrace cflags` (every function traced)
# is recorded with -F 999 -g under function_graph and under -p nop:
#   - --call-graph fp: report --samples -g, -g callee, --children -g and
#     --children -g callee are the same trees with and without the tracer,
#     and the same as perf report's on perf record -g of the same binary
#     (percentages and counts masked, entries under 1% left out); no
#     utrace_graph_return frame, no raw address
#   - --call-graph dwarf: -g and --children -g the same with and without
#     the tracer (libdwfl stopped at the trampoline before)
#   - the flame graph of the samples (dump --flame-graph --source samples)
#     names no trampoline: its stacks run from libc's caller of main
#   - two threads (tests/kernel/kspin2.c): start_thread;work1;spin and
#     start_thread;work2;spin, apart
# Sampling moves a branch near the 1% edge: up to three recordings are
# made, and only the last one's differences are reported.
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
CC=${CC:-cc}

# shellcheck disable=SC2046 # cflags are words
$CC -O0 -fno-omit-frame-pointer $("$U" cflags) -o "$T/kchain" "$ROOT/tests/kernel/kchain.c" || exit 1
if ! (cd "$T" && "$U" record -p nop -F 999 -e cpu-clock:u --call-graph fp -o probe.dat \
	-- ./kchain 1000 >/dev/null 2>rec.err); then
	grep -q "perf_event_open" "$T/rec.err" && unsupported "$(head -1 "$T/rec.err")"
	notok "record -F 999 --call-graph fp"
	sed 's/^/#   /' "$T/rec.err"
	exit 1
fi

norm() { # as samples_graph.sh: figures masked, entries under 1% gone,
	# and the columns' widths, which the entries left out still set (the
	# dots under the headers too: a rare long symbol widens them), and the
	# blank lines the entries left out leave
	grep -v '^# To display\|^# (Tip\|^#$' |
		awk 'NR == 1 { keep = 1 } /^ +[0-9]+\.[0-9]+% / { keep = $1 + 0 >= 1 }
			keep { print } /^$/ { keep = 1 }' |
		sed -E 's/ *[0-9]+\.[0-9]{2}%/ P%/g; s/^# Samples: .*/# Samples: N/;
			s/^# Event count .*/# Event count: N/;
			/^(# Overhead|# Children|# \.\.\.| P% )/ { s/ +/ /g; s/ $// }
			/^# \.\.\./ s/\.+/./g' | cat -s
}
views=("caller:-g" "callee:-g callee" "children:--children -g" "children-callee:--children -g callee")

# record MODE TRACER-ARGS NAME: one recording and its four views
record() {
	# shellcheck disable=SC2086 # the tracer's options are words
	(cd "$T" && "$U" record $2 -F 999 -e cpu-clock:u --call-graph "$1" -o "$3.dat" \
		-- ./kchain >/dev/null 2>"$3.err")
	for v in "${views[@]}"; do
		# shellcheck disable=SC2086 # opts are words
		"$U" report --samples ${v#*:} -i "$T/$3.dat" 2>>"$T/$3.err" | norm >"$T/$3-${v%%:*}.txt"
	done
}
same() { # same A B WHAT: "ok"/"notok" for each view A and B share
	local v bad=0
	for v in "${views[@]}"; do
		[ -s "$T/$1-${v%%:*}.txt" ] && [ -s "$T/$2-${v%%:*}.txt" ] || continue
		if cmp -s "$T/$1-${v%%:*}.txt" "$T/$2-${v%%:*}.txt"; then
			echo "ok $3: report --samples ${v#*:}"
		else
			bad=1
			echo "notok $3: report --samples ${v#*:}"
			diff "$T/$1-${v%%:*}.txt" "$T/$2-${v%%:*}.txt" | head -n 40 | sed 's/^/#   /'
		fi
	done
	return $bad
}
perf_views() {
	perf record -e cpu-clock:u -F 999 -g -o "$T/perf.data" "$T/kchain" >/dev/null 2>&1
	for v in "${views[@]}"; do
		opts=${v#*:}
		[[ $opts = *children* ]] || opts="--no-children $opts"
		# shellcheck disable=SC2086 # opts are words
		perf report --stdio -i "$T/perf.data" $opts 2>/dev/null | norm >"$T/perf-${v%%:*}.txt"
	done
}

for try in 1 2 3; do
	record fp "" fg
	record fp "-p nop" nop
	{
		same nop fg "fp: function_graph's trees are those without a tracer"
		if command -v perf >/dev/null; then
			perf_views
			same perf fg "fp: function_graph's trees are perf report's"
		fi
	} >"$T/fp.out"
	grep -q '^notok' "$T/fp.out" || break
done
sed -e 's/^ok /ok - /' -e 's/^notok /not ok - /' "$T/fp.out"
check "fp: no utrace_graph_return frame, no raw address in the trees" \
	test -z "$(grep -h 'utrace_graph_return\|--0x\|  0x[0-9a-f]' "$T"/fg-*.txt)"

views=("caller:-g" "children:--children -g")
for try in 1 2 3; do
	record dwarf "" fgd
	record dwarf "-p nop" nopd
	same nopd fgd "dwarf: function_graph's trees are those without a tracer" >"$T/dwarf.out" &&
		break
done
sed -e 's/^ok /ok - /' -e 's/^notok /not ok - /' "$T/dwarf.out"

"$U" dump --flame-graph --source samples -i "$T/fg.dat" >"$T/flame.out" 2>"$T/flame.err"
check "the samples' flame graph names no trampoline, main's callers and callees (exit $?)" \
	test -z "$(grep utrace_graph_return "$T/flame.out")" -a \
	-n "$(grep '^__libc_start_call_main;main;a;c;spin ' "$T/flame.out")"

# two threads: their chains stay apart (they merged into the trampoline's)
# shellcheck disable=SC2046 # cflags are words
$CC -O0 -fno-omit-frame-pointer -pthread $("$U" cflags) -o "$T/kspin2" "$ROOT/tests/kernel/kspin2.c" ||
	exit 1
(cd "$T" && "$U" record -F 999 -e cpu-clock:u --call-graph fp -o two.dat -- ./kspin2 >/dev/null \
	2>two.err)
"$U" dump --flame-graph --source samples -i "$T/two.dat" >"$T/two.out" 2>>"$T/two.err"
if [ -n "$(grep '^start_thread;work1;spin [0-9]*$' "$T/two.out")" ] &&
	[ -n "$(grep '^start_thread;work2;spin [0-9]*$' "$T/two.out")" ] &&
	[ -z "$(grep utrace_graph_return "$T/two.out")" ]; then
	ok "two threads: start_thread;work1;spin and start_thread;work2;spin, apart"
else
	notok "two threads: start_thread;work1;spin and start_thread;work2;spin, apart"
	sort -t' ' -k2 -rn "$T/two.out" | head -6 | sed 's/^/#   /'
	tail -2 "$T/two.err" | sed 's/^/#   /'
fi
