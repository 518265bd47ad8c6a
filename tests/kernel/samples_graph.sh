#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/samples_graph.sh BUILD_DIR - the call-graph views of
# utrace report --samples (-g [caller|callee], --children) on a recording
# of tests/kernel/kchain.c, whose chains have known shares:
#
#   - the four views (-g, which is -g caller; -g callee; --children -g;
#     --children -g callee) against golden files in tests/kernel/golden/samples-graph-*.txt,
#     character for character but for the percentages and counts (masked),
#     and entries under 1% (a stray sample in the dynamic loader)
#   - the same four views against perf report --stdio on perf record -g of
#     the same program, masked alike, when perf is installed
#   - -g on samples without call chains, and a bad -g order: one line, exit 1
#
# The outermost frame is libc's static __libc_start_call_main, named from
# libc6-dbg's separate debug file as perf names it; without that package
# the golden files cannot match and the script says UNSUPPORTED.
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
CC=${CC:-cc}
G=$ROOT/tests/kernel/golden

$CC -O0 -fno-omit-frame-pointer -o "$T/kchain" "$ROOT/tests/kernel/kchain.c" || exit 1
if ! (cd "$T" && "$U" record -p nop -F 999 -e cpu-clock:u --call-graph fp -o g.dat -- ./kchain >/dev/null \
	2>rec.err); then
	grep -q "perf_event_open" "$T/rec.err" && unsupported "$(head -1 "$T/rec.err")"
	notok "record -F 999 --call-graph fp"
	sed 's/^/#   /' "$T/rec.err"
	exit 1
fi

