#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/diff/perf.sh BUILD_DIR - perf on the same binary (issue 22 item
# 6): tests/kernel/kburn.c (10/30/60% of its CPU time in burn10/30/60,
# not built for utrace) sampled at 3999 Hz (more samples, a closer
# margin) with call chains by `perf record -g` and by `utrace record -p
# nop -F 3999 --call-graph fp`:
#
#   - perf report --stdio --no-children --sort sym: each user function's
#     share is utrace report --samples --sort sym's, within 2 points or,
#     where two recordings' samples cannot be closer, 3.5 standard
#     deviations of their difference (the kernel's entries depend on how
#     the machine scheduled each run, not on the tool: left out)
#   - the call chains that end in burn10/30/60 (perf script's, folded, and
#     dump --flame-graph's), each of those with 2% of the samples or more:
#     the same chains
#
# (-p nop: s22a makes the chains under function_graph perf's; until
# then this tier compares them without a tracer.)
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
need_tool perf "perf is not installed (linux-perf)"
kburn || exit 1
N=${KBURN_N:-4000000}
HZ=3999
if ! (cd "$T" && perf record -F $HZ -g -o p.data -- ./kburn "$N" >/dev/null 2>perf.err); then
	unsupported "perf record cannot sample here: $(grep -v '^\[' "$T/perf.err" | head -1)"
fi
if ! (cd "$T" && "$U" record -p nop -F $HZ --call-graph fp -o s.dat -- ./kburn "$N" \
	>/dev/null 2>rec.err); then
	grep -q "perf_event_open" "$T/rec.err" && unsupported "$(head -1 "$T/rec.err")"
	notok "utrace record -p nop -F $HZ --call-graph fp"
	sed 's/^/#   /' "$T/rec.err"
	exit 1
fi

# shares: "sym pct", [.] and [k] alike
perf report -i "$T/p.data" --stdio --no-children --sort sym -g none 2>/dev/null >"$T/p.rep"
"$U" report --samples --sort sym -i "$T/s.dat" >"$T/u.rep" 2>&1
shares() { awk '$1 ~ /%$/ && $2 == "[.]" { sub(/%/, "", $1); print $3, $1 }' "$1" | sort; }
shares "$T/p.rep" >"$T/p.sh"
shares "$T/u.rep" >"$T/u.sh"
np=$(samples_n "$T/p.rep" $HZ)
nu=$(samples_n "$T/u.rep" $HZ)
check "both sampled kburn (perf ${np:-?} samples, utrace ${nu:-?})" test -n "$np" -a -n "$nu"
join -a1 -a2 -e 0 -o 0,1.2,2.2 "$T/p.sh" "$T/u.sh" >"$T/both"
awk -v np="${np:-1}" -v nu="${nu:-1}" '($2 >= 1 || $3 >= 1) {
	p = ($2 + $3) / 200; m = 350 * sqrt(p * (1 - p) * (1 / np + 1 / nu)); if (m < 2) m = 2
	d = $2 - $3; if (d < 0) d = -d
	printf "%s perf %.2f%% utrace %.2f%% (within %.1f): %s\n", $1, $2, $3, m, d <= m ? "ok" : "FAR" }' \
	"$T/both" >"$T/cmp"
while read -r line; do
	case $line in
	*": ok") ok "share of ${line%: ok}" ;;
	*) notok "share of ${line%: FAR}" ;;
	esac
done <"$T/cmp"
check "the burn functions are compared" grep -q "^burn60 " "$T/cmp"

# call chains ending in a burn function, callers first
perf script -i "$T/p.data" -F ip,sym 2>/dev/null | awk '
	NF == 0 { if (n) { s = f[n]; for (i = n - 1; i >= 1; i--) s = s ";" f[i]; c[s]++; t++ } n = 0; next }
	{ n++; f[n] = (NF >= 2 ? $2 : "[unknown]") }
	END { if (n) { s = f[n]; for (i = n - 1; i >= 1; i--) s = s ";" f[i]; c[s]++; t++ }
	      for (s in c) print s, c[s], t }' |
	awk '$1 ~ /(^|;)burn(10|30|60)$/ && $2 / $3 >= 0.02 { print $1 }' | sort >"$T/p.chains"
"$U" dump --flame-graph -i "$T/s.dat" >"$T/u.folded" 2>&1
awk '{ c[$1] += $2; t += $2 } END { for (s in c) print s, c[s], t }' "$T/u.folded" |
	awk '$1 ~ /(^|;)burn(10|30|60)$/ && $2 / $3 >= 0.02 { print $1 }' | sort >"$T/u.chains"
check "perf's chains into the burn functions ($(tr '\n' ' ' <"$T/p.chains"))" test -s "$T/p.chains"
same "utrace's sampled chains into the burn functions are perf's" "$T/p.chains" "$T/u.chains"
exit 0