# What varies from run to run masked: percentages, counts, entries under
# 1% (a block ends at its blank line); perf's lines of its own (the header hint, the tip, lone '#') gone.
norm() {
	grep -v '^# To display\|^# (Tip\|^#$' |
		awk 'NR == 1 { keep = 1 } /^ +[0-9]+\.[0-9]+% / { keep = $1 + 0 >= 1 }
			keep { print } /^$/ { keep = 1 }' |
		sed -E 's/ *[0-9]+\.[0-9]{2}%/ P%/g; s/^# Samples: .*/# Samples: N/;
			s/^# Event count .*/# Event count: N/'
}
views=("caller:-g" "callee:-g callee" "children:--children -g" "children-callee:--children -g callee")
for v in "${views[@]}"; do
	name=${v%%:*} opts=${v#*:}
	# shellcheck disable=SC2086 # opts are words
	"$U" report --samples $opts -i "$T/g.dat" 2>"$T/$name.err" >"$T/$name.raw"
	norm <"$T/$name.raw" >"$T/$name.txt"
done

# the figures the masks hide: each branch's share of all samples, each
# function's Children, what kchain.c spends within the binomial margin of
# the sample count (lib.sh near_share); main's 100% is no statistic
branch() { # branch FILE FUNC: the first --N%--FUNC of the file
	grep -o -- "--[0-9.]*%--$2\$" "$1" | head -1 | tr -d -- '-%' | sed "s/$2\$//"
}
children() { # children FILE FUNC: the Children column of FUNC's entry
	awk -v f="[.] $2" 'index($0, f) && $1 ~ /%$/ { sub(/%/, "", $1); print $1; exit }' "$1"
}
n=$(samples_n "$T/caller.raw")
for want in a:50 b:35 e:15; do
	got=$(branch "$T/caller.raw" "${want%:*}")
	check "-g caller: main calls ${want%:*} for ${want#*:}% (got ${got:-none}% of $n)" \
		near_share "${want#*:}" "$got" "$n"
done
for want in c:60 d:25; do
	got=$(branch "$T/callee.raw" "${want%:*}")
	check "-g callee: spin is called by ${want%:*} for ${want#*:}% (got ${got:-none}% of $n)" \
		near_share "${want#*:}" "$got" "$n"
done
got=$(children "$T/children.raw" main)
check "--children: main has 100% (got ${got:-none}%)" near 100 "$got"
for want in c:60 a:50 b:35; do
	got=$(children "$T/children.raw" "${want%:*}")
	check "--children: ${want%:*} has ${want#*:}% (got ${got:-none}% of $n)" \
		near_share "${want#*:}" "$got" "$n"
done
grep -q __libc_start_call_main "$T/callee.txt" ||
	unsupported "libc's frames have no names here (install libc6-dbg)"
# The trees' shape (which branches reach the 1% shown) is a sample of a
# few thousand: on a busy machine a branch near the edge can come or go.
# A run whose trees all match is the test; up to three runs are made, and
# only the last one's differences are reported (a layout bug fails all).
compare_trees() { # -> $T/cmp.out: "ok"/"notok" lines; status 0 if all matched
	: >"$T/cmp.out"
	local bad=0
	for v in "${views[@]}"; do
		name=${v%%:*} opts=${v#*:}
		if cmp -s "$G/samples-graph-$name.txt" "$T/$name.txt"; then
			echo "ok report --samples $opts: the golden tree" >>"$T/cmp.out"
		else
			bad=1
			{ echo "notok report --samples $opts: the golden tree"
			  diff "$G/samples-graph-$name.txt" "$T/$name.txt" | sed 's/^/#   /'; } >>"$T/cmp.out"
		fi
	done
	command -v perf >/dev/null || return $bad
	perf record -e cpu-clock:u -F 999 -g -o "$T/perf.data" "$T/kchain" >/dev/null 2>&1
	for v in "${views[@]}"; do
		name=${v%%:*} opts=${v#*:}
		[[ $opts = *children* ]] || opts="--no-children $opts"
		# shellcheck disable=SC2086 # opts are words
		perf report --stdio -i "$T/perf.data" $opts 2>/dev/null | norm >"$T/perf-$name.txt"
		if cmp -s "$T/perf-$name.txt" "$T/$name.txt"; then
			echo "ok report --samples ${v#*:}: perf report $opts's layout" >>"$T/cmp.out"
		else
			bad=1
			{ echo "notok report --samples ${v#*:}: perf report $opts's layout"
			  diff "$T/perf-$name.txt" "$T/$name.txt" | sed 's/^/#   /'; } >>"$T/cmp.out"
		fi
	done
	return $bad
}
for try in 1 2 3; do
	compare_trees && break
	[ "$try" = 3 ] && break
	(cd "$T" && "$U" record -p nop -F 999 -e cpu-clock:u --call-graph fp -o g.dat -- ./kchain >/dev/null 2>&1)
	for v in "${views[@]}"; do
		name=${v%%:*} opts=${v#*:}
		# shellcheck disable=SC2086 # opts are words
		"$U" report --samples $opts -i "$T/g.dat" 2>"$T/$name.err" | norm >"$T/$name.txt"
	done
done
sed -e 's/^ok /ok - /' -e 's/^notok /not ok - /' "$T/cmp.out"

(cd "$T" && "$U" record -p nop -F 999 -e cpu-clock:u -o flat.dat -- ./kchain 100000 >/dev/null 2>&1)
"$U" report --samples -g -i "$T/flat.dat" >"$T/flat.out" 2>"$T/flat.err"
rc=$?
check "-g without call chains: exit 1, one line saying so ($(head -1 "$T/flat.err"))" \
	test "$rc" -eq 1 -a "$(wc -l <"$T/flat.err")" -eq 1 -a ! -s "$T/flat.out" -a \
	-n "$(grep 'no call chains' "$T/flat.err")"
"$U" report --samples -gupward -i "$T/g.dat" >"$T/bad.out" 2>&1
rc=$?
check "-g with an unknown order: exit 2, a usage error ($(head -1 "$T/bad.out"))" \
	test "$rc" -eq 2 -a -n "$(grep 'caller or callee' "$T/bad.out")"
"$U" report -g -i "$T/g.dat" >"$T/nos.out" 2>&1
check "-g without --samples is refused" grep -q "options of --samples" "$T/nos.out"
# perf's spelling: record -F HZ -g (a -g another option follows) is --call-graph fp
(cd "$T" && "$U" record -p nop -F 999 -g -e cpu-clock:u -o pg.dat -- ./kchain >/dev/null 2>&1)
"$U" report --samples -g caller -i "$T/pg.dat" >"$T/pg.out" 2>&1
check "record -F 999 -g: samples with their call chains (report -g has a tree)" \
	grep -q -- '---' "$T/pg.out"
exit 0
